"""DL007 hardcoded-cuda, judged per site, on scripts written the way training code is written.

A file that checks for CUDA somewhere is no longer exempt as a whole: each place that puts
something on CUDA is flagged when a run on a machine without CUDA reaches it, and left alone
when a guard, a GPU-only declaration or an unknown keeps that run away from it.
"""

import textwrap

from devicelint.engine import lint_source
from devicelint.fix import fix_source


def _code(code: str) -> str:
    return textwrap.dedent(code).lstrip("\n")


def flagged(code: str) -> list:
    return sorted(f.line for f in lint_source(_code(code), "train.py", select=["DL007"]))


# ----------------------------------------------------------------------------- reached: flagged

GUARDED_MODEL_UNGUARDED_BATCHES = """
    import argparse

    import torch
    import torch.nn as nn
    import torch.nn.functional as F


    def parse_args():
        parser = argparse.ArgumentParser()
        parser.add_argument("--epochs", type=int, default=3)
        parser.add_argument("--lr", type=float, default=0.1)
        return parser.parse_args()


    def train(model, loader, optimizer):
        model.train()
        for inputs, targets in loader:
            inputs = inputs.cuda(non_blocking=True)
            targets = targets.cuda(non_blocking=True)
            optimizer.zero_grad()
            F.cross_entropy(model(inputs), targets).backward()
            optimizer.step()


    def main():
        args = parse_args()
        model = nn.Linear(16, 4)
        if torch.cuda.is_available():
            model.cuda()
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
        loader = [(torch.randn(8, 16), torch.randint(0, 4, (8,))) for _ in range(4)]
        for epoch in range(args.epochs):
            train(model, loader, optimizer)


    if __name__ == "__main__":
        main()
"""


def test_batches_moved_unconditionally_beside_a_guarded_model():
    assert flagged(GUARDED_MODEL_UNGUARDED_BATCHES) == [18, 19]


def test_the_unsafe_fix_guards_exactly_the_flagged_sites():
    before = _code(GUARDED_MODEL_UNGUARDED_BATCHES).encode()
    after, count = fix_source(before, "train.py", select=["DL007"], unsafe=True)
    text = after.decode()
    assert count == 2
    assert 'inputs = inputs.to("cuda" if torch.cuda.is_available() else "cpu", non_blocking=True)' in text
    assert "        model.cuda()\n" in text  # the guarded move is left as it was
    assert flagged(text) == []


def test_a_loader_function_called_before_the_scripts_own_fallback():
    assert flagged("""
        import torch
        from torchvision.models import resnet18


        def load_model(path):
            model = resnet18(num_classes=10)
            model.load_state_dict(torch.load(path, map_location="cpu"))
            model.cuda()
            return model.eval()


        model = load_model("checkpoints/best.pt")
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        images = torch.randn(4, 3, 224, 224).to(device)
        with torch.no_grad():
            print(model(images).argmax(dim=1))
        """) == [8]


def test_a_trainer_class_that_guards_the_model_but_not_the_dict_batches():
    assert flagged("""
        import torch
        import torch.nn as nn


        class Trainer:
            def __init__(self, model, loader):
                self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
                self.model = model.to(self.device)
                self.loader = loader
                self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)

            def step(self, batch):
                batch = {k: v.cuda() for k, v in batch.items()}
                loss = nn.functional.mse_loss(self.model(batch["x"]), batch["y"])
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                return loss.detach()

            def fit(self, epochs):
                for _ in range(epochs):
                    for batch in self.loader:
                        self.step(batch)


        loader = [{"x": torch.randn(8, 3), "y": torch.randn(8, 1)} for _ in range(5)]
        trainer = Trainer(nn.Linear(3, 1), loader)
        trainer.fit(2)
        """) == [13]


def test_a_hard_coded_device_that_a_later_test_compares():
    # the check below it is no fallback: the device was never allowed to be the CPU
    assert flagged("""
        import torch
        import torch.backends.cudnn as cudnn
        import torchvision

        device = "cuda"
        net = torchvision.models.resnet18(num_classes=10).to(device)
        if device == "cuda":
            net = torch.nn.DataParallel(net)
            cudnn.benchmark = True
        """) == [5]


def test_a_model_whose_forward_allocates_on_cuda_called_by_a_script_with_a_fallback():
    assert flagged("""
        import torch
        import torch.nn as nn


        class Seq2Seq(nn.Module):
            def __init__(self, vocab, hidden):
                super().__init__()
                self.hidden = hidden
                self.embed = nn.Embedding(vocab, hidden)
                self.rnn = nn.GRU(hidden, hidden, batch_first=True)

            def forward(self, tokens):
                h0 = torch.zeros(1, tokens.size(0), self.hidden, device="cuda")
                out, _ = self.rnn(self.embed(tokens), h0)
                return out


        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = Seq2Seq(100, 32).to(device)
        print(model(torch.randint(0, 100, (4, 7), device=device)).shape)
        """) == [13]


# ----------------------------------------------------------------------------- not reached: silent


def test_flags_derived_from_is_available_or_off_by_default():
    assert flagged("""
        import argparse

        import torch
        import torch.nn as nn

        parser = argparse.ArgumentParser(description="GCN")
        parser.add_argument("--no-cuda", action="store_true", default=False, help="disables CUDA")
        parser.add_argument("--fp16-cuda", action="store_true", help="half precision on the GPU")
        args = parser.parse_args()
        args.cuda = not args.no_cuda and torch.cuda.is_available()

        model = nn.Linear(8, 2)
        features, labels = torch.randn(32, 8), torch.randint(0, 2, (32,))
        if args.cuda:
            model.cuda()
            features = features.cuda()
            labels = labels.cuda()
        if args.fp16_cuda:
            model = model.half().cuda()
        out = model(features)
        """) == []


def test_guards_on_the_device_variable_and_on_tensors():
    assert flagged("""
        import torch


        def to_device(batch, device):
            if device.type == "cuda":
                return [t.cuda(non_blocking=True) for t in batch]
            return batch


        def maybe_pin(x):
            if x.is_cuda:
                return x
            return x.cuda() if torch.cuda.is_available() else x


        device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
        batch = to_device([torch.randn(2, 3), torch.randn(2)], device)
        x = maybe_pin(torch.ones(3))
        if str(device) != "cpu":
            torch.backends.cudnn.benchmark = True
            x = x.cuda()
        """) == []


def test_a_helper_only_called_under_a_guard():
    assert flagged("""
        import torch

        use_cuda = torch.cuda.is_available()


        def move_batch(batch):
            return {k: v.cuda() for k, v in batch.items()}


        def run(model, loader):
            for batch in loader:
                if use_cuda:
                    batch = move_batch(batch)
                model(batch["x"])


        run(torch.nn.Linear(3, 1), [{"x": torch.randn(4, 3)}])
        """) == []


def test_scripts_that_refuse_machines_without_cuda():
    # GPU-only and saying so is a choice, not a bug: the run stops before any CUDA call
    assert flagged("""
        import sys
        import torch


        def benchmark(model, steps):
            x = torch.randn(64, 1024).cuda()
            for _ in range(steps):
                model(x)


        if not torch.cuda.is_available():
            sys.exit("this benchmark needs a GPU")
        benchmark(torch.nn.Linear(1024, 1024).cuda(), 10)
        """) == []
    assert flagged("""
        import torch


        def main():
            assert torch.cuda.is_available(), "Apex AMP needs a GPU"
            model = torch.nn.Linear(4, 2).cuda()
            print(model(torch.randn(3, 4, device="cuda")))


        main()
        """) == []
    assert flagged("""
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("no GPU found")
        else:
            model = torch.nn.Linear(4, 2).cuda()
        """) == []


def test_after_another_files_multi_gpu_setup():
    # `utils.init_distributed_mode` exits without a GPU in the project this comes from
    assert flagged("""
        import argparse

        import torch
        import utils


        def train(args):
            utils.init_distributed_mode(args)
            model = torch.nn.Linear(8, 8).cuda()
            if torch.cuda.device_count() > 1:
                model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])
            return model


        parser = argparse.ArgumentParser()
        parser.add_argument("--dist-url", default="env://")
        train(parser.parse_args())
        """) == []


def test_unknowns_stay_silent():
    # an option without a default we can read, a flag from a config, a switch set by hand,
    # a move inside a try that falls back, globals rewritten by exec
    assert flagged("""
        import argparse
        import json

        import torch

        parser = argparse.ArgumentParser()
        parser.add_argument("--gpu", type=int, help="GPU id to use")
        args = parser.parse_args()
        config = json.load(open("config.json"))
        USE_CUDA = True

        model = torch.nn.Linear(4, 2)
        if args.gpu is not None:
            model = model.cuda(args.gpu)
        if config["use_gpu"]:
            model = model.cuda()
        if USE_CUDA:
            model = model.cuda()
        try:
            model = model.cuda()
        except (AssertionError, RuntimeError):
            print("no GPU, staying on the CPU")
        """) == []
    assert flagged("""
        import torch

        device = "cuda"  # examples: 'cpu', 'cuda', 'cuda:1'
        dtype = "bfloat16" if torch.cuda.is_available() else "float16"
        exec(open("configurator.py").read())  # overrides from the command line
        model = torch.nn.Linear(4, 2).to(device)
        """) == []


def test_library_code_that_no_top_level_code_calls():
    assert flagged("""
        import torch


        def to_cuda(batch):
            return [t.cuda() for t in batch]


        class Evaluator:
            def __init__(self, model):
                self.model = model.cuda()

            def run(self, loader):
                return [self.model(x.cuda()) for x in loader]


        def default_device():
            return torch.device("cuda" if torch.cuda.is_available() else "cpu")
        """) == []


def test_a_fallback_reassignment_makes_the_hard_coded_device_a_default():
    assert flagged("""
        import torch

        device = "cuda"
        if not torch.cuda.is_available():
            device = "cpu"
        model = torch.nn.Linear(4, 2).to(device)
        """) == []


def test_files_that_never_check_are_judged_as_before():
    # no fallback anywhere: every unconditional site, even in functions nobody calls (except
    # one whose name says it is for the GPU)
    assert flagged("""
        import torch


        def to_gpu_batch(batch):
            return [t.cuda() for t in batch]


        def evaluate(model, loader):
            model.cuda()
            return [model(x.to("cuda")) for x in loader]
        """) == [9, 10]


def test_a_guard_flag_rebound_along_the_script_stays_a_guard():
    # however often the flag is set again (here also under exec-style overrides), it came from
    # the availability check: what it guards is not flagged, whatever the flag's name
    updates = "\n".join(f"        fast = fast and not args.skip_{i}" for i in range(20))
    assert flagged(f"""
        import argparse

        import torch

        parser = argparse.ArgumentParser()
        args, _ = parser.parse_known_args()
        fast = torch.cuda.is_available()
        exec(open("overrides.py").read())
{updates}
        model = torch.nn.Linear(4, 2)
        if fast:
            model.cuda()
        """) == []


GPU_ID_OPTION_ONLY = """
    import argparse

    import torch
    import torch.nn as nn

    parser = argparse.ArgumentParser(description="crowd counting: train on one GPU")
    parser.add_argument("gpu", metavar="GPU", type=str, help="GPU id to use.")
    parser.add_argument("--lr", type=float, default=1e-5)
    args = parser.parse_args()


    def main():
        model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 1, 1))
        model = model.cuda()
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
        return model, optimizer


    main()
"""


def test_a_file_with_only_a_device_option_is_not_said_to_have_a_cuda_check():
    """The file names a GPU option but never checks for CUDA: the message must not claim a
    "CUDA check" it does not have (bug-report case 093's wording)."""
    findings = lint_source(_code(GPU_ID_OPTION_ONLY), "train.py", select=["DL007"])
    assert [f.line for f in findings] == [14]
    assert "CUDA check does not guard" not in findings[0].message
    assert "no CUDA check or device option of the file guards it" in findings[0].message
