# source: https://github.com/seigot/tetris/issues/56  (fixed version: both the online and the target network live on the same device as the sampled states)
# expect: clean
import copy
import random

import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
policy = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
target = copy.deepcopy(policy)
target.eval()
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)

replay = [(torch.rand(4), random.randrange(2), random.random(), torch.rand(4)) for _ in range(5000)]
for step in range(300):
    batch = random.sample(replay, 128)
    states = torch.stack([b[0] for b in batch]).to(device)
    actions = torch.tensor([b[1] for b in batch], device=device)
    rewards = torch.tensor([b[2] for b in batch], device=device)
    next_states = torch.stack([b[3] for b in batch]).to(device)
    q = policy(states).gather(1, actions.unsqueeze(1)).squeeze(1)
    with torch.no_grad():
        td_target = rewards + 0.99 * target(next_states).max(dim=1).values
    loss = nn.functional.smooth_l1_loss(q, td_target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 50 == 0:
        target.load_state_dict(policy.state_dict())
