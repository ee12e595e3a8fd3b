# source: https://github.com/hangyu94/Ada-CM/issues/10  (same-device errors from loader tensors; here the sequence lengths deliberately stay on the CPU because pack_padded_sequence requires CPU lengths)
# expect: clean
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
from torch.utils.data import DataLoader


def collate(samples):
    seqs, labels = zip(*samples)
    lengths = torch.tensor([len(s) for s in seqs])
    return pad_sequence(list(seqs), batch_first=True), lengths, torch.stack(list(labels))


class BiLSTMTagger(nn.Module):
    def __init__(self, vocab=500, dim=64, classes=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.lstm = nn.LSTM(dim, dim, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * dim, classes)

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.emb(tokens), lengths, batch_first=True, enforce_sorted=False)
        out, _ = self.lstm(packed)
        out, _ = pad_packed_sequence(out, batch_first=True)
        return self.out(out.max(dim=1).values)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
data = [(torch.randint(1, 500, (int(n),)), torch.tensor(int(n) % 3)) for n in torch.randint(2, 30, (600,))]
loader = DataLoader(data, batch_size=32, shuffle=True, collate_fn=collate, pin_memory=True)
model = BiLSTMTagger().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)

for epoch in range(3):
    for tokens, lengths, labels in loader:
        tokens = tokens.to(device)
        labels = labels.to(device)
        logits = model(tokens, lengths)
        loss = nn.functional.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
