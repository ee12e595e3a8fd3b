"""Causes of misses found by the fourth round of the blind bug-report set (2026-11-26, cases
086-108 scored at 6d3cec3, `benchmarks/README.md` §8), each as a realistic program in the
shape users write, with its control where the shape is right and must stay silent.

Lines ending in `# <- DLnnn` must be flagged with that code; nothing else of the rules under
test may be flagged.
"""

from inference_cases import expected, findings_at


# --- DL010: a loss the step differentiates, summed though its maker is code we cannot see ---

# A scene-completion trainer: the model comes from a factory in another package, its
# `compute_loss` returns a dict of losses, `loss['total'].backward()` differentiates one of
# them, and the epoch totals are kept per key in an inner loop over the dict.
_DICT_OF_LOSSES = '''
import argparse

import torch
from torch.utils.tensorboard import SummaryWriter

from common.dataset import get_dataset
from common.model import get_model


def train(model, optimizer, dset, epochs, tbwriter, device):
    for epoch in range(epochs):
        model.train()
        epoch_loss = {}
        for t, (data, indices) in enumerate(dset):
            for k in data:
                data[k] = data[k].to(device=device)
            scores = model(data)
            loss = model.compute_loss(scores, data)
            optimizer.zero_grad()
            loss['total'].backward()
            optimizer.step()
            for l_key in loss:
                if l_key not in epoch_loss:
                    epoch_loss[l_key] = 0
                epoch_loss[l_key] += loss[l_key]  # <- DL010
        for l_key in epoch_loss:
            tbwriter.add_scalar('train_loss_epoch/{}'.format(l_key), epoch_loss[l_key] / len(dset), epoch)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--epochs', type=int, default=80)
    args = parser.parse_args()
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    dataset = get_dataset('train')
    model = get_model(dataset).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    train(model, optimizer, dataset, args.epochs, SummaryWriter('runs'), device)


if __name__ == '__main__':
    main()
'''

# The same trainer keeping `.item()` of every loss: a float per key, nothing kept alive.
_DICT_OF_LOSSES_ITEMS = _DICT_OF_LOSSES.replace(
    "epoch_loss[l_key] += loss[l_key]  # <- DL010", "epoch_loss[l_key] += loss[l_key].item()")

# The totals are started afresh for every batch (logged per step): no graph outlives its step.
_DICT_OF_LOSSES_PER_STEP = _DICT_OF_LOSSES.replace(
    "            for l_key in loss:\n                if l_key not in epoch_loss:",
    "            epoch_loss = {}\n            for l_key in loss:\n                if l_key not in epoch_loss:",
).replace("  # <- DL010", "")

# An accelerate fine-tuning loop: the loss comes from a prepared Hugging Face model (code we
# cannot see), `accelerator.backward(loss)` differentiates it, and the epoch total adds it.
_ACCELERATE_LOSS_SUM = '''
import torch
from accelerate import Accelerator
from transformers import AutoModelForCausalLM, get_linear_schedule_with_warmup


def training_function(config, train_dataloader):
    accelerator = Accelerator(gradient_accumulation_steps=config["grad_accum"])
    model = AutoModelForCausalLM.from_pretrained(config["model_name"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=config["lr"])
    scheduler = get_linear_schedule_with_warmup(optimizer, 100, 1000)
    model, optimizer, train_dataloader, scheduler = accelerator.prepare(model, optimizer, train_dataloader, scheduler)
    for epoch in range(config["num_epochs"]):
        model.train()
        loss_sum = 0.0
        for step, batch in enumerate(train_dataloader):
            with accelerator.accumulate(model):
                outputs = model(**batch)
                loss = outputs.loss
                loss_sum += loss  # <- DL010
                accelerator.backward(loss)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
        accelerator.print(f"epoch {epoch}: mean loss {loss_sum / len(train_dataloader)}")
'''


def test_dl010_dict_of_losses_summed_per_key_in_an_inner_loop():
    assert findings_at(_DICT_OF_LOSSES, ["DL010"]) == expected(_DICT_OF_LOSSES)


def test_dl010_dict_of_losses_controls_stay_silent():
    assert findings_at(_DICT_OF_LOSSES_ITEMS, ["DL010"]) == set()
    assert findings_at(_DICT_OF_LOSSES_PER_STEP, ["DL010"]) == set()


def test_dl010_unseen_loss_that_the_step_differentiates():
    assert findings_at(_ACCELERATE_LOSS_SUM, ["DL010"]) == expected(_ACCELERATE_LOSS_SUM)


def test_dl010_output_of_the_prepared_model_summed_keeps_its_graph():
    # `outputs.logits` is summed, only `outputs.loss` is differentiated: silent while the model
    # accelerate hands back was an unknown value; it is a module (recall6), so its logits carry
    # the step's graph as a plain model's do (`total += model(x).mean()` is DL010 too)
    src = _ACCELERATE_LOSS_SUM.replace("loss_sum += loss  # <- DL010", "loss_sum += outputs.logits.mean()  # <- DL010")
    assert findings_at(src, ["DL010"]) == expected(src)


def test_dl010_logits_summed_as_numbers_stay_silent():
    detached = _ACCELERATE_LOSS_SUM.replace("loss_sum += loss  # <- DL010", "loss_sum += outputs.logits.mean().item()")
    assert findings_at(detached, ["DL010"]) == set()


# --- DL003: a number before the loop, a sum of device tensors after it ---

# A crowd-counting validation: MAE / MSE start as Python numbers and grow by CUDA tensors for
# every image; after the loop they are CUDA tensors, and `np.sqrt` converts one.
_COUNTING_VALIDATE = '''
import argparse
import json

import numpy as np
import torch
from torchvision import transforms

import dataset
from model import CSRNet

patch_num = 4


def validate(val_list, model):
    test_loader = torch.utils.data.DataLoader(
        dataset.listDataset(val_list, shuffle=False, transform=transforms.ToTensor(), train=False),
        batch_size=1)
    model.eval()
    mae = 0
    mse = 0
    for i, (img, target) in enumerate(test_loader):
        img = img.cuda()
        output = model(img)
        mae += abs(output.data.sum() - target.sum().type(torch.FloatTensor).cuda())
        mse += (output.data.sum() - target.sum().type(torch.FloatTensor).cuda()).pow(2)
    mae = mae / (len(test_loader) * patch_num)
    mse = np.sqrt(mse / (len(test_loader) * patch_num))  # <- DL003
    print(' * MAE {mae:.3f} MSE {mse:.3f}'.format(mae=mae, mse=mse))
    return mae


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('test_json')
    args = parser.parse_args()
    with open(args.test_json) as f:
        val_list = json.load(f)
    model = CSRNet().cuda()
    validate(val_list, model)


if __name__ == '__main__':
    main()
'''

# The same loop summing `.item()` values: numbers all the way, nothing to flag.
_COUNTING_VALIDATE_ITEMS = _COUNTING_VALIDATE.replace(
    ".cuda()).pow(2)", ".cuda()).pow(2).item()").replace("  # <- DL003", "")

# The total starts as a number and grows by host values (a NumPy error per image).
_COUNTING_VALIDATE_HOST = _COUNTING_VALIDATE.replace(
    "        mse += (output.data.sum() - target.sum().type(torch.FloatTensor).cuda()).pow(2)",
    "        mse += (output.data.sum().item() - target.sum().item()) ** 2").replace("  # <- DL003", "")


def test_dl003_number_accumulating_device_tensors_converted_after_the_loop():
    assert findings_at(_COUNTING_VALIDATE, ["DL003"]) == expected(_COUNTING_VALIDATE)


def test_dl003_number_accumulating_numbers_stays_silent():
    assert findings_at(_COUNTING_VALIDATE_ITEMS, ["DL003"]) == set()
    assert findings_at(_COUNTING_VALIDATE_HOST, ["DL003"]) == set()
