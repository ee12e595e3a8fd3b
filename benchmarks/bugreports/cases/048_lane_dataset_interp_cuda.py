# source: https://github.com/cfzd/Ultra-Fast-Lane-Detection-v2/issues/160
# seen: 2026-11-26
# style: repo-style dataset module plus train script with cfg object; __getitem__ calls a CUDA-only helper after data.cuda()
# expect: DL017 at 45, 56
# why: my_interp needs CUDA tensors, so __getitem__ does data.cuda(); the loader runs it in worker processes (num_workers=cfg.num_workers) -> "Cannot re-initialize CUDA in forked subprocess"
# also-ok: DL007 at 45, 63
# also-ok: DL014 at 63
# also-ok: DL004 at 63
import os

import cv2
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms

from utils.common import get_model, merge_config
from utils.loss import SoftmaxFocalLoss
from my_interp import run as my_interp


class MyLaneDataset(Dataset):
    def __init__(self, root, list_path, num_lanes=4, griding_num=100, row_anchor=None):
        super().__init__()
        self.root = root
        self.num_lanes = num_lanes
        self.griding_num = griding_num
        self.row_anchor = row_anchor
        with open(list_path) as f:
            self.samples = [line.strip().split() for line in f]
        self.img_transform = transforms.Compose([
            transforms.ToPILImage(),
            transforms.Resize((320, 800)),
            transforms.ToTensor(),
            transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
        ])

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, index):
        img_name, points_name = self.samples[index]
        img = cv2.imread(os.path.join(self.root, img_name))[:, :, ::-1]
        points = np.load(os.path.join(self.root, points_name)).astype(np.float32)
        data = torch.from_numpy(points).cuda()
        interp = my_interp(data, 300, 0)
        label = interp[:, :, 1].long()
        return self.img_transform(img.copy()), label


def main():
    args, cfg = merge_config()
    net = get_model(cfg)
    train_dataset = MyLaneDataset(cfg.data_root, os.path.join(cfg.data_root, "train_gt.txt"),
                                  num_lanes=cfg.num_lanes, griding_num=cfg.griding_num)
    train_loader = DataLoader(train_dataset, batch_size=cfg.batch_size, shuffle=True,
                              num_workers=cfg.num_workers, drop_last=True)
    optimizer = torch.optim.SGD(net.parameters(), lr=cfg.learning_rate, momentum=0.9, weight_decay=1e-4)
    loss_fn = SoftmaxFocalLoss(2)
    for epoch in range(cfg.epoch):
        net.train()
        for b_idx, (imgs, labels) in enumerate(train_loader):
            imgs, labels = imgs.cuda(), labels.cuda()
            out = net(imgs)
            loss = loss_fn(out["loc_row"], labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if b_idx % 20 == 0:
                print(epoch, b_idx, float(loss))


if __name__ == "__main__":
    main()
