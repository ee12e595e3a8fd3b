# tempts: DL003 with .numpy() that always follows .cpu() / .detach().cpu(), and model.cpu() before reading parameters
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Linear(12, 24), nn.ReLU(), nn.Linear(24, 3)).to(device)
loader = DataLoader(TensorDataset(torch.randn(300, 12), torch.randint(0, 3, (300,))), batch_size=25, pin_memory=True)

model.eval()
all_logits = []
all_labels = []
with torch.no_grad():
    for x, y in loader:
        x = x.to(device)
        y = y.to(device)
        all_logits.append(model(x))
        all_labels.append(y)

logits = torch.cat(all_logits)
labels = torch.cat(all_labels)
probs = logits.softmax(dim=1).cpu().numpy()
preds = probs.argmax(axis=1)
truth = labels.cpu().numpy()
print("accuracy", float(np.mean(preds == truth)))

embedding = model[0](torch.randn(4, 12, device=device))
emb_np = embedding.detach().cpu().numpy()
print(emb_np.shape)

model.cpu()
first_layer = model[0].weight.detach().numpy()
np.save("first_layer.npy", first_layer)
