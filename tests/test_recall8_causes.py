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
