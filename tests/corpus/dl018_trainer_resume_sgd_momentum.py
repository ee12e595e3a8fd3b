# source: https://github.com/microsoft/Cream/issues/2  (resuming from a checkpoint: SGD's momentum buffer is on the CPU and `buf.mul_(momentum).add_(d_p)` fails in optimizer.step())
# expect: DL018 at 35
import torch
import torch.nn as nn
import torchvision


def train_epoch(model, loader, optimizer, criterion, device):
    model.train()
    for images, targets in loader:
        images, targets = images.to(device), targets.to(device)
        loss = criterion(model(images), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def save(model, optimizer, epoch, path):
    torch.save({"state_dict": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, path)


def main(cfg, loader):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = torchvision.models.resnet18(num_classes=cfg["classes"])
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9,
                                weight_decay=cfg["wd"], nesterov=True)
    criterion = nn.CrossEntropyLoss()

    start_epoch = 0
    if cfg["auto_resume"]:
        checkpoint = torch.load(cfg["resume_path"], map_location="cpu")
        model.load_state_dict(checkpoint["state_dict"])
        start_epoch = checkpoint["epoch"] + 1
        if "optimizer" in checkpoint:
            optimizer.load_state_dict(checkpoint["optimizer"])
    model.to(device)

    for epoch in range(start_epoch, cfg["epochs"]):
        train_epoch(model, loader, optimizer, criterion, device)
        save(model, optimizer, epoch, cfg["save_path"])
