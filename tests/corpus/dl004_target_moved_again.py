# source: https://github.com/pytorch/vision/pull/2503  ("remove redundant target send to device": the evaluation loop sent targets to the device a second time)
# expect: DL004 at 24
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


def accuracy(output, target, topk=(1, 5)):
    maxk = max(topk)
    _, pred = output.topk(maxk, 1, True, True)
    correct = pred.t().eq(target.view(1, -1).expand_as(pred.t()))
    return [correct[:k].reshape(-1).float().sum(0) * (100.0 / target.size(0)) for k in topk]


def evaluate(model: nn.Module, criterion, data_loader: DataLoader, device):
    model.eval()
    top1, top5, losses = [], [], []
    with torch.inference_mode():
        for image, target in data_loader:
            image = image.to(device, non_blocking=True)
            target = target.to(device, non_blocking=True)
            output = model(image)
            losses.append(criterion(output, target))
            acc1, acc5 = accuracy(output, target.to(device), topk=(1, 5))
            top1.append(acc1)
            top5.append(acc5)
    return torch.stack(top1).mean(), torch.stack(top5).mean(), torch.stack(losses).mean()


if __name__ == "__main__":
    from torch.utils.data import TensorDataset
    from torchvision.models import mobilenet_v3_small

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = mobilenet_v3_small(num_classes=100).to(device)
    data = TensorDataset(torch.rand(64, 3, 64, 64), torch.randint(0, 100, (64,)))
    print(evaluate(model, nn.CrossEntropyLoss(), DataLoader(data, batch_size=16, pin_memory=True), device))
