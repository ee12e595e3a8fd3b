# source: https://github.com/syuu1987/geekTime-semantic-segmentation/issues/1  (device errors from tensors/layers created inside forward; here the hidden state is created with new_zeros on the input's device)
# expect: clean
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class CharRNN(nn.Module):
    def __init__(self, vocab=60, hidden=128, layers=2):
        super().__init__()
        self.layers, self.hidden = layers, hidden
        self.emb = nn.Embedding(vocab, 32)
        self.rnn = nn.GRU(32, hidden, layers, batch_first=True)
        self.bn = nn.LayerNorm(hidden)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        x = self.emb(tokens)
        h0 = x.new_zeros(self.layers, x.size(0), self.hidden)
        y, _ = self.rnn(x, h0)
        return self.out(self.bn(y))


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = CharRNN().to(device)
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
text = torch.randint(0, 60, (400, 65))
loader = DataLoader(TensorDataset(text[:, :-1], text[:, 1:]), batch_size=32, shuffle=True, pin_memory=True)
for epoch in range(3):
    for inp, tgt in loader:
        inp, tgt = inp.to(device), tgt.to(device)
        logits = model(inp)
        loss = nn.functional.cross_entropy(logits.reshape(-1, 60), tgt.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
