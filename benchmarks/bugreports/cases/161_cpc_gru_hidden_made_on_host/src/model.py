# (see 0_train.py for the header)
"""CPCEncoder: wraps the CPC network, its optimizer, the fit loop and checkpointing."""
import os

import torch
from tqdm import tqdm

from utils.model_utils import CPC, info_nce


class CPCEncoder:
    def __init__(self, options):
        self.options = options
        self.device = options["device"]
        self.cpc = CPC(options)
        self.cpc.to(self.device)
        self.optimizer = torch.optim.Adam(self.cpc.parameters(), lr=options["learning_rate"],
                                          betas=(0.9, 0.98), eps=1e-09, weight_decay=1e-4, amsgrad=True)
        self.loss = {"nce": [], "acc": []}

    def fit(self, data_loader):
        self.cpc.train()
        for epoch in range(self.options["epochs"]):
            tqdm_bar = tqdm(enumerate(data_loader), total=len(data_loader), leave=True)
            for i, Xbatch in tqdm_bar:
                Xbatch = Xbatch.float().unsqueeze(1).to(self.device)
                hidden = self.cpc.init_hidden(len(Xbatch))
                encoder_samples, predictions, hidden = self.cpc(Xbatch, hidden)
                nce, acc = info_nce(encoder_samples, predictions, self.options["timestep"], len(Xbatch))
                self.optimizer.zero_grad()
                nce.backward()
                self.optimizer.step()
                self.loss["nce"].append(nce.item())
                self.loss["acc"].append(acc)
                tqdm_bar.set_description(f"Epoch-{epoch} NCE: {nce.item():.4f} acc: {acc:.3f}")

    def save_weights(self, path):
        os.makedirs(path, exist_ok=True)
        torch.save(self.cpc.state_dict(), os.path.join(path, "cpc.pt"))
