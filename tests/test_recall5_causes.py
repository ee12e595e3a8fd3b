"""Causes of misses found by the fifth round of the blind bug-report set (2026-11-26, cases
109-131 scored at 2d4e984, `benchmarks/README.md` §8), each as a realistic program in the
shape users write, with its controls where the shape is right and must stay silent.

Lines ending in `# <- DLnnn` must be flagged with that code; nothing else of the rules under
test may be flagged.
"""

import pytest

from inference_cases import expected, findings_at


# --- DL019: loader settings splatted from a dict the script spells out ---

# The PyTorch MNIST example as users adapt it: a CUDA default tensor type when CUDA is used,
# the loaders' extra settings in `kwargs` (a dict literal or an empty dict), splatted into
# shuffling DataLoaders. The dict cannot pass `generator=`, so the loaders shuffle with a host
# generator under a CUDA default.
_MNIST_KWARGS = '''
import argparse

import torch
import torch.nn.functional as F
from torchvision import datasets, transforms

from net import Net


def train(model, device, train_loader, optimizer):
    model.train()
    for data, target in train_loader:
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()


def main():
    parser = argparse.ArgumentParser(description='PyTorch MNIST Example')
    parser.add_argument('--batch-size', type=int, default=64)
    parser.add_argument('--no-cuda', action='store_true', default=False)
    args = parser.parse_args()
    use_cuda = not args.no_cuda and torch.cuda.is_available()
    device = torch.device("cuda" if use_cuda else "cpu")
    if use_cuda:
        torch.set_default_tensor_type('torch.cuda.FloatTensor')

    KWARGS_LINE
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_loader = torch.utils.data.DataLoader(  MARK
        datasets.MNIST('../data', train=True, download=True, transform=tf),
        batch_size=args.batch_size, shuffle=True, **kwargs)
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(10):
        train(model, device, train_loader, optimizer)


if __name__ == '__main__':
    main()
'''


def _mnist(kwargs_line: str, flagged: bool) -> str:
    mark = "# <- DL019" if flagged else ""
    return _MNIST_KWARGS.replace("KWARGS_LINE", kwargs_line).replace("MARK", mark)


@pytest.mark.parametrize("kwargs_line", [
    "kwargs = {'num_workers': 1, 'pin_memory': True} if use_cuda else {}",
    "kwargs = dict(num_workers=1, pin_memory=True)",
    "kwargs = {'num_workers': 1}\n    if use_cuda:\n        kwargs.update({'pin_memory': True})",
    "kwargs = {}\n    kwargs['num_workers'] = 2",
])
def test_splatted_dict_of_known_keys_is_no_generator(kwargs_line):
    src = _mnist(kwargs_line, flagged=True)
    assert findings_at(src, ["DL019"]) == expected(src)


@pytest.mark.parametrize("kwargs_line", [
    # the dict passes a generator: the loader is right
    "kwargs = {'num_workers': 1, 'generator': torch.Generator(device='cuda')}",
    "kwargs = {'num_workers': 1}\n    kwargs['generator'] = torch.Generator(device='cuda')",
    # keys the file does not spell: it may pass one
    "kwargs = loader_settings(args)",
    "kwargs = {'num_workers': 1, **extra_settings}",
    "kwargs = {'num_workers': 1}\n    add_generator(kwargs)",
    "kwargs = {'num_workers': 1}\n    kwargs.update(extra_settings)",
])
def test_splatted_dict_that_may_pass_a_generator_stays_silent(kwargs_line):
    src = _mnist(kwargs_line, flagged=False)
    assert findings_at(src, ["DL019"]) == set()


def test_splatted_parameter_stays_silent():
    # `**loader_kwargs` handed in by the caller: what it holds is the caller's business
    src = '''
import torch
from torch.utils.data import DataLoader

torch.set_default_device("cuda")


def make_loader(dataset, **loader_kwargs):
    return DataLoader(dataset, batch_size=32, shuffle=True, **loader_kwargs)


def run(dataset, model):
    for x, y in make_loader(dataset, num_workers=2):
        model(x)
'''
    assert findings_at(src, ["DL019"]) == set()


# --- DL001 / DL002: calls that run a module on the inputs they are handed ---

# The MNIST example with TensorBoard as course labs write it: the model is moved, one batch
# is drawn for the image grid and the graph, and `writer.add_graph(model, images)` traces the
# model on that batch, still on the host.
_TENSORBOARD_GRAPH = '''
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torch.utils.tensorboard import SummaryWriter
from torchvision import datasets, transforms


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.fc = nn.Linear(32 * 26 * 26, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        return F.log_softmax(self.fc(torch.flatten(x, 1)), dim=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--batch-size', type=int, default=64)
    parser.add_argument('--no-cuda', action='store_true', default=False)
    args = parser.parse_args()
    device = torch.device("cuda" if not args.no_cuda and torch.cuda.is_available() else "cpu")
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_loader = torch.utils.data.DataLoader(datasets.MNIST('../data', train=True, download=True, transform=tf),
                                               batch_size=args.batch_size, pin_memory=True)
    model = Net().to(device)
    writer = SummaryWriter('logs/mnist')
    dataiter = iter(train_loader)
    images, labels = next(dataiter)
    MOVE
    writer.add_image('mnist_images', torchvision.utils.make_grid(images))
    writer.add_graph(model, images)  MARK
    for data, target in train_loader:
        data, target = data.to(device), target.to(device)
        loss = F.nll_loss(model(data), target)
        writer.add_scalar('loss', loss.item())
    writer.close()
'''


def test_tensorboard_graph_of_a_host_batch():
    src = _TENSORBOARD_GRAPH.replace("MOVE", "").replace("MARK", "# <- DL002")
    assert findings_at(src, ["DL001", "DL002"]) == expected(src)


def test_tensorboard_graph_of_a_moved_batch_is_clean():
    src = _TENSORBOARD_GRAPH.replace("MOVE", "images = images.to(device)").replace("MARK", "")
    assert findings_at(src, ["DL001", "DL002", "DL011"]) == set()


# An export script: a checkpoint loaded into a model, an example batch drawn from the
# validation loader, then traced and exported to ONNX.
_EXPORT = '''
import argparse

import torch
import torchvision
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkpoint", default="resnet18.pth")
    parser.add_argument("--data", default="data/val")
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    model = torchvision.models.resnet18(num_classes=10)
    model.load_state_dict(torch.load(args.checkpoint, map_location=device))
    MODEL_MOVE
    model.eval()

    val = datasets.ImageFolder(args.data, transform=transforms.Compose([transforms.Resize(224), transforms.ToTensor()]))
    loader = DataLoader(val, batch_size=1, pin_memory=True)
    example, _ = next(iter(loader))
    EXAMPLE_MOVE
    traced = torch.jit.trace(model, example)  MARK_TRACE
    traced.save("resnet18_traced.pt")
    torch.onnx.export(model, (example,), "resnet18.onnx", input_names=["image"])  MARK_EXPORT
'''


def _export(model_move: str, example_move: str, code: str | None) -> str:
    mark = f"# <- {code}" if code else ""
    return (_EXPORT.replace("MODEL_MOVE", model_move).replace("EXAMPLE_MOVE", example_move)
            .replace("MARK_TRACE", mark).replace("MARK_EXPORT", mark))


def test_trace_and_export_of_a_moved_model_on_a_host_batch():
    src = _export("model.to(device)", "", "DL002")
    assert findings_at(src, ["DL001", "DL002"]) == expected(src)


def test_trace_and_export_of_a_host_model_on_a_moved_batch():
    src = _export("", "example = example.to(device)", "DL001")
    assert findings_at(src, ["DL001", "DL002"]) == expected(src)


@pytest.mark.parametrize("model_move, example_move", [
    ("model.to(device)", "example = example.to(device)"),  # both on the device
    ("", ""),  # both on the host: an export on the CPU
])
def test_trace_and_export_where_model_and_batch_agree_is_clean(model_move, example_move):
    src = _export(model_move, example_move, None)
    assert findings_at(src, ["DL001", "DL002", "DL011"]) == set()
