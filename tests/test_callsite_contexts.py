"""Call-site contexts (contexts.py): a function's parameters take what its callers in the
project hand in, by position or keyword, across files, with defaults where a caller leaves a
parameter out; unknown (as before) when callers disagree or the function is never called."""

import textwrap

from devicelint import contexts, project
from devicelint.engine import lint_file

MODELS = '''
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, hidden=128):
        super().__init__()
        self.fc1 = nn.Linear(784, hidden)
        self.fc2 = nn.Linear(hidden, 10)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def build_model(name, hidden=128):
    if name == "mlp":
        return Net(hidden)
    raise ValueError(f"unknown model {name}")
'''

ENGINE = '''
import torch


def train(model, loader, optimizer, criterion):
    model.train()
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        out = model(x)
        loss = criterion(out, y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        pred = model(x).argmax(1)
        correct += (pred == y).sum().item()
    return correct / len(loader.dataset)
'''

MAIN = '''
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from engine import evaluate, train
from models import build_model


def get_loader(batch_size):
    data = TensorDataset(torch.randn(256, 784), torch.randint(0, 10, (256,)))
    return DataLoader(data, batch_size=batch_size, shuffle=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--model", default="mlp")
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader = DataLoader(TensorDataset(torch.randn(256, 784), torch.randint(0, 10, (256,))), batch_size=args.batch_size)
    model = MODEL_LINE
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        loss = train(model=model, loader=loader, optimizer=optimizer, criterion=criterion)
        acc = evaluate(model, loader, device)
        print(f"epoch {epoch}: loss {loss:.3f} acc {acc:.3f}")


if __name__ == "__main__":
    main()
'''


def make(root, files: dict) -> None:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip())


def codes_at(path) -> list:
    return sorted((f.code, f.line) for f in lint_file(str(path)) if f.code in ("DL001", "DL002", "DL011"))


def line_of(path, needle: str) -> int:
    return next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if needle in ln)


def project_of(tmp_path, model_line: str) -> None:
    make(tmp_path, {"pyproject.toml": "", "models.py": MODELS, "engine.py": ENGINE,
                    "main.py": MAIN.replace("MODEL_LINE", model_line)})


def test_a_moved_model_handed_in_by_keyword_from_another_file_meets_the_unmoved_batch(tmp_path):
    # main.py moves the model and calls engine.train(model=..., loader=...), which never
    # moves its batches: DL002 in engine.py (silent before: its parameters were unknown)
    project_of(tmp_path, "build_model(args.model).to(device)")
    engine = tmp_path / "engine.py"
    assert codes_at(engine) == [("DL002", line_of(engine, "out = model(x)")),
                                ("DL002", line_of(engine, "loss = criterion(out, y)"))]
    assert codes_at(tmp_path / "main.py") == []


def test_a_host_model_from_a_factory_in_another_file_meets_moved_data(tmp_path):
    # the factory in models.py builds the model on the host, main.py never moves it, and
    # engine.evaluate moves the batch: DL001 where the model is called, in engine.py
    project_of(tmp_path, "build_model(args.model)")
    engine = tmp_path / "engine.py"
    found = [f for f in lint_file(str(engine)) if f.code == "DL001"]
    assert [f.line for f in found] == [line_of(engine, "pred = model(x).argmax(1)")]
    assert "callers in other files" in found[0].message
    # train() gets the host model and host batches: nothing to say there
    assert not any(f.code == "DL002" for f in lint_file(str(engine)))


def test_callers_that_disagree_leave_the_parameter_unknown(tmp_path):
    project_of(tmp_path, "build_model(args.model).to(device)")
    make(tmp_path, {"finetune.py": '''
        from engine import train
        from models import Net

        def run(loader, optimizer, criterion):
            model = Net()  # on the host here, on the device in main.py
            train(model, loader, optimizer, criterion)
        '''})
    assert codes_at(tmp_path / "engine.py") == []


def test_a_function_nobody_calls_keeps_its_guessed_parameters(tmp_path):
    make(tmp_path, {"pyproject.toml": "", "engine.py": ENGINE})
    assert codes_at(tmp_path / "engine.py") == []
    view = project.FileView(str(tmp_path / "engine.py"))
    assert contexts.Contexts(view).context(view.path, "train") == {}


def test_a_function_handed_around_as_a_value_has_no_context(tmp_path):
    project_of(tmp_path, "build_model(args.model).to(device)")
    make(tmp_path, {"launch.py": '''
        import threading
        from engine import train

        def spawn(*args):
            threading.Thread(target=train, args=args).start()
        '''})
    assert codes_at(tmp_path / "engine.py") == []


def test_the_caller_files_are_dependencies_of_the_cached_result(tmp_path):
    project_of(tmp_path, "build_model(args.model).to(device)")
    view = project.FileView(str(tmp_path / "engine.py"))
    ctx = contexts.Contexts(view).context(view.path, "train")
    assert ctx["model"][0] == ("module", "moved", "accel")
    assert str(tmp_path / "main.py") in view.deps


TEST_HELPERS = '''
import unittest

import torch
import torch.nn as nn


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(x)


def make_batch(n, device=None):
    x = torch.randn(n, 8, device=device)
    return x


def check_output(model, n, device=None):
    x = make_batch(n, device=device)
    noise = torch.randn(n, 2)
    out = model(x) + noise
    return out.shape


class TestNet(unittest.TestCase):
    def test_shape(self):
        model = TinyNet()
        self.assertEqual(check_output(model, 4), (4, 2))

    def test_batch(self):
        x = make_batch(3)
        self.assertEqual(x.shape, (3, 8))


if __name__ == "__main__":
    unittest.main()
'''


def test_a_device_none_default_that_no_caller_sets_is_the_host(tmp_path):
    # every caller leaves `device=None`: `torch.randn(..., device=None)` is on the host, so the
    # noise and the model's output meet on the host (a false DL011 and DL001 before)
    make(tmp_path, {"pyproject.toml": "", "tests/test_tiny.py": TEST_HELPERS})
    assert codes_at(tmp_path / "tests" / "test_tiny.py") == []


def test_a_caller_that_passes_a_device_keeps_the_finding(tmp_path):
    make(tmp_path, {"pyproject.toml": "", "tests/test_tiny.py": TEST_HELPERS.replace(
        "check_output(model, 4)", "check_output(model.cuda(), 4, device='cuda')")})
    path = tmp_path / "tests" / "test_tiny.py"
    assert ("DL011", line_of(path, "out = model(x) + noise")) in codes_at(path)


AGENT = '''
import argparse

import torch
import torch.nn as nn


class Policy(nn.Module):
    def __init__(self, n_obs, n_act):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_obs, 64), nn.ReLU(), nn.Linear(64, n_act))

    def forward(self, x):
        return self.net(x)


class Agent:
    def __init__(self, n_obs, n_act, use_gpu=False):
        self.use_gpu = use_gpu
        self.policy = Policy(n_obs, n_act)
        if self.use_gpu:
            self.policy = self.policy.cuda()

    def act(self, obs):
        x = torch.tensor([obs], dtype=torch.float32)
        if self.use_gpu:
            x = x.cuda()
        return self.policy(x).argmax().item()

    def value(self, obs):
        x = torch.tensor([obs], dtype=torch.float32)
        return self.policy(x).max().item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=10)
    args = parser.parse_args()
    agent = AGENT_CALL
    for _ in range(args.episodes):
        obs = [0.0, 0.1, 0.2, 0.3]
        print(agent.act(obs), agent.value(obs))


if __name__ == "__main__":
    main()
'''


def test_a_constructor_default_flag_that_every_caller_keeps_leaves_the_gpu_arm_dead(tmp_path):
    make(tmp_path, {"pyproject.toml": "", "agent.py": AGENT.replace("AGENT_CALL", "Agent(4, 2)")})
    assert codes_at(tmp_path / "agent.py") == []


def test_a_constructor_flag_set_true_by_a_caller_keeps_the_gpu_arm(tmp_path):
    make(tmp_path, {"pyproject.toml": "", "agent.py": AGENT.replace("AGENT_CALL", "Agent(4, 2, use_gpu=True)")})
    path = tmp_path / "agent.py"
    assert ("DL011", line_of(path, "return self.policy(x).max().item()")) in codes_at(path)


def test_a_constructor_flag_from_another_file(tmp_path):
    # the class lives in agent.py, the only construction in run.py keeps the default
    make(tmp_path, {"pyproject.toml": "", "agent.py": AGENT.replace("AGENT_CALL", "None"),
                    "run.py": "from agent import Agent\n\nagent = Agent(4, 2)\nprint(agent.value([0.0] * 4))\n"})
    assert codes_at(tmp_path / "agent.py") == []
    make(tmp_path, {"run.py": "from agent import Agent\n\nagent = Agent(4, 2, use_gpu=True)\n"})
    path = tmp_path / "agent.py"
    assert ("DL011", line_of(path, "return self.policy(x).max().item()")) in codes_at(path)


def test_a_subclass_calls_the_constructor_where_no_site_shows_it(tmp_path):
    make(tmp_path, {"pyproject.toml": "", "agent.py": AGENT.replace("AGENT_CALL", "Agent(4, 2)"),
                    "gpu_agent.py": "from agent import Agent\n\n\nclass GpuAgent(Agent):\n"
                                    "    def __init__(self):\n        super().__init__(4, 2, use_gpu=True)\n"})
    path = tmp_path / "agent.py"
    assert ("DL011", line_of(path, "return self.policy(x).max().item()")) in codes_at(path)


def test_a_host_model_from_a_caller_in_the_same_file_is_blamed_at_that_call_once(tmp_path):
    # the call in main() is inlined with the real model, and DL001 names that call; the
    # context of train() does not add a second report inside train()
    script = ENGINE.replace("def train(model, loader, optimizer, criterion):", "def train_(model, loader, optimizer, criterion):") + '''

def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader = [(torch.randn(8, 784), torch.randint(0, 10, (8,)))]
    model = Net()
    evaluate(model, loader, device)
'''
    make(tmp_path, {"pyproject.toml": "", "models.py": MODELS,
                    "run.py": "from models import Net\n" + textwrap.dedent(script)})
    path = tmp_path / "run.py"
    assert codes_at(path) == [("DL001", line_of(path, "    evaluate(model, loader, device)"))]


def test_a_new_run_lists_the_project_anew(tmp_path):
    from devicelint import project as pj

    make(tmp_path, {"pyproject.toml": "", "engine.py": ENGINE})
    pj.remember_paths(True)
    try:
        assert contexts.project_files(str(tmp_path)) == [str(tmp_path / "engine.py")]
        make(tmp_path, {"main.py": "print(1)\n"})
        assert contexts.project_files(str(tmp_path)) == [str(tmp_path / "engine.py")]  # one listing per run
    finally:
        pj.remember_paths(False)
    pj.remember_paths(True)
    try:
        assert contexts.project_files(str(tmp_path)) == [str(tmp_path / "engine.py"), str(tmp_path / "main.py")]
    finally:
        pj.remember_paths(False)


def test_the_callers_scan_skips_the_folders_a_lint_skips(tmp_path):
    # one list of folders that are not the user's code (files.DEFAULT_EXCLUDE), plus `env`
    skipped = ["build", "dist", "__pycache__", "venv", "env", "node_modules", "__pypackages__", ".git", ".tox"]
    make(tmp_path, {"pyproject.toml": "", "engine.py": ENGINE, "pkg/train.py": "print(1)\n",
                    **{f"{d}/helper.py": "print(1)\n" for d in skipped}})
    assert contexts.project_files(str(tmp_path)) == [str(tmp_path / "engine.py"), str(tmp_path / "pkg" / "train.py")]
