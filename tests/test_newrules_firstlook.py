"""False-positive causes and misses of DL003 and DL017-DL021 found by the targeted first look
of 2026-11-26 (devicelint 6fe31cc, `benchmarks/firstlook/2026-11-26-newrules.json`), each as
a realistic program with its control: the same program with the bug put back must still be
flagged.

Lines ending in `# <- DLnnn` must be flagged with that code and nothing else may be flagged.
"""

import textwrap

import pytest
from inference_cases import expected

from devicelint.engine import lint_source

RULES = ["DL003", "DL017", "DL018", "DL019", "DL020", "DL021"]


def found(code: str) -> set:
    return {(f.code, f.line) for f in lint_source(code, "case.py", select=RULES)}


# yashbelhe/ASD `utils/finite_diff.py`: the colour limits of a gradient image are a 0-dim
# tensor on the default device; matplotlib reads `vmin`/`vmax` with `.item()`
# (`matplotlib.colors._sanitize_extrema`), it converts nothing to NumPy.
_COLOUR_LIMITS = """
import argparse
import matplotlib.pyplot as plt
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def finite_difference(f, params, eps=1e-3, size=64):
    grid = torch.stack(torch.meshgrid(torch.linspace(0, 1, size, device=device),
                                      torch.linspace(0, 1, size, device=device), indexing="ij"), -1)
    plus, minus = params.clone(), params.clone()
    plus[0] += eps
    minus[0] -= eps
    return (f(grid, plus) - f(grid, minus)) / (2 * eps)


def disc(grid, p):
    return ((grid - p[:2]).norm(dim=-1) < p[2]).float()


def plot(ours, fd, save_path=None, plot_error=False):
    vmax = fd.abs().max()
    if plot_error:
        fig, axs = plt.subplots(1, 3, figsize=(24, 8))
        axs[0].imshow(ours.detach().cpu(), origin="lower", cmap="bwr_r", vmin=-vmax, vmax=vmax)
        axs[1].imshow(fd.detach().cpu(), origin="lower", cmap="bwr_r", vmin=-vmax, vmax=vmax)
        axs[2].imshow((ours - fd).abs().detach().cpu(), cmap="viridis", vmax=vmax)
    else:
        plt.figure(figsize=(16, 8))
        plt.subplot(1, 2, 1)
        plt.imshow(ours.detach().cpu(), origin="lower", cmap="bwr_r", vmin=-vmax, vmax=vmax)
        plt.subplot(1, 2, 2)
        plt.imshow(fd.detach().cpu(), origin="lower", cmap="bwr_r", vmin=-vmax, vmax=vmax)
    if save_path:
        plt.savefig(save_path)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    params = torch.tensor([0.5, 0.5, 0.25], device=device)
    fd = finite_difference(disc, params)
    plot(fd * 0.9, fd, args.out)
    plot(fd * 0.9, fd, plot_error=True)
"""


def test_colour_limits_read_with_item_are_not_a_numpy_conversion():
    assert found(_COLOUR_LIMITS) == set()


def test_the_image_itself_on_the_device_is_still_flagged():
    code = _COLOUR_LIMITS.replace(
        'plt.imshow(fd.detach().cpu(), origin="lower", cmap="bwr_r", vmin=-vmax, vmax=vmax)',
        'plt.imshow(fd.detach(), origin="lower", cmap="bwr_r", vmin=-vmax, vmax=vmax)  # <- DL003')
    code = code.replace('axs[2].imshow((ours - fd).abs().detach().cpu(), cmap="viridis", vmax=vmax)',
                        'axs[2].imshow((ours - fd).abs().detach(), cmap="viridis", vmax=vmax)  # <- DL003')
    assert found(code) == expected(code)


# StarlitVienna/pytorch-notes `practice/circle_data_model/generateData.py`: the data module
# moves its tensors at import time and plots them under its own `__main__` guard; model.py
# does `from generateData import *` and main.py trains on the device copies. A module-level
# binding made outside the guard of a file that has one is meant for importers.
_DATA_MODULE = """
import torch
import matplotlib.pyplot as plt
from sklearn.datasets import make_circles
from sklearn.model_selection import train_test_split

device = "cuda" if torch.cuda.is_available() else "cpu"

N_SAMPLES = 100
SEED = 42

X, y = make_circles(n_samples=N_SAMPLES, noise=0.02, random_state=SEED)
X_train, X_test, Y_train, Y_test = train_test_split(X, y, train_size=0.8, shuffle=True, random_state=SEED)

X_train = torch.from_numpy(X_train).type(torch.float32).to(device)
X_test = torch.from_numpy(X_test).type(torch.float32).to(device)
Y_train = torch.from_numpy(Y_train).to(device)
Y_test = torch.from_numpy(Y_test).to(device)

if __name__ == "__main__":
    figure, axis = plt.subplots(1, 2)
    axis[0].scatter(X_train[:, 0].cpu(), X_train[:, 1].cpu(), c=Y_train.cpu(), cmap=plt.cm.RdYlBu)
    axis[1].scatter(X_test[:, 0].cpu(), X_test[:, 1].cpu(), c=Y_test.cpu(), cmap=plt.cm.RdYlBu)
    plt.show()
"""


def _dl021(code: str) -> set:
    return {(f.code, f.line) for f in lint_source(code, "generateData.py", select=["DL021"])}


def test_a_data_module_meant_for_importers_is_not_a_round_trip():
    assert _dl021(_DATA_MODULE) == set()


def test_the_same_move_under_the_main_guard_is_still_flagged():
    code = _DATA_MODULE.replace(
        '    figure, axis = plt.subplots(1, 2)\n',
        '    labels = torch.from_numpy(y).to(device)  # <- DL021\n'
        '    print(labels.cpu().tolist()[:10])\n'
        '    figure, axis = plt.subplots(1, 2)\n')
    assert _dl021(code) == expected(code)


def test_a_script_without_a_main_guard_is_still_flagged():
    code = _DATA_MODULE.replace("if __name__ == \"__main__\":\n    ", "").replace("\n    ", "\n")
    code = code.replace("Y_train = torch.from_numpy(Y_train).to(device)", "Y_train = torch.from_numpy(Y_train).to(device)  # <- DL021")
    code = code.replace("Y_test = torch.from_numpy(Y_test).to(device)", "Y_test = torch.from_numpy(Y_test).to(device)  # <- DL021")
    assert _dl021(code) == expected(code)
