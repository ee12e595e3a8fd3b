# source: https://github.com/HLR/DomiKnowS/pull/409  ("Fix conversion tensor device: specify device in zero tensor": a torch.zeros(...) built on the host and moved afterwards)
# expect: DL008 at 13, 14
import torch
import torch.nn.functional as F


def masked_logits(logits, lengths):
    device = logits.device
    batch, max_len = logits.shape[:2]
    positions = torch.arange(max_len)
    mask = positions.unsqueeze(0) < lengths.unsqueeze(1).cpu()
    mask = mask.to(device)
    penalty = torch.zeros(batch, max_len).to(device)
    bias = torch.full((batch, 1), -1e4).to(device=device)
    penalty = penalty.masked_fill(~mask, -1e4) + bias * 0
    return F.log_softmax(logits + penalty.unsqueeze(-1), dim=1)
