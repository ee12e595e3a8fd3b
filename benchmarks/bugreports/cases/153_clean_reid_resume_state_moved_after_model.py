# source: https://github.com/michuanhaohao/reid-strong-baseline/issues/114 (the fix posted in the thread)
# seen: 2026-11-27
# style: re-ID training entry point with the resume fix from the thread: build model and optimizer, load both state dicts on a resume, move the model to the device (DataParallel when several GPUs), then move every tensor of optimizer.state to the device, and train with a plain loop
# clean: no expectation; the optimizer state is loaded before the move, but every state tensor is moved to the device right after model.to(device), which is the fix the thread gives for "Expected all tensors to be on the same device" on resume
# also-ok: DL009 at 24, 25
# also-ok: DL012 at 41
# also-ok: DL013 at 62
# also-ok: DL014 at 55, 56
import argparse
import os

import torch
import torch.nn as nn

from config import cfg
from data import make_data_loader
from layers import make_loss
from modeling import build_model
from solver import WarmupMultiStepLR, make_optimizer


def resume(model, optimizer, path_to_model):
    path_to_optimizer = path_to_model.replace('model', 'optimizer')
    model.load_state_dict(torch.load(path_to_model))
    optimizer.load_state_dict(torch.load(path_to_optimizer))
    return int(path_to_model.split('/')[-1].split('.')[0].split('_')[-1])


def train(cfg):
    device = torch.device(cfg.MODEL.DEVICE)
    train_loader, val_loader, num_query, num_classes = make_data_loader(cfg)
    model = build_model(cfg, num_classes)
    optimizer = make_optimizer(cfg, model)
    loss_fn = make_loss(cfg, num_classes)

    start_epoch = 0
    if cfg.MODEL.PRETRAIN_CHOICE == 'self':
        start_epoch = resume(model, optimizer, cfg.MODEL.PRETRAIN_PATH)

    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    model.to(device)
    for state in optimizer.state.values():
        for k, v in state.items():
            if isinstance(v, torch.Tensor):
                state[k] = v.to(device)

    scheduler = WarmupMultiStepLR(optimizer, cfg.SOLVER.STEPS, cfg.SOLVER.GAMMA, cfg.SOLVER.WARMUP_FACTOR,
                                  cfg.SOLVER.WARMUP_ITERS, cfg.SOLVER.WARMUP_METHOD)

    for epoch in range(start_epoch, cfg.SOLVER.MAX_EPOCHS):
        model.train()
        running = 0.0
        for img, target in train_loader:
            img = img.to(device)
            target = target.to(device)
            score, feat = model(img)
            loss = loss_fn(score, feat, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item()
        scheduler.step()
        print('epoch {}: loss {:.4f}'.format(epoch, running / len(train_loader)))
        torch.save(model.state_dict(), os.path.join(cfg.OUTPUT_DIR, 'model_{}.pth'.format(epoch)))
        torch.save(optimizer.state_dict(), os.path.join(cfg.OUTPUT_DIR, 'optimizer_{}.pth'.format(epoch)))


def main():
    parser = argparse.ArgumentParser(description="ReID Baseline Training")
    parser.add_argument("--config_file", default="", type=str)
    parser.add_argument("opts", default=None, nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.config_file != "":
        cfg.merge_from_file(args.config_file)
    cfg.merge_from_list(args.opts)
    cfg.freeze()
    train(cfg)


if __name__ == '__main__':
    main()
