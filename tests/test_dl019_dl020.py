"""DL019 / DL020 on realistic scripts beyond the rule examples: what the launcher knowledge
silences and what it must not."""

from devicelint.engine import lint_source

HF_MANUAL_DDP = '''
import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from transformers import AutoModelForSequenceClassification, AutoTokenizer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="distilbert-base-uncased")
    args = parser.parse_args()
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForSequenceClassification.from_pretrained(args.model).cuda()
    model = DDP(model, device_ids=[local_rank])
    batch = tokenizer(["a fine film", "a dull film"], return_tensors="pt", padding=True).to("cuda")
    loss = model(**batch, labels=torch.tensor([1, 0]).cuda()).loss
    loss.backward()


if __name__ == "__main__":
    main()
'''

HF_TRAINER = '''
import torch
import torch.distributed as dist
from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments

if not dist.is_initialized():
    dist.init_process_group("nccl")
model = AutoModelForSequenceClassification.from_pretrained("distilbert-base-uncased").cuda()
trainer = Trainer(model=model, args=TrainingArguments(output_dir="out", per_device_train_batch_size=8))
trainer.train()
'''


def _lines(source: str, code: str) -> list:
    return sorted(f.line for f in lint_source(source, "train.py", select=[code]))


def test_a_transformers_model_under_a_hand_written_ddp_loop_is_still_checked():
    """Loading a model from transformers places nothing per rank: only its Trainer does."""
    text = HF_MANUAL_DDP
    lines = text.splitlines()
    want = [i for i, ln in enumerate(lines, 1) if ".cuda()" in ln or '.to("cuda")' in ln]
    assert _lines(text, "DL020") == want


def test_the_transformers_trainer_places_each_rank_itself():
    assert _lines(HF_TRAINER, "DL020") == []


def test_set_device_anywhere_in_the_file_silences_dl020():
    text = HF_MANUAL_DDP.replace('    local_rank = int(os.environ["LOCAL_RANK"])\n',
                                 '    local_rank = int(os.environ["LOCAL_RANK"])\n    torch.cuda.set_device(local_rank)\n')
    assert _lines(text, "DL020") == []
