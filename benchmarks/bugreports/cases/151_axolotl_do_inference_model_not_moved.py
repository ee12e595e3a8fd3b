# source: https://github.com/axolotl-ai-cloud/axolotl/pull/483
# seen: 2026-11-27
# style: fine-tuning CLI script (scripts/finetune.py, mid 2023): fire-based train(config, prepare_ds_only, **kwargs) loading a YAML cfg, choosing cfg.device, loading the tokenizer and model through the project's load_tokenizer / load_model, then either the interactive do_inference(cfg, model, tokenizer, prompter) loop or training
# expect: DL001 at 92, 93
# why: with --inference the model built by load_model(..., inference=True) stays where it was loaded (the CPU) while do_inference hands generate() batch["input_ids"].to(cfg.device) -> device mismatch on a GPU box; the PR moves the model to cfg.device at the top of do_inference
import importlib
import logging
import os
import sys
from pathlib import Path
from typing import Optional

import fire
import torch
import yaml
from transformers import GenerationConfig

from axolotl.utils.dict import DictDefault
from axolotl.utils.models import load_model, load_tokenizer
from axolotl.utils.trainer import setup_trainer

LOG = logging.getLogger("axolotl.scripts")


def choose_device(cfg):
    def get_device():
        try:
            if torch.cuda.is_available():
                return f"cuda:{cfg.local_rank}"
            if torch.backends.mps.is_available():
                return "mps"
            raise SystemError("No CUDA/mps device found")
        except Exception:
            return "cpu"

    cfg.device = get_device()
    if cfg.device_map != "auto":
        if cfg.device.startswith("cuda"):
            cfg.device_map = {"": cfg.local_rank}
        else:
            cfg.device_map = {"": cfg.device}


def get_multi_line_input() -> Optional[str]:
    print("Give me an instruction (Ctrl + D to finish): ")
    instruction = ""
    for line in sys.stdin:
        instruction += line
    return instruction


def do_inference(cfg, model, tokenizer, prompter: Optional[str]):
    default_tokens = {"unk_token": "<unk>", "bos_token": "<s>", "eos_token": "</s>"}
    for token, symbol in default_tokens.items():
        if not (cfg.special_tokens and token in cfg.special_tokens):
            tokenizer.add_special_tokens({token: symbol})

    prompter_module = None
    if prompter:
        prompter_module = getattr(importlib.import_module("axolotl.prompters"), prompter)

    while True:
        print("=" * 80)
        instruction = get_multi_line_input()
        if not instruction:
            return
        if prompter_module:
            prompt: str = next(prompter_module().build_prompt(instruction=instruction.strip("\n")))
        else:
            prompt = instruction.strip()
        batch = tokenizer(prompt, return_tensors="pt", add_special_tokens=True)

        print("=" * 40)
        model.eval()
        with torch.no_grad():
            generation_config = GenerationConfig(
                repetition_penalty=1.1,
                max_new_tokens=1024,
                temperature=0.9,
                top_p=0.95,
                top_k=40,
                bos_token_id=tokenizer.bos_token_id,
                eos_token_id=tokenizer.eos_token_id,
                pad_token_id=tokenizer.pad_token_id,
                do_sample=True,
                use_cache=True,
                return_dict_in_generate=True,
                output_attentions=False,
                output_hidden_states=False,
                output_scores=False,
            )
            generated = model.generate(
                inputs=batch["input_ids"].to(cfg.device),
                generation_config=generation_config,
            )
        print("=" * 40)
        print(tokenizer.decode(generated["sequences"].cpu().tolist()[0]))


def train(config: Path = Path("configs/"), prepare_ds_only: bool = False, **kwargs):
    with open(config, encoding="utf-8") as file:
        cfg: DictDefault = DictDefault(yaml.safe_load(file))
    for k, _ in kwargs.items():
        if k in cfg or not cfg.strict:
            cfg[k] = kwargs[k]

    cfg.local_rank = int(os.environ.get("LOCAL_RANK", 0))
    choose_device(cfg)

    tokenizer = load_tokenizer(cfg.tokenizer_config or cfg.base_model_config, cfg.tokenizer_type, cfg)

    LOG.info("loading model and peft_config...")
    model, peft_config = load_model(cfg, tokenizer, inference=("inference" in kwargs))

    if "inference" in kwargs:
        LOG.info("calling do_inference function")
        prompter: Optional[str] = "AlpacaPrompter"
        if "prompter" in kwargs:
            prompter = kwargs["prompter"] if kwargs["prompter"] != "None" else None
        do_inference(cfg, model, tokenizer, prompter=prompter)
        return

    trainer = setup_trainer(cfg, None, None, model, tokenizer, 0)
    model.config.use_cache = False
    LOG.info("Starting trainer...")
    trainer.train()
    model.save_pretrained(cfg.output_dir)


if __name__ == "__main__":
    fire.Fire(train)
