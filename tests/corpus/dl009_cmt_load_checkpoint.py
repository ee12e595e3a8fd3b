# source: https://github.com/keunsoo-ko/CMT/issues/1  (utils.load_checkpoint: `torch.load(checkpoint_path)` raised "Attempting to deserialize object on a CUDA device")
# expect: DL009 at 9
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

def _load(checkpoint_path):
    checkpoint = torch.load(checkpoint_path)
    return checkpoint


def load_checkpoint(path, model):
    print(f"Load checkpoint from: {path}")
    checkpoint = _load(path)
    model.load_state_dict(checkpoint["state_dict"])
    return model


model = nn.Conv2d(3, 3, 3).to(device)
model = load_checkpoint("./checkpoint/Place2.pth", model)
