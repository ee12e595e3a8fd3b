# source: https://github.com/huggingface/accelerate/issues/2251  (schedule sampler output moved with bare `t.to(batch.device)` / `weights.to(batch.device)`; the tensors stayed on the CPU)
# expect: DL006 at 28, 29
import numpy as np
import torch


class UniformSampler:
    def __init__(self, num_timesteps):
        self._weights = np.ones([num_timesteps])

    def sample(self, batch_size):
        p = self._weights / np.sum(self._weights)
        indices_np = np.random.choice(len(p), size=(batch_size,), p=p)
        indices = torch.from_numpy(indices_np).long()
        weights = torch.from_numpy(1 / (len(p) * p[indices_np])).float()
        return indices, weights


def training_losses(model, x_start, t):
    noise = torch.randn_like(x_start)
    return ((model(x_start + noise, t) - noise) ** 2).mean(dim=1)


def train_step(model, sampler, batch, optimizer):
    x = batch
    indices = torch.randint(0, 10, (x.shape[0],))
    t, weights = sampler.sample(x.shape[0])
    t.to(x.device)
    weights.to(x.device)
    losses = training_losses(model, x, t)
    loss = (losses * weights).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.detach(), indices


if __name__ == "__main__":
    net = torch.nn.Linear(8, 8)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    print(train_step(lambda x, t: net(x), UniformSampler(10), torch.randn(4, 8), opt))
