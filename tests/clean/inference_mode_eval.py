# tempts: DL002/DL003 in evaluation loops under torch.no_grad() and torch.inference_mode()
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


def evaluate(model: nn.Module, loader: DataLoader, device: torch.device) -> float:
    model.eval()
    correct = 0
    total = 0
    with torch.no_grad():
        for inputs, targets in loader:
            inputs = inputs.to(device)
            targets = targets.to(device)
            predictions = model(inputs).argmax(dim=1)
            correct += (predictions == targets).sum().item()
            total += targets.numel()
    return correct / max(total, 1)


def collect_embeddings(encoder: nn.Module, loader: DataLoader, device: torch.device):
    encoder.eval()
    chunks = []
    with torch.inference_mode():
        for inputs, _ in loader:
            inputs = inputs.to(device)
            chunks.append(encoder(inputs))
    return torch.cat(chunks).cpu().numpy()


if __name__ == "__main__":
    from torch.utils.data import TensorDataset

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 10)).to(device)
    data = TensorDataset(torch.rand(200, 1, 28, 28), torch.randint(0, 10, (200,)))
    loader = DataLoader(data, batch_size=50, pin_memory=True)
    print(evaluate(net, loader, device))
    print(collect_embeddings(net, loader, device).shape)
