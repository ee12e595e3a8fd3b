"""torchvision: model builders and transforms."""

from __future__ import annotations

import re

LIBRARY = "torchvision"

CALL_ROOTS = ("torchvision",)
CALL_KINDS = (
    (r"torchvision\.models\.(get_weight|get_model_weights|list_models)", "other"),
    (r"torchvision\.models\.feature_extraction\.\w+", None),  # follows the model it is given
    (r"torchvision\.models\.(\w+\.)?[a-z]\w*", "module"),  # resnet50, detection.fasterrcnn_..., get_model
    # the heads a fine-tuning script builds to swap into a model (`FastRCNNPredictor`,
    # `MaskRCNNPredictor`, `TwoMLPHead`, `DeepLabHead`, `FCNHead`): modules with weights, on the host
    (r"torchvision\.models\.(\w+\.)*[A-Z]\w*(Predictor|Head|Heads)", "module"),
    (r"torchvision\.transforms\.(functional\.)?(to_pil_image|ToPILImage)", "to_pil"),
    (r"torchvision\.transforms\.(v2\.)?(functional\.)?(ToTensor|PILToTensor|to_tensor|pil_to_tensor)", "to_tensor"),
    # `torchvision.io.read_image(path)`: an image file read into a host tensor, as `to_tensor(img)` gives
    (r"torchvision\.io\.(image\.)?read_image", "to_tensor"),
    (r"torchvision\.transforms\.(v2\.)?Compose", "compose"),
    (r"torchvision\.transforms\.(v2\.)?Lambda", "lambda_transform"),
    # every other transform works on a tensor where it is (torchvision moves nothing): its
    # result is on the input's device; `get_image_size` and the like give no tensor: not listed
    (r"torchvision\.transforms\.(v2\.)?[A-Z]\w*$", "tensor_transform"),
    (r"torchvision\.transforms\.(v2\.)?functional\.(normalize|resized?_crop|center_crop|crop|resize|pad|rotate|"
     r"[hv]flip|gaussian_blur|rgb_to_grayscale|convert_image_dtype|adjust_\w+)$", "tensor_transform"),
    # image datasets (MNIST, CIFAR10, ImageFolder): host items, unless a transform places them
    (r"torchvision\.datasets\.(\w+\.)?[A-Z]\w*", "image_dataset"),
)

# Modules whose public callables all build models on the host (looked up by name:
# `getattr(torchvision.models, args.arch)(...)`, `models.__dict__[args.arch](...)`).
MODEL_NAMESPACES = frozenset({"torchvision.models", "torchvision.models.detection", "torchvision.models.segmentation",
                              "torchvision.models.video", "torchvision.models.quantization"})

# The keywords by which a torchvision dataset is handed code that runs on each item
DATASET_TRANSFORM_KEYWORDS = ("transform", "target_transform", "transforms")

# torchvision's dataset classes as the base of a file's own Dataset (`class D(ImageFolder)`
# overriding `__getitem__`): the subclass is a torch Dataset
DATASET_BASE = re.compile(r"torchvision\.datasets\.(\w+\.)?[A-Z]\w*$")
