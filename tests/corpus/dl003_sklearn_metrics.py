# source: https://github.com/Lightning-AI/pytorch-lightning/issues/1429  (sklearn accuracy_score was given predictions that were still CUDA tensors -> "can't convert CUDA tensor to numpy"; the user moved them with .cpu())
# expect: DL003 at 19
import torch
import torch.nn as nn
from sklearn.metrics import accuracy_score, f1_score
from torch.utils.data import DataLoader


@torch.no_grad()
def evaluate(model: nn.Module, loader: DataLoader, device: torch.device):
    model.eval()
    all_preds, all_targets = [], []
    for x, y in loader:
        x = x.to(device)
        y = y.to(device)
        logits = model(x)
        all_preds.append(logits.argmax(dim=1))
        all_targets.append(y)
    y_pred = torch.cat(all_preds).numpy()
    y_true = torch.cat(all_targets).cpu().numpy()
    return {
        "accuracy": accuracy_score(y_true, y_pred),
        "macro_f1": f1_score(y_true, y_pred, average="macro"),
    }


if __name__ == "__main__":
    from torch.utils.data import TensorDataset

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 3)).to(device)
    data = TensorDataset(torch.randn(300, 16), torch.randint(0, 3, (300,)))
    print(evaluate(model, DataLoader(data, batch_size=50, pin_memory=True), device))
