# source: https://github.com/huggingface/transformers/pull/26151  (create the return value on the device; a tensor made from host data still needs one copy, and dtype casts are no moves)
# expect: clean
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

class_weights = torch.tensor([0.2, 0.3, 0.5]).to(device)  # data from the host: one copy is needed
anchors = torch.from_numpy(np.linspace(0.0, 1.0, 9)).to(device)
ids = torch.arange(16, device=device)
half_eye = torch.eye(4).to(torch.float16)  # a dtype cast, not a move
noise = torch.randn(8, 4, device=device)
scale = torch.ones(1).to(ids.dtype)
print(class_weights.sum() + anchors.sum() + ids.sum() + half_eye.sum() + noise.sum() + scale)
