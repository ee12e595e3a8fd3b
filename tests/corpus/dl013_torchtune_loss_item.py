# source: https://github.com/meta-pytorch/torchtune/pull/522  (loss.item() every step costs a cudaStreamSynchronize; moved into the log-every-n-steps block)
# expect: DL013 at 24
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Embedding(64, 32), nn.Flatten(), nn.Linear(32 * 8, 64)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
loss_fn = nn.CrossEntropyLoss()
dataloader = DataLoader(TensorDataset(torch.randint(0, 64, (128, 8)), torch.randint(0, 64, (128,))),
                        batch_size=16, pin_memory=True)
log_every_n_steps = 10

for idx, (tokens, labels) in enumerate(dataloader):
    tokens = tokens.to(device)
    labels = labels.to(device)
    logits = model(tokens)
    loss = loss_fn(logits, labels)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)

    loss_to_log = loss.item()
    if idx % log_every_n_steps == 0:
        print(f"step {idx}: {loss_to_log:.4f}")
