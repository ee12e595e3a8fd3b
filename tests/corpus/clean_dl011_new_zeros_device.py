# source: https://github.com/Lightning-AI/pytorch-lightning/issues/3738  (the fix: create hidden and cell state on the input's device)
# expect: clean
import torch
import torch.nn as nn


class CharRNN(nn.Module):
    def __init__(self, vocab=40, embed=16, hidden=32, layers=2):
        super().__init__()
        self.layers, self.hidden = layers, hidden
        self.embedding = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, layers, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, letters):
        emb = self.embedding(letters)
        h0 = torch.zeros(self.layers, letters.size(0), self.hidden, device=letters.device)
        c0 = emb.new_zeros(self.layers, letters.size(0), self.hidden)
        out, _ = self.lstm(emb, (h0, c0))
        scale = torch.tensor(0.5)
        return self.out(out) * scale


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = CharRNN().to(device)
idx = torch.randint(0, 40, (3, 10), device=device)
positions = torch.arange(10)
logits = model(idx)[:, positions]
print(logits.shape)
