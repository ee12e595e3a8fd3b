"""Causes of misses found by the sixth round of the blind bug-report set (2026-11-27, cases
132-155 scored at 6bb5022, `benchmarks/README.md` §8), each as a realistic program in the
shape users write, with its controls where the shape is right and must stay silent.

Lines ending in `# <- DLnnn` must be flagged with that code; nothing else of the rules under
test may be flagged.
"""

from inference_cases import expected, findings_at


# --- DL010: the loss of a model a framework prepared (case 139) ---

# A course notebook exported as a script: a Hugging Face QA model moved to the device, and an
# optional fp16 path that hands model, optimizer and loader to accelerate. The model that
# comes back is still a module: its output's loss carries the step's graph, and the running
# total keeps every one of them until the periodic reset.
_QA_NOTEBOOK = '''
import torch
from torch.utils.data import DataLoader
from tqdm.auto import tqdm
from transformers import AdamW, BertForQuestionAnswering

from qa_data import QA_Dataset, read_data

device = "cuda" if torch.cuda.is_available() else "cpu"
fp16_training = False

if fp16_training:
    from accelerate import Accelerator
    accelerator = Accelerator(fp16=True)
    device = accelerator.device

model = BertForQuestionAnswering.from_pretrained("bert-base-chinese").to(device)
train_set = QA_Dataset("train", *read_data("hw7_train.json"))
train_loader = DataLoader(train_set, batch_size=32, shuffle=True, pin_memory=True)

num_epoch = 1
logging_step = 100
optimizer = AdamW(model.parameters(), lr=1e-4)

if fp16_training:
    PREPARE

model.train()
for epoch in range(num_epoch):
    step = 1
    train_loss = train_acc = 0
    for data in tqdm(train_loader):
        data = [i.to(device) for i in data]
        output = model(input_ids=data[0], token_type_ids=data[1], attention_mask=data[2],
                       start_positions=data[3], end_positions=data[4])
        start_index = torch.argmax(output.start_logits, dim=1)
        end_index = torch.argmax(output.end_logits, dim=1)
        train_acc += ((start_index == data[3]) & (end_index == data[4])).float().mean()
        ADDED
        if fp16_training:
            accelerator.backward(output.loss)
        else:
            output.loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        step += 1
        if step % logging_step == 0:
            print(f"Epoch {epoch + 1} | Step {step} | loss = {train_loss / logging_step:.3f}")
            train_loss = train_acc = 0
'''

_PREPARES = (
    "model, optimizer, train_loader = accelerator.prepare(model, optimizer, train_loader)",
    "model = accelerator.prepare_model(model)",
)


def _qa(prepare: str, added: str) -> str:
    return _QA_NOTEBOOK.replace("PREPARE", prepare).replace("ADDED", added)


def test_the_loss_of_a_model_the_framework_may_prepare_is_summed_with_its_graph():
    # silent at 6bb5022: the prepared model was an unknown value, so on the join of both
    # paths `model` was no module and its output carried no graph
    for prepare in _PREPARES:
        src = _qa(prepare, "train_loss += output.loss  # <- DL010")
        assert findings_at(src, ["DL010"]) == expected(src), prepare


def test_a_detached_running_loss_of_a_prepared_model_is_no_finding():
    for prepare in _PREPARES:
        for added in ("train_loss += output.loss.detach()", "train_loss += output.loss.item()"):
            assert findings_at(_qa(prepare, added), ["DL010"]) == set(), (prepare, added)


def test_a_framework_call_that_does_not_hand_back_its_arguments_stays_unknown():
    # `trainer.fit(model)` / `accelerator.setup_dataloader(...)`: no model comes back from them
    src = _qa("result = accelerator.setup(model)", "train_loss += output.loss")
    src = src.replace("output = model(", "output = result(")
    assert findings_at(src, ["DL010"]) == set()


# --- DL010: a validation pass run as a function of a class, called through the class (case 138) ---

# A trainer class of functions without `self` (called as `ChexnetTrainer.epochVal(...)`), as
# old research code writes them: train() builds the model and the loss and hands them over.
_CHEXNET = '''
import time

import torch
import torch.optim as optim
from torch.utils.data import DataLoader

from DensenetModels import DenseNet121
from DatasetGenerator import DatasetGenerator


class ChexnetTrainer():

    def train(pathDirData, pathFileTrain, pathFileVal, nnClassCount, trBatchSize, trMaxEpoch, transform):
        model = DenseNet121(nnClassCount, True).cuda()
        model = torch.nn.DataParallel(model).cuda()
        dataLoaderTrain = DataLoader(DatasetGenerator(pathDirData, pathFileTrain, transform), batch_size=trBatchSize,
                                     shuffle=True, num_workers=8, pin_memory=True)
        dataLoaderVal = DataLoader(DatasetGenerator(pathDirData, pathFileVal, transform), batch_size=trBatchSize,
                                   shuffle=False, num_workers=8, pin_memory=True)
        optimizer = optim.Adam(model.parameters(), lr=0.0001)
        loss = torch.nn.BCELoss()
        for epochID in range(trMaxEpoch):
            ChexnetTrainer.epochTrain(model, dataLoaderTrain, optimizer, loss)
            lossVal, losstensor = ChexnetTrainer.epochVal(model, dataLoaderVal, loss)
            print('Epoch ' + str(epochID + 1) + ' loss ' + str(lossVal) + ' at ' + time.strftime("%H%M%S"))

    DECORATOR
    def epochTrain(model, dataLoader, optimizer, loss):
        model.train()
        for batchID, (input, target) in enumerate(dataLoader):
            target = target.cuda(non_blocking=True)
            lossvalue = loss(model(input), target)
            optimizer.zero_grad()
            lossvalue.backward()
            optimizer.step()

    DECORATOR
    def epochVal(model, dataLoader, loss):
        model.eval()
        lossVal = 0
        lossValNorm = 0
        losstensorMean = 0
        for i, (input, target) in enumerate(dataLoader):
            target = target.cuda(non_blocking=True)
            varOutput = model(input)
            losstensor = loss(varOutput, target)
            ADDED
            lossVal += losstensor.item()
            lossValNorm += 1
        return lossVal / lossValNorm, losstensorMean / lossValNorm
'''


def _chexnet(decorator: str, added: str) -> str:
    return _CHEXNET.replace("    DECORATOR\n", f"    {decorator}\n" if decorator else "").replace("ADDED", added)


def test_a_function_of_the_class_called_through_the_class_runs_with_its_arguments():
    # silent at 6bb5022: `ChexnetTrainer.epochVal(model, ...)` was a call of something unknown,
    # so epochVal ran only on its own, with a model and a loss nobody handed it
    for decorator in ("", "@staticmethod"):
        src = _chexnet(decorator, "losstensorMean += losstensor  # <- DL010")
        assert findings_at(src, ["DL010"]) == expected(src), decorator


def test_the_validation_loss_summed_as_a_number_or_under_no_grad_is_no_finding():
    for decorator in ("", "@staticmethod"):
        assert findings_at(_chexnet(decorator, "losstensorMean += losstensor.item()"), ["DL010"]) == set()
        no_grad = _chexnet(decorator, "losstensorMean += losstensor").replace(
            "    def epochVal(", "    @torch.no_grad()\n    def epochVal(")
        assert findings_at(no_grad, ["DL010"]) == set(), decorator


# --- DL005: the deprecated call in the branch a version test takes on new torch (case 136) ---

# A package helper that picks the autocast API by torch version, with the test written the
# wrong way round: on every torch >= 2.4 it calls the deprecated one.
_AUTOCAST_HELPER = '''
import math

import torch
import torch.nn as nn
from packaging import version

TORCH_VERSION = version.parse(torch.__version__)
TORCH_GE_2_4 = version.parse(torch.__version__) >= version.parse("2.4")


def autocast(**kwargs):
    """Run the wrapped code under CUDA autocast with the API the installed torch offers."""
    if TEST:
        return NEW_BRANCH
    else:
        return OLD_BRANCH


class LocalAttention(nn.Module):
    def __init__(self, window_size, dropout=0.0):
        super().__init__()
        self.window_size = window_size
        self.dropout = nn.Dropout(dropout)

    def forward(self, q, k, v):
        with autocast(enabled=False):
            sim = torch.einsum("b i e, b j e -> b i j", q.float(), k.float()) / math.sqrt(q.shape[-1])
            return torch.einsum("b i j, b j e -> b i e", self.dropout(sim.softmax(dim=-1)), v.float())
'''

_DEPRECATED = "torch.cuda.amp.autocast(**kwargs)"
_CURRENT = 'torch.amp.autocast("cuda", **kwargs)'


def _helper(test: str, new: str, old: str) -> str:
    return _AUTOCAST_HELPER.replace("TEST", test).replace("NEW_BRANCH", new).replace("OLD_BRANCH", old)


def test_the_deprecated_call_in_the_branch_new_torch_takes_is_flagged():
    # silent at 6bb5022: any branch under a test mentioning a version was a compatibility shim
    for test in ('TORCH_VERSION >= version.parse("2.4")', "TORCH_GE_2_4", '(2, 4) <= TORCH_VERSION.release',
                 'not version.parse(torch.__version__) < version.parse("2.5.0")'):
        src = _helper(test, f"{_DEPRECATED}  # <- DL005", _CURRENT)
        assert findings_at(src, ["DL005"]) == expected(src), test
    flipped = _helper('TORCH_VERSION < version.parse("2.4")', _CURRENT, f"{_DEPRECATED}  # <- DL005")
    assert findings_at(flipped, ["DL005"]) == expected(flipped)


def test_the_deprecated_call_kept_for_old_torch_or_under_an_unreadable_test_is_no_finding():
    assert findings_at(_helper('TORCH_VERSION >= version.parse("2.4")', _CURRENT, _DEPRECATED), ["DL005"]) == set()
    assert findings_at(_helper('TORCH_VERSION < version.parse("2.4")', _DEPRECATED, _CURRENT), ["DL005"]) == set()
    for test in ('hasattr(torch, "amp")', "TORCH_VERSION >= MIN_VERSION", 'TORCH_VERSION >= version.parse("2.3")',
                 'sys.version_info >= (3, 8)'):
        assert findings_at(_helper(test, _DEPRECATED, _CURRENT), ["DL005"]) == set(), test


# --- DL018: the model moved by a helper it is handed to after the optimizer load (case 143) ---

# A re-ID entry point in the shape of the report, in one file: the resume branch loads both
# state dicts while the model is on the host; do_train hands the model to the trainer
# factory, which moves it (DataParallel on several GPUs).
_REID = '''
import argparse

import torch
import torch.nn as nn

from config import cfg
from data import make_data_loader
from modeling import build_model
from solver import make_optimizer


def create_supervised_trainer(model, optimizer, loss_fn, device=None):
    if device:
        if torch.cuda.device_count() > 1:
            model = nn.DataParallel(model)
        model.to(device)

    def _update(img, target):
        model.train()
        optimizer.zero_grad()
        score, feat = model(img.to(device))
        loss = loss_fn(score, feat, target.to(device))
        loss.backward()
        optimizer.step()
        return loss.item()

    return _update


def do_train(cfg, model, train_loader, optimizer, loss_fn):
    update = create_supervised_trainer(model, optimizer, loss_fn, device=cfg.MODEL.DEVICE)
    for epoch in range(cfg.SOLVER.MAX_EPOCHS):
        for img, target in train_loader:
            update(img, target)


def train(cfg):
    train_loader, val_loader, num_query, num_classes = make_data_loader(cfg)
    model = nn.Sequential(nn.Conv2d(3, 64, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, num_classes))
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.SOLVER.BASE_LR)
    loss_fn = nn.CrossEntropyLoss()
    if cfg.MODEL.PRETRAIN_CHOICE == 'self':
        path_to_optimizer = cfg.MODEL.PRETRAIN_PATH.replace('model', 'optimizer')
        model.load_state_dict(torch.load(cfg.MODEL.PRETRAIN_PATH, map_location="cpu"))
        LOAD
    do_train(cfg, model, train_loader, optimizer, loss_fn)


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument("--config_file", default="")
    args = parser.parse_args()
    cfg.merge_from_file(args.config_file)
    train(cfg)
'''

_LOAD = "optimizer.load_state_dict(torch.load(path_to_optimizer, map_location=\"cpu\"))"


def test_optimizer_state_loaded_before_the_helper_that_moves_the_model_runs():
    # silent at 6bb5022: a model moved both by its builder's code path and inside a helper was
    # taken for one on the device from its build on
    src = _REID.replace("LOAD", f"{_LOAD}  # <- DL018")
    assert findings_at(src, ["DL018"]) == expected(src)


def test_optimizer_state_loaded_after_a_helper_moved_the_model_is_no_finding():
    # the helper runs first: the caller's model is then where the helper left it
    src = _REID.replace("        LOAD\n", "").replace(
        "    do_train(cfg, model, train_loader, optimizer, loss_fn)\n",
        "    place(model, cfg.MODEL.DEVICE)\n"
        f"    {_LOAD}\n"
        "    do_train(cfg, model, train_loader, optimizer, loss_fn)\n",
    ).replace("def do_train(", "def place(model, device):\n    model.to(device)\n\n\ndef do_train(")
    assert findings_at(src, ["DL018", "DL001"]) == set()


def test_a_model_a_helper_moved_is_on_the_device_afterwards_in_the_caller():
    # after `place(model, device)` the caller's model is moved: no DL001 on its use there
    src = '''
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def place(model, device):
    model.to(device)
    return model


def train(loader, epochs):
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 2))
    optimizer = torch.optim.Adam(model.parameters())
    place(model, device)
    for epoch in range(epochs):
        for x, y in loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
'''
    assert findings_at(src, ["DL001", "DL002", "DL018"]) == set()


# --- DL011: a part of a host tensor updated in place with device values (case 147) ---

# Semi-supervised training: a confidence mask built with torch.zeros(batch) on the host is
# filled per class from the CUDA max probabilities of the model's predictions.
_MASK = '''
import numpy as np
import torch
import torch.nn as nn

from models.backbone import ResNet_18


def mask_generate(max_probs, max_idx, batch, threshold):
    mask_ori = torch.zeros(batch)
    for i in range(7):
        idx = np.where(max_idx.cpu() == i)[0]
        m = max_probs[idx].ge(threshold[i]).float()
        for k in range(len(idx)):
            UPDATE
    return mask_ori.cuda()


def train(loader, threshold, epochs):
    model = torch.nn.DataParallel(ResNet_18(num_classes=7)).cuda()
    criterion = nn.CrossEntropyLoss(reduction='none')
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
    for epoch in range(epochs):
        for inputs_u, inputs_strong in loader:
            inputs_u, inputs_strong = inputs_u.cuda(), inputs_strong.cuda()
            outputs_u = model(inputs_u)
            max_probs, max_idx = torch.max(torch.softmax(outputs_u, dim=1), dim=1)
            mask = mask_generate(max_probs, max_idx.detach(), inputs_u.size(0), threshold)
            loss = (criterion(model(inputs_strong), max_idx) * mask).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
'''


def test_an_element_of_a_host_tensor_added_a_device_value_in_place():
    # silent at 6bb5022: `mask_ori[idx[k]] += m[k]` was read as a 0-dim host part meeting a
    # 0-dim device value, which out of place would be allowed; in place it is not
    for update in ("mask_ori[idx[k]] += m[k]", "mask_ori[idx] += m", "mask_ori[idx[k]] -= m[k]"):
        src = _MASK.replace("UPDATE", f"{update}  # <- DL011")
        assert findings_at(src, ["DL011"]) == expected(src), update


def test_a_host_element_updated_with_host_values_or_numbers_is_no_finding():
    for update in ("mask_ori[idx[k]] += m[k].cpu()", "mask_ori[idx[k]] += 1.0", "mask_ori[idx[k]] += float(m[k])"):
        assert findings_at(_MASK.replace("UPDATE", update), ["DL011"]) == set(), update
    on_device = _MASK.replace("torch.zeros(batch)", "torch.zeros(batch, device=max_probs.device)")
    assert findings_at(on_device.replace("UPDATE", "mask_ori[idx[k]] += m[k]"), ["DL011"]) == set()


def test_a_classmethod_called_through_the_class_gets_the_class_first():
    # `cls` is the class; the model and the loader are the call's arguments
    src = '''
import torch
import torch.nn as nn

from data import make_loaders


class Evaluator:
    threshold = 0.5

    @classmethod
    def evaluate(cls, model, loader, criterion):
        model.eval()
        total = 0
        for x, y in loader:
            x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
            total += criterion(model(x), y)  # <- DL010
        return total / len(loader), cls.threshold


def main():
    train_loader, val_loader = make_loaders()
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 2)).cuda()
    loss, threshold = Evaluator.evaluate(model, val_loader, nn.CrossEntropyLoss())
    print(loss.item(), threshold)
'''
    assert findings_at(src, ["DL010"]) == expected(src)
