# source: https://github.com/ykdai/BasicPBC/issues/4
# seen: 2026-11-26
# style: model architecture class (basicpbc_arch.py), accuracy computed inside a method from CUDA match tensors
# expect: DL011 at 29
# why: torch.arange(...) is created on the CPU and indexed with a CUDA boolean mask
# also-ok: DL011 at 30
import torch
import torch.nn as nn


class BasicPBC(nn.Module):
    def __init__(self, descriptor_dim=128, keypoint_encoder=(32, 64, 128)):
        super().__init__()
        self.descriptor_dim = descriptor_dim
        self.kenc = nn.Sequential(nn.Linear(2, keypoint_encoder[0]), nn.ReLU(), nn.Linear(keypoint_encoder[0], descriptor_dim))
        self.final_proj = nn.Conv1d(descriptor_dim, descriptor_dim, kernel_size=1, bias=True)

    def forward(self, data):
        desc0 = self.kenc(data["keypoints0"]).transpose(1, 2)
        desc1 = self.kenc(data["keypoints1"]).transpose(1, 2)
        mdesc0, mdesc1 = self.final_proj(desc0), self.final_proj(desc1)
        scores = torch.einsum("bdn,bdm->bnm", mdesc0, mdesc1) / self.descriptor_dim ** 0.5
        max0 = scores.max(2)
        indices0 = max0.indices
        all_matches_origin = data["all_matches"]
        weights = (all_matches_origin[0] != -1).float()
        accuracy = ((indices0[0] == all_matches_origin[0]).float() * weights).sum() / weights.sum()
        area_accuracy = torch.tensor(
            [(data["segment"] == ii + 1).sum() for ii in torch.arange(0, all_matches_origin[0].shape[0])[all_matches_origin[0] == indices0[0]]]
        ).sum() / (weights.sum() * 1.0)
        return {"matches0": indices0, "accuracy": accuracy, "area_accuracy": area_accuracy}
