# source: https://github.com/matssteinweg/PIXOR/issues/6  (evaluate_model.py: batches moved to the device inside evaluate_model, the loaded detector stayed on the CPU -> "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor)")
# expect: DL001 at 46
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class BEVDetector(nn.Module):
    def __init__(self, in_ch=36):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(in_ch, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        )
        self.cls_head = nn.Conv2d(64, 1, 1)
        self.reg_head = nn.Conv2d(64, 6, 1)

    def forward(self, x):
        feats = self.backbone(x)
        return torch.sigmoid(self.cls_head(feats)), self.reg_head(feats)


def evaluate_model(model, data_loader, device, threshold=0.5):
    model.eval()
    positives = 0
    cells = 0
    with torch.no_grad():
        for batch_data, batch_labels in data_loader:
            batch_data = batch_data.to(device)
            batch_labels = batch_labels.to(device)
            scores, boxes = model(batch_data)
            hits = (scores > threshold) & (batch_labels > 0)
            positives += hits.sum()
            cells += batch_labels.numel()
    return positives / cells


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    detector = BEVDetector()
    detector.load_state_dict(torch.load("pixor_best.pth", map_location=device))

    grids = torch.rand(64, 36, 40, 40)
    labels = (torch.rand(64, 1, 40, 40) > 0.9).float()
    loader = DataLoader(TensorDataset(grids, labels), batch_size=8, pin_memory=True)
    recall = evaluate_model(detector, loader, device)
    print(f"recall proxy: {recall.item():.4f}")
