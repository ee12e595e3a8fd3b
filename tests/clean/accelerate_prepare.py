# tempts: DL001/DL002 with Hugging Face accelerate: accelerator.prepare places model and batches, so no .to() is needed
import torch
import torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset


def main():
    accelerator = Accelerator(mixed_precision="no")

    inputs = torch.randn(3000, 10)
    labels = (inputs[:, 0] > 0).long()
    loader = DataLoader(TensorDataset(inputs, labels), batch_size=50, shuffle=True)

    model = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    criterion = nn.CrossEntropyLoss()

    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

    for epoch in range(4):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            out = model(x)
            loss = criterion(out, y)
            accelerator.backward(loss)
            optimizer.step()
        accelerator.print(f"epoch {epoch} last loss {loss.item():.4f}")

    accelerator.wait_for_everyone()
    unwrapped = accelerator.unwrap_model(model)
    accelerator.save(unwrapped.state_dict(), "model.pt")


if __name__ == "__main__":
    main()
