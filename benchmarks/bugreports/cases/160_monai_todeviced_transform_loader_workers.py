# source: https://github.com/Project-MONAI/MONAI/issues/2864
# seen: 2026-11-27
# style: MONAI 3D segmentation training script (spleen tutorial shape): argparse, image/label file dicts, a train transform chain of LoadImaged / EnsureChannelFirstd / Spacingd / ScaleIntensityRanged / CropForegroundd / RandCropByPosNegLabeld ending in ToDeviced(keys=["image", "label"], device=...), a Dataset and a DataLoader with worker processes, a UNet moved to the device, DiceLoss and an Adam loop
# expect: DL017 at 54, 37
# also-ok: DL013 at 71
# also-ok: DL007 at 48
# why: ToDeviced moves each sample to cuda inside __getitem__'s transform chain, which runs in the loader's forked worker processes -> "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method" (the issue: "It seems ToDeviced cannot work when num_workers > 1"; the maintainers documented it: use it with num_workers=0 or ThreadDataLoader)
import argparse
import glob
import os

import torch
from monai.data import DataLoader, Dataset
from monai.losses import DiceLoss
from monai.networks.nets import UNet
from monai.transforms import (
    Compose,
    CropForegroundd,
    EnsureChannelFirstd,
    LoadImaged,
    RandCropByPosNegLabeld,
    ScaleIntensityRanged,
    Spacingd,
    ToDeviced,
)


def build_transforms(device):
    return Compose([
        LoadImaged(keys=["image", "label"]),
        EnsureChannelFirstd(keys=["image", "label"]),
        Spacingd(keys=["image", "label"], pixdim=(1.5, 1.5, 2.0), mode=("bilinear", "nearest")),
        ScaleIntensityRanged(keys=["image"], a_min=-57, a_max=164, b_min=0.0, b_max=1.0, clip=True),
        CropForegroundd(keys=["image", "label"], source_key="image"),
        RandCropByPosNegLabeld(keys=["image", "label"], label_key="label", spatial_size=(96, 96, 96),
                               pos=1, neg=1, num_samples=4, image_key="image", image_threshold=0),
        ToDeviced(keys=["image", "label"], device=device),
    ])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default="data/Task09_Spleen")
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()

    device = torch.device("cuda:0")
    images = sorted(glob.glob(os.path.join(args.data_dir, "imagesTr", "*.nii.gz")))
    labels = sorted(glob.glob(os.path.join(args.data_dir, "labelsTr", "*.nii.gz")))
    files = [{"image": image, "label": label} for image, label in zip(images, labels)]

    train_ds = Dataset(data=files[:-9], transform=build_transforms(device))
    train_loader = DataLoader(train_ds, batch_size=2, shuffle=True, num_workers=args.workers)

    model = UNet(spatial_dims=3, in_channels=1, out_channels=2, channels=(16, 32, 64, 128, 256),
                 strides=(2, 2, 2, 2), num_res_units=2).to(device)
    loss_function = DiceLoss(to_onehot_y=True, softmax=True)
    optimizer = torch.optim.Adam(model.parameters(), 1e-4)

    for epoch in range(args.epochs):
        model.train()
        epoch_loss = 0.0
        for step, batch_data in enumerate(train_loader, start=1):
            inputs, labels_ = batch_data["image"], batch_data["label"]
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = loss_function(outputs, labels_)
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item()
        print(f"epoch {epoch + 1} average loss: {epoch_loss / step:.4f}")


if __name__ == "__main__":
    main()
