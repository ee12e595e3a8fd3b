# source: https://github.com/pytorch-tpu/llama/pull/21
# seen: 2026-11-26
# style: model-parallel inference entry point (example_cuda.py), fire CLI, one process per GPU started by torchrun
# expect: DL020 at 24, 44
# why: after init_process_group there is no torch.cuda.set_device(rank); set_default_tensor_type(torch.cuda.HalfTensor) then puts every rank's model and caches on cuda:0
import json
import os
import time
from pathlib import Path
from typing import Tuple

import fire
import torch
import torch.distributed as dist

from llama import LLaMA, ModelArgs, Tokenizer, Transformer
from llama.xla_model_parallel import set_g_group


def setup_model_parallel(rank, world_size) -> Tuple[int, int]:
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "12355"
    # initialize the process group
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    set_g_group()
    # seed must be the same in all processes
    torch.manual_seed(1)
    return rank, world_size


def load(ckpt_dir: str, tokenizer_path: str, rank: int, world_size: int, max_seq_len: int,
         max_batch_size: int, dim: int, n_layers: int, n_heads: int) -> LLaMA:
    start_time = time.time()
    checkpoints = sorted(Path(ckpt_dir).glob("*.pth"))
    ckpt_path = checkpoints[rank]
    print("Loading")
    checkpoint = torch.load(ckpt_path, map_location="cpu")
    with open(Path(ckpt_dir) / "params.json", "r") as f:
        params = json.loads(f.read())
    model_args = ModelArgs(max_seq_len=max_seq_len, max_batch_size=max_batch_size, dim=dim,
                           n_layers=n_layers, n_heads=n_heads, **params)
    tokenizer = Tokenizer(model_path=tokenizer_path)
    model_args.vocab_size = tokenizer.n_words
    torch.set_default_tensor_type(torch.cuda.HalfTensor)
    model = Transformer(model_args)
    model.load_state_dict(checkpoint, strict=False)
    torch.set_default_tensor_type(torch.FloatTensor)
    generator = LLaMA(model, tokenizer)
    print(f"Loaded in {time.time() - start_time:.2f} seconds")
    return generator


def main(tokenizer_path: str, temperature: float = 0.8, top_p: float = 0.95, max_seq_len: int = 512,
         max_batch_size: int = 32, ckpt_dir: str = "", dim: int = 4096, n_layers: int = 32, n_heads: int = 32):
    rank = int(os.environ.get("RANK", 0))
    world_size = int(os.environ.get("WORLD_SIZE", 1))
    rank, world_size = setup_model_parallel(rank, world_size)
    generator = load(ckpt_dir, tokenizer_path, rank, world_size, max_seq_len, max_batch_size, dim, n_layers, n_heads)
    prompts = ["I believe the meaning of life is", "Simply put, the theory of relativity states that "]
    results = generator.generate(prompts, max_gen_len=256, temperature=temperature, top_p=top_p)
    for result in results:
        print(result)
        print("\n==================================\n")


if __name__ == "__main__":
    fire.Fire(main)
