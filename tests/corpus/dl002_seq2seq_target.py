# source: https://github.com/SamLynnEvans/Transformer/issues/27  (Transformer training: src and trg batches were still on the CPU while the model ran on CUDA; the fix moved them with .cuda() before use)
# expect: DL002 at 36
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SRC_VOCAB, TRG_VOCAB, PAD = 800, 900, 0


class TinyTransformer(nn.Module):
    def __init__(self, d_model=64):
        super().__init__()
        self.src_emb = nn.Embedding(SRC_VOCAB, d_model, padding_idx=PAD)
        self.trg_emb = nn.Embedding(TRG_VOCAB, d_model, padding_idx=PAD)
        self.core = nn.Transformer(d_model, nhead=4, num_encoder_layers=2, num_decoder_layers=2,
                                   dim_feedforward=128, batch_first=True)
        self.out = nn.Linear(d_model, TRG_VOCAB)

    def forward(self, src, trg_input):
        causal = self.core.generate_square_subsequent_mask(trg_input.size(1), device=trg_input.device)
        h = self.core(self.src_emb(src), self.trg_emb(trg_input), tgt_mask=causal)
        return self.out(h)


def train_model(model, loader, epochs, device):
    optim = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9)
    criterion = nn.CrossEntropyLoss(ignore_index=PAD)
    model.train()
    for epoch in range(epochs):
        total_loss = torch.zeros((), device=device)
        for i, (src, trg) in enumerate(loader):
            src = src.to(device)
            trg_input = trg[:, :-1].to(device)
            ys = trg[:, 1:].contiguous().view(-1)
            preds = model(src, trg_input)
            loss = criterion(preds.view(-1, preds.size(-1)), ys)
            optim.zero_grad()
            loss.backward()
            optim.step()
            total_loss += loss.detach()
        print(f"epoch {epoch + 1}, loss = {(total_loss / (i + 1)).item():.3f}")


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    pairs = TensorDataset(torch.randint(1, SRC_VOCAB, (1000, 20)), torch.randint(1, TRG_VOCAB, (1000, 22)))
    loader = DataLoader(pairs, batch_size=32, shuffle=True, pin_memory=True)
    train_model(TinyTransformer().to(device), loader, 3, device)
