# source: https://github.com/huggingface/accelerate/issues/2251  (the fix assigns `t = t.to(batch.device)`; a helper that moves objects it cannot see stays unflagged)
# expect: clean
import torch


def to_device(obj, device):
    """Move a model, tensor or batch-like object; modules move in place."""
    if hasattr(obj, "to"):
        obj.to(device)
    return obj


def sample_timesteps(sampler, batch):
    t, weights = sampler.sample(batch.shape[0])
    t = t.to(batch.device)
    weights = weights.to(batch.device)
    return t, weights


def make_noise(batch):
    noise = torch.randn(batch.shape, device=batch.device)
    return noise
