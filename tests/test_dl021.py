"""DL021 host-device-round-trip on training and evaluation code written the way projects write it."""

import subprocess
import sys
import textwrap

from devicelint.engine import lint_source


def flagged(code: str, select=("DL021",)) -> list:
    code = textwrap.dedent(code).lstrip("\n")
    return [(f.code, f.line) for f in lint_source(code, "train.py", select=list(select))]


EVAL = """
    import argparse
    import torch
    import torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset


    def evaluate(model, loader, device):
        model.eval()
        preds, truth = [], []
        with torch.no_grad():
            for images, labels in loader:
                images = images.to(device)
                labels = labels.to(device)
                preds.append(model(images).argmax(1).cpu())
                {USE}
        return torch.cat(preds), torch.cat(truth)


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--batch-size", type=int, default=32)
        args = parser.parse_args()
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = nn.Linear(10, 3).to(device)
        data = TensorDataset(torch.randn(64, 10), torch.randint(0, 3, (64,)))
        print(evaluate(model, DataLoader(data, batch_size=args.batch_size), device))


    main()
"""


def test_labels_rebound_to_the_device_and_read_back_only_are_flagged():
    assert flagged(EVAL.replace("{USE}", "truth.append(labels.cpu())")) == [("DL021", 13)]


def test_labels_used_on_the_device_before_coming_back_are_not_flagged():
    use = "truth.append(labels.cpu()); print((preds[-1].to(device) == labels).sum().item())"
    assert flagged(EVAL.replace("{USE}", use)) == []


def test_the_rule_is_off_by_default():
    from devicelint.codes import BY_CODE, DEFAULT

    assert "DL021" not in DEFAULT and BY_CODE["DL021"].name == "host-device-round-trip"


def test_a_read_earlier_in_the_loop_may_see_the_device_copy_so_it_stays_silent():
    assert flagged("""
        import torch
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = torch.nn.Linear(4, 1).to(device)
        y_dev = None
        for step in range(3):
            if y_dev is not None:
                print(model(torch.randn(2, 4, device=device)) + y_dev.sum())
            y = torch.randn(2, 1)
            y_dev = y.to(device)
            print(y_dev.cpu())
    """) == []


def test_a_registered_buffer_moved_to_its_input_device_in_forward_is_not_flagged():
    # already where the module is: `.to()` returns it without a copy, nothing to save
    assert flagged("""
        import torch
        import torch.nn as nn


        class CausalAttention(nn.Module):
            def __init__(self, dim, max_len=64):
                super().__init__()
                self.qkv = nn.Linear(dim, 3 * dim)
                self.register_buffer("mask", torch.tril(torch.ones(max_len, max_len)))

            def forward(self, x):
                q, k, v = self.qkv(x).chunk(3, dim=-1)
                t = x.size(1)
                mask = self.mask.to(x.device)[:t, :t]
                att = (q @ k.transpose(-2, -1)).masked_fill(mask == 0, float("-inf"))
                return att.softmax(-1) @ v


        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        layer = CausalAttention(8).to(device)
        print(layer(torch.randn(2, 5, 8).to(device)).cpu().shape)
    """) == []


def test_cli_lists_and_explains_the_rule_and_selects_it(tmp_path):
    run = lambda *a: subprocess.run([sys.executable, "-m", "devicelint", *a], capture_output=True, text=True)  # noqa: E731
    assert "DL021     host-device-round-trip" in run("rules").stdout
    doc = run("explain", "host-device-round-trip").stdout
    assert "## Fix safety" in doc and "No automatic fix" in doc
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(EVAL.replace("{USE}", "truth.append(labels.cpu())")).lstrip("\n"))
    assert "DL021" not in run("check", "--no-cache", "--output-format", "concise", str(script)).stdout
    out = run("check", "--no-cache", "--extend-select", "DL021", "--output-format", "concise", str(script)).stdout
    assert f"{script}:13:" in out and "DL021" in out
