# source: https://github.com/seigot/tetris/issues/56  (DQN training: next_states were moved with .cuda() when CUDA was available and met a network that lived on the CPU -> "Expected all tensors to be on the same device")
# expect: DL001 at 40
import random
from collections import deque

import torch
import torch.nn as nn


class DeepQNetwork(nn.Module):
    def __init__(self, state_dim=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(state_dim, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, x):
        return self.net(x)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = DeepQNetwork().to(device)
target_model = DeepQNetwork()
target_model.load_state_dict(model.state_dict())
target_model.eval()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
replay = deque(maxlen=30000)
gamma = 0.99

for _ in range(2000):
    replay.append((torch.rand(4), torch.rand(()), torch.rand(4), random.random() < 0.05))

for step in range(500):
    batch = random.sample(replay, 512)
    state_batch = torch.stack([b[0] for b in batch]).to(device)
    reward_batch = torch.stack([b[1] for b in batch]).unsqueeze(1).to(device)
    next_state_batch = torch.stack([b[2] for b in batch]).to(device)
    done_batch = torch.tensor([b[3] for b in batch], dtype=torch.float32, device=device).unsqueeze(1)

    q_values = model(state_batch)
    with torch.no_grad():
        next_prediction = target_model(next_state_batch)
    y_batch = reward_batch + gamma * next_prediction * (1 - done_batch)
    loss = nn.functional.mse_loss(q_values, y_batch)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 100 == 0:
        target_model.load_state_dict(model.state_dict())
