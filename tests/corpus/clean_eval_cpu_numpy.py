# source: https://github.com/Lightning-AI/pytorch-lightning/issues/1429  (fixed version: predictions are gathered on the device and copied to the host once, with .cpu(), before sklearn)
# expect: clean
import torch
import torch.nn as nn
from sklearn.metrics import classification_report
from torch.utils.data import DataLoader, TensorDataset


@torch.no_grad()
def predict_all(model, loader, device):
    model.eval()
    preds, targets = [], []
    for x, y in loader:
        x = x.to(device)
        preds.append(model(x).argmax(dim=1))
        targets.append(y)
    return torch.cat(preds).cpu().numpy(), torch.cat(targets).numpy()


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Sequential(nn.Linear(10, 3)).to(device)
    loader = DataLoader(TensorDataset(torch.randn(400, 10), torch.randint(0, 3, (400,))), batch_size=64, pin_memory=True)
    y_pred, y_true = predict_all(model, loader, device)
    print(classification_report(y_true, y_pred))
