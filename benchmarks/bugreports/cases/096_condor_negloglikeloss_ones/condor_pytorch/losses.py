# source: https://github.com/GarrettJenkinson/condor_pytorch/pull/2
# seen: 2026-11-26
# style: two-file project: the library's loss function (condor_pytorch/losses.py, before the PR) and the user's ordinal-regression training script (train.py) with the model and batches on cuda
# expect: DL011 at 23
# why: condor_negloglikeloss builds torch.ones(...) without device= and concatenates it with the CUDA labels / logits of the batch
import torch
import torch.nn.functional as F


def logits_to_label(logits):
    probas = torch.cumprod(torch.sigmoid(logits), dim=1)
    return torch.sum(probas > 0.5, dim=1)


def label_to_levels(label, num_classes, dtype=torch.float32):
    int_label = label.item()
    return torch.tensor([1] * int_label + [0] * (num_classes - 1 - int_label), dtype=dtype)


def condor_negloglikeloss(logits, labels, reduction="mean"):
    """Negative log likelihood of the CONDOR ordinal model for levels-encoded labels."""
    piece1 = torch.sum(F.logsigmoid(logits * labels) * labels, dim=1)
    leftmost = torch.ones(labels.shape[0], 1)
    labels_shifted = torch.cat([leftmost, labels[:, :-1]], dim=1)
    piece2 = torch.sum(F.logsigmoid(-logits) * (labels_shifted - labels), dim=1)
    loss = -(piece1 + piece2)
    if reduction == "mean":
        return torch.mean(loss)
    if reduction == "sum":
        return torch.sum(loss)
    return loss
