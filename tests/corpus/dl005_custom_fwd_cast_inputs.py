# source: https://github.com/cvg/LightGlue/issues/134  (`@torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)` on a rotary-embedding module emits the torch.cuda.amp.custom_fwd FutureWarning)
# expect: DL005 at 14
import torch
import torch.nn as nn


class LearnableFourierPositionalEncoding(nn.Module):
    def __init__(self, M: int, dim: int, gamma: float = 1.0):
        super().__init__()
        self.Wr = nn.Linear(M, dim // 2, bias=False)
        self.gamma = gamma
        nn.init.normal_(self.Wr.weight.data, mean=0, std=self.gamma ** -2)

    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        projected = self.Wr(x)
        cosines, sines = torch.cos(projected), torch.sin(projected)
        emb = torch.stack([cosines, sines], 0).unsqueeze(-3)
        return emb.repeat_interleave(2, dim=-1)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    enc = LearnableFourierPositionalEncoding(2, 64).to(device)
    keypoints = torch.rand(1, 512, 2, device=device)
    with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
        print(enc(keypoints).shape)
