# source: https://github.com/pytorch/pytorch/issues/61704
# seen: 2026-11-27
# style: detection fine-tuning script (the commenter's "main code for training"): a two-class box dataset class returning (image, target dict), a collate_fn, fasterrcnn_resnet50_fpn_v2 built with .to(device) first, then its box predictor swapped for a new FastRCNNPredictor, SGD over the trainable parameters and a train_one_epoch loop that moves the image list and every target tensor
# expect: DL001 at 74, 94
# also-ok: DL014 at 91, 92
# also-ok: DL013 at 101
# why: the model is moved to the device before model.roi_heads.box_predictor is replaced; the new FastRCNNPredictor is built on the CPU and nothing moves it, so the first forward (images and targets on cuda) fails in the predictor's Linear -> "Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! (when checking argument for argument mat1 in method wrapper_addmm)"; fix: replace the head first, then model.to(device)
import argparse
import json
import os

import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision.models.detection import fasterrcnn_resnet50_fpn_v2
from torchvision.models.detection.faster_rcnn import FastRCNNPredictor
from torchvision.transforms import functional as TF


class BoxDataset(Dataset):
    """Images in root/images, one JSON per image in root/labels with [[x1, y1, x2, y2], ...]."""

    def __init__(self, root, train=True):
        self.root = root
        self.train = train
        self.names = sorted(os.listdir(os.path.join(root, "images")))

    def __len__(self):
        return len(self.names)

    def __getitem__(self, idx):
        name = self.names[idx]
        image = Image.open(os.path.join(self.root, "images", name)).convert("RGB")
        with open(os.path.join(self.root, "labels", os.path.splitext(name)[0] + ".json")) as f:
            boxes = json.load(f)["boxes"]
        boxes = torch.as_tensor(boxes, dtype=torch.float32)
        labels = torch.ones((boxes.shape[0],), dtype=torch.int64)
        image = TF.to_tensor(image)
        if self.train and torch.rand(1).item() < 0.5:
            image = image.flip(-1)
            width = image.shape[-1]
            boxes[:, [0, 2]] = width - boxes[:, [2, 0]]
        target = {"boxes": boxes, "labels": labels, "image_id": torch.tensor([idx])}
        return image, target


def collate_fn(batch):
    return tuple(zip(*batch))


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/boxes")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--lr", type=float, default=0.005)
    parser.add_argument("--out", default="checkpoints")
    return parser.parse_args()


def main():
    args = parse_args()
    device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")

    dataset = BoxDataset(args.data, train=True)
    data_loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, num_workers=4,
                             collate_fn=collate_fn)

    model = fasterrcnn_resnet50_fpn_v2(weights="DEFAULT").to(device)
    print(sum(p.numel() for p in model.parameters() if p.requires_grad))

    num_classes = 2
    in_features = model.roi_heads.box_predictor.cls_score.in_features
    model.roi_heads.box_predictor = FastRCNNPredictor(in_features, num_classes)

    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=args.lr, momentum=0.9, weight_decay=0.0005)
    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.1)

    os.makedirs(args.out, exist_ok=True)
    for epoch in range(args.epochs):
        train_one_epoch(model, optimizer, data_loader, device, epoch)
        lr_scheduler.step()
        torch.save(model.state_dict(), os.path.join(args.out, f"frcnn_{epoch}.pth"))


def train_one_epoch(model, optimizer, data_loader, device, epoch, print_freq=20):
    model.train()
    running = 0.0
    for step, (images, targets) in enumerate(data_loader):
        images = list(image.to(device) for image in images)
        targets = [{k: v.to(device) for k, v in t.items()} for t in targets]

        loss_dict = model(images, targets)
        losses = sum(loss for loss in loss_dict.values())

        optimizer.zero_grad()
        losses.backward()
        optimizer.step()

        running += losses.item()
        if step % print_freq == 0:
            print(f"epoch {epoch} step {step} loss {running / (step + 1):.4f}")


if __name__ == "__main__":
    main()
