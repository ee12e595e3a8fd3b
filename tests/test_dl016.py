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


def test_layers_without_a_tensor_or_placed_with_their_container_are_left_alone():
    # style-transfer / contrastive heads written the way papers' code writes them
    assert flagged("""
        import torch
        import torch.nn as nn


        class StyleHead(nn.Module):
            def __init__(self, channels, dim):
                super().__init__()
                self.conv = nn.Conv2d(channels, channels, 3, padding=1)
                self.dim = dim

            def forward(self, content, style):
                h = nn.InstanceNorm2d(content.size(1))(self.conv(content))  # no affine, no running stats
                s = nn.LayerNorm(style.shape[-1], elementwise_affine=False)(style)
                z = nn.BatchNorm1d(self.dim, affine=False, track_running_stats=False)(s.flatten(1))
                mlp = nn.Sequential(nn.Linear(self.dim, self.dim), nn.GELU(), nn.Linear(self.dim, self.dim))
                mlp.to(z.device)
                probe = nn.Sequential(nn.Linear(self.dim, 1)).to(z.device)
                with torch.device(z.device):
                    gate = nn.Linear(self.dim, 1)
                return h, mlp(z) * gate(z).sigmoid() + probe(z), nn.RReLU()(z)
        """) == []


def test_norms_that_keep_weights_or_statistics_are_flagged():
    assert flagged("""
        import torch.nn as nn


        class Stem(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 16, 3)

            def forward(self, x):
                x = nn.InstanceNorm2d(16, affine=True)(self.conv(x))
                x = nn.BatchNorm2d(16, affine=False)(x)  # running statistics are buffers
                return nn.LayerNorm(x.shape[-1], elementwise_affine=self.affine)(x)  # unsure: silent
        """) == [("DL016", 10), ("DL016", 11)]


def test_a_lazily_built_head_is_flagged_unless_the_module_or_the_head_is_moved():
    lazy = """
        import pytorch_lightning as pl
        import torch.nn as nn
        import torch.nn.functional as F


        class LitProbe(pl.LightningModule):
            def __init__(self, backbone, num_classes):
                super().__init__()
                self.backbone, self.num_classes, self.head = backbone, num_classes, None

            def build_head(self, feats):
                self.head = nn.Linear(feats.size(-1), self.num_classes)
                {move}

            def forward(self, images):
                feats = self.backbone(images)
                if self.head is None:
                    self.build_head(feats)
                return self.head(feats)

            def training_step(self, batch, batch_idx):
                images, labels = batch
                return F.cross_entropy(self(images), labels)
        """
    assert flagged(lazy.replace("{move}", "")) == [("DL016", 12)]
    assert flagged(lazy.replace("{move}", "self.head.to(feats.device)")) == []
    assert flagged(lazy.replace("{move}", "self.to(feats.device)")) == []


def test_a_fixed_filter_whose_weight_is_replaced_by_a_placed_kernel_is_left_alone():
    # a Sobel edge map: the conv is only a carrier for a kernel made where the image is
    assert flagged("""
        import torch
        import torch.nn as nn


        class EdgeLoss(nn.Module):
            def forward(self, pred, target):
                kernel = torch.tensor([[1., 0., -1.], [2., 0., -2.], [1., 0., -1.]], device=pred.device)
                sobel = nn.Conv2d(1, 1, 3, padding=1, bias=False)
                sobel.weight.data = kernel.view(1, 1, 3, 3)
                return (sobel(pred) - sobel(target)).abs().mean()
        """) == []
