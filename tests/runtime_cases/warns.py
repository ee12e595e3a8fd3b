import torch

scaler = torch.cuda.amp.GradScaler()
print("made", type(scaler).__name__)
