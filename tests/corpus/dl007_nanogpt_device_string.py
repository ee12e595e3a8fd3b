# source: https://github.com/karpathy/nanoGPT/issues/281  (train.py hard-codes `device = 'cuda'`: "AssertionError: Torch not compiled with CUDA enabled" until it was edited to 'cpu')
# expect: DL007 at 8
import torch
import torch.nn as nn

batch_size = 12
block_size = 64
device = "cuda"
torch.manual_seed(1337)

model = nn.Sequential(nn.Embedding(65, 64), nn.Linear(64, 65))
model.to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
data = torch.randint(0, 65, (10_000,))


def get_batch():
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([data[i:i + block_size] for i in ix])
    y = torch.stack([data[i + 1:i + 1 + block_size] for i in ix])
    return x.to(device), y.to(device)


for it in range(10):
    X, Y = get_batch()
    logits = model(X)
    loss = nn.functional.cross_entropy(logits.view(-1, 65), Y.view(-1))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
