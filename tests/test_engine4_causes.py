"""Causes of misses in the blind bug-report set (2026-11-26, scored at 6d3cec3 on issue 20's
engine branch), each fixed in general and tested as a program in the shape users write it,
with a control where the shape is right (or unsure) and must stay silent.

Lines ending in `# <- DLnnn` must be flagged with that code; nothing else of the rules under
test may be flagged.
"""

import textwrap

from devicelint.engine import lint_file, lint_source
from inference_cases import expected, findings_at


# --- DL001: a model moved only to the host is still on the host (case 066) ---------------------

_HOST_TRAINER = '''
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
import torchvision
from torchvision import transforms


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2))
        self.fc = nn.Linear(14 * 14 * 32, 10)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


class Trainer:
    def __init__(self, lr):
        self.device = torch.device(TRAIN_DEVICE)
        self.net = ConvNet()
        self.net.to(self.device)
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = optim.Adam(self.net.parameters(), lr=lr)

    def train(self, loader, epochs):
        self.net.train()
        for epoch in range(epochs):
            for inputs, labels in loader:
                inputs, labels = inputs.to(self.device), labels.to(self.device)
                self.optimizer.zero_grad()
                loss = self.criterion(self.net(inputs), labels)
                loss.backward()
                self.optimizer.step()


def attack(dataset, net, steps=10):
    net.eval()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    flips = 0
    for i in range(steps):
        image, label = dataset[i]
        image = image.unsqueeze(0).to(device)
        pred = net(image).argmax(1)
        flips += int(pred.item() != label)
    return flips / steps


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args()
    data = torchvision.datasets.MNIST("./data", train=True, download=True, transform=transforms.ToTensor())
    loader = torch.utils.data.DataLoader(data, batch_size=64, shuffle=True)
    t = Trainer(args.lr)
    t.train(loader, args.epochs)
    rate = attack(data, t.net)  MARK
    np.save("rate.npy", np.array([rate]))


if __name__ == "__main__":
    main()
'''


def test_a_model_moved_to_the_cpu_device_and_handed_to_a_helper_that_moves_the_images():
    # the trainer runs on torch.device("cpu"): `.to(self.device)` leaves the net on the host,
    # and attack() sends the images to CUDA (silent before: any move counted as a move away)
    src = _HOST_TRAINER.replace("TRAIN_DEVICE", '"cpu"').replace("MARK", "# <- DL001")
    assert findings_at(src, ["DL001"]) == expected(src)


def test_a_model_moved_to_a_device_that_may_be_cuda_is_no_finding():
    src = _HOST_TRAINER.replace("TRAIN_DEVICE", '"cuda" if torch.cuda.is_available() else "cpu"').replace("MARK", "")
    assert findings_at(src, ["DL001"]) == set()


# --- call-site contexts: `super(Cls, self).__init__()` is no use of Cls as a value ---------------

_LAYERS = '''
import torch
import torch.nn as nn
from torch.autograd import Variable


class GatedAttention(nn.Module):
    def __init__(self, dim, trainable=True):
        super(GatedAttention, self).__init__()
        self.proj = nn.Linear(dim, dim)
        if trainable:
            self.beta = nn.Parameter(torch.ones(1))
        else:
            self.beta = Variable(torch.zeros(1), requires_grad=False)

    def forward(self, x):
        scores = torch.softmax(self.proj(x) @ x.t(), dim=1)
        return self.beta * (scores @ x)  MARK
'''

_MODEL = '''
import torch.nn as nn

from layers import GatedAttention


class Encoder(nn.Module):
    def __init__(self, dim, n_layers):
        super(Encoder, self).__init__()
        self.first = GatedAttention(dim, trainable=False)
        self.out = nn.Linear(dim, 2)

    def forward(self, x):
        return self.out(self.first(x))
'''

_TRAIN = '''
import argparse

import torch
import torch.nn.functional as F

from model import Encoder

parser = argparse.ArgumentParser()
parser.add_argument("--no-cuda", action="store_true")
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() and not args.no_cuda else "cpu")
model = Encoder(16, 2).to(device)
x = torch.randn(32, 16).to(device)
y = torch.randint(0, 2, (32,)).to(device)
loss = F.cross_entropy(model(x), y)
loss.backward()
'''


def _project(root, files: dict) -> None:
    (root / "pyproject.toml").write_text("")
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text).lstrip())


def test_a_constructor_flag_every_caller_sets_reaches_a_class_written_with_old_style_super(tmp_path):
    # every caller builds GatedAttention(trainable=False): beta is a plain tensor that
    # `.to(device)` leaves behind (silent before: `super(GatedAttention, self)` read the class
    # as a value, which made its callers unknowable)
    layers = _LAYERS.replace("MARK", "# <- DL015")
    _project(tmp_path, {"layers.py": layers, "model.py": _MODEL, "train.py": _TRAIN})
    found = {(f.code, f.line) for f in lint_file(str(tmp_path / "layers.py")) if f.code == "DL015"}
    assert found == expected(textwrap.dedent(layers).lstrip())


def test_callers_that_disagree_on_the_flag_leave_the_attribute_unknown(tmp_path):
    model = _MODEL.replace("        self.out = nn.Linear(dim, 2)",
                           "        self.second = GatedAttention(dim)\n        self.out = nn.Linear(dim, 2)")
    _project(tmp_path, {"layers.py": _LAYERS.replace("MARK", ""), "model.py": model, "train.py": _TRAIN})
    assert not [f for f in lint_file(str(tmp_path / "layers.py")) if f.code == "DL015"]


# --- DL002: a tokenizer's `.input_ids`; a model loaded onto one device (`device_map="cuda:0"`) ------

_CHAT = '''
import argparse
import json

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, BitsAndBytesConfig


class ChatAgent:
    def __init__(self, model_path, quantize=True):
        self.tokenizer = AutoTokenizer.from_pretrained(model_path, trust_remote_code=True)
        bnb_config = BitsAndBytesConfig(
            load_in_4bit=True,
            bnb_4bit_compute_dtype=torch.float16,
            bnb_4bit_quant_type="nf4",
        )
        self.model = AutoModelForCausalLM.from_pretrained(model_path, LOAD_KEYWORDS)

    def reply(self, history, max_length=512):
        prompt = "\\n".join(turn["content"] for turn in history)
        input_ids = self.tokenizer(prompt, return_tensors="pt").input_ids INPUT_MOVE
        output_ids = self.model.generate(input_ids, max_length=max_length)  MARK
        return self.tokenizer.batch_decode(output_ids, skip_special_tokens=True)[0]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="checkpoints/agent-7b")
    parser.add_argument("--data", default="data/test.json")
    args = parser.parse_args()
    agent = ChatAgent(args.model)
    for item in json.load(open(args.data)):
        print(agent.reply(item["conversations"]))
'''


def _chat(load='device_map="cuda:0", torch_dtype=torch.float16', move="", mark="") -> str:
    return _CHAT.replace("LOAD_KEYWORDS", load).replace("INPUT_MOVE", move).replace("MARK", mark)


def test_token_ids_from_the_tokenizer_meet_a_model_loaded_onto_one_gpu():
    # `device_map="cuda:0"` loads the weights there with no hooks that would move the inputs;
    # `.input_ids` of the BatchEncoding is its host tensor (silent before on both counts)
    src = _chat(mark="# <- DL002")
    assert findings_at(src, ["DL002", "DL011"]) == expected(src)
    src = _chat(load="device_map=torch.device('cuda')", mark="# <- DL002")
    assert findings_at(src, ["DL002", "DL011"]) == expected(src)


def test_no_finding_where_the_placement_is_not_sure_or_the_ids_are_moved():
    # `device_map="auto"` may dispatch with hooks; accelerate always dispatches a bitsandbytes
    # 4-bit/8-bit model with hooks that move its inputs to the weights; ids moved by hand
    assert findings_at(_chat(load='device_map="auto"'), ["DL002", "DL011"]) == set()
    assert findings_at(_chat(load="quantization_config=bnb_config"), ["DL002", "DL011"]) == set()
    assert findings_at(_chat(load='quantization_config=bnb_config, device_map="cuda:0"'), ["DL002", "DL011"]) == set()
    assert findings_at(_chat(load="load_in_8bit=True"), ["DL002", "DL011"]) == set()
    assert findings_at(_chat(load="**model_kwargs"), ["DL002", "DL011"]) == set()
    assert findings_at(_chat(move=".to(self.model.device)"), ["DL002", "DL011"]) == set()


# --- DL003: a tensor on the device stored into a NumPy array (case 016) -------------------------

_LOSS_HISTORY = '''
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(4, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 4, 3, padding=1))

    def forward(self, x):
        return x + self.body(x)


class History:
    def __init__(self, epochs):
        self.train_loss = np.zeros((epochs, 1))

    def record(self, epoch, loss):
        self.train_loss[epoch] = loss  MARK_RECORD


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    device = torch.device(DEVICE)
    model = Denoiser().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    data = TensorDataset(torch.rand(64, 4, 32, 32), torch.rand(64, 4, 32, 32))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    g_loss = np.zeros((len(data) // 8, 1))
    history = History(args.epochs)
    for epoch in range(args.epochs):
        for ind, (noisy, clean) in enumerate(loader):
            noisy, clean = noisy.to(device), clean.to(device)
            loss = torch.abs(model(noisy) - clean).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            g_loss[ind] = STORED  MARK
            print("epoch %d loss %.3f" % (epoch, np.mean(g_loss[np.where(g_loss)])))
        history.record(epoch, RECORDED)


if __name__ == "__main__":
    main()
'''


def _history(device='"cuda" if torch.cuda.is_available() else "cpu"', stored="loss.data", mark="# <- DL003",
             recorded="loss.detach()", mark_record="# <- DL003") -> str:
    return (_LOSS_HISTORY.replace("DEVICE", device).replace("STORED", stored).replace("RECORDED", recorded)
            .replace("MARK_RECORD", mark_record).replace("MARK", mark))


def test_a_loss_on_the_device_stored_into_a_numpy_array():
    # `g_loss[ind] = loss.data` into a row of `np.zeros((n, 1))` (case 016's shape):
    # ndarray.__setitem__ converts the CUDA tensor (silent before); so does the helper method
    # handed the detached loss. (A store into one element of a 1-D array converts with
    # float() and works on the device: tests/test_newrules6_causes.py.)
    src = _history()
    assert findings_at(src, ["DL003"]) == expected(src)
    messages = sorted(f.message for f in lint_source(src, "train.py", select=["DL003"]))
    assert ["NumPy array `g_loss`" in m for m in messages] == [True, False]


def test_no_finding_for_a_number_a_host_tensor_or_a_host_only_run():
    assert findings_at(_history(stored="loss.item()", mark="", recorded="loss.item()", mark_record=""), ["DL003"]) == set()
    assert findings_at(_history(stored="loss.detach().cpu()", mark="", recorded="loss.cpu()", mark_record=""),
                  ["DL003"]) == set()
    assert findings_at(_history(device='"cpu"', mark="", mark_record=""), ["DL003"]) == set()


# --- DL011: `torch.tensor(ids).unsqueeze(0)` has a dimension for sure (case 025) ----------------

_GENERATE = '''
import argparse

import tiktoken
import torch

from gpt_model import GPTModel


def text_to_token_ids(text, tokenizer):
    encoded = tokenizer.encode(text, allowed_special={"<|endoftext|>"})
    return torch.tensor(encoded)BATCH_DIM


def generate(model, idx, max_new_tokens, context_size):
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]
        with torch.no_grad():
            logits = model(idx_cond)  MARK
        idx_next = torch.argmax(logits[:, -1, :], dim=-1, keepdim=True)
        idx = torch.cat((idx, idx_next), dim=1)  MARK
    return idx


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--prompt", default="Every effort moves")
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    gpt = GPTModel({"vocab_size": 50257, "context_length": 1024})
    gpt.load_state_dict(torch.load("gpt2-small.pth", map_location=device))
    gpt.to(device)
    gpt.eval()
    tokenizer = tiktoken.get_encoding("gpt2")
    out = generate(model=gpt, idx=text_to_token_ids(args.prompt, tokenizer), max_new_tokens=25, context_size=1024)
    print(tokenizer.decode(out.squeeze(0).tolist()))


if __name__ == "__main__":
    main()
'''


def test_token_ids_made_on_the_host_with_a_batch_dimension_meet_the_moved_model():
    # `torch.tensor(encoded)` alone may be 0-dim (which CUDA ops accept); `.unsqueeze(0)` makes a
    # batch (silent before)
    src = _GENERATE.replace("BATCH_DIM", ".unsqueeze(0)").replace("MARK", "# <- DL011")
    assert findings_at(src, ["DL011"]) == expected(src)


def test_a_tensor_of_unknown_rank_or_one_made_on_the_model_device_is_no_finding():
    assert findings_at(_GENERATE.replace("BATCH_DIM", "").replace("MARK", ""), ["DL011"]) == set()
    src = _GENERATE.replace("BATCH_DIM", ".unsqueeze(0)").replace("MARK", "").replace(
        "idx=text_to_token_ids(args.prompt, tokenizer)", "idx=text_to_token_ids(args.prompt, tokenizer).to(device)")
    assert findings_at(src, ["DL011"]) == set()


# --- DL003: a sum started at 0 is a tensor after the loop; a dict of lists holds what is appended
#     to its lists (case 059) ---------------------------------------------------------------------

_CURVES = '''
import os

import matplotlib.pyplot as plt
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset


class MyDNN(nn.Module):
    def __init__(self, dim_in, dim_hidden, dim_out):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim_in, dim_hidden), nn.ReLU(), nn.Linear(dim_hidden, dim_out))

    def forward(self, x):
        return self.net(x)


output_dir = "exp/dnn"
os.makedirs(output_dir, exist_ok=True)
train_loader = DataLoader(TensorDataset(torch.randn(512, 440), torch.randint(0, 2000, (512,))), batch_size=64)
dev_loader = DataLoader(TensorDataset(torch.randn(128, 440), torch.randint(0, 2000, (128,))), batch_size=64)
model = MyDNN(440, 1024, 2000)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=0.008)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = model.to(device)

loss_history = {"train": [], "validation": []}
error_history = {"train": [], "validation": []}
for epoch in range(10):
    for phase in ["train", "validation"]:
        total_loss = 0
        total_error = 0
        total_frames = 0
        loader = train_loader if phase == "train" else dev_loader
        for features, labels in loader:
            features, labels = features.to(device), labels.to(device)
            outputs = model(features)
            loss = criterion(outputs, labels)
            if phase == "train":
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            total_loss += loss.item() * features.size(0)
            _, hyp = torch.max(outputs, 1)
            total_error += ERROR_COUNT
            total_frames += features.size(0)
        loss_history[phase].append(total_loss / total_frames)
        error_history[phase].append(100.0 * total_error / total_frames)

for phase in ["train", "validation"]:
    plt.plot(loss_history[phase], label=phase + " loss")
plt.savefig(os.path.join(output_dir, "loss.png"))
plt.figure()
for phase in ["train", "validation"]:
    plt.plot(error_history[phase], label=phase + " error")  MARK
plt.savefig(os.path.join(output_dir, "error.png"))
'''


def test_an_error_rate_summed_on_the_device_and_kept_per_phase_is_plotted():
    # `total_error = 0` + `total_error += torch.sum(...)`: a CUDA tensor after the loop, kept in
    # `error_history[phase]` and handed to pyplot (silent before: number joined with tensor was
    # unknown, and appending to a dict's list was not followed)
    src = _CURVES.replace("ERROR_COUNT", "torch.sum(hyp != labels)").replace("MARK", "# <- DL003")
    assert findings_at(src, ["DL003"]) == expected(src)


def test_counts_read_as_numbers_are_no_finding():
    src = _CURVES.replace("ERROR_COUNT", "torch.sum(hyp != labels).item()").replace("MARK", "")
    assert findings_at(src, ["DL003"]) == set()


# --- DL011: `self(...)` in a Lightning step runs `forward` on the module's device (case 018) -------

_CHAR_RNN = '''
import pytorch_lightning as pl
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


class CharRNN(pl.LightningModule):
    def __init__(self, vocab_size, hidden_size=128, n_layers=2):
        super().__init__()
        self.n_layers = n_layers
        self.hidden_size = hidden_size
        self.criterion = nn.CrossEntropyLoss()
        self.embedding = nn.Embedding(vocab_size, 32)
        self.lstm = nn.LSTM(32, hidden_size, n_layers)
        self.out_fc = nn.Linear(hidden_size, vocab_size)

    def forward(self, letters, hidden, cell):
        x = self.embedding(letters).unsqueeze(0)
        out, (hidden, cell) = self.lstm(x, (hidden, cell))
        return self.out_fc(out.squeeze(0)), (hidden, cell)

    def training_step(self, batch, batch_idx):
        loss = 0
        hidden = torch.zeros(self.n_layers, batch["input"].size(0), self.hidden_size)HIDDEN_DEVICE
        cell = torch.zeros(self.n_layers, batch["input"].size(0), self.hidden_size)HIDDEN_DEVICE
        for t in range(batch["input"].size(1)):
            output, (hidden, cell) = CALL(batch["input"][:, t], hidden, cell)  MARK
            loss += self.criterion(output, batch["target"][:, t])
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=5e-4)


if __name__ == "__main__":
    model = CharRNN(vocab_size=60)
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=5)
    trainer.fit(model, DataLoader(torch.load("names.pt"), batch_size=32))
'''


def test_hidden_state_made_on_the_host_in_a_step_is_handed_to_forward_through_self():
    # the trainer runs the step, and `self(...)` (or `self.forward(...)`) with it, on the GPU
    # (silent before: `self(...)` was not followed, and a mix in forward called from a step did
    # not count as one in the step)
    for call in ("self", "self.forward"):
        src = _CHAR_RNN.replace("HIDDEN_DEVICE", "").replace("CALL", call).replace("MARK", "# <- DL011")
        assert findings_at(src, ["DL011"]) == expected(src), call


def test_hidden_state_made_on_the_module_device_is_no_finding():
    src = _CHAR_RNN.replace("HIDDEN_DEVICE", "").replace("CALL", "self").replace("MARK", "")
    src = src.replace("self.hidden_size)", "self.hidden_size, device=self.device)")
    assert findings_at(src, ["DL011"]) == set()


# --- DL015: torchaudio's functional ops combine the tensors they are handed (case 036) -----------

_AUDIO = '''
import argparse

import torch
import torchaudio
import torchaudio.functional as AF


class Preemphasis(torch.nn.Module):
    def __init__(self, coeff=0.97):
        super().__init__()
        KEEP_COEFFS

    def forward(self, waveform):
        return AF.lfilter(waveform, self.a_coeffs, self.b_coeffs, clamp=False)  MARK


class Classifier(torch.nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.pre = Preemphasis()
        self.features = torchaudio.transforms.MFCC(sample_rate=16000, n_mfcc=40)
        self.head = torch.nn.Linear(40, n_classes)

    def forward(self, waveform):
        mfcc = self.features(self.pre(waveform))
        return self.head(mfcc.mean(-1))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("wav")
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Classifier(10).to(device)
    waveform, sr = torchaudio.load(args.wav)
    print(model(waveform.to(device)).argmax(-1))
'''

_PLAIN = '''self.a_coeffs = torch.tensor([1.0, 0.0])
        self.b_coeffs = torch.tensor([1.0, -coeff])'''
_BUFFERS = '''self.register_buffer("a_coeffs", torch.tensor([1.0, 0.0]))
        self.register_buffer("b_coeffs", torch.tensor([1.0, -coeff]))'''


def test_plain_filter_coefficients_meet_the_waveform_in_a_torchaudio_op():
    # `model.to(device)` leaves the plain coefficients on the CPU, and lfilter computes with
    # them and the waveform (silent before: a torchaudio function was code we cannot see)
    src = _AUDIO.replace("KEEP_COEFFS", _PLAIN).replace("MARK", "# <- DL015")
    assert findings_at(src, ["DL015"]) == expected(src)


def test_registered_coefficients_are_no_finding():
    assert findings_at(_AUDIO.replace("KEEP_COEFFS", _BUFFERS).replace("MARK", ""), ["DL015"]) == set()


# --- DL001: torchsummary's `summary` runs the model on CUDA inputs it makes (case 001) ----------

_SUMMARY = '''
import argparse

import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset
SUMMARY_IMPORT


class SlideCNN(nn.Module):
    def __init__(self, n_classes=2):
        super(SlideCNN, self).__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(32 * 8 * 8, n_classes)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))
        x = self.pool(torch.relu(self.conv2(x)))
        return self.fc(x.flatten(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = SlideCNN()
    BEFORE_MOVE
    model = model.to(device)
    AFTER_MOVE
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    loader = DataLoader(TensorDataset(torch.randn(256, 3, 32, 32), torch.randint(0, 2, (256,))), batch_size=32)
    for epoch in range(args.epochs):
        for inputs, labels in loader:
            inputs, labels = inputs.to(device), labels.to(device)
            loss = nn.functional.cross_entropy(model(inputs), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
'''


def _summary(before="", after="", lib="from torchsummary import summary") -> str:
    return (_SUMMARY.replace("SUMMARY_IMPORT", lib).replace("BEFORE_MOVE", before or "pass")
            .replace("AFTER_MOVE", after or "pass"))


def test_summary_of_a_model_not_moved_yet_runs_it_on_cuda_inputs():
    # the model is moved on the next line, too late for summary's CUDA inputs (silent before)
    src = _summary(before="summary(model, (3, 32, 32))  # <- DL001")
    assert findings_at(src, ["DL001", "DL002"]) == expected(src)
    (f,) = lint_source(src, "train.py", select=["DL001"])
    assert 'pass `device="cpu"`' in f.message


def test_summary_told_the_host_or_after_the_move_or_torchinfo_is_no_finding():
    assert findings_at(_summary(before='summary(model, (3, 32, 32), device="cpu")'), ["DL001", "DL002"]) == set()
    assert findings_at(_summary(after="summary(model, (3, 32, 32))"), ["DL001", "DL002"]) == set()
    # torchinfo's summary runs the model on the model's own device
    assert findings_at(_summary(before="summary(model, (1, 3, 32, 32))", lib="from torchinfo import summary"),
                  ["DL001", "DL002"]) == set()


# --- DL011: a helper fills in its caller's `H=None` with host zeros (case 079) --------------------

_GRU_CELL = '''
import torch
import torch.nn as nn


class GraphGRU(nn.Module):
    def __init__(self, in_channels, out_channels):
        super(GraphGRU, self).__init__()
        self.out_channels = out_channels
        self.update = nn.Linear(in_channels + out_channels, out_channels)
        self.candidate = nn.Linear(in_channels + out_channels, out_channels)

    def _set_hidden_state(self, X, H):
        if H is None:
            H = torch.zeros(X.shape[0], self.out_channels)ZEROS_DEVICE  MARK
        return H

    def _update_gate(self, X, H):
        return torch.sigmoid(self.update(torch.cat([X, H], dim=1)))

    def _candidate_state(self, X, H, Z):
        return torch.tanh(self.candidate(torch.cat([X, H * Z], dim=1)))

    def forward(self, X, edge_index, edge_weight=None, H=None):
        H = self._set_hidden_state(X, H)
        Z = self._update_gate(X, H)
        H_tilde = self._candidate_state(X, H, Z)
        return Z * H + (1 - Z) * H_tilde  MARK
'''


def test_a_hidden_state_a_helper_fills_in_for_forward_is_made_on_the_host():
    # forward's `H=None` goes to `_set_hidden_state`, which makes it with torch.zeros and no
    # device; it then meets X in two helpers (one finding, where it is made) and in forward's
    # own `return` (found there, as for `state = self.init_hidden(b)`) (silent before)
    src = _GRU_CELL.replace("ZEROS_DEVICE", "").replace("MARK", "# <- DL011")
    assert findings_at(src, ["DL011"]) == expected(src)


def test_a_hidden_state_made_on_the_inputs_device_is_no_finding():
    src = _GRU_CELL.replace("ZEROS_DEVICE", ".to(X.device)").replace("MARK", "")
    assert findings_at(src, ["DL011"]) == set()
    src = _GRU_CELL.replace("ZEROS_DEVICE", "").replace("MARK", "").replace(
        "torch.zeros(X.shape[0], self.out_channels)", "torch.zeros(X.shape[0], self.out_channels, device=X.device)")
    assert findings_at(src, ["DL011"]) == set()


# --- DL001: a third-party similarity loss keeps gradient kernels as parameters (case 004) --------

_REGISTRATION = '''
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
LOSS_IMPORT


class Registration(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(2, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 1, 3, padding=1))

    def forward(self, moving, fixed):
        return moving + self.net(torch.cat([moving, fixed], dim=1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Registration().to(device)
    loss_fn = LOSS_BUILD
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    loader = DataLoader(TensorDataset(torch.randn(64, 1, 64, 64), torch.randn(64, 1, 64, 64)), batch_size=8)
    for epoch in range(args.epochs):
        for moving, fixed in loader:
            moving, fixed = moving.to(device), fixed.to(device)
            warped = model(moving, fixed)
            loss = loss_fn(warped, fixed)  MARK
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
'''


def _registration(imp="from torch_similarity.modules import GradientCorrelationLoss2d",
                  build="GradientCorrelationLoss2d(grad_method='sobel')", mark="") -> str:
    return _REGISTRATION.replace("LOSS_IMPORT", imp).replace("LOSS_BUILD", build).replace("MARK", mark)


def test_a_gradient_correlation_loss_with_kernels_on_the_host_meets_moved_images():
    src = _registration(mark="# <- DL001")
    assert findings_at(src, ["DL001"]) == expected(src)
    src = _registration(imp="import torch_similarity.modules as sim", build="sim.GradientDifferenceLoss3d()",
                        mark="# <- DL001")
    assert findings_at(src, ["DL001"]) == expected(src)


def test_the_loss_moved_or_one_without_kernels_is_no_finding():
    assert findings_at(_registration(build="GradientCorrelationLoss2d().to(device)"), ["DL001"]) == set()
    assert findings_at(_registration(imp="from torch_similarity.modules import NormalizedCrossCorrelationLoss",
                                build="NormalizedCrossCorrelationLoss()"), ["DL001"]) == set()


# --- DL010: a loss from a model we cannot see, summed and then backpropagated (case 032) ---------

_ACCELERATE = '''
import argparse

import torch
from accelerate import Accelerator
from transformers import AutoModelForCausalLM, get_linear_schedule_with_warmup

from data import build_dataloader


def training_function(config, args):
    accelerator = Accelerator(gradient_accumulation_steps=config["gradient_accumulation_steps"])
    model = AutoModelForCausalLM.from_pretrained(args.model_name, torch_dtype=torch.bfloat16)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config["lr"])
    train_dataloader = build_dataloader(args)
    lr_scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=100, num_training_steps=1000)
    model, optimizer, train_dataloader, lr_scheduler = accelerator.prepare(
        model, optimizer, train_dataloader, lr_scheduler)
    for epoch in range(config["num_epochs"]):
        model.train()
        loss_sum = torch.tensor(0.0).to(accelerator.device)
        for step, batch in enumerate(train_dataloader):
            with accelerator.accumulate(model):
                outputs = model(**batch)
                loss = outputs.loss
                loss_sum += ADDED  MARK
                BACKWARD
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
        accelerator.print(f"epoch {epoch} loss: {(loss_sum / (step + 1)).item()}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name", default="gpt2")
    training_function({"lr": 2e-5, "num_epochs": 1, "gradient_accumulation_steps": 1}, parser.parse_args())
'''


def _accelerate(added="loss", backward="accelerator.backward(loss)", mark="") -> str:
    return _ACCELERATE.replace("ADDED", added).replace("BACKWARD", backward).replace("MARK", mark)


def test_a_running_sum_of_a_loss_the_step_backpropagates_keeps_every_graph():
    # the loss comes from a model accelerate prepared (unknown to us), but backpropagating it
    # proves it carries a graph (silent before: an unknown value was never summed)
    for backward in ("accelerator.backward(loss)", "loss.backward()"):
        src = _accelerate(backward=backward, mark="# <- DL010")
        assert findings_at(src, ["DL010"]) == expected(src), backward


def test_a_detached_sum_is_no_finding():
    assert findings_at(_accelerate(added="loss.detach()"), ["DL010"]) == set()


def test_the_loss_of_a_prepared_model_keeps_its_graph_even_unbackpropagated():
    # the model accelerate hands back is still a module (recall6): its output carries a graph
    # whether or not the step backpropagates it, as a plain model's does in an evaluation loop
    # without no_grad (silent before: the prepared model was an unknown value)
    src = _accelerate(backward="pass", mark="# <- DL010")
    assert findings_at(src, ["DL010"]) == expected(src)


# --- DL011: token id tensors of unknown rank padded into one batch (case 074) --------------------

_WORKER = '''
import logging
from typing import Any, List

import torch
from transformers import AutoModelForSequenceClassification

logger = logging.getLogger(__name__)


class Inference:
    def __init__(self, model_name):
        self.device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
        self.model = AutoModelForSequenceClassification.from_pretrained(model_name)
        self.model.eval()
        self.model.to(self.device)

    def forward(self, data: List[Any]) -> List[str]:
        tensors = [torch.tensor(token) for token in data]
        with torch.no_grad():
            logits = self.model(BATCH)[0]  MARK
        return [f"positive={p}" for (_, p) in logits.softmax(dim=1).cpu().tolist()]
'''


def test_token_tensors_padded_into_a_batch_meet_the_moved_model():
    # each `torch.tensor(token)` may be 0-dim, but the padded (or stacked) batch has a
    # dimension (silent before)
    for batch in ("torch.nn.utils.rnn.pad_sequence(tensors, batch_first=True)", "torch.stack(tensors)"):
        src = _WORKER.replace("BATCH", batch).replace("MARK", "# <- DL011")
        assert findings_at(src, ["DL011"]) == expected(src), batch


def test_a_padded_batch_moved_to_the_model_device_is_no_finding():
    batch = "torch.nn.utils.rnn.pad_sequence(tensors, batch_first=True).to(self.device)"
    assert findings_at(_WORKER.replace("BATCH", batch).replace("MARK", ""), ["DL011"]) == set()


# --- DL001: a model captured by a closure its factory returns (case 002) --------------------------

_CLOSURE = '''
import numpy as np
import torch
import torch.nn as nn

device = "cuda" if torch.cuda.is_available() else "cpu"


class EmotionNet(nn.Module):
    def __init__(self, num_emotions):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(16, num_emotions)

    def forward(self, x):
        logits = self.fc(self.conv(x).flatten(1))
        return logits, logits.softmax(dim=1)


def make_validate_fnc(model, criterion):
    def validate(X, Y):
        with torch.no_grad():
            model.eval()
            output_logits, output_softmax = model(X)
            predictions = torch.argmax(output_softmax, dim=1)
            loss = criterion(output_logits, Y)
        return loss.item(), predictions
    return validate


model = EmotionNet(num_emotions=8)MOVE
model.load_state_dict(torch.load("emotion.pkl", map_location=device))
validate = make_validate_fnc(model, nn.CrossEntropyLoss())
X_test = torch.tensor(np.load("X_test.npy"), device=device).float()
y_test = torch.tensor(np.load("y_test.npy"), dtype=torch.long, device=device)
test_loss, predicted = validate(X_test, y_test)  MARK
'''


def test_a_host_model_captured_by_a_validation_closure_is_blamed_where_the_closure_runs():
    # the finding was inside the closure (`model(X)`), the line every caller shares; the call
    # that runs it with device data is where the model enters (DL001 there now)
    src = _CLOSURE.replace("MOVE", "").replace("MARK", "# <- DL001")
    assert findings_at(src, ["DL001"]) == expected(src)


def test_a_moved_model_captured_by_the_closure_is_no_finding():
    assert findings_at(_CLOSURE.replace("MOVE", ".to(device)").replace("MARK", ""), ["DL001"]) == set()
