# source: https://github.com/yyvhang/IAGNet/issues/4
# seen: 2026-11-26
# style: research training script (train.py): argparse in __main__, a yaml config read into a dict, main(opt, dict) with a logger, model from a factory in model/, a --resume branch that restores model and optimizer, the model moved to the device after it, tuple batches moved under `if opt.use_gpu`
# expect: DL018 at 62, 67
# why: with --resume the optimizer state is loaded while the model is still on the CPU (the state is cast to the CPU parameters); `model = model.to(device)` comes after, so the first optimizer.step() mixes cuda:0 and cpu; the maintainer's answer is to move the model before loading
import argparse
import logging
import os
import random

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

from data_utils.dataset_PIAD import PIAD
from model.IAGNet import get_IAGNet
from utils.loss import HM_Loss, kl_div


def read_yaml(path):
    file = open(path, 'r', encoding='utf-8')
    string = file.read()
    dict = yaml.safe_load(string)
    return dict


def main(opt, dict):
    if opt.use_gpu:
        device = torch.device("cuda:0")
    else:
        device = torch.device("cpu")
    save_path = opt.save_dir + opt.name
    if not os.path.exists(save_path):
        os.makedirs(save_path)

    loger = logging.getLogger('Training')
    loger.setLevel(logging.INFO)
    logging.basicConfig(filename=opt.save_dir + opt.name + '/' + opt.log_name, level=logging.INFO)

    def log_string(str):
        loger.info(str)
        print(str)

    train_dataset = PIAD('train', dict['Setting'], dict['point_train'], dict['img_train'], dict['box_train'], dict['pairing_num'])
    train_loader = DataLoader(train_dataset, batch_size=dict['batch_size'], num_workers=8, shuffle=True, drop_last=True)
    log_string(f'train data loading finish, loading data files:{len(train_dataset)}')

    model = get_IAGNet(img_model_path=dict['res18_pre'], N_p=dict['N_p'], emb_dim=dict['emb_dim'],
                       proj_dim=dict['proj_dim'], num_heads=dict['num_heads'], N_raw=dict['N_raw'],
                       num_affordance=dict['num_affordance'])

    criterion_hm = HM_Loss()
    criterion_ce = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=dict['lr'], betas=(0.9, 0.999), eps=1e-8, weight_decay=opt.decay_rate)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=dict['Epoch'], eta_min=1e-6)

    if opt.resume:
        model_checkpoint = torch.load(opt.checkpoint_path, map_location='cuda:0')
        model.load_state_dict(model_checkpoint['model'])
        optimizer.load_state_dict(model_checkpoint['optimizer'])
        start_epoch = model_checkpoint['Epoch']
    else:
        start_epoch = -1

    model = model.to(device)
    criterion_hm = criterion_hm.to(device)
    criterion_ce = criterion_ce.to(device)

    for epoch in range(start_epoch + 1, dict['Epoch']):
        log_string(f'Epoch:{epoch} strat-------')
        num_batches = len(train_loader)
        loss_sum = 0
        model = model.train()
        for i, (img, points, labels, logits_labels, sub_box, obj_box) in enumerate(train_loader):
            optimizer.zero_grad()
            temp_loss = 0
            for point, label, logits_label in zip(points, labels, logits_labels):
                point, label = point.float(), label.float()
                label = label.unsqueeze(dim=-1)
                if opt.use_gpu:
                    img = img.to(device)
                    point = point.to(device)
                    label = label.to(device)
                    logits_label = logits_label.to(device)
                    sub_box = sub_box.to(device)
                    obj_box = obj_box.to(device)
                _3d, logits, to_KL = model(img, point, sub_box, obj_box)
                loss_hm = criterion_hm(_3d, label)
                loss_ce = criterion_ce(logits, logits_label)
                loss_kl = kl_div(to_KL[0], to_KL[1])
                temp_loss += loss_hm + opt.loss_cls * loss_ce + opt.loss_kl * loss_kl
            print(f'Epoch:{epoch} | iteration:{i} | loss:{temp_loss.item()}')
            temp_loss.backward()
            optimizer.step()
            loss_sum += temp_loss.item()
        mean_loss = loss_sum / (num_batches * dict['pairing_num'])
        log_string(f'Epoch:{epoch} | mean_loss:{mean_loss}')
        if opt.storage:
            checkpoint = {'model': model.state_dict(), 'optimizer': optimizer.state_dict(), 'Epoch': epoch}
            torch.save(checkpoint, save_path + '/Epoch_' + str(epoch + 1) + '.pt')
        scheduler.step()


def seed_torch(seed=42):
    random.seed(seed)
    os.environ['PYTHONHASHSEED'] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--gpu', type=str, default='cuda:0', help='gpu device id')
    parser.add_argument('--decay_rate', type=float, default=1e-3, help='weight decay [default: 1e-3]')
    parser.add_argument('--use_gpu', type=str, default=True, help='whether or not use gpus')
    parser.add_argument('--save_dir', type=str, default='runs/train/', help='path to save .pt model while training')
    parser.add_argument('--name', type=str, default='IAG', help='training name to classify each training process')
    parser.add_argument('--resume', type=str, default=False, help='start training from previous epoch')
    parser.add_argument('--checkpoint_path', type=str, default='runs/train/IAG/best.pt', help='checkpoint path')
    parser.add_argument('--log_name', type=str, default='train.log', help='the name of current training')
    parser.add_argument('--loss_cls', type=float, default=0.3, help='cls loss scale')
    parser.add_argument('--loss_kl', type=float, default=0.5, help='kl loss scale')
    parser.add_argument('--storage', type=bool, default=False, help='whether to storage the model during training')
    parser.add_argument('--yaml', type=str, default='config/config_seen.yaml', help='yaml path')
    opt = parser.parse_args()
    seed_torch(seed=42)
    dict = read_yaml(opt.yaml)
    main(opt, dict)
