"""Causes of misses found by the third round of the blind bug-report set (2026-11-26, cases
066-085 scored at 6fe31cc, `benchmarks/README.md` §8), each as a realistic program in the
shape users write, with its control where the shape is right and must stay silent.

Lines ending in `# <- DLnnn` must be flagged with that code; nothing else of the rules under
test may be flagged.
"""

from inference_cases import expected, findings_at


# --- DL017: a Dataset whose __init__ keeps a tensor it built on the device, read by __getitem__ ---

_SYNTHETIC_BENCHMARK = '''
import argparse
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.utils.data as data
import torchvision.models as models
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data.distributed import DistributedSampler


class DummyDataset(data.Dataset):
    def __init__(self, num_classes):
        super(DummyDataset, self).__init__()
        # one synthetic image, made once
        self.tensor = torch.randn(3, 224, 224, device=torch.device("cuda"))
        self.num_classes = num_classes

    def __getitem__(self, index):
        target = torch.randint(0, self.num_classes, (1,)).item()
        return self.tensor, target

    def __len__(self):
        return 100000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    torch.cuda.set_device(args.local_rank)
    dist.init_process_group(backend="nccl", init_method="env://")
    device = torch.device("cuda", args.local_rank)
    model = DDP(models.resnet50().to(device), device_ids=[args.local_rank])
    criterion = nn.CrossEntropyLoss().to(device)
    optimizer = torch.optim.SGD(model.parameters(), 0.1, momentum=0.9)
    dataset = DummyDataset(num_classes=1000)
    loader = data.DataLoader(dataset, batch_size=args.batch_size, num_workers=WORKERS,  # <- DL017
                             sampler=DistributedSampler(dataset))
    end = time.time()
    for images, target in loader:
        images, target = images.to(device, non_blocking=True), target.to(device, non_blocking=True)
        loss = criterion(model(images), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(time.time() - end)


if __name__ == "__main__":
    main()
'''


def test_dataset_keeping_a_device_tensor_from_init_fails_in_workers():
    src = _SYNTHETIC_BENCHMARK.replace("WORKERS", "4")
    assert findings_at(src, ["DL017"]) == expected(src)


def test_dataset_keeping_a_device_tensor_is_fine_without_workers():
    src = _SYNTHETIC_BENCHMARK.replace("WORKERS", "0").replace("  # <- DL017", "")
    assert findings_at(src, ["DL017"]) == set()


def test_dataset_keeping_a_host_tensor_is_fine_in_workers():
    src = _SYNTHETIC_BENCHMARK.replace("WORKERS", "4").replace("  # <- DL017", "").replace(
        ', device=torch.device("cuda"))', ")")
    assert findings_at(src, ["DL017"]) == set()


def test_dataset_whose_getitem_never_reads_the_device_attribute_is_fine():
    # the device tensor is a running statistic the loop reads, not an item
    src = _SYNTHETIC_BENCHMARK.replace("WORKERS", "4").replace("  # <- DL017", "").replace(
        "self.tensor = torch.randn(3, 224, 224, device=torch.device(\"cuda\"))",
        "self.mean = torch.zeros(3, device=torch.device(\"cuda\"))\n        self.tensor = torch.randn(3, 224, 224)")
    assert findings_at(src, ["DL017"]) == set()


# --- torchtext's legacy iterators: batches on the host unless `device=` is given ---

_TORCHTEXT_CLASSIFIER = '''
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torchtext import data

parser = argparse.ArgumentParser()
parser.add_argument("--batch_size", type=int, default=64)
parser.add_argument("--epochs", type=int, default=10)
opt = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

TEXT = data.Field(lower=True, batch_first=True)
LABEL = data.LabelField(dtype=torch.float)
train_data, valid_data = data.TabularDataset.splits(
    path="data", train="train.csv", validation="valid.csv", format="csv", fields=[("text", TEXT), ("label", LABEL)])
TEXT.build_vocab(train_data, max_size=25000)
LABEL.build_vocab(train_data)
train_iter, valid_iter = data.BucketIterator.splits(
    (train_data, valid_data), batch_size=opt.batch_size, sort_key=lambda x: len(x.text), repeat=False ITER_DEVICE)


class TextCNN(nn.Module):
    def __init__(self, vocab_size, emb=100):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb)
        self.conv = nn.Conv1d(emb, 64, 3, padding=1)
        self.fc = nn.Linear(64, 1)

    def forward(self, text):
        x = self.embedding(text).permute(0, 2, 1)
        x = F.relu(self.conv(x)).max(dim=2)[0]
        return self.fc(x).squeeze(1)


model = TextCNN(len(TEXT.vocab)).to(device)
optimizer = torch.optim.Adam(model.parameters())
criterion = nn.BCEWithLogitsLoss().to(device)


def train_epoch(iterator):
    model.train()
    for batch in iterator:
        optimizer.zero_grad()
        predictions = model(batch.text)  # <- DL002
        loss = criterion(predictions, batch.label)  # <- DL002
        loss.backward()
        optimizer.step()


for epoch in range(opt.epochs):
    train_epoch(train_iter)
'''


def test_torchtext_iterator_batches_are_host_tensors():
    src = _TORCHTEXT_CLASSIFIER.replace(" ITER_DEVICE", "")
    assert findings_at(src, ["DL002", "DL011", "DL014", "DL019"]) == expected(src)


def test_torchtext_iterator_given_the_device_is_clean():
    src = _TORCHTEXT_CLASSIFIER.replace(" ITER_DEVICE", ", device=device").replace("  # <- DL002", "")
    assert findings_at(src, ["DL002", "DL011", "DL014", "DL019"]) == set()


def test_torchtext_batches_moved_in_the_loop_are_clean():
    src = _TORCHTEXT_CLASSIFIER.replace(" ITER_DEVICE", "").replace("  # <- DL002", "").replace(
        "model(batch.text)", "model(batch.text.to(device))").replace("batch.label)", "batch.label.to(device))")
    assert findings_at(src, ["DL002", "DL011", "DL014", "DL019"]) == set()


def test_torchtext_iterators_are_in_the_knowledge_tables():
    from devicelint import knowledge as kb

    assert kb.kind_of_call("torchtext.data.BucketIterator.splits") == "text_iterators"
    assert kb.kind_of_call("torchtext.legacy.data.Iterator") == "text_iterator"
    assert kb.kind_of_call("torchtext.data.Field") is None


# --- a tensor made without device= in a Lightning step, which runs with the module on the device ---

_LIGHTNING_RETRIEVAL = '''
import torch
import torch.nn.functional as F
from pytorch_lightning import LightningModule, Trainer
from torch import nn
from torch.utils.data import DataLoader, Dataset


class PairDataset(Dataset):
    def __init__(self, n=10000, seq_len=32, vocab=30000):
        self.x1 = torch.randint(0, vocab, (n, seq_len))
        self.x2 = torch.randint(0, vocab, (n, seq_len))

    def __len__(self):
        return len(self.x1)

    def __getitem__(self, idx):
        return {"x1": self.x1[idx], "x2": self.x2[idx]}


class DualEncoder(LightningModule):
    def __init__(self, vocab=30000, hidden=256, alpha=20.0):
        super().__init__()
        self.q_encoder = nn.EmbeddingBag(vocab, hidden)
        self.d_encoder = nn.EmbeddingBag(vocab, hidden)
        self.ce = nn.CrossEntropyLoss()
        self.alpha = alpha

    def forward(self, x1, x2):
        return self.q_encoder(x1), self.d_encoder(x2)

    def training_step(self, batch, batch_idx):
        x1, x2 = batch["x1"], batch["x2"]
        r1 = F.normalize(self.q_encoder(x1), dim=1)
        r2 = F.normalize(self.d_encoder(x2), dim=1)
        scores = self.alpha * r1 @ r2.t()
        target = torch.arange(x1.size(0)MAKE)
        loss = self.ce(scores, target)  # <- DL011
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

    def train_dataloader(self):
        return DataLoader(PairDataset(), batch_size=64, shuffle=True, num_workers=4)


if __name__ == "__main__":
    Trainer(accelerator="gpu", devices=1, max_epochs=3).fit(DualEncoder())
'''


def test_tensor_made_in_a_lightning_step_meets_the_module_on_the_device():
    src = _LIGHTNING_RETRIEVAL.replace("MAKE", "")
    assert findings_at(src, ["DL002", "DL011"]) == expected(src)


def test_tensor_made_in_a_lightning_step_on_the_batch_device_is_clean():
    src = _LIGHTNING_RETRIEVAL.replace("MAKE", ", device=x1.device").replace("  # <- DL011", "")
    assert findings_at(src, ["DL002", "DL011"]) == set()


def test_a_plain_module_method_named_like_a_step_decides_nothing():
    # not a LightningModule: `training_step` is an ordinary method the file never calls
    src = _LIGHTNING_RETRIEVAL.replace("MAKE", "").replace("  # <- DL011", "").replace(
        "class DualEncoder(LightningModule):", "class DualEncoder(nn.Module):")
    assert findings_at(src, ["DL002", "DL011"]) == set()
