# source: https://github.com/keunsoo-ko/CMT/issues/1
# seen: 2026-11-27
# style: inpainting demo split in two files: utils.py with _load / load_checkpoint and image helpers, demo.py (argparse, the network moved to the device, load_checkpoint(args.ckpt, proposed), masked image in, result saved)
# expect: DL009 at 12
# why: the checkpoint was saved from CUDA; _load calls torch.load(checkpoint_path) with no map_location, so every storage is restored onto the device it was saved from -> "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False" on the reporter's run (demo.py line 31 -> utils.py _load)
import numpy as np
import torch
from PIL import Image


def _load(checkpoint_path):
    checkpoint = torch.load(checkpoint_path)
    return checkpoint


def load_checkpoint(path, model):
    print("Load checkpoint from: {}".format(path))
    checkpoint = _load(path)
    model.load_state_dict(checkpoint["state_dict"])
    return model


def to_tensor(img):
    arr = np.asarray(img, dtype=np.float32) / 255.0
    if arr.ndim == 2:
        arr = arr[:, :, None]
    return torch.from_numpy(arr.transpose(2, 0, 1)).unsqueeze(0)


def to_image(tensor):
    arr = tensor.squeeze(0).clamp(0, 1).mul(255).byte().permute(1, 2, 0).numpy()
    return Image.fromarray(arr)
