# source: https://github.com/jackaduma/CycleGAN-VC2/issues/10  (conversion script restores generator checkpoints with torch.load and no map_location: "Attempting to deserialize object on a CUDA device")
# expect: DL009 at 17
import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(24, 64, 5, padding=2), nn.GLU(dim=1), nn.Conv1d(32, 24, 5, padding=2))

    def forward(self, x):
        return self.net(x)


def load_model(path, generator_A2B, generator_B2A):
    checkpoint = torch.load(path)
    generator_A2B.load_state_dict(checkpoint["model_genA2B_state_dict"])
    generator_B2A.load_state_dict(checkpoint["model_genB2A_state_dict"])


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
gen_a2b, gen_b2a = Generator().to(device), Generator().to(device)
load_model("model_checkpoint/_CycleGAN_CheckPoint", gen_a2b, gen_b2a)
