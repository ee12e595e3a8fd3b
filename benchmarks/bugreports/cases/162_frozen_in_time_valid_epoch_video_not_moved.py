# source: https://github.com/m-bain/frozen-in-time/issues/4
# seen: 2026-11-27
# style: repository trainer module (trainer/trainer.py style) with the entry point folded in: a BaseTrainer that moves the model to its device, a Trainer whose _train_epoch tokenizes and moves data['text'] and data['video'] from dict batches, a _valid_epoch that tokenizes and moves only the text, a text-video model whose forward reads data['video'] through compute_video, and a main() with argparse
# expect: DL002 at 123
# also-ok: DL014 at 96, 95, 121
# also-ok: DL013 at 105, 107, 128, 124, 125
# why: the validation pass (run first, as self._valid_epoch(-1)) hands the model a batch whose data['video'] is still on the CPU; compute_video runs the cuda video encoder on it -> "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same" from video_embeddings = self.compute_video(video_data); the reporter fixed it by moving the videos to the GPU in validation, as _train_epoch does
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from tqdm import tqdm
from transformers import AutoModel, AutoTokenizer

from data_loader import TextVideoDataset
from model.video_transformer import SpaceTimeTransformer


def sim_matrix(a, b, eps=1e-8):
    a_n, b_n = a.norm(dim=1)[:, None], b.norm(dim=1)[:, None]
    a_norm = a / torch.max(a_n, eps * torch.ones_like(a_n))
    b_norm = b / torch.max(b_n, eps * torch.ones_like(b_n))
    return torch.mm(a_norm, b_norm.transpose(0, 1))


class NormSoftmaxLoss(nn.Module):
    def __init__(self, temperature=0.05):
        super().__init__()
        self.temperature = temperature

    def forward(self, x):
        i_logsm = F.log_softmax(x / self.temperature, dim=1)
        j_logsm = F.log_softmax(x.t() / self.temperature, dim=1)
        return -(torch.diag(i_logsm).mean() + torch.diag(j_logsm).mean()) / 2


class FrozenInTime(nn.Module):
    def __init__(self, text_model_name, projection_dim=256, num_frames=4):
        super().__init__()
        self.text_model = AutoModel.from_pretrained(text_model_name)
        self.video_model = SpaceTimeTransformer(num_frames=num_frames)
        self.txt_proj = nn.Linear(self.text_model.config.hidden_size, projection_dim)
        self.vid_proj = nn.Linear(self.video_model.embed_dim, projection_dim)

    def forward(self, data, return_embeds=True):
        text_data = data["text"]
        video_data = data["video"]
        text_embeddings = self.compute_text(text_data)
        video_embeddings = self.compute_video(video_data)
        if return_embeds:
            return text_embeddings, video_embeddings
        return sim_matrix(text_embeddings, video_embeddings)

    def compute_text(self, text_data):
        return self.txt_proj(self.text_model(**text_data).last_hidden_state[:, 0, :])

    def compute_video(self, video_data):
        return self.vid_proj(self.video_model(video_data))


class BaseTrainer:
    def __init__(self, model, loss, optimizer, config):
        self.config = config
        self.device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
        self.model = model.to(self.device)
        self.loss = loss
        self.optimizer = optimizer
        self.epochs = config["epochs"]

    def train(self):
        self._valid_epoch(-1)
        for epoch in range(1, self.epochs + 1):
            log = self._train_epoch(epoch)
            log.update(self._valid_epoch(epoch))
            print(epoch, log)


class Trainer(BaseTrainer):
    def __init__(self, model, loss, optimizer, config, data_loader, valid_data_loader, tokenizer):
        super().__init__(model, loss, optimizer, config)
        self.data_loader = data_loader
        self.valid_data_loader = valid_data_loader
        self.tokenizer = tokenizer
        self.log_step = config.get("log_step", 50)

    def _train_epoch(self, epoch):
        self.model.train()
        total_loss = 0
        for batch_idx, data in enumerate(self.data_loader):
            if self.tokenizer is not None:
                data["text"] = self.tokenizer(data["text"], return_tensors="pt", padding=True, truncation=True)
            data["text"] = {key: val.to(self.device) for key, val in data["text"].items()}
            data["video"] = data["video"].to(self.device)

            self.optimizer.zero_grad()
            text_embeds, video_embeds = self.model(data)
            output = sim_matrix(text_embeds, video_embeds)
            loss = self.loss(output)
            loss.backward()
            self.optimizer.step()

            total_loss += loss.detach().item()
            if batch_idx % self.log_step == 0:
                print(f"Train Epoch: {epoch} [{batch_idx}/{len(self.data_loader)}] Loss: {loss.detach().item():.6f}")
        return {"loss": total_loss / len(self.data_loader)}

    def _valid_epoch(self, epoch):
        self.model.eval()
        total_val_loss = 0
        meta_arr = []
        text_embed_arr = []
        vid_embed_arr = []
        with torch.no_grad():
            for batch_idx, data in enumerate(tqdm(self.valid_data_loader)):
                meta_arr.append(data["meta"])
                if self.tokenizer is not None:
                    data["text"] = self.tokenizer(data["text"], return_tensors="pt", padding=True, truncation=True)
                data["text"] = {key: val.to(self.device) for key, val in data["text"].items()}

                text_embed, vid_embed = self.model(data, return_embeds=True)
                text_embed_arr.append(text_embed.cpu())
                vid_embed_arr.append(vid_embed.cpu())
                sims_batch = sim_matrix(text_embed, vid_embed)
                loss = self.loss(sims_batch)
                total_val_loss += loss.item()

        text_embeds = torch.cat(text_embed_arr)
        vid_embeds = torch.cat(vid_embed_arr)
        sims = sim_matrix(text_embeds, vid_embeds).numpy()
        r1 = float(np.mean(np.argmax(sims, axis=1) == np.arange(sims.shape[0])))
        return {"val_loss": total_val_loss / len(self.valid_data_loader), "R@1": r1}


def main():
    parser = argparse.ArgumentParser(description="frozen-in-time training")
    parser.add_argument("--data-dir", default="data/WebVid")
    parser.add_argument("--text-model", default="distilbert-base-uncased")
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=3e-5)
    args = parser.parse_args()

    tokenizer = AutoTokenizer.from_pretrained(args.text_model)
    train_set = TextVideoDataset(args.data_dir, split="train", num_frames=4)
    val_set = TextVideoDataset(args.data_dir, split="val", num_frames=4)
    data_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=8)
    valid_data_loader = DataLoader(val_set, batch_size=args.batch_size, shuffle=False, num_workers=8)

    model = FrozenInTime(args.text_model)
    loss = NormSoftmaxLoss(temperature=0.05)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    config = {"epochs": args.epochs, "log_step": 50}
    trainer = Trainer(model, loss, optimizer, config, data_loader, valid_data_loader, tokenizer)
    trainer.train()


if __name__ == "__main__":
    main()
