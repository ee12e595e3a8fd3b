# source: https://github.com/hugoycj/NeuralBaker/pull/1
# seen: 2026-11-27
# style: PyTorch Lightning NeRF system module (systems/nerf.py in the instant-nsr-pl mould): a LightningDataModule-less dataset object holding all_images / all_c2w / directions as CPU tensors, a NeRFSystem(pl.LightningModule) whose preprocess_data samples random rays for training and, for validation, takes batch['index'] and slices the dataset's tensors with it, training_step / validation_step, and a small main() with a Trainer on one GPU
# expect: DL011 at 83, 86
# why: Lightning moves every batch to the module's device, so the validation batch's 'index' is a cuda tensor; preprocess_data indexes the dataset's CPU tensors (all_c2w, all_images) with it -> "indices should be either on cpu or on the same device as the indexed tensor (cpu)" in the first validation loop ("Training crashes during validation loop as dataset.all_images are on cpu, while index is on cuda"); the PR moves the index to the images' device first
import argparse
import os

import imageio.v2 as imageio
import numpy as np
import pytorch_lightning as pl
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from models import NeRFModel


def get_ray_directions(W, H, focal):
    i, j = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32), indexing="xy")
    dirs = np.stack([(i - W / 2) / focal, -(j - H / 2) / focal, -np.ones_like(i)], -1)
    return torch.from_numpy(dirs)


def get_rays(directions, c2w):
    rays_d = (directions[..., None, :] * c2w[..., :3, :3]).sum(-1)
    rays_o = c2w[..., :3, 3].expand(rays_d.shape)
    return rays_o, rays_d


class BlenderScene:
    def __init__(self, root, split, img_wh=(800, 800)):
        self.w, self.h = img_wh
        meta = np.load(os.path.join(root, f"transforms_{split}.npz"))
        self.focal = float(meta["focal"])
        self.directions = get_ray_directions(self.w, self.h, self.focal)
        images, poses = [], []
        for name, pose in zip(meta["files"], meta["poses"]):
            img = imageio.imread(os.path.join(root, str(name))).astype(np.float32) / 255.0
            images.append(torch.from_numpy(img[..., :3]))
            poses.append(torch.from_numpy(pose[:3, :4].astype(np.float32)))
        self.all_images = torch.stack(images, dim=0).float()
        self.all_c2w = torch.stack(poses, dim=0).float()


class IndexDataset(Dataset):
    def __init__(self, scene):
        self.scene = scene

    def __len__(self):
        return len(self.scene.all_images)

    def __getitem__(self, index):
        return {"index": index}


class NeRFSystem(pl.LightningModule):
    def __init__(self, config, train_scene, val_scene):
        super().__init__()
        self.config = config
        self.model = NeRFModel(config)
        self.train_scene = train_scene
        self.val_scene = val_scene
        self.train_num_rays = config["train_num_rays"]

    def forward(self, batch):
        return self.model(batch["rays"])

    def preprocess_data(self, batch, stage):
        dataset = self.train_scene if stage == "train" else self.val_scene
        if "index" in batch:  # validation / testing
            index = batch["index"]
        else:
            index = torch.randint(0, len(dataset.all_images), size=(self.train_num_rays,))
        if stage == "train":
            c2w = dataset.all_c2w[index]
            x = torch.randint(0, dataset.w, size=(self.train_num_rays,))
            y = torch.randint(0, dataset.h, size=(self.train_num_rays,))
            directions = dataset.directions[y, x]
            rays_o, rays_d = get_rays(directions, c2w)
            rgb = dataset.all_images[index, y, x].view(-1, dataset.all_images.shape[-1])
        else:
            c2w = dataset.all_c2w[index][0]
            directions = dataset.directions
            rays_o, rays_d = get_rays(directions, c2w)
            rgb = dataset.all_images[index].view(-1, dataset.all_images.shape[-1])
        rays = torch.cat([rays_o, F.normalize(rays_d, p=2, dim=-1)], dim=-1)
        batch.update({"rays": rays.to(self.device), "rgb": rgb.to(self.device)})

    def training_step(self, batch, batch_idx):
        self.preprocess_data(batch, "train")
        out = self(batch)
        loss = F.mse_loss(out["comp_rgb"], batch["rgb"])
        self.log("train/loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        self.preprocess_data(batch, "validation")
        out = self(batch)
        mse = F.mse_loss(out["comp_rgb"], batch["rgb"])
        psnr = -10.0 * torch.log10(mse)
        self.log("val/psnr", psnr, prog_bar=True)
        return psnr

    def configure_optimizers(self):
        return torch.optim.Adam(self.model.parameters(), lr=self.config["lr"])

    def train_dataloader(self):
        return DataLoader(IndexDataset(self.train_scene), batch_size=1, shuffle=True)

    def val_dataloader(self):
        return DataLoader(IndexDataset(self.val_scene), batch_size=1, shuffle=False)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="load/nerf_synthetic/lego")
    parser.add_argument("--max-steps", type=int, default=20000)
    parser.add_argument("--train-num-rays", type=int, default=256)
    args = parser.parse_args()
    config = {"train_num_rays": args.train_num_rays, "lr": 1e-2, "radius": 1.5}
    system = NeRFSystem(config, BlenderScene(args.root, "train"), BlenderScene(args.root, "val"))
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_steps=args.max_steps, val_check_interval=1000)
    trainer.fit(system)


if __name__ == "__main__":
    main()
