# source: https://github.com/NVIDIA/apex/issues/200
# seen: 2026-11-26
# style: distributed ImageNet-style training script launched with mpirun, apex amp + apex DDP, argparse
# expect: DL020 at 34, 38
# why: the process group is initialised and the model moved with .cuda() but no rank ever calls torch.cuda.set_device(local_rank): every process allocates on GPU 0 ("Memory used on GPU0 is much more than others")
# also-ok: DL007 at 38, 42, 56
import argparse
import os
import time

import torch
import torch.nn as nn
import torch.distributed as dist
import torchvision.datasets as datasets
import torchvision.models as models
import torchvision.transforms as transforms
from apex import amp
from apex.parallel import DistributedDataParallel as DDP

parser = argparse.ArgumentParser(description='PyTorch ImageNet Training')
parser.add_argument('data', metavar='DIR', help='path to dataset')
parser.add_argument('--arch', default='resnet50')
parser.add_argument('--epochs', default=90, type=int)
parser.add_argument('-b', '--batch-size', default=64, type=int)
parser.add_argument('--lr', default=0.1, type=float)
parser.add_argument('--opt-level', type=str, default='O1')
parser.add_argument('--workers', default=4, type=int)
args = parser.parse_args()


def main():
    world_size = int(os.environ['OMPI_COMM_WORLD_SIZE'])
    rank = int(os.environ['OMPI_COMM_WORLD_RANK'])
    dist.init_process_group(backend='nccl', init_method='tcp://127.0.0.1:23456',
                            world_size=world_size, rank=rank)

    model = models.__dict__[args.arch]()
    model = model.cuda()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9, weight_decay=1e-4)
    model, optimizer = amp.initialize(model, optimizer, opt_level=args.opt_level)
    model = DDP(model, delay_allreduce=True)
    criterion = nn.CrossEntropyLoss().cuda()

    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    train_dataset = datasets.ImageFolder(os.path.join(args.data, 'train'), transforms.Compose([
        transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(), normalize]))
    train_sampler = torch.utils.data.distributed.DistributedSampler(train_dataset)
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=args.batch_size, shuffle=False,
                                               num_workers=args.workers, pin_memory=True, sampler=train_sampler)

    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        end = time.time()
        for i, (input, target) in enumerate(train_loader):
            input = input.cuda(non_blocking=True)
            target = target.cuda(non_blocking=True)
            output = model(input)
            loss = criterion(output, target)
            optimizer.zero_grad()
            with amp.scale_loss(loss, optimizer) as scaled_loss:
                scaled_loss.backward()
            optimizer.step()
            if i % 100 == 0 and rank == 0:
                print(epoch, i, loss.item(), time.time() - end)
            end = time.time()


if __name__ == '__main__':
    main()
