# source: https://github.com/spdin/time-series-prediction-lstm-pytorch/issues/1  (h_0 = torch.zeros(...) in forward of a model that runs on the CPU)
# expect: clean
import torch
import torch.nn as nn


class LSTM(nn.Module):
    def __init__(self, num_classes=1, input_size=1, hidden_size=2, num_layers=1):
        super().__init__()
        self.num_layers, self.hidden_size = num_layers, hidden_size
        self.lstm = nn.LSTM(input_size=input_size, hidden_size=hidden_size, num_layers=num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, num_classes)

    def forward(self, x):
        h_0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)
        c_0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size)
        ula, (h_out, _) = self.lstm(x, (h_0, c_0))
        return self.fc(h_out.view(-1, self.hidden_size))


lstm = LSTM()
optimizer = torch.optim.Adam(lstm.parameters(), lr=0.01)
trainX, trainY = torch.randn(32, 4, 1), torch.randn(32, 1)
for epoch in range(5):
    outputs = lstm(trainX)
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(outputs, trainY)
    loss.backward()
    optimizer.step()
