"""False-positive causes and misses of DL003 and DL017-DL021 found by the second targeted first
look of 2026-11-26 (devicelint 6d3cec3, `benchmarks/firstlook/2026-11-26-newrules2.json`), each
as a realistic program with its control: the same program with the bug put back must still be
flagged.

Lines ending in `# <- DLnnn` must be flagged with that code and nothing else may be flagged.
"""

import textwrap

from inference_cases import expected

from devicelint.engine import lint_file, lint_source

RULES = ["DL003", "DL017", "DL018", "DL019", "DL020", "DL021"]


def found(code: str) -> set:
    return {(f.code, f.line) for f in lint_source(code, "case.py", select=RULES)}


def _write(root, files: dict):
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"))


def _lint(path, code: str) -> set:
    return {(f.code, f.line) for f in lint_file(str(path)) if f.code == code}


# bayegaspard/OpenSetPerf `src/NLP/BERTSimilarWords.py`: a flag attribute set beside the
# model's move picks the path; the GPU arm brings the hidden states back with `.cpu()`, the
# other arm runs only when the model stayed on the host.
_EMBEDDINGS = """
import numpy as np
import torch
from transformers import AutoTokenizer, BertModel


class SimilarWords:
    def __init__(self, name="bert-base-cased"):
        self.tokenizer = AutoTokenizer.from_pretrained(name)
        self.model = BertModel.from_pretrained(name)
        if torch.cuda.is_available():
            self.processor = "GPU"
            self.device = torch.cuda.current_device()
            self.model = self.model.to(self.device)
        else:
            self.processor = "CPU"

    def embed(self, documents):
        rows = []
        for document in documents:
            if self.processor == "GPU":
                tokens = self.tokenizer(document, truncation=True, return_tensors="pt").to(self.device)
            else:
                tokens = self.tokenizer(document, truncation=True, return_tensors="pt")
            output = self.model(**tokens)
            if self.processor == "GPU":
                vectors = output.last_hidden_state[0].cpu().detach().numpy()
            else:
                vectors = output.last_hidden_state[0].detach().numpy()
            rows.append(vectors.mean(axis=0))
        return np.stack(rows)


if __name__ == "__main__":
    words = SimilarWords()
    print(words.embed(["a small test", "another document"]).shape)
"""


def test_the_host_arm_of_a_place_test_whose_other_arm_calls_cpu_is_not_flagged():
    assert found(_EMBEDDINGS) == set()


def test_the_same_conversion_without_the_cpu_arm_is_still_flagged():
    code = _EMBEDDINGS.replace(
        '            if self.processor == "GPU":\n'
        '                vectors = output.last_hidden_state[0].cpu().detach().numpy()\n'
        '            else:\n'
        '                vectors = output.last_hidden_state[0].detach().numpy()\n',
        '            vectors = output.last_hidden_state[0].detach().numpy()  # <- DL003\n')
    assert "# <- DL003" in code
    assert found(code) == expected(code)


def test_an_if_on_something_else_than_the_place_still_flags_the_other_arm():
    # `if save:` does not choose the place: the else arm converts a device tensor
    code = _EMBEDDINGS.replace('            if self.processor == "GPU":\n                vectors',
                               '            if len(rows) == 0:\n                vectors').replace(
        '                vectors = output.last_hidden_state[0].detach().numpy()\n',
        '                vectors = output.last_hidden_state[0].detach().numpy()  # <- DL003\n')
    assert "len(rows) == 0" in code
    assert found(code) == expected(code)


# kenshohara/3D-ResNets-PyTorch `main.py`: the spawned worker starts the process group and
# hands the model to `model.make_data_parallel`, which calls `torch.cuda.set_device(device)`
# before placing it; what the worker then puts on bare `cuda` is on its own GPU.
_HELPERS = """
import torch
import torch.nn as nn


def generate_model(opt):
    return nn.Sequential(nn.Conv3d(3, 64, 3), nn.ReLU(), nn.AdaptiveAvgPool3d(1), nn.Flatten(),
                         nn.Linear(64, opt.n_classes))


def make_data_parallel(model, is_distributed, index):
    if is_distributed:
        torch.cuda.set_device(index)
        model.cuda()
        return nn.parallel.DistributedDataParallel(model, device_ids=[index])
    return nn.DataParallel(model).cuda()
"""

_MAIN = """
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn

from model import generate_model, make_data_parallel


def get_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_classes", default=400, type=int)
    parser.add_argument("--distributed", action="store_true")
    parser.add_argument("--dist_url", default="tcp://127.0.0.1:23456")
    parser.add_argument("--n_epochs", default=10, type=int)
    return parser.parse_args()


def main_worker(index, opt):
    if opt.distributed:
        dist.init_process_group(backend="nccl", init_method=opt.dist_url,
                                world_size=opt.world_size, rank=index)
    model = generate_model(opt)
    model = make_data_parallel(model, opt.distributed, index)
    criterion = nn.CrossEntropyLoss().cuda()  # <- DL020
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for epoch in range(opt.n_epochs):
        clips = torch.randn(4, 3, 8, 32, 32).cuda()  # <- DL020
        labels = torch.randint(0, opt.n_classes, (4,)).cuda()  # <- DL020
        loss = criterion(model(clips), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    opt = get_opt()
    opt.world_size = torch.cuda.device_count()
    if opt.distributed:
        mp.spawn(main_worker, nprocs=opt.world_size, args=(opt,))
    else:
        main_worker(0, opt)
"""


def test_set_device_in_an_imported_project_helper_is_seen(tmp_path):
    _write(tmp_path, {"pyproject.toml": "", "model.py": _HELPERS, "main.py": _MAIN})
    assert _lint(tmp_path / "main.py", "DL020") == set()


def test_a_helper_that_never_calls_set_device_leaves_the_placements_flagged(tmp_path):
    helpers = _HELPERS.replace("        torch.cuda.set_device(index)\n        model.cuda()\n",
                               "        model.to(f\"cuda:{index}\")\n")
    assert "set_device" not in helpers
    _write(tmp_path, {"pyproject.toml": "", "model.py": helpers, "main.py": _MAIN})
    assert _lint(tmp_path / "main.py", "DL020") == expected((tmp_path / "main.py").read_text())


# WZMIAOMIAO/deep-learning-for-image-processing (the torchvision references' layout), as the
# DL018 mutants of this round made it: the model comes from a factory of the file, the optimizer
# from a list of its trainable parameters, and the move was put after the resume.
_RESUME = """
import argparse

import torch
import torch.nn as nn


class KeypointNet(nn.Module):
    def __init__(self, num_joints=17):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU())
        self.head = nn.Conv2d(32, num_joints, 1)

    def forward(self, x):
        return self.head(self.body(x))


def create_model(num_joints, load_pretrain_weights=False):
    model = KeypointNet(num_joints=num_joints)
    if load_pretrain_weights:
        weights = torch.load("./hrnet_w32.pth", map_location="cpu")
        model.load_state_dict(weights, strict=False)
    return model


def main(args):
    device = torch.device(args.device if torch.cuda.is_available() else "cpu")
    model = create_model(num_joints=args.num_joints)
    model.to(device)

    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=args.lr, weight_decay=1e-4)
    lr_scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[170, 200], gamma=0.1)

    if args.resume != "":
        checkpoint = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        lr_scheduler.load_state_dict(checkpoint["lr_scheduler"])

    for epoch in range(args.epochs):
        images = torch.randn(4, 3, 64, 48, device=device)
        target = torch.rand(4, args.num_joints, 64, 48, device=device)
        loss = nn.functional.mse_loss(model(images), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        lr_scheduler.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--num-joints", default=17, type=int)
    parser.add_argument("--lr", default=1e-3, type=float)
    parser.add_argument("--epochs", default=210, type=int)
    parser.add_argument("--resume", default="", type=str)
    main(parser.parse_args())
"""

_MOVED_AFTER = ("    model.to(device)\n\n", "\n\n", "        optimizer.load_state_dict(checkpoint[\"optimizer\"])\n",
                "        optimizer.load_state_dict(checkpoint[\"optimizer\"]); model.to(device)  # <- DL018\n")


def _move_after_the_load(code: str) -> str:
    a, b, c, d = _MOVED_AFTER
    out = code.replace(a, b).replace(c, d)
    assert out.count("model.to(device)") == 1 and "# <- DL018" in out
    return out


def test_the_model_moved_before_its_optimizer_is_built_is_silent():
    assert found(_RESUME) == set()


def test_a_factory_model_and_a_list_of_its_parameters_loaded_before_the_move_is_flagged():
    code = _move_after_the_load(_RESUME)
    assert found(code) == expected(code)


def test_a_factory_model_with_the_optimizer_on_its_parameters_is_flagged():
    code = _move_after_the_load(_RESUME).replace(
        "    params = [p for p in model.parameters() if p.requires_grad]\n"
        "    optimizer = torch.optim.AdamW(params,", "\n    optimizer = torch.optim.AdamW(model.parameters(),")
    assert "AdamW(model.parameters()" in code
    assert found(code) == expected(code)


def test_a_list_of_parameters_of_a_model_built_here_is_flagged():
    code = _move_after_the_load(_RESUME).replace(
        "    model = create_model(num_joints=args.num_joints)\n", "    model = KeypointNet(num_joints=args.num_joints)\n")
    assert "= KeypointNet(" in code
    assert found(code) == expected(code)


def test_the_arms_the_wrong_way_round_are_still_flagged():
    # the `.cpu()` in the host arm and none in the GPU arm: the GPU arm fails
    code = _EMBEDDINGS.replace(
        '                vectors = output.last_hidden_state[0].cpu().detach().numpy()\n'
        '            else:\n'
        '                vectors = output.last_hidden_state[0].detach().numpy()\n',
        '                vectors = output.last_hidden_state[0].detach().numpy()  # <- DL003\n'
        '            else:\n'
        '                vectors = output.last_hidden_state[0].cpu().detach().numpy()\n')
    assert "numpy()  # <- DL003" in code
    assert found(code) == expected(code)


# A flag derived from the availability test picks the arm: the engine's device condition
# (flow/flags.py), recorded per branch as `Facts.device_arms`, tells DL003 which arm is the
# host's, whatever the flag is called.
_DERIVED_FLAG = """
import argparse

import numpy as np
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(16, dim), nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, x):
        return self.proj(x)


def export_embeddings(args):
    use_gpu = torch.cuda.is_available()
    encoder = Encoder()
    if use_gpu:
        encoder = encoder.cuda()
    rows = []
    with torch.no_grad():
        for _ in range(args.batches):
            batch = torch.randn(args.batch_size, 16)
            if use_gpu:
                batch = batch.cuda()
            out = encoder(batch)
            if not use_gpu:
                emb = out.detach().numpy()
            else:
                emb = out.cpu().detach().numpy()
            rows.append(emb)
    np.save(args.out, np.concatenate(rows))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--out", default="emb.npy")
    export_embeddings(parser.parse_args())
"""


def test_the_host_arm_of_a_derived_flag_is_not_flagged():
    assert found(_DERIVED_FLAG) == set()


def test_the_device_arm_of_a_derived_flag_is_still_flagged():
    code = _DERIVED_FLAG.replace("                emb = out.cpu().detach().numpy()\n",
                                 "                emb = out.detach().numpy()  # <- DL003\n")
    assert "# <- DL003" in code
    assert found(code) == expected(code)


def test_the_engine_records_which_arm_of_a_device_condition_is_the_hosts():
    import libcst as cst

    from devicelint.flow import infer
    from devicelint.names import Imports

    module = cst.parse_module(_DERIVED_FLAG.lstrip("\n"))
    facts = infer(module, Imports(module))
    tests = {cst.Module([]).code_for_node(b.test): facts.device_arms(b) for b in facts.place_tests}
    host, device = tests["not use_gpu"]
    assert "out.detach().numpy()" in cst.Module([]).code_for_node(host)
    assert "out.cpu()" in cst.Module([]).code_for_node(device)
    assert tests["use_gpu"][1] is not None and "cuda()" in cst.Module([]).code_for_node(tests["use_gpu"][1])
