"""Fine-tune a small image classifier on a folder of labelled images.

Usage:
    python train_classifier.py --data ./images --epochs 20 --batch-size 64 --amp

The folder holds one sub-folder per class. Checkpoints go to --out; the best one (by
validation accuracy) is kept as best.pt, and training resumes from last.pt when it exists.
"""

import argparse
import json
import math
import os
import random
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image
from torch.utils.data import DataLoader, Dataset, random_split


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, required=True)
    p.add_argument("--out", type=Path, default=Path("runs/classifier"))
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--weight-decay", type=float, default=0.05)
    p.add_argument("--warmup-steps", type=int, default=500)
    p.add_argument("--image-size", type=int, default=96)
    p.add_argument("--val-fraction", type=float, default=0.1)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--log-every", type=int, default=50)
    return p.parse_args()


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


class ImageFolderDataset(Dataset):
    """Images under root/<class>/<file>; returns a dict batch item."""

    EXTENSIONS = (".jpg", ".jpeg", ".png", ".bmp")

    def __init__(self, root, image_size, train=True):
        self.root = Path(root)
        self.classes = sorted(d.name for d in self.root.iterdir() if d.is_dir())
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}
        self.items = [
            (path, self.class_to_idx[c])
            for c in self.classes
            for path in sorted((self.root / c).iterdir())
            if path.suffix.lower() in self.EXTENSIONS
        ]
        self.image_size = image_size
        self.train = train
        self.mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
        self.std = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)

    def __len__(self):
        return len(self.items)

    def load(self, path):
        image = Image.open(path).convert("RGB").resize((self.image_size, self.image_size))
        array = np.asarray(image, dtype=np.float32) / 255.0
        return torch.from_numpy(array).permute(2, 0, 1)

    def augment(self, x):
        if random.random() < 0.5:
            x = torch.flip(x, dims=[2])
        if random.random() < 0.3:
            shift = random.randint(-8, 8)
            x = torch.roll(x, shifts=shift, dims=1)
        return x

    def __getitem__(self, index):
        path, label = self.items[index]
        x = self.load(path)
        if self.train:
            x = self.augment(x)
        x = (x - self.mean) / self.std
        return {"image": x, "label": torch.tensor(label), "index": index}


class SqueezeExcite(nn.Module):
    def __init__(self, channels, reduction=4):
        super().__init__()
        hidden = max(8, channels // reduction)
        self.fc1 = nn.Conv2d(channels, hidden, 1)
        self.fc2 = nn.Conv2d(hidden, channels, 1)

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        s = F.silu(self.fc1(s))
        return x * torch.sigmoid(self.fc2(s))


class ResidualBlock(nn.Module):
    def __init__(self, cin, cout, stride=1, drop=0.0):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.se = SqueezeExcite(cout)
        self.drop = nn.Dropout2d(drop) if drop > 0 else nn.Identity()
        self.shortcut = nn.Identity()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.silu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out = self.drop(self.se(out))
        return F.silu(out + self.shortcut(x))


class Classifier(nn.Module):
    def __init__(self, num_classes, widths=(32, 64, 128, 256), drop=0.1):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, widths[0], 3, padding=1, bias=False), nn.BatchNorm2d(widths[0]), nn.SiLU())
        blocks = []
        cin = widths[0]
        for i, w in enumerate(widths):
            blocks.append(ResidualBlock(cin, w, stride=1 if i == 0 else 2, drop=drop))
            blocks.append(ResidualBlock(w, w, drop=drop))
            cin = w
        self.blocks = nn.Sequential(*blocks)
        self.head = nn.Linear(cin, num_classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.head(x)


def build_loaders(args):
    full = ImageFolderDataset(args.data, args.image_size, train=True)
    n_val = max(1, int(len(full) * args.val_fraction))
    train_set, val_set = random_split(full, [len(full) - n_val, n_val], generator=torch.Generator().manual_seed(args.seed))
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=args.workers, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=args.batch_size * 2, shuffle=False, num_workers=args.workers)
    return full.classes, train_loader, val_loader


def cosine_with_warmup(optimizer, warmup, total):
    def factor(step):
        if step < warmup:
            return (step + 1) / warmup
        progress = (step - warmup) / max(1, total - warmup)
        return 0.5 * (1.0 + math.cos(math.pi * progress))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def param_groups(model, weight_decay):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if p.ndim <= 1 or name.endswith(".bias") else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def save_checkpoint(path, model, optimizer, scheduler, scaler, epoch, best_acc):
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(
        {
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "scheduler": scheduler.state_dict(),
            "scaler": scaler.state_dict(),
            "epoch": epoch,
            "best_acc": best_acc,
        },
        path,
    )


def load_checkpoint(path, model, optimizer, scheduler, scaler):
    state = torch.load(path)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    scaler.load_state_dict(state["scaler"])
    return state["epoch"] + 1, state["best_acc"]


def train_one_epoch(model, loader, optimizer, scheduler, scaler, device, epoch, args):
    model.train()
    running_loss = 0.0
    seen = 0
    start = time.time()
    for step, batch in enumerate(loader):
        images = batch["image"].to(device, non_blocking=True)
        labels = batch["label"].to(device, non_blocking=True)
        with torch.cuda.amp.autocast(enabled=args.amp):
            logits = model(images)
            loss = F.cross_entropy(logits, labels, label_smoothing=0.1)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        running_loss += loss
        seen += images.size(0)
        if step % args.log_every == 0:
            rate = seen / max(1e-6, time.time() - start)
            lr = scheduler.get_last_lr()[0]
            print(f"epoch {epoch} step {step}/{len(loader)} loss {running_loss / (step + 1):.4f} lr {lr:.2e} {rate:.0f} img/s")
    return running_loss / len(loader)


@torch.no_grad()
def evaluate(model, loader, device, num_classes):
    model.eval()
    correct = 0
    total = 0
    per_class = defaultdict(lambda: [0, 0])
    confusion = torch.zeros(num_classes, num_classes, dtype=torch.long)
    for batch in loader:
        images = batch["image"].to(device)
        labels = batch["label"].to(device)
        preds = model(images).argmax(dim=1)
        correct += (preds == labels).sum().item()
        total += labels.numel()
        for t, p in zip(labels.tolist(), preds.tolist()):
            per_class[t][0] += int(t == p)
            per_class[t][1] += 1
            confusion[t, p] += 1
    accuracy = correct / max(1, total)
    return accuracy, {k: v[0] / max(1, v[1]) for k, v in per_class.items()}, confusion


def dump_predictions(model, loader, device, classes, out_file):
    model.eval()
    rows = []
    with torch.no_grad():
        for batch in loader:
            logits = model(batch["image"].to(device))
            probs = logits.softmax(dim=1)
            top = probs.argmax(dim=1)
            for i, k, p in zip(batch["index"].tolist(), top.numpy(), probs.max(dim=1).values):
                rows.append({"index": i, "class": classes[k], "confidence": float(p)})
    out_file.write_text(json.dumps(rows, indent=1))


def main():
    args = parse_args()
    seed_everything(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    classes, train_loader, val_loader = build_loaders(args)
    print(f"{len(classes)} classes, {len(train_loader.dataset)} train / {len(val_loader.dataset)} val images")

    model = Classifier(len(classes)).to(device)
    optimizer = torch.optim.AdamW(param_groups(model, args.weight_decay), lr=args.lr)
    total_steps = args.epochs * len(train_loader)
    scheduler = cosine_with_warmup(optimizer, args.warmup_steps, total_steps)
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp)

    start_epoch, best_acc = 0, 0.0
    last = args.out / "last.pt"
    if last.exists():
        start_epoch, best_acc = load_checkpoint(last, model, optimizer, scheduler, scaler)
        print(f"resumed from {last} at epoch {start_epoch} (best {best_acc:.3f})")

    history = []
    for epoch in range(start_epoch, args.epochs):
        t0 = time.time()
        train_loss = train_one_epoch(model, train_loader, optimizer, scheduler, scaler, device, epoch, args)
        accuracy, per_class, confusion = evaluate(model, val_loader, device, len(classes))
        history.append({"epoch": epoch, "loss": float(train_loss), "accuracy": accuracy, "seconds": time.time() - t0})
        worst = sorted(per_class.items(), key=lambda kv: kv[1])[:3]
        print(f"epoch {epoch}: loss {train_loss:.4f} val acc {accuracy:.4f} worst {[(classes[k], round(a, 3)) for k, a in worst]}")
        save_checkpoint(last, model, optimizer, scheduler, scaler, epoch, best_acc)
        if accuracy > best_acc:
            best_acc = accuracy
            save_checkpoint(args.out / "best.pt", model, optimizer, scheduler, scaler, epoch, best_acc)
            np.savetxt(args.out / "confusion.txt", confusion.numpy(), fmt="%d")

    (args.out / "history.json").write_text(json.dumps(history, indent=2))
    dump_predictions(model, val_loader, device, classes, args.out / "predictions.json")
    print(f"best validation accuracy {best_acc:.4f}")


if __name__ == "__main__":
    main()
