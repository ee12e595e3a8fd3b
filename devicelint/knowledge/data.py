"""torch.utils.data: collate functions and datasets."""

from __future__ import annotations

from devicelint.knowledge import pyg

LIBRARY = "torch.utils.data"

CALL_ROOTS = ("torch.utils.data",)
CALL_KINDS = (
    # collate functions that never move (the batch stays on the host)
    (r"torch\.utils\.data\.(default_collate|dataloader\.default_collate)", "collate"),
    (r"torch\.utils\.data\._utils\.collate\.default_collate", "collate"),
)

# wrappers whose items are the items of the datasets they are given (`random_split(ds, ...)`
# gives a list of parts, the others one dataset)
DATASET_VIEWS = frozenset({"random_split", "Subset", "ConcatDataset", "ChainDataset"})

# The DataLoader class by qualified name.
DATALOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
# Other libraries' loaders that are torch's DataLoader underneath (subclasses that collate on
# the host): their batches are host data like torch's. A class named `DataLoader` of any other
# origin (a project's own, fastai's, which moves batches itself) is not taken for one.
TORCH_DATALOADER_SUBCLASSES = pyg.TORCH_LOADER_SUBCLASSES | {"monai.data.DataLoader"}
# Samplers that draw their permutation with a generator they make on the host when given none
# (`torch.Generator()`), so that under an accelerator default device (`torch.set_default_device`)
# `torch.randperm` runs there and refuses it: qualified name -> the keyword that takes a
# generator (None: it takes none; DistributedSampler seeds a host generator every epoch).
# `DataLoader(shuffle=True)` builds a RandomSampler with the loader's `generator=`.
HOST_GENERATOR_SAMPLERS = {
    "torch.utils.data.RandomSampler": "generator",
    "torch.utils.data.sampler.RandomSampler": "generator",
    "torch.utils.data.DistributedSampler": None,
    "torch.utils.data.distributed.DistributedSampler": None,
}
# `random_split(dataset, lengths, generator=default_generator)`: the host default generator
RANDOM_SPLIT = frozenset({"torch.utils.data.random_split", "torch.utils.data.dataset.random_split"})
