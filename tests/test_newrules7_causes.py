"""Causes of false findings found by the fifth targeted first look of issue 23's rules
(2026-11-27, devicelint at 56e726f, `benchmarks/firstlook/2026-11-27-newrules5.json`), each as a
realistic program in the shape the audited repository writes it, with its control where the
shape is a real bug and must stay flagged.

Lines ending in `# <- DLnnn` must be flagged with that code; nothing else of the rules under
test may be flagged.
"""

from inference_cases import expected, findings_at


def _check(code: str, rules, path: str = "train.py") -> None:
    got = findings_at(code, rules, path)
    listing = "\n".join(f"{i:4d} {line}" for i, line in enumerate(code.splitlines(), start=1))
    assert got == expected(code), f"got {sorted(got)}\n{listing}"


# --- DL020: an unindexed device bound to a name that nothing reads places nothing ---

# nwangfw/nerf_ddp's tiny NeRF: a module-level `device` left over from the single-GPU
# notebook, never read; each `mp.spawn` worker places everything with its own index (`gpu`).
# Tensors still say `device=` as a keyword and read `.device` as an attribute: neither reads
# the module's `device`.
_TINY_NERF_DDP = '''
import argparse
import os

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def positional_encoding(tensor, num_encoding_functions=6):
    encoding = [tensor]
    frequency_bands = 2.0 ** torch.linspace(0.0, num_encoding_functions - 1, num_encoding_functions,
                                            dtype=tensor.dtype, device=tensor.device)
    for freq in frequency_bands:
        encoding.append(torch.sin(tensor * freq))
        encoding.append(torch.cos(tensor * freq))
    return torch.cat(encoding, dim=-1)


class VeryTinyNerfModel(nn.Module):
    def __init__(self, filter_size=128, num_encoding_functions=6):
        super().__init__()
        self.layer1 = nn.Linear(3 + 3 * 2 * num_encoding_functions, filter_size)
        self.layer2 = nn.Linear(filter_size, filter_size)
        self.layer3 = nn.Linear(filter_size, 4)

    def forward(self, x):
        x = torch.relu(self.layer1(x))
        x = torch.relu(self.layer2(x))
        return self.layer3(x)


DEVICE_LINE


def nerf_ddp(gpu, args):
    rank = args.id * args.gpus + gpu
    dist.init_process_group(backend="gloo", init_method="env://", world_size=args.world_size, rank=rank)
    model = VeryTinyNerfModel().to(WORKER_DEVICE)
    ddp_model = DDP(model, device_ids=[gpu])
    optimizer = torch.optim.Adam(ddp_model.parameters(), lr=5e-3)
    data = np.load("tiny_nerf_data.npz")
    images = torch.from_numpy(data["images"][:100, ..., :3]).to(gpu)
    points = torch.rand(1024, 3, device=images.device)
    for i in range(args.num_iters):
        target = images[np.random.randint(images.shape[0])].to(gpu)
        rgb = ddp_model(positional_encoding(points))[..., :3]
        loss = torch.nn.functional.mse_loss(rgb, target.reshape(-1, 3)[:1024])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-g", "--gpus", default=1, type=int)
    parser.add_argument("-i", "--id", default=0, type=int)
    parser.add_argument("--num_iters", default=1000, type=int)
    args = parser.parse_args()
    args.world_size = args.gpus
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "29515"
    mp.spawn(nerf_ddp, nprocs=args.gpus, args=(args,))


if __name__ == "__main__":
    main()
'''

_BOUND = 'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")'


def test_an_unindexed_device_nothing_reads_places_nothing():
    code = _TINY_NERF_DDP.replace("DEVICE_LINE", _BOUND).replace("WORKER_DEVICE", "gpu")
    _check(code, ["DL020"])


def test_an_unindexed_device_string_nothing_reads_places_nothing():
    code = (_TINY_NERF_DDP.replace("DEVICE_LINE", 'device = "cuda" if torch.cuda.is_available() else "cpu"')
            .replace("WORKER_DEVICE", "gpu"))
    _check(code, ["DL020"])


def test_the_same_device_read_by_the_worker_stays_flagged():
    # control: the worker places the model on the module's unindexed device: every rank on GPU 0
    code = (_TINY_NERF_DDP.replace("DEVICE_LINE", _BOUND + "  # <- DL020")
            .replace("WORKER_DEVICE", "device"))
    _check(code, ["DL020"])


def test_a_device_read_as_a_keyword_value_stays_flagged():
    # control: `device=device` reads the module's name (the keyword itself does not): the
    # sample points land on GPU 0 in every rank
    code = (_TINY_NERF_DDP.replace("DEVICE_LINE", _BOUND + "  # <- DL020")
            .replace("WORKER_DEVICE", "gpu").replace("device=images.device", "device=device"))
    _check(code, ["DL020"])


# --- DL020: a CUDA default device set under the process group is an unindexed placement ---

# The shape of llama's example_cuda.py (bug-report case 056, pytorch-tpu/llama#21): one process
# per GPU started by torchrun, the process group started, then every tensor the model makes goes
# to the default tensor type's device: the current one, GPU 0 in every rank.
_LLAMA_EXAMPLE = '''
import json
import os
import time
from pathlib import Path

import fire
import torch
import torch.distributed as dist
import torch.nn as nn


class Transformer(nn.Module):
    def __init__(self, dim, n_layers, vocab_size):
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList(nn.Linear(dim, dim) for _ in range(n_layers))
        self.output = nn.Linear(dim, vocab_size, bias=False)

    def forward(self, tokens):
        h = self.tok_embeddings(tokens)
        for layer in self.layers:
            h = torch.relu(layer(h))
        return self.output(h)


def setup_model_parallel():
    local_rank = int(os.environ.get("LOCAL_RANK", -1))
    world_size = int(os.environ.get("WORLD_SIZE", -1))
    dist.init_process_group("nccl")
    PICK_GPU
    torch.manual_seed(1)
    return local_rank, world_size


def load(ckpt_dir, local_rank, world_size, dim=512, n_layers=8):
    start_time = time.time()
    checkpoints = sorted(Path(ckpt_dir).glob("*.pth"))
    checkpoint = torch.load(checkpoints[local_rank], map_location="cpu")
    with open(Path(ckpt_dir) / "params.json", "r") as f:
        params = json.loads(f.read())
    DEFAULT_ON
    model = Transformer(dim, n_layers, params["vocab_size"])
    model.load_state_dict(checkpoint, strict=False)
    torch.set_default_tensor_type(torch.FloatTensor)
    print(f"Loaded in {time.time() - start_time:.2f} seconds")
    return model


def main(ckpt_dir: str, max_tokens: int = 32):
    local_rank, world_size = setup_model_parallel()
    model = load(ckpt_dir, local_rank, world_size)
    tokens = torch.zeros(1, max_tokens, dtype=torch.long, device=next(model.parameters()).device)
    with torch.no_grad():
        logits = model(tokens)
    if local_rank == 0:
        print(logits.argmax(-1))


if __name__ == "__main__":
    fire.Fire(main)
'''


def test_a_cuda_default_tensor_type_under_the_process_group_is_flagged():
    code = (_LLAMA_EXAMPLE.replace("PICK_GPU", "pass")
            .replace("DEFAULT_ON", "torch.set_default_tensor_type(torch.cuda.HalfTensor)  # <- DL020"))
    _check(code, ["DL020"])


def test_a_cuda_default_device_under_the_process_group_is_flagged():
    code = (_LLAMA_EXAMPLE.replace("PICK_GPU", "pass")
            .replace("DEFAULT_ON", 'torch.set_default_device("cuda")  # <- DL020'))
    _check(code, ["DL020"])


def test_the_same_default_after_set_device_is_silent():
    # control: set_device(local_rank) makes the current device each rank's own GPU
    code = (_LLAMA_EXAMPLE.replace("PICK_GPU", "torch.cuda.set_device(local_rank)")
            .replace("DEFAULT_ON", "torch.set_default_tensor_type(torch.cuda.HalfTensor)"))
    _check(code, ["DL020"])


def test_a_host_default_or_an_indexed_default_device_is_silent():
    # control: the host tensor type, and a default device indexed by the local rank
    host = (_LLAMA_EXAMPLE.replace("PICK_GPU", "pass")
            .replace("DEFAULT_ON", 'torch.set_default_tensor_type("torch.FloatTensor")'))
    _check(host, ["DL020"])
    indexed = (_LLAMA_EXAMPLE.replace("PICK_GPU", "pass")
               .replace("DEFAULT_ON", 'torch.set_default_device(f"cuda:{local_rank}")'))
    _check(indexed, ["DL020"])


# --- DL020: a GPU picked by a literal index is the same GPU in every rank ---

# The shape of Cream's CDARTS_segmentation train_cydas.py (the DL020 mutant the operator made of
# it was missed): rank 0 counts the FLOPs under `with torch.cuda.device(0):`, which picks GPU 0
# for that block only and in no rank picks the process's own GPU.
_FLOPS_TRAINER = '''
import argparse
import logging

import torch
import torch.distributed as dist
import torch.nn as nn
import torchvision
from ptflops import get_model_complexity_info
from torch.nn.parallel import DistributedDataParallel as DDP

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", default=0, type=int)
parser.add_argument("--epochs", default=10, type=int)


def main():
    args = parser.parse_args()
    dist.init_process_group(backend="nccl", init_method="env://")
    PICK_GPU
    model = torchvision.models.segmentation.deeplabv3_resnet50(num_classes=19)
    if args.local_rank == 0:
        with torch.cuda.device(0):
            macs, params = get_model_complexity_info(model, (3, 512, 1024), as_strings=True)
            logging.info("complexity %s, parameters %s", macs, params)
    model = model.cuda()MARK
    model = DDP(model, device_ids=[args.local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    criterion = nn.CrossEntropyLoss(ignore_index=255)
    for epoch in range(args.epochs):
        images = torch.randn(2, 3, 512, 1024).cuda(non_blocking=True)MARK
        target = torch.randint(0, 19, (2, 512, 1024)).cuda(non_blocking=True)MARK
        loss = criterion(model(images)["out"], target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
'''


def test_a_literal_gpu_block_does_not_pick_each_process_gpu():
    code = _FLOPS_TRAINER.replace("PICK_GPU", "pass").replace("MARK", "  # <- DL020")
    _check(code, ["DL020"])


def test_the_same_trainer_with_set_device_local_rank_is_silent():
    # control: set_device(args.local_rank) picks each process's GPU; the rank-0 block is harmless
    code = _FLOPS_TRAINER.replace("PICK_GPU", "torch.cuda.set_device(args.local_rank)").replace("MARK", "")
    _check(code, ["DL020"])
