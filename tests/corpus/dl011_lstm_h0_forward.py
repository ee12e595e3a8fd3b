# source: https://github.com/pytorch/pytorch/issues/52186  (LSTM forward builds h0/c0 with torch.zeros on the CPU: "Input and hidden tensors are not at the same device")
# expect: DL011 at 21
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class LSTM_model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, output_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        h_0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)
        c_0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)
        h_0.requires_grad_()
        c_0.requires_grad_()
        out, _ = self.lstm(x, (h_0, c_0))
        return self.fc(out[:, -1, :])


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = LSTM_model(input_size=12, hidden_size=32, num_layers=2, output_size=1).to(device)
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
train_dataloader = DataLoader(TensorDataset(torch.randn(64, 24, 12), torch.randn(64, 1)), batch_size=16, pin_memory=True)
for data, label in train_dataloader:
    data, label = data.to(device), label.to(device)
    loss = criterion(model(data), label)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
