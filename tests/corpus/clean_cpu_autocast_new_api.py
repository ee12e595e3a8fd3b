# source: https://github.com/idiap/coqui-ai-TTS/pull/144  (fixed version: torch.autocast("cpu", ...) instead of the deprecated torch.cpu.amp.autocast)
# expect: clean
import torch
import torch.nn as nn

encoder = nn.GRU(80, 256, num_layers=2, batch_first=True).eval()
mels = torch.randn(4, 200, 80)

with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
    hidden, _ = encoder(mels)
summary = hidden.float().mean(dim=1).numpy()
print(summary.shape)
