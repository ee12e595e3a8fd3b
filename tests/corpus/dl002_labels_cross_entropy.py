# source: https://github.com/JieyuZ2/wrench/issues/4  (cross_entropy failed with "Expected all tensors to be on the same device ... (when checking argument for argument target in method wrapper_nll_loss_forward)": the targets were never moved)
# expect: DL002 at 26
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class TextMLP(nn.Module):
    def __init__(self, n_features=300, n_class=4):
        super().__init__()
        self.fc1 = nn.Linear(n_features, 128)
        self.fc2 = nn.Linear(128, n_class)

    def forward(self, x):
        return self.fc2(F.dropout(F.relu(self.fc1(x)), 0.2, self.training))


def fit(model, loader, device, n_steps=1000, lr=1e-3):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-4)
    step = 0
    while step < n_steps:
        for features, weak_labels in loader:
            features = features.to(device)
            outputs = model(features)
            loss = F.cross_entropy(outputs, weak_labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            if step >= n_steps:
                break
    return model


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    data = TensorDataset(torch.randn(5000, 300), torch.randint(0, 4, (5000,)))
    loader = DataLoader(data, batch_size=128, shuffle=True, pin_memory=True)
    model = TextMLP().to(device)
    fit(model, loader, device)
