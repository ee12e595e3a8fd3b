# tempts: DL002 when a custom collate_fn pads the samples and moves the whole batch to the device
from functools import partial

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader


def collate_to_device(samples, device):
    seqs, labels = zip(*samples)
    padded = pad_sequence(list(seqs), batch_first=True, padding_value=0)
    labels = torch.stack(list(labels))
    return padded.to(device), labels.to(device)


class Classifier(nn.Module):
    def __init__(self, vocab=200, dim=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, 3)

    def forward(self, tokens):
        _, h = self.rnn(self.emb(tokens))
        return self.out(h[-1])


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    samples = [(torch.randint(1, 200, (int(n),)), torch.tensor(int(n) % 3))
               for n in torch.randint(3, 25, (400,))]
    loader = DataLoader(samples, batch_size=20, shuffle=True,
                        collate_fn=partial(collate_to_device, device=device))
    model = Classifier().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(3):
        for tokens, labels in loader:
            loss = nn.functional.cross_entropy(model(tokens), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
