# source: https://github.com/graphnet-team/graphnet/issues/328
# seen: 2026-11-26
# style: loss-function class in a library (graphnet/training/loss_functions.py), values arrive from call sites
# expect: DL011 at 42, 43, 44, 45
# why: target_new is built with torch.tensor(...) on the CPU and meets the CUDA prediction in cross_entropy
from abc import abstractmethod

import numpy as np
import torch
from torch import Tensor
from torch.nn import functional as F
from torch.nn.functional import one_hot, cross_entropy
from torch.nn.modules.loss import _WeightedLoss


class LossFunction(_WeightedLoss):
    """Base class for loss functions in graphnet."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    def forward(self, prediction: Tensor, target: Tensor, weights=None, return_elements: bool = False) -> Tensor:
        elements = self._forward(prediction, target)
        if weights is not None:
            elements = elements * weights
        assert elements.size(dim=0) == target.size(dim=0), "`_forward` should return elementwise loss terms."
        return elements if return_elements else torch.mean(elements)

    @abstractmethod
    def _forward(self, prediction: Tensor, target: Tensor) -> Tensor:
        """Syntax like `.forward`, for implentation in inheriting classes."""


class MultiClassificationCrossEntropyLoss(LossFunction):
    """Computes cross entropy for a matrix [num_class,N] of predictions (between 0 and 1),
    targets [1,N] should be a particle id for noise (1,-1) muon (13,-13) and neutrino (12,-12,14,-14,16,-16) respectively.
    loss should be reported elementwise, so set reduction to none.
    """

    def _forward(self, prediction: Tensor, target: Tensor) -> Tensor:
        pid_transform = {1:0,12:2,13:1,14:2,16:2}
        target_new = one_hot(torch.tensor([pid_transform[np.abs(int(value))] for value in target]), 3)
        return cross_entropy(
            prediction.float(), target_new.float(), reduction="none"
        )
