# source: https://github.com/Linesight-RL/linesight/issues/51  (FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead)
# expect: DL005 at 15, 20
import torch
import torch.cuda.amp as cuda_amp
import torch.nn as nn


class IQNLearner:
    def __init__(self, online: nn.Module, target: nn.Module, lr=5e-5, gamma=0.99):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.online = online.to(self.device)
        self.target = target.to(self.device)
        self.gamma = gamma
        self.optimizer = torch.optim.RAdam(self.online.parameters(), lr=lr, eps=1e-4)
        self.scaler = cuda_amp.GradScaler(init_scale=2.0 ** 14)

    def train_on_batch(self, state, action, reward, next_state, done):
        state, next_state = state.to(self.device), next_state.to(self.device)
        action, reward, done = action.to(self.device), reward.to(self.device), done.to(self.device)
        with cuda_amp.autocast(dtype=torch.float16):
            q = self.online(state).gather(1, action.unsqueeze(1)).squeeze(1)
            with torch.no_grad():
                next_q = self.target(next_state).max(dim=1).values
            target = reward + self.gamma * next_q * (1 - done)
            loss = nn.functional.smooth_l1_loss(q, target)
        self.optimizer.zero_grad(set_to_none=True)
        self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.optimizer)
        nn.utils.clip_grad_norm_(self.online.parameters(), 30.0)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return loss.detach()
