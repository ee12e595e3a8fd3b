# source: https://github.com/hkchengrex/Cutie/issues/37  (CPU-only users hit "Attempting to deserialize object on a CUDA device"; loading with map_location works everywhere)
# expect: clean
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
network = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.Conv2d(16, 1, 1))
weights = torch.load("weights/cutie-base-mega.pth", map_location="cpu", weights_only=True)
network.load_state_dict(weights)
network = network.to(device).eval()
extra = torch.load("weights/extra.pth", device)
