# tempts: DL002 with BERT-era tuple batches moved by `batch = tuple(t.to(device) for t in batch)` and then unpacked
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, RandomSampler, TensorDataset


class BagOfWords(nn.Module):
    def __init__(self, vocab=3000, dim=96, labels=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.cls = nn.Linear(dim, labels)

    def forward(self, input_ids, attention_mask):
        vecs = self.emb(input_ids) * attention_mask.unsqueeze(-1)
        pooled = vecs.sum(1) / attention_mask.sum(1, keepdim=True).clamp_min(1)
        return self.cls(pooled)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
ids = torch.randint(1, 3000, (640, 40))
mask = torch.ones(640, 40)
labels = torch.randint(0, 2, (640,))
dataset = TensorDataset(ids, mask, labels)
dataloader = DataLoader(dataset, sampler=RandomSampler(dataset), batch_size=32, pin_memory=True)

model = BagOfWords()
model.to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fct = nn.CrossEntropyLoss()

global_step = 0
tr_loss = 0.0
for _ in range(2):
    for step, batch in enumerate(dataloader):
        model.train()
        batch = tuple(t.to(device) for t in batch)
        input_ids, input_mask, label_ids = batch
        logits = model(input_ids, input_mask)
        loss = loss_fct(logits.view(-1, 2), label_ids.view(-1))
        loss.backward()
        tr_loss += loss.item()
        optimizer.step()
        optimizer.zero_grad()
        global_step += 1
print("avg loss", tr_loss / global_step)
