"""DL004's unsafe fix for moves made again and again (devicelint/rules/dl004_redundant_to/bindonce.py), on training
code: a tensor moved twice is moved once and the later uses read the moved value; one moved
on every iteration is moved before the loop, or once where the caller makes it; and every
refusal that keeps a use from seeing a device tensor where it saw a host one."""

import ast
import textwrap

import libcst as cst

from devicelint.engine import analyse, lint_source
from devicelint.fix import fix_source


def fix(code: str, rule: str = "DL004") -> str:
    src = textwrap.dedent(code).lstrip("\n")
    new, _count = fix_source(src.encode(), "train.py", select=[rule], unsafe=True)
    again, count = fix_source(new, "train.py", select=[rule], unsafe=True)
    assert (again, count) == (new, 0), "a second --fix changed the file again"
    ast.parse(new)
    cst.parse_module(new)
    return new.decode()


def diff(before: str, after: str) -> list:
    """(removed lines, added lines), stripped, in order."""
    import difflib

    b = textwrap.dedent(before).lstrip("\n").splitlines()
    out = list(difflib.ndiff(b, after.splitlines()))
    return ([line[2:].strip() for line in out if line.startswith("- ")],
            [line[2:].strip() for line in out if line.startswith("+ ")])


def reports(code: str, rule: str = "DL004"):
    src = textwrap.dedent(code).lstrip("\n")
    return [(f, r) for f, r in analyse(src, "train.py", select=[rule])[0] if f.code == rule]


def apply_json_edits(code: str, rule: str = "DL004") -> str:
    """What an editor makes of the JSON `fix.edits` of every finding (they do not overlap)."""
    src = textwrap.dedent(code).lstrip("\n")
    lines = src.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    edits = sorted((e for f in lint_source(src, "train.py", select=[rule]) if f.fix for e in f.fix["edits"]),
                   key=lambda e: (e["line"], e["column"]), reverse=True)
    seen = set()
    for e in edits:
        key = (e["line"], e["column"], e["end_line"], e["end_column"], e["content"])
        if key in seen:
            continue  # two findings sharing one fix carry the same edits
        seen.add(key)
        lo = starts[e["line"] - 1] + e["column"] - 1
        hi = starts[e["end_line"] - 1] + e["end_column"] - 1
        src = src[:lo] + e["content"] + src[hi:]
    return src


# ----------------------------------------------------------------------------- moved twice

DENOISER = """
    import argparse

    import torch
    import torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset


    def train(model, loader, optimizer, device, noise=0.1):
        criterion = nn.MSELoss()
        model.train()
        for step, (clean,) in enumerate(loader):
            noisy = clean + noise * torch.randn_like(clean)
            recon = model(noisy.to(device))
            # compare with the clean signal
            loss = criterion(recon, clean.to(device)) + 0.01 * recon.abs().mean()
            rel = loss / clean.to(device).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return rel.item()


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--dim", type=int, default=32)
        args = parser.parse_args()
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = nn.Sequential(nn.Linear(args.dim, 8), nn.ReLU(), nn.Linear(8, args.dim)).to(device)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        loader = DataLoader(TensorDataset(torch.randn(64, args.dim)), batch_size=16)
        print(train(model, loader, optimizer, device))
"""


def test_a_tensor_moved_twice_is_moved_once_above_its_comment():
    after = fix(DENOISER)
    removed, added = diff(DENOISER, after)
    assert removed == ["loss = criterion(recon, clean.to(device)) + 0.01 * recon.abs().mean()",
                       "rel = loss / clean.to(device).pow(2).mean()"]
    assert added == ["clean = clean.to(device)",
                     "loss = criterion(recon, clean) + 0.01 * recon.abs().mean()",
                     "rel = loss / clean.pow(2).mean()"]
    lines = after.splitlines()
    # inserted before the statement of the first move, above the comment that belongs to it
    at = lines.index("        clean = clean.to(device)")
    assert lines[at + 1].strip().startswith("# compare") and lines[at + 2].strip().startswith("loss =")
    assert reports(after) == []


def test_the_fix_is_unsafe_and_its_json_edits_give_what_fix_writes():
    flagged = reports(DENOISER)
    assert flagged and all(r.applicability == "unsafe" for _f, r in flagged)
    src = textwrap.dedent(DENOISER).lstrip("\n").encode()
    assert fix_source(src, "train.py", select=["DL004"]) == (src, 0)
    assert apply_json_edits(DENOISER) == fix(DENOISER)


def test_no_fix_when_a_later_use_needs_the_host_tensor():
    # `clean` goes to NumPy after the moves: it must stay the host tensor
    host = DENOISER.replace("        return rel.item()\n",
                            "        stats = clean.numpy().std()\n        return rel.item(), stats\n")
    flagged = reports(host)
    assert flagged and all(r.edit is None for _f, r in flagged)


def test_no_fix_when_the_tensor_changes_in_place_in_between():
    inplace = DENOISER.replace("            rel = loss",
                               "            clean.clamp_(-3.0, 3.0)\n            rel = loss")
    assert all(r.edit is None for _f, r in reports(inplace))


def test_no_fix_when_a_nested_function_reads_the_name():
    # an LBFGS-style closure reads `clean`: rebinding it changes what the closure sees
    closure = DENOISER.replace(
        "            optimizer.zero_grad()\n",
        "            def closure():\n                return criterion(model(noisy.to(device)), clean)\n"
        "            optimizer.zero_grad()\n")
    flagged = reports(closure)
    assert flagged and all(r.edit is None for _f, r in flagged)


# ----------------------------------------------------------------------------- dict entries

TRAINER = """
    import torch
    import torch.nn as nn


    class Trainer:
        def __init__(self, model, device):
            self.device = device
            self.model = model.to(device)
            self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)

        def step(self, batch):
            logits = self.model(batch["pixels"].to(self.device))
            loss = nn.functional.cross_entropy(logits, batch["target"].to(self.device))
            loss.backward()
            self.optimizer.step()
            hits = (logits.argmax(-1) == batch["target"].to(self.device)).float().mean()
            return loss.item(), hits.item()

        def fit(self, loader):
            return [self.step(batch) for batch in loader]


    def main():
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        data = [{"pixels": torch.randn(8, 16), "target": torch.randint(0, 4, (8,))} for _ in range(4)]
        loader = torch.utils.data.DataLoader(data, batch_size=None)
        Trainer(nn.Linear(16, 4), device).fit(loader)
"""


def test_a_dict_entry_moved_twice_gets_a_local_named_after_its_key():
    after = fix(TRAINER)
    removed, added = diff(TRAINER, after)
    assert added == ['targets = batch["target"].to(self.device)',
                     "loss = nn.functional.cross_entropy(logits, targets)",
                     "hits = (logits.argmax(-1) == targets).float().mean()"]
    assert len(removed) == 2
    assert reports(after) == []


def test_the_key_s_own_name_when_the_plural_is_taken_and_none_when_both_are():
    taken = TRAINER.replace("            return loss.item(), hits.item()",
                            "            targets = None\n            return loss.item(), hits.item()")
    assert 'target = batch["target"].to(self.device)' in fix(taken)
    both = taken.replace("        data = [", "        target = 1\n        data = [")
    flagged = reports(both)
    assert flagged and all(r.edit is None for _f, r in flagged)


def test_no_fix_when_the_entry_changes_in_place_in_between():
    # the second move copies the clamped labels: a local bound before would be stale
    clamped = TRAINER.replace("            loss.backward()\n",
                              '            loss.backward()\n            batch["target"].clamp_(0, 2)\n')
    flagged = reports(clamped)
    assert flagged and all(r.edit is None for _f, r in flagged)


def test_no_fix_when_the_dict_is_handed_to_code_that_may_change_it():
    handed = TRAINER.replace("            loss.backward()\n", "            loss.backward()\n            self.log_batch(batch)\n")
    flagged = reports(handed)
    assert flagged and all(r.edit is None for _f, r in flagged)


# ----------------------------------------------------------------------------- loop-invariant moves

WEIGHTED = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset

    __all__ = ["train_epoch"]


    def train_epoch(model, loader, optimizer, device, pos_weight):
        model.train()
        for epoch_step, (x, y) in enumerate(loader):
            x, y = x.to(device), y.to(device)
            logits = model(x).squeeze(-1)
            loss = F.binary_cross_entropy_with_logits(logits, y, pos_weight=pos_weight.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return loss.item()


    def main():
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        x, y = torch.randn(96, 10), (torch.rand(96) < 0.2).float()
        pos_weight = (1 - y).sum() / y.sum().clamp(min=1)
        model = nn.Linear(10, 1).to(device)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for epoch in range(3):
            train_epoch(model, DataLoader(TensorDataset(x, y), batch_size=16), optimizer, device, pos_weight)
"""


def test_a_loop_invariant_move_of_an_exported_function_goes_before_its_loop():
    # `train_epoch` is in `__all__`: callers we cannot see may pass a host tensor, so the
    # move stays inside the function, once per call instead of once per step
    after = fix(WEIGHTED)
    removed, added = diff(WEIGHTED, after)
    assert added == ["pos_weight = pos_weight.to(device)",
                     "loss = F.binary_cross_entropy_with_logits(logits, y, pos_weight=pos_weight)"]
    lines = after.splitlines()
    assert lines[lines.index("    pos_weight = pos_weight.to(device)") + 1].startswith("    for epoch_step")
    assert reports(after) == []


def test_a_parameter_moved_in_every_function_is_moved_once_where_the_caller_makes_it():
    private = WEIGHTED.replace('__all__ = ["train_epoch"]\n', "")
    after = fix(private)
    removed, added = diff(private, after)
    assert added == ["loss = F.binary_cross_entropy_with_logits(logits, y, pos_weight=pos_weight)",
                     "pos_weight = ((1 - y).sum() / y.sum().clamp(min=1)).to(device)"]
    assert reports(after) == []
    assert apply_json_edits(private) == after


def test_the_caller_keeps_its_host_tensor_when_it_uses_it_itself():
    # main prints the weight: it must stay a host tensor there, so the function moves it
    printed = WEIGHTED.replace('__all__ = ["train_epoch"]\n', "").replace(
        "        for epoch in range(3):", "        print(f'pos_weight={pos_weight.item():.2f}')\n        for epoch in range(3):")
    after = fix(printed)
    assert "    pos_weight = pos_weight.to(device)" in after.splitlines()
    assert "pos_weight = (1 - y).sum() / y.sum().clamp(min=1)" in after


def test_no_hoist_when_a_use_after_the_loop_needs_the_host_tensor():
    after_loop = WEIGHTED.replace("        return loss.item()\n",
                                  "        return loss.item(), pos_weight.tolist()\n")
    flagged = reports(after_loop)
    assert flagged and all(r.edit is None for _f, r in flagged)


# ----------------------------------------------------------------------------- reach of a binding

EVALUATE = """
    import torch
    import torch.nn.functional as F


    @torch.no_grad()
    def evaluate(model, loader, device, use_amp=True):
        model.eval()
        total, correct, seen = 0.0, 0, 0
        for batch in loader:
            images, labels = batch["image"], batch["label"]
            assert images.dim() == 4, images.shape
            with torch.autocast(device.type, enabled=use_amp):
                logits = model(images.to(device, non_blocking=True))
                total += F.cross_entropy(logits, labels.to(device, non_blocking=True)).item()
            correct += (logits.argmax(-1) == labels.to(device, non_blocking=True)).sum().item()
            seen += images.size(0)
        return total, correct / seen
"""


def test_a_binding_in_an_autocast_block_reaches_the_code_after_it():
    # autocast never swallows an exception: what follows the block runs after the binding;
    # `images.dim()` above reads this step's host tensor, bound afresh from the batch
    after = fix(EVALUATE)
    removed, added = diff(EVALUATE, after)
    assert added == ["labels = labels.to(device, non_blocking=True)",
                     "total += F.cross_entropy(logits, labels).item()",
                     "correct += (logits.argmax(-1) == labels).sum().item()"]
    assert reports(after) == []


def test_no_binding_past_a_block_that_may_swallow_an_exception():
    suppressed = EVALUATE.replace("import torch\n", "import contextlib\n\n    import torch\n", 1).replace(
        "            with torch.autocast(device.type, enabled=use_amp):",
        "            with contextlib.suppress(RuntimeError):")
    # the move after the block is the flagged one, and it stays: the binding may not have run
    flagged = reports(suppressed)
    assert flagged and all(r.edit is None for _f, r in flagged)
    assert "correct += (logits.argmax(-1) == labels.to(device, non_blocking=True)).sum().item()" in fix(suppressed)
