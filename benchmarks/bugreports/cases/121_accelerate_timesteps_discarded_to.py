# source: https://github.com/huggingface/accelerate/issues/2251
# seen: 2026-11-26
# style: diffusion training loop on accelerate (improved-diffusion style train_util.py): a UniformSampler whose sample() draws timesteps with NumPy, a TrainLoop class with run_loop / run_step / forward_backward, the model, optimizer and loader prepared by an Accelerator
# expect: DL006 at 63, 64
# why: sample() returns t and weights on the CPU; `t.to(batch.device)` and `weights.to(batch.device)` are statements whose results are dropped, so the CPU timesteps reach the diffusion losses with the CUDA batch -> device mismatch (the maintainer: `.to` is not in-place, write t = t.to(batch.device))
import functools

import numpy as np
import torch as th
from accelerate import Accelerator


class UniformSampler:
    def __init__(self, diffusion):
        self.diffusion = diffusion
        self._weights = np.ones([diffusion.num_timesteps])

    def weights(self):
        return self._weights

    def sample(self, batch_size):
        w = self.weights()
        p = w / np.sum(w)
        indices_np = np.random.choice(len(p), size=(batch_size,), p=p)
        indices = th.from_numpy(indices_np).long()
        weights_np = 1 / (len(p) * p[indices_np])
        weights = th.from_numpy(weights_np).float()
        return indices, weights


class TrainLoop:
    def __init__(self, *, model, diffusion, data, batch_size, lr, log_interval, save_interval, total_steps):
        self.accelerator = Accelerator()
        self.diffusion = diffusion
        self.batch_size = batch_size
        self.lr = lr
        self.log_interval = log_interval
        self.save_interval = save_interval
        self.total_steps = total_steps
        self.schedule_sampler = UniformSampler(diffusion)
        self.step = 0

        opt = th.optim.AdamW(model.parameters(), lr=self.lr, weight_decay=0.0)
        self.model, self.opt, self.data = self.accelerator.prepare(model, opt, data)

    def run_loop(self):
        while self.step < self.total_steps:
            for batch, cond in self.data:
                self.run_step(batch, cond)
                if self.step % self.log_interval == 0:
                    self.accelerator.print(f"step {self.step}")
                if self.step % self.save_interval == 0:
                    self.accelerator.save(self.accelerator.unwrap_model(self.model).state_dict(), f"model{self.step:06d}.pt")
                self.step += 1

    def run_step(self, batch, cond):
        self.opt.zero_grad()
        self.forward_backward(batch, cond)
        self.opt.step()

    def forward_backward(self, batch, cond):
        t, weights = self.schedule_sampler.sample(batch.shape[0])
        t.to(batch.device)
        weights.to(batch.device)

        compute_losses = functools.partial(
            self.diffusion.training_losses,
            self.model,
            batch,
            t,
            model_kwargs=cond,
        )
        losses = compute_losses()
        loss = (losses["loss"] * weights).mean()
        self.accelerator.backward(loss)
