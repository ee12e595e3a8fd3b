# source: https://github.com/Linesight-RL/linesight/issues/51
# seen: 2026-11-26
# style: reinforcement-learning learner process: a Trainer class built in learner_process_fn, mixed precision with a GradScaler created next to the optimizer, an IQN network on CUDA
# expect: DL005 at 79
# also-ok: DL007 at 55, 56, 57, 58, 59, 76
# also-ok: DL008 at 55, 56, 57, 58
# why: `torch.cuda.amp.GradScaler(args...)` is deprecated (FutureWarning); torch.amp.GradScaler("cuda", ...) replaces it
import copy
import random
import time
from collections import deque

import numpy as np
import torch
from torch import nn


class IQN_Network(nn.Module):
    def __init__(self, float_inputs_dim, dense_hidden_dimension, iqn_embedding_dimension, n_actions):
        super().__init__()
        self.iqn_embedding_dimension = iqn_embedding_dimension
        self.float_feature_extractor = nn.Sequential(
            nn.Linear(float_inputs_dim, dense_hidden_dimension), nn.LeakyReLU(inplace=True),
            nn.Linear(dense_hidden_dimension, dense_hidden_dimension), nn.LeakyReLU(inplace=True),
        )
        self.iqn_fc = nn.Linear(iqn_embedding_dimension, dense_hidden_dimension)
        self.head = nn.Sequential(nn.Linear(dense_hidden_dimension, dense_hidden_dimension), nn.LeakyReLU(inplace=True),
                                  nn.Linear(dense_hidden_dimension, n_actions))
        self.register_buffer("lamda", torch.arange(1, iqn_embedding_dimension + 1) * np.pi)

    def forward(self, float_inputs, num_quantiles, tau=None):
        batch_size = float_inputs.shape[0]
        features = self.float_feature_extractor(float_inputs)
        if tau is None:
            tau = torch.rand(size=(batch_size * num_quantiles, 1), device=float_inputs.device)
        quantile_net = torch.cos(tau * self.lamda)
        quantile_net = nn.functional.leaky_relu(self.iqn_fc(quantile_net))
        features = features.repeat(num_quantiles, 1) * quantile_net
        return self.head(features), tau


class Trainer:
    def __init__(self, online_network, target_network, optimizer, scaler, batch_size, iqn_n, gamma):
        self.online_network = online_network
        self.target_network = target_network
        self.optimizer = optimizer
        self.scaler = scaler
        self.batch_size = batch_size
        self.iqn_n = iqn_n
        self.gamma = gamma

    def train_on_batch(self, buffer, do_learn):
        self.optimizer.zero_grad(set_to_none=True)
        batch = random.sample(buffer, self.batch_size)
        state = torch.as_tensor(np.stack([b[0] for b in batch]), dtype=torch.float32).to("cuda", non_blocking=True)
        actions = torch.as_tensor([b[1] for b in batch], dtype=torch.int64).to("cuda", non_blocking=True)
        rewards = torch.as_tensor([b[2] for b in batch], dtype=torch.float32).to("cuda", non_blocking=True)
        next_state = torch.as_tensor(np.stack([b[3] for b in batch]), dtype=torch.float32).to("cuda", non_blocking=True)
        with torch.autocast(device_type="cuda", dtype=torch.float16):
            with torch.no_grad():
                q_next, _ = self.target_network(next_state, self.iqn_n)
                target = rewards.repeat(self.iqn_n) + self.gamma * q_next.max(dim=1)[0]
            q, _ = self.online_network(state, self.iqn_n)
            q = q.gather(1, actions.repeat(self.iqn_n).unsqueeze(1)).squeeze(1)
            loss = nn.functional.smooth_l1_loss(q, target)
        if do_learn:
            self.scaler.scale(loss).backward()
            self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.online_network.parameters(), 30)
            self.scaler.step(self.optimizer)
            self.scaler.update()
        return loss.detach().cpu()


def learner_process_fn(rollout_queue, float_inputs_dim=20, n_actions=12, batch_size=512, iqn_n=8, gamma=0.99):
    online_network = IQN_Network(float_inputs_dim, 256, 64, n_actions).to("cuda", memory_format=torch.channels_last)
    target_network = copy.deepcopy(online_network)
    optimizer = torch.optim.RAdam(online_network.parameters(), lr=5e-5, eps=1e-4)
    scaler = torch.cuda.amp.GradScaler()
    trainer = Trainer(online_network, target_network, optimizer, scaler, batch_size, iqn_n, gamma)
    buffer = deque(maxlen=100_000)
    step = 0
    while True:
        while not rollout_queue.empty():
            buffer.extend(rollout_queue.get())
        if len(buffer) < batch_size:
            time.sleep(0.1)
            continue
        loss = trainer.train_on_batch(buffer, do_learn=True)
        step += 1
        if step % 100 == 0:
            target_network.load_state_dict(online_network.state_dict())
            print(step, float(loss))
