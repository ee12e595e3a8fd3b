"""False-positive causes found by the first look of 2026-11-26 (second round, devicelint
7984882, `benchmarks/firstlook/2026-11-26b.json`), each as a realistic program with its
control: the same program with the bug put back must still be flagged.

- a helper that moves a dict batch's values in place (`x[k] = v.to(device)` over
  `x.items()`), called on the batch before `model(batch)` (Kaggle HMS 2024 `move_device`,
  `Evaluator._move_device`);
- a helper that moves its inputs to the device type read from the module's own parameters
  (`list(m.parameters())[0].device.type`), called with a module nobody moved (a plotting
  helper of a book's figures);
- a converter from a module the linter cannot resolve, named the common way with `2` for
  "to" (`tensor2im`, `tensor2np`): it returns a host image or array, not a device tensor
  (an encoder's inference script imported through `sys.path.append("..")`).

Lines ending in `# <- DLnnn` must be flagged with that code and nothing else may be flagged.
"""

import pytest
from inference_cases import expected, program

from devicelint.engine import lint_source

RULES = ["DL001", "DL002", "DL003", "DL004", "DL006", "DL010", "DL011", "DL015"]

_HELPER_MOVES_DICT_BATCH = """
from collections import defaultdict


def move_device(x, input_keys, device):
    for k, v in x.items():
        if k in input_keys:
            x[k] = v.to(device)


class DictModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = Net()

    def forward(self, batch):
        return {"pred": self.net(batch["eeg"])}


def make_dict_loader():
    rows = [{"eeg": torch.randn(8), "eeg_id": i, "target": torch.randn(3)} for i in range(64)]
    return DataLoader(rows, batch_size=16)


class Evaluator:
    def __init__(self, input_keys, target_key, device="cuda"):
        self.input_keys = input_keys
        self.target_key = target_key
        self.device = device

    def _move_device(self, x):
        for k, v in x.items():
            if k in self.input_keys + [self.target_key]:
                x[k] = v.to(self.device)

    @torch.no_grad()
    def evaluate(self, model, valid_loader):
        model.eval()
        logits = defaultdict(list)
        for batch in valid_loader:
            self._move_device(batch)
            output = model(batch)
            for eeg_id, logit in zip(batch["eeg_id"], output["pred"].cpu().numpy()):
                logits[int(eeg_id)].append(logit)
        return logits


def predict(model, test_loader, input_keys, device):
    model.eval()
    model.to(device=device)
    preds = []
    for batch in test_loader:
        move_device(batch, input_keys, device)
        output = model(batch)
        preds.append(output["pred"].detach().cpu().numpy())
    return np.concatenate(preds)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    model = DictModel().to(args.device)
    loader = make_dict_loader()
    Evaluator(["eeg"], "target", device=args.device).evaluate(model, loader)
    predict(model, loader, ["eeg"], args.device)


if __name__ == "__main__":
    main()
"""

_HELPER_CASTS_DICT_BATCH = """
def to_float(x, input_keys):
    for k, v in x.items():
        if k in input_keys:
            x[k] = v.float()


def make_dict_loader():
    rows = [{"eeg": torch.randn(8), "target": torch.randn(3)} for i in range(64)]
    return DataLoader(rows, batch_size=16)


def predict(model, test_loader, device):
    model.eval()
    model.to(device)
    preds = []
    for batch in test_loader:
        to_float(batch, ["eeg"])
        output = model(batch["eeg"])  # <- DL002
        preds.append(output.detach().cpu().numpy())
    return np.concatenate(preds)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    predict(Net(), make_dict_loader(), device)
"""

_DEVICE_TYPE_FROM_PARAMETERS = """
import matplotlib.pyplot as plt

device = "cuda" if torch.cuda.is_available() else "cpu"


def disassemble(rnn):
    hidden = nn.Linear(rnn.hidden_size, rnn.hidden_size)
    inputs = nn.Linear(rnn.input_size, rnn.hidden_size)
    with torch.no_grad():
        hidden.weight.copy_(rnn.weight_hh_l0)
        inputs.weight.copy_(rnn.weight_ih_l0)
    return hidden, inputs


def transformed_inputs(linear_input, corners, ax=None):
    device = list(linear_input.parameters())[0].device.type
    points = linear_input(torch.as_tensor(corners).float().to(device)).detach().cpu().numpy()
    if ax is None:
        _, ax = plt.subplots(1, 1)
    ax.scatter(points[:, 0], points[:, 1])
    return ax


def hidden_path(linear_hidden, start, steps=4):
    device = next(linear_hidden.parameters()).device.type
    h = torch.as_tensor(start).float().to(device)
    path = [h]
    for _ in range(steps):
        h = torch.tanh(linear_hidden(h))
        path.append(h)
    return torch.stack(path).detach().cpu().numpy()


def figure13(rnn):
    linear_hidden, linear_input = disassemble(rnn)
    square = [[-1, -1], [-1, 1], [1, 1], [1, -1]]
    transformed_inputs(linear_input, square)
    return hidden_path(linear_hidden, [0.5, -0.5])


def train_rnn(data):
    rnn = nn.RNN(input_size=2, hidden_size=2, batch_first=True).to(device)
    optimizer = torch.optim.SGD(rnn.parameters(), lr=0.1)
    for x, y in data:
        out, _ = rnn(x.to(device))
        loss = F.mse_loss(out[:, -1], y.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return rnn.cpu()


if __name__ == "__main__":
    figure13(nn.RNN(input_size=2, hidden_size=2, batch_first=True))
"""

_INPUTS_TO_THE_GLOBAL_DEVICE = """
device = "cuda" if torch.cuda.is_available() else "cpu"


def transformed_inputs(linear_input, corners):
    points = linear_input(torch.as_tensor(corners).float().to(device))
    return points.detach().cpu().numpy()


if __name__ == "__main__":
    transformed_inputs(nn.Linear(2, 2), [[-1, -1], [1, 1]])  # <- DL001
"""

_UNRESOLVED_TENSOR2IM = """
import os
import sys

from PIL import Image

sys.path.append(".")
sys.path.append("..")

from utils.common import tensor2im, tensor2np, log_input_image  # noqa: E402
from models.psp import pSp  # noqa: E402


def run_on_batch(inputs, net):
    return net(inputs, randomize_noise=False, resize=True)


def run(opts, dataset):
    net = pSp(opts)
    net.eval()
    net.cuda()
    loader = DataLoader(dataset, batch_size=opts.test_batch_size, shuffle=False, drop_last=True)
    global_i = 0
    for input_batch in loader:
        with torch.no_grad():
            input_cuda = input_batch.cuda().float()
            result_batch = run_on_batch(input_cuda, net)
        for i in range(opts.test_batch_size):
            result = tensor2im(result_batch[i])
            input_im = log_input_image(input_batch[i], opts)
            res = np.concatenate([np.array(input_im.resize((256, 256))),
                                  np.array(result.resize((256, 256)))], axis=1)
            Image.fromarray(res).save(os.path.join(opts.exp_dir, f"{global_i:05d}.jpg"))
            np.save(os.path.join(opts.exp_dir, f"{global_i:05d}.npy"), np.asarray(tensor2np(result_batch[i])))
            global_i += 1
"""

_UNRESOLVED_HELPER_CONTROL = """
import sys

sys.path.append("..")

from utils.common import upsample  # noqa: E402
from models.psp import pSp  # noqa: E402


def run(opts, dataset):
    net = pSp(opts)
    net.eval()
    net.cuda()
    loader = DataLoader(dataset, batch_size=opts.test_batch_size)
    previews = []
    for input_batch in loader:
        with torch.no_grad():
            result_batch = net(input_batch.cuda().float())
        for i in range(opts.test_batch_size):
            big = upsample(result_batch[i])
            previews.append(np.array(big))  # <- DL003
    return previews
"""

CASES = {
    "helper_moves_the_dict_batch_in_place": _HELPER_MOVES_DICT_BATCH,
    "helper_casts_the_dict_batch_in_place_control": _HELPER_CASTS_DICT_BATCH,
    "inputs_moved_to_the_device_type_of_the_modules_parameters": _DEVICE_TYPE_FROM_PARAMETERS,
    "inputs_moved_to_the_global_device_control": _INPUTS_TO_THE_GLOBAL_DEVICE,
    "unresolved_tensor2im_returns_a_host_image": _UNRESOLVED_TENSOR2IM,
    "unresolved_helper_of_device_tensors_control": _UNRESOLVED_HELPER_CONTROL,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_firstlook_cause(name):
    code = program(CASES[name])
    got = {(f.code, f.line) for f in lint_source(code, f"{name}.py", select=RULES)}
    listing = "\n".join(f"{n:3d} {line}" for n, line in enumerate(code.splitlines(), 1))
    assert got == expected(code), f"got {sorted(got)}\n{listing}"
