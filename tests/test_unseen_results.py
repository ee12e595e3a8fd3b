"""What the result of a callable the linter cannot see is taken to be (the first look of
2026-11-26, second round: 10 of its 16 false DL003 of this cause were a step function handed
in that returns `loss.item()`; the measurement per kind of unseen callable is in
benchmarks/README.md §7).

A value handed in or held that the linter cannot see (a parameter, a local) answers with
device tensors only when its name says it is a model or a criterion: a step function or a
post-processing helper handed in may answer with anything, so nothing is claimed. Controls:
a model and a criterion handed in still give device results, and the bug stays flagged.

Lines ending in `# <- DLnnn` must be flagged with that code and nothing else may be flagged.
"""

import pytest
from inference_cases import expected, program

from devicelint.engine import lint_source

RULES = ["DL001", "DL002", "DL003", "DL004", "DL006", "DL010", "DL011", "DL015"]

# PyTorch Step-by-Step's helpers.py / StepByStep class: the step function is a closure built
# elsewhere and handed in; it returns `loss.item()`, a Python float.
_STEP_FUNCTION_HANDED_IN = """
def make_train_step_fn(model, loss_fn, optimizer):
    def perform_train_step_fn(x, y):
        model.train()
        yhat = model(x)
        loss = loss_fn(yhat, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        return loss.item()
    return perform_train_step_fn


def mini_batch(device, data_loader, step_fn):
    mini_batch_losses = []
    for x_batch, y_batch in data_loader:
        x_batch = x_batch.to(device)
        y_batch = y_batch.to(device)
        mini_batch_loss = step_fn(x_batch, y_batch)
        mini_batch_losses.append(mini_batch_loss)
    return np.mean(mini_batch_losses)


class StepByStep:
    def __init__(self, model, loss_fn, optimizer, device):
        self.model = model
        self.device = device
        self.train_step_fn = make_train_step_fn(model, loss_fn, optimizer)
        self.losses = []

    def train(self, loader, n_epochs):
        self.model.to(self.device)
        for epoch in range(n_epochs):
            step = self.train_step_fn
            losses = [step(x.to(self.device), y.to(self.device)) for x, y in loader]
            self.losses.append(np.mean(losses))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    step_fn = make_train_step_fn(model, loss_fn, optimizer)
    for epoch in range(args.epochs):
        print(epoch, mini_batch(device, make_loader(), step_fn))
    StepByStep(Net(), loss_fn, torch.optim.SGD(model.parameters(), lr=0.1), device).train(make_loader(), 2)


if __name__ == "__main__":
    main()
"""

# An evaluation helper handed a de-normalizing function that turns the prediction into a
# NumPy array before it is saved.
_POSTPROCESS_HANDED_IN = """
import cv2


def save_predictions(model, loader, device, denormalize, out_dir):
    model.eval()
    with torch.no_grad():
        for i, (images, _) in enumerate(loader):
            pred = model(images.to(device))
            image = denormalize(pred[0])  # CHW floats in [0, 1], as a NumPy array
            image = (np.transpose(image, (1, 2, 0)) * 255).astype(np.uint8)
            cv2.imwrite(f"{out_dir}/{i:05d}.png", image)
"""

# Controls: a model and a criterion handed in compute with the device tensors they are given.
_MODEL_HANDED_IN_CONTROL = """
def predict(model, loader, device):
    preds = []
    for x, _ in loader:
        out = model(x.to(device))
        preds.append(out.argmax(1).numpy())  # <- DL003
    return np.concatenate(preds)


def train(model, criterion_char, loader, optimizer):
    for x, y in loader:
        restored = model(x.cuda())
        target = y.cuda()
        loss = np.sum([criterion_char(restored[j], target) for j in range(len(restored))])  # <- DL003
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""

CASES = {
    "step_function_handed_in_returns_a_number": _STEP_FUNCTION_HANDED_IN,
    "denormalize_handed_in_returns_a_numpy_image": _POSTPROCESS_HANDED_IN,
    "model_and_criterion_handed_in_control": _MODEL_HANDED_IN_CONTROL,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_unseen_callable_result(name):
    code = program(CASES[name])
    got = {(f.code, f.line) for f in lint_source(code, f"{name}.py", select=RULES)}
    listing = "\n".join(f"{n:3d} {line}" for n, line in enumerate(code.splitlines(), 1))
    assert got == expected(code), f"got {sorted(got)}\n{listing}"
