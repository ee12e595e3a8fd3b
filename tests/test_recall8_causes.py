"""Causes of misses found by the eighth round of the blind bug-report set (2026-11-27, cases
176-197 scored at 113b517), each as a realistic program in the shape users write, with its
controls where the shape is right and must stay silent.

Lines ending in `# <- DLnnn` must be flagged with that code; nothing else of the rules under
test may be flagged.
"""

from inference_cases import expected, findings_at


# --- DL015: an attribute that defaults to None and is filled with a host tensor (case 189) ---

# A tabular-network library module (pytorch-tabnet's tab_network.py in shape): the encoder
# keeps an optional group matrix handed in by the caller, and when none is given fills the
# attribute with an identity matrix made on the host. Nothing in the file builds or moves the
# module: a user's script does `TabNetNoEmbeddings(...).to(device)`, which leaves the plain
# attribute on the CPU, and forward's matmul meets the cuda mask.
_TAB_NETWORK = '''
import numpy as np
import torch
from torch.nn import BatchNorm1d, Linear, ReLU


def initialize_non_glu(module, input_dim, output_dim):
    gain_value = np.sqrt((input_dim + output_dim) / np.sqrt(4 * input_dim))
    torch.nn.init.xavier_normal_(module.weight, gain=gain_value)


class AttentiveTransformer(torch.nn.Module):
    def __init__(self, input_dim, group_dim, momentum=0.02):
        super().__init__()
        self.fc = Linear(input_dim, group_dim, bias=False)
        initialize_non_glu(self.fc, input_dim, group_dim)
        self.bn = BatchNorm1d(group_dim, momentum=momentum)

    def forward(self, priors, processed_feat):
        x = self.bn(self.fc(processed_feat))
        return torch.softmax(torch.mul(x, priors), dim=-1)


class TabNetEncoder(torch.nn.Module):
    def __init__(self, input_dim, n_d=8, n_a=8, n_steps=3, gamma=1.3, group_attention_matrix=None):
        super().__init__()
        self.input_dim = input_dim
        self.n_d = n_d
        self.n_steps = n_steps
        self.gamma = gamma
        self.initial_bn = BatchNorm1d(self.input_dim, momentum=0.01)
        FILL
        self.initial_splitter = Linear(self.input_dim, n_d + n_a)
        self.att_transformers = torch.nn.ModuleList(
            [AttentiveTransformer(n_a, self.attention_dim) for _ in range(n_steps)]
        )
        self.feat_transformers = torch.nn.ModuleList(
            [Linear(self.input_dim, n_d + n_a) for _ in range(n_steps)]
        )

    def forward(self, x, prior=None):
        x = self.initial_bn(x)
        bs = x.shape[0]
        if prior is None:
            prior = torch.ones((bs, self.attention_dim), device=x.device)
        att = self.initial_splitter(x)[:, self.n_d:]
        steps_output = []
        for step in range(self.n_steps):
            M = self.att_transformers[step](prior, att)
            prior = torch.mul(self.gamma - M, prior)
            M_feature_level = torch.matmul(M, self.group_attention_matrix)MARK
            out = self.feat_transformers[step](torch.mul(M_feature_level, x))
            steps_output.append(ReLU()(out[:, : self.n_d]))
            att = out[:, self.n_d:]
        return steps_output


class TabNetNoEmbeddings(torch.nn.Module):
    def __init__(self, input_dim, output_dim, n_d=8, n_a=8, n_steps=3, group_attention_matrix=None):
        super().__init__()
        self.encoder = TabNetEncoder(input_dim, n_d=n_d, n_a=n_a, n_steps=n_steps,
                                     group_attention_matrix=group_attention_matrix)
        self.final_mapping = Linear(n_d, output_dim, bias=False)

    def forward(self, x):
        steps_output = self.encoder(x)
        res = torch.sum(torch.stack(steps_output, dim=0), dim=0)
        return self.final_mapping(res)
'''

_DEFAULT_FILLED_ON_HOST = '''self.group_attention_matrix = group_attention_matrix
        if self.group_attention_matrix is None:
            # no groups
            self.group_attention_matrix = torch.eye(self.input_dim)
            self.attention_dim = self.input_dim
        else:
            self.attention_dim = self.group_attention_matrix.shape[0]'''


def _tab(fill: str, flagged: bool) -> str:
    return _TAB_NETWORK.replace("FILL", fill).replace("MARK", "  # <- DL015" if flagged else "")


def test_an_attribute_filled_with_a_host_tensor_when_its_none_default_is_left_is_a_plain_tensor():
    code = _tab(_DEFAULT_FILLED_ON_HOST, flagged=True)
    assert findings_at(code, ["DL015"], "tab_network.py") == expected(code)


def test_an_attribute_the_caller_hands_or_one_filled_as_a_buffer_is_no_finding():
    handed_only = '''self.group_attention_matrix = group_attention_matrix
        self.attention_dim = self.group_attention_matrix.shape[0]'''
    filled_as_buffer = '''if group_attention_matrix is None:
            group_attention_matrix = torch.eye(self.input_dim)
        self.register_buffer("group_attention_matrix", group_attention_matrix)
        self.attention_dim = self.group_attention_matrix.shape[0]'''
    # filled on the device the encoder is told to use (a `device=` argument of the library's own)
    filled_on_the_device = '''self.group_attention_matrix = group_attention_matrix
        if self.group_attention_matrix is None:
            self.group_attention_matrix = torch.eye(self.input_dim, device="cuda" if torch.cuda.is_available() else "cpu")
        self.attention_dim = self.group_attention_matrix.shape[0]'''
    for fill in (handed_only, filled_as_buffer, filled_on_the_device):
        code = _tab(fill, flagged=False)
        assert findings_at(code, ["DL015"], "tab_network.py") == set(), fill


# --- DL011: a module that moves itself in `__init__`, fed a host tensor (case 176) ---

# A research model file in the cider mould: the model's constructor takes `device="cuda"`,
# moves the whole network there with `self.to(device)` (to probe its flattened size with a
# dummy input), and the file's own smoke test builds it for several input widths and runs it
# on `torch.randn(...)` made on the host: "Input type (torch.FloatTensor) and weight type
# (torch.cuda.FloatTensor) should be the same".
_SELF_MOVING_MODEL = '''
import numpy as np
import torch
import torch.nn as nn


class ConvCore(nn.Module):
    def __init__(self, depth_scale=1):
        super().__init__()
        self.d = depth_scale
        self.conv1 = nn.Conv2d(1, int(32 * self.d), kernel_size=(7, 3), padding=1)
        self.conv2 = nn.Conv2d(int(32 * self.d), int(8 * self.d), kernel_size=3, stride=2)

    def forward(self, x):
        return self.conv2(torch.relu(self.conv1(x.float())))


class Conv_Model(ConvCore):
    def __init__(self, depth_scale=1, DEVICE_PARAM, input_shape=(1025, 94)):
        super().__init__(depth_scale)
        MOVE
        out_tmp = super().forward(torch.randn(1, 1, *input_shape, device=next(self.parameters()).device))
        self.FC1 = nn.Linear(np.prod(out_tmp[-2:].shape), 50)
        self.FC2 = nn.Linear(50, 1)
        MOVE

    def forward(self, x):
        out = super().forward(x)
        out = self.FC1(out.view(x.size()[0], -1))
        return self.FC2(torch.relu(out))


if __name__ == '__main__':
    for i in range(1, 6):
        x = torch.randn(8, 1, 1025, 94 * i)
        model = BUILD
        out = model(x)MARK
    print('Done')
'''


def _self_moving(device_param: str, move: str, build: str, flagged: bool) -> str:
    return (_SELF_MOVING_MODEL.replace("DEVICE_PARAM", device_param).replace("MOVE", move)
            .replace("BUILD", build).replace("MARK", "  # <- DL011" if flagged else ""))


def test_a_module_that_moves_itself_to_its_cuda_default_in_init_is_on_the_device():
    for device_param, move, build in (
        ('device="cuda"', "self.to(device)", "Conv_Model(depth_scale=1.0, input_shape=x.shape[-2:])"),
        ('device="cuda"', "self.cuda()", "Conv_Model(depth_scale=1.0, input_shape=x.shape[-2:])"),
        ("device=None", "self.to(device)", 'Conv_Model(depth_scale=1.0, device="cuda", input_shape=x.shape[-2:])'),
    ):
        code = _self_moving(device_param, move, build, flagged=True)
        assert findings_at(code, ["DL011"], "conv_model.py") == expected(code), (device_param, move, build)


def test_a_module_moved_to_the_host_or_to_a_device_we_cannot_tell_in_init_is_no_finding():
    for device_param, move, build in (
        ('device="cuda"', "self.to(device)", 'Conv_Model(depth_scale=1.0, device="cpu", input_shape=x.shape[-2:])'),
        ("device=None", "self.to(device)", "Conv_Model(depth_scale=1.0, input_shape=x.shape[-2:])"),
    ):
        code = _self_moving(device_param, move, build, flagged=False)
        assert findings_at(code, ["DL011"], "conv_model.py") == set(), (device_param, move, build)


# --- DL010: a meter whose update sums the loss tensor into its own state (case 177) ---

# The AverageMeter every research repository carries (SpareNet's runners/misc.py, the ImageNet
# example's): `update` adds what it is given into `self.sum`. Handed the loss tensor itself
# from the training step, the meter made before the loop keeps every step's graph alive
# ("CUDA out of memory after 2 epochs ... the actual losses (not the value) are accumulating").
_METER_TRAINING = '''
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import PointCloudDataset
from models import CompletionNet


class AverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.val = 0
        self.sum = 0
        self.count = 0
        self.avg = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * nMARK
        self.count += n
        self.avg = self.sum / self.count


def train_one_epoch(model, loader, optimizer, criterion, device, epoch):
    model.train()
    METER_OUTSIDE
    for step, (partial, gt) in enumerate(loader):
        METER_INSIDE
        partial, gt = partial.to(device), gt.to(device)
        coarse, fine = model(partial)
        loss = criterion(coarse, gt) + criterion(fine, gt)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.update(UPDATED, partial.size(0))
        if step % 50 == 0:
            print(f"epoch {epoch} step {step} loss {losses.avg:.4f}")
    return losses.avg


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/shapenet")
    parser.add_argument("--epochs", type=int, default=100)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader = DataLoader(PointCloudDataset(args.data), batch_size=32, shuffle=True, pin_memory=True)
    model = CompletionNet().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    criterion = nn.MSELoss()
    for epoch in range(args.epochs):
        train_one_epoch(model, loader, optimizer, criterion, device, epoch)


if __name__ == "__main__":
    main()
'''


def _meter(updated: str, inside: bool, flagged: bool) -> str:
    made = 'losses = AverageMeter("Loss")'
    return (_METER_TRAINING.replace("METER_OUTSIDE", "" if inside else made).replace("METER_INSIDE", made if inside else "")
            .replace("UPDATED", updated).replace("MARK", "  # <- DL010" if flagged else ""))


def test_a_meter_made_before_the_loop_that_sums_the_loss_tensor_keeps_every_graph():
    code = _meter("loss", inside=False, flagged=True)
    assert findings_at(code, ["DL010"], "train.py") == expected(code)


def test_a_meter_given_the_loss_value_or_made_afresh_every_step_is_no_finding():
    for updated, inside in (("loss.item()", False), ("loss.detach()", False), ("loss", True)):
        code = _meter(updated, inside=inside, flagged=False)
        assert findings_at(code, ["DL010"], "train.py") == set(), (updated, inside)


# Gradient accumulation through a helper object: `add` sums the step losses into `self.total`
# and `step` differentiates that sum every `accum` batches. The sum is the loss of a later
# backward, not a statistic: no finding (the graphs are meant to live until then).
_ACCUMULATOR = '''
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import PairsDataset
from models import SiameseNet


class GradAccumulator:
    def __init__(self, optimizer, accum=4):
        self.optimizer = optimizer
        self.accum = accum
        self.total = 0
        self.count = 0

    def add(self, loss):
        self.total += loss / self.accum
        self.count += 1

    def step(self):
        self.total.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        self.total = 0
        self.count = 0


def train(epochs=10):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = SiameseNet().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(PairsDataset("data/pairs"), batch_size=16, shuffle=True, pin_memory=True)
    acc = GradAccumulator(optimizer, accum=4)
    for epoch in range(epochs):
        for i, (a, b, same) in enumerate(loader):
            a, b, same = a.to(device), b.to(device), same.to(device)
            loss = nn.functional.binary_cross_entropy_with_logits(model(a, b), same)
            acc.add(loss)
            if acc.count == acc.accum:
                acc.step()
'''


def test_a_sum_kept_on_an_object_that_a_later_method_differentiates_is_no_finding():
    assert findings_at(_ACCUMULATOR, ["DL010"], "train.py") == set()
