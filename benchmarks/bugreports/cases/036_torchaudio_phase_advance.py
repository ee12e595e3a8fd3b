# source: https://github.com/pytorch/audio/pull/457
# seen: 2026-11-26
# style: library transform module (torchaudio/transforms.py TimeStretch) used as m = TimeStretch().cuda()
# expect: DL015 at 29, 44
# why: phase_advance is a plain tensor attribute; .cuda() on the module leaves it on the CPU ("expected device cuda:0 but got device cpu")
# also-ok: DL007 at 48
# also-ok: DL007 at 49
# also-ok: DL008 at 49
import math
from typing import Optional

import torch
from torch import Tensor

import torchaudio.functional as F


class TimeStretch(torch.nn.Module):
    r"""Stretch stft in time without modifying pitch for a given rate."""
    __constants__ = ['fixed_rate']

    def __init__(self, hop_length=None, n_freq=201, fixed_rate=None):
        super(TimeStretch, self).__init__()

        self.fixed_rate = fixed_rate

        n_fft = (n_freq - 1) * 2
        hop_length = hop_length if hop_length is not None else n_fft // 2
        self.phase_advance = torch.linspace(0, math.pi * hop_length, n_freq)[..., None]

    def forward(self, complex_specgrams: Tensor, overriding_rate: Optional[float] = None) -> Tensor:
        assert complex_specgrams.size(-1) == 2, "complex_specgrams should be a complex tensor, shape (..., complex=2)"

        if overriding_rate is None:
            rate = self.fixed_rate
            if rate is None:
                raise ValueError("If no fixed_rate is specified, must pass a valid rate to the forward method.")
        else:
            rate = overriding_rate

        if rate == 1.0:
            return complex_specgrams

        return F.phase_vocoder(complex_specgrams, rate, self.phase_advance)


if __name__ == "__main__":
    m = TimeStretch().cuda()
    m(torch.randn(1, 2, 201, 400, 2).cuda(), 1.3)
