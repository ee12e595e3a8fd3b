"""False-positive causes found by the first look of 2026-11-26 (fourth round, devicelint
6d3cec3, `benchmarks/firstlook/2026-11-26d.json`), each as a realistic program with its
control: the same program with a real conversion must still be flagged.

- scikit-learn's `train_test_split(X, y, ...)` on tensors already moved to the device (a
  course's circles/moons/blobs classification lessons): it only indexes its arrays
  (`_safe_indexing` -> `array[idx, ...]`, no `np.asarray`), so the tensors come back on the
  device and nothing fails; it was reported as DL003 twice per call.

Lines ending in `# <- DLnnn` must be flagged with that code and nothing else may be flagged.
"""

import pytest
from inference_cases import assert_marked

_CIRCLES = """
import matplotlib.pyplot as plt
from sklearn.datasets import make_circles
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split


class CircleModel(nn.Module):
    def __init__(self, hidden=10):
        super().__init__()
        self.layer_1 = nn.Linear(2, hidden)
        self.layer_2 = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.layer_2(torch.relu(self.layer_1(x)))


parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=1000)
args = parser.parse_args()
device = "cuda" if torch.cuda.is_available() else "cpu"

X, y = make_circles(1000, noise=0.03, random_state=42)
X = torch.from_numpy(X).type(torch.float32).to(device)
y = torch.from_numpy(y).type(torch.float32).to(device)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=42)

model = CircleModel().to(device)
loss_fn = nn.BCEWithLogitsLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(args.epochs):
    model.train()
    logits = model(X_train).squeeze()
    loss = loss_fn(logits, y_train)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

model.eval()
with torch.inference_mode():
    preds = torch.round(torch.sigmoid(model(X_test).squeeze()))
plt.scatter(X_test[:, 0].cpu(), X_test[:, 1].cpu(), c=preds.cpu())
"""

# Control: a scikit-learn metric does convert, and the predictions are on the device.
_CIRCLES_METRIC = _CIRCLES + "print(accuracy_score(y_test.cpu(), preds))  # <- DL003\n"

CASES = {
    "train_test_split_of_device_tensors": _CIRCLES,
    "sklearn_metric_of_device_predictions": _CIRCLES_METRIC,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_firstlook_cause(name):
    assert_marked(name, CASES[name])
