# source: https://github.com/seigot/tetris/issues/56  (the thread's code guards every .cuda() with torch.cuda.is_available(); here model and states are moved under the same guard)
# expect: clean
import torch
import torch.nn as nn


class QNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, x):
        return self.fc(x)


def play_batch(n=12):
    """Stand-in for the game engine: returns candidate next states and their rewards."""
    return torch.rand(n, 4), torch.rand(n, 1)


model = QNet()
if torch.cuda.is_available():
    model.cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for episode in range(50):
    next_states, rewards = play_batch()
    if torch.cuda.is_available():
        next_states = next_states.cuda()
        rewards = rewards.cuda()
    predictions = model(next_states)
    loss = nn.functional.mse_loss(predictions, rewards)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
