# source: https://github.com/locuslab/TCN/issues/67  (adding_problem test script called `model.cuda()` unconditionally: "AssertionError: Torch not compiled with CUDA enabled" on a CPU machine)
# expect: DL007 at 25, 30, 31
import torch
import torch.nn as nn
import torch.nn.functional as F


class TCN(nn.Module):
    def __init__(self, input_size, output_size, channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv1d(input_size, channels, kernel_size, padding=kernel_size - 1)
        self.linear = nn.Linear(channels, output_size)

    def forward(self, x):
        y = F.relu(self.conv(x))[:, :, : x.size(2)]
        return self.linear(y[:, :, -1])


def data_generator(n, seq_len):
    x = torch.rand(n, 2, seq_len)
    return x, x[:, 0].sum(dim=1, keepdim=True)


model = TCN(2, 1, 30, 7)
model.cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=4e-3)
X_train, Y_train = data_generator(512, 100)
for i in range(0, 512, 32):
    x, y = X_train[i:i + 32], Y_train[i:i + 32]
    x = x.cuda()
    y = y.cuda()
    optimizer.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
