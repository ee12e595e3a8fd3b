# source: https://github.com/sunsmarterjie/SDL-Skeleton/issues/9
# seen: 2026-11-26
# style: two-file project: train_AdaLSN.py (argparse at module level, __main__ sets the default tensor type to CUDA, builds the dataset and a shuffling DataLoader, hands them to train_model) and engines/trainer_AdaLSN.py (a Trainer class that draws batches with next(iter(loader)))
# expect: DL019 at 55
# also-ok: DL007 at 43, 52, engines/trainer_AdaLSN.py:37
# why: after torch.set_default_tensor_type('torch.cuda.FloatTensor') the shuffling DataLoader's RandomSampler draws its permutation with a CPU generator under a CUDA default: "Expected a 'cuda' device type for generator but found 'cpu'" at next(dataiter)
import argparse
import os

import torch
from torch import optim
from torch.utils.data import DataLoader

from Ada_LSN.genotypes import geno_inception as geno
from Ada_LSN.model import Network
from Ada_LSN.utils import count_parameters_in_MB
from datasets.sklarge_RN import TrainDataset
from engines.trainer_AdaLSN import Trainer, logging

parser = argparse.ArgumentParser(description='TRAIN SKLARGE')
parser.add_argument('--data1', default='./SKLARGE/', type=str)
parser.add_argument('--data2', default='./SKLARGE/train_pairRN60_255_s_all.lst', type=str)
parser.add_argument('--gpu_id', default=0, type=int)
parser.add_argument('--C', default=64, type=int)
parser.add_argument('--numu_layers', default=5, type=int)
parser.add_argument('--u_layers', default=[0, 1, 2, 3], type=list)
parser.add_argument('--lr', default=1e-6, type=float)
parser.add_argument('--lr_step', default=70000, type=int)
parser.add_argument('--lr_gamma', default=0.1, type=float)
parser.add_argument('--weight_decay', default=0.0002, type=float)
parser.add_argument('--iter_size', default=10, type=int)
parser.add_argument('--max_step', default=80000, type=int)
parser.add_argument('--disp_interval', default=100, type=int)
parser.add_argument('--resume_iter', default=0, type=int)
parser.add_argument('--save_interval', default=1000, type=int)
args = parser.parse_args()

os.environ['CUDA_VISIBLE_DEVICES'] = '0'


def train_model(g, dataloader, args):
    net = Network(args.C, args.numu_layers, args.u_layers, g,
                  pretrained_model='./pretrained_model/inceptionV3.pth').cuda(args.gpu_id)
    logging.info('params:%.3fM' % count_parameters_in_MB(net))
    lr = args.lr / args.iter_size
    optimizer = optim.Adam(net.parameter(args.lr), lr=lr, betas=(0.9, 0.999), weight_decay=args.weight_decay)
    trainer = Trainer(net, optimizer, dataloader, args)
    return trainer.train()


if __name__ == '__main__':
    torch.set_default_tensor_type('torch.cuda.FloatTensor')
    torch.cuda.set_device(args.gpu_id)
    dataset = TrainDataset(args.data2, args.data1)
    dataloader = DataLoader(dataset, shuffle=True)
    train_model(geno, dataloader, args)
