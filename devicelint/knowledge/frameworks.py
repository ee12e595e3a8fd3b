"""Libraries that place what they are given (accelerate, Lightning, DeepSpeed, HF trainers, ...),
and the third-party roots whose calls never build a model of the linted project."""

from __future__ import annotations

import re

from devicelint.knowledge import hf, lightning

LIBRARY = "frameworks"

# Calls of frameworks that prepare models, optimizers and loaders and place them themselves.
FRAMEWORK_CALL = re.compile(r"prepare|accelerat|fabric|setup|trainer|strategy", re.IGNORECASE)

# Of those, the calls that hand back what they were given, one for one and in order
# (`accelerator.prepare(model, optimizer, loader)`, `fabric.setup(model, optimizer)`): the
# method's name, and for the generic `setup` names, what the receiver must be called.
_RETURNS_ARGUMENTS = {"prepare": None, "prepare_model": None, "setup": "fabric", "setup_module": "fabric"}


def returns_its_arguments(method: str, receiver: str) -> bool:
    """Whether `receiver.method(a, b, ...)` returns `(a', b', ...)`, each the prepared argument."""
    if method not in _RETURNS_ARGUMENTS:
        return False
    needs = _RETURNS_ARGUMENTS[method]
    return needs is None or needs in receiver.lower()

# Roots whose objects place what they are given, or that we model elsewhere: a class or
# function imported from one of them is no model builder of the project's.
NOT_MODEL_ROOTS = ("torch", "numpy", "accelerate", *lightning.ROOTS, *lightning.FABRIC_ROOTS, "deepspeed",
                   *hf.TRAINERS, "collections", "typing", "argparse",
                   "dataclasses", "functools", "itertools", "os", "sys", "pathlib", "logging", "json", "re",
                   "sklearn", "pandas", "PIL", "cv2", "wandb", "tensorboard", "tqdm", "ignite", "fastai", "mmcv",
                   "mmengine", "detectron2", "colossalai", "horovod", "fairscale")

# Top-level packages never looked up among the project's files: their meaning comes from the
# library tables (or nothing is known of them).
THIRD_PARTY = frozenset({
    "torch", "torchvision", "torchaudio", "torchtext", "numpy", "transformers", "diffusers", "timm",
    "peft", "accelerate", *lightning.ROOTS, "tqdm", "datasets", "sklearn", "scipy",
    "pandas", "PIL", "cv2", "matplotlib", "wandb", "tensorboard", "yaml", "einops", "hydra", "omegaconf",
})

# Library roots a training repository often also uses as the name of its own module
# (`datasets.py` holding its Dataset classes): a file of that name beside the importing script
# is what `python train.py` imports (project.FileView._shadows). Kept small: each name probed
# is a cache dependency of every file importing the library.
SHADOWED_BY_PROJECT_FILES = frozenset({"datasets"})

