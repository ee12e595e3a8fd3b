# source: https://github.com/GMvandeVen/class-incremental-learning/issues/5  (np.argmax on a CUDA tensor went through np.asarray -> Tensor.__array__ -> "can't convert cuda:0 device type tensor to numpy")
# expect: DL003 at 19
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


def validate(model: nn.Module, dataset, device, batch_size=128, active_classes=None):
    model.eval()
    loader = DataLoader(dataset, batch_size=batch_size, pin_memory=True)
    predictions, targets = [], []
    for data, labels in loader:
        data, labels = data.to(device), labels.to(device)
        with torch.no_grad():
            scores = model(data)
        if active_classes is not None:
            scores = scores[:, active_classes]
        probs = np.asarray(torch.softmax(scores, dim=1))
        predicted = np.argmax(probs, axis=1)
        predictions.append(predicted)
        targets.append(labels)
    truth = torch.cat(targets).cpu().numpy()
    return float((np.concatenate(predictions) == truth).mean())


if __name__ == "__main__":
    from torch.utils.data import TensorDataset

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    classifier = nn.Sequential(nn.Flatten(), nn.Linear(784, 10)).to(device)
    ds = TensorDataset(torch.rand(512, 1, 28, 28), torch.randint(0, 10, (512,)))
    print(validate(classifier, ds, device, active_classes=list(range(4))))
