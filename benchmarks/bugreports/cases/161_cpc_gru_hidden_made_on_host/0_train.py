# source: https://github.com/talipucar/CPC/issues/1
# seen: 2026-11-27
# style: research repository entry point (0_train.py) with a config dict, a raw-audio window Dataset and loader, src/model.py's CPCEncoder (moves its CPC network to the configured device, fit() loop) and utils/model_utils.py's CPC nn.Module whose init_hidden builds the GRU state with torch.zeros
# expect: DL011 at utils/model_utils.py:33, src/model.py:27, src/model.py:28
# also-ok: DL013 at src/model.py:33, src/model.py:35, utils/model_utils.py:60
# why: fit() moves each batch to the device and the network is on the device, but init_hidden returns torch.zeros(1, batch, hidden_dim) on the CPU; the GRU gets a cuda input and a CPU hidden -> "Input and hidden tensors are not at the same device, found input tensor at cuda:0 and hidden tensor at cpu" (traceback: 0_train.py main -> src/model.py fit -> utils/model_utils.py forward self.gru)
import argparse

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from src.model import CPCEncoder


class RawAudioWindows(Dataset):
    def __init__(self, path, seq_len):
        self.audio = np.load(path).astype(np.float32)
        self.seq_len = seq_len

    def __len__(self):
        return len(self.audio) // self.seq_len

    def __getitem__(self, idx):
        start = idx * self.seq_len
        return torch.from_numpy(self.audio[start:start + self.seq_len])


def train(config, data_loader, save_weights=True):
    encoder = CPCEncoder(config)
    encoder.fit(data_loader)
    if save_weights:
        encoder.save_weights(config["model_dir"])


def main(config):
    dataset = RawAudioWindows(config["data_path"], config["seq_len"])
    data_loader = DataLoader(dataset, batch_size=config["batch_size"], shuffle=True, drop_last=True)
    train(config, data_loader, save_weights=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/train_audio.npy")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    config = {
        "data_path": args.data,
        "seq_len": 20480,
        "timestep": 12,
        "hidden_dim": 256,
        "z_dim": 512,
        "learning_rate": 2e-4,
        "epochs": args.epochs,
        "batch_size": args.batch_size,
        "model_dir": "results/cpc",
        "device": torch.device("cuda" if torch.cuda.is_available() else "cpu"),
    }
    main(config)
