"""DL016 layer-built-in-forward on model code written the way real projects write it."""

import textwrap

from devicelint.engine import lint_source


def flagged(code: str) -> list:
    code = textwrap.dedent(code).lstrip("\n")
    return [(f.code, f.line) for f in lint_source(code, "model.py", select=["DL016"])]


def test_lazy_expansion_of_an_embedding_in_forward_is_flagged():
    # a bias table grown on first use: the new table is on the CPU while the model runs on the GPU
    assert flagged("""
        import torch
        from torch import nn


        class RelativePositionBias(nn.Module):
            def __init__(self, num_buckets=32, num_heads=8, expand=False):
                super().__init__()
                self.num_buckets, self.num_heads, self.expand = num_buckets, num_heads, expand
                self.relative_attention_bias = nn.Embedding(num_buckets, num_heads)

            def forward(self, buckets):
                if self.expand:
                    new_bias = nn.Embedding(self.num_buckets + 2, self.num_heads)
                    new_bias.weight.data[: self.num_buckets] = self.relative_attention_bias.weight.data
                    self.relative_attention_bias = new_bias
                    self.expand = False
                return self.relative_attention_bias(buckets).permute(2, 0, 1)
        """) == [("DL016", 13)]


def test_layers_built_and_applied_in_forward_and_its_helpers():
    assert flagged("""
        import torch.nn as nn
        import torch.nn.functional as F


        class Decoder(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.up = nn.ConvTranspose2d(dim, dim // 2, 2, stride=2)

            def forward(self, x, skip):
                x = self.up(x)
                x = self.fuse(x, skip)
                return nn.Conv2d(x.size(1), 1, 1)(x)

            def fuse(self, x, skip):
                norm = nn.GroupNorm(4, x.size(1) + skip.size(1))
                return F.relu(norm(torch.cat([x, skip], dim=1)))
        """) == [("DL016", 13), ("DL016", 17)]


def test_placed_parameter_free_init_and_probe_layers_are_left_alone():
    assert flagged("""
        import torch
        import torch.nn as nn


        class Classifier(nn.Module):
            def __init__(self, in_shape, classes, class_weights):
                super().__init__()
                self.features = nn.Sequential(nn.Conv2d(in_shape[0], 8, 3), nn.ReLU())
                self.fc = nn.Linear(self.flat_size(in_shape), classes)
                self.register_buffer("class_weights", class_weights)

            def flat_size(self, in_shape):
                probe = nn.Flatten()(self.features(torch.zeros(1, *in_shape)))
                return probe.size(1)

            def forward(self, x, labels=None):
                h = nn.Dropout(0.2)(nn.Flatten()(self.features(x)))
                gate = nn.Linear(h.size(1), 1, device=h.device)
                adapter = nn.Linear(h.size(1), h.size(1)).to(h.device)
                logits = self.fc(adapter(h) * gate(h).sigmoid())
                if labels is not None:
                    return nn.CrossEntropyLoss(weight=self.class_weights)(logits, labels)
                return logits
        """) == []


def test_a_plain_function_is_not_a_forward():
    # building layers is what factories do
    assert flagged("""
        import torch.nn as nn


        def make_head(dim, classes):
            head = nn.Linear(dim, classes)
            return head(torch.zeros(1, dim)), head
        """) == []
