# source: https://github.com/ray-project/ray/pull/40940
# seen: 2026-11-26
# style: Hugging Face + DeepSpeed fine-tuning function (doc/source/templates/04_finetuning_llms_with_deepspeed/finetune_hf_llm.py), batches moved by accelerate
# expect: DL010 at 35
# why: loss_sum += loss accumulates the graph of every step (memory leak, fix: loss.item())
# also-ok: DL008 at 29
# also-ok: DL013 at 45
import time

import torch
from accelerate import Accelerator
from transformers import AutoModelForCausalLM, get_linear_schedule_with_warmup


def training_function(kwargs: dict):
    config = kwargs["config"]
    args = kwargs["args"]
    accelerator = Accelerator(gradient_accumulation_steps=config["gradient_accumulation_steps"])
    model = AutoModelForCausalLM.from_pretrained(args.model_name, torch_dtype=torch.bfloat16, use_cache=False)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config["lr"])
    train_dataloader = kwargs["train_dataloader"]
    lr_scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=100, num_training_steps=1000)
    model, optimizer, train_dataloader, lr_scheduler = accelerator.prepare(
        model, optimizer, train_dataloader, lr_scheduler)

    for epoch in range(config["num_epochs"]):
        s_epoch = time.time()
        model.train()
        loss_sum = torch.tensor(0.0).to(accelerator.device)
        for step, batch in enumerate(train_dataloader):
            with accelerator.accumulate(model):
                s_fwd = time.time()
                outputs = model(**batch)
                loss = outputs.loss
                loss_sum += loss
                e_fwd = time.time()
                s_bwd = time.time()
                accelerator.backward(loss)
                e_bwd = time.time()
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
            if accelerator.is_main_process:
                accelerator.print(
                    f"[epoch {epoch} step {step}] loss: {loss.item()} fwd: {e_fwd - s_fwd} bwd: {e_bwd - s_bwd}")
        e_epoch = time.time()
        loss_mean = loss_sum / (step + 1)
        accelerator.print(f"epoch {epoch} loss: {loss_mean.item()} time: {e_epoch - s_epoch}")
