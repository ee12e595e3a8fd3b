# (see utils.py for the header)
import argparse
import os

import torch
from PIL import Image

from model import CMT
from utils import load_checkpoint, to_image, to_tensor

parser = argparse.ArgumentParser()
parser.add_argument("--ckpt", type=str, default="./checkpoint/Place2.pth")
parser.add_argument("--img", type=str, default="./examples/img.png")
parser.add_argument("--mask", type=str, default="./examples/mask.png")
parser.add_argument("--out", type=str, default="./results")
args = parser.parse_args()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

proposed = CMT()
proposed = load_checkpoint(args.ckpt, proposed)
proposed = proposed.to(device)
proposed.eval()

img = to_tensor(Image.open(args.img).convert("RGB")).to(device)
mask = to_tensor(Image.open(args.mask).convert("L")).to(device)
masked = img * (1 - mask)

with torch.no_grad():
    out = proposed(masked, mask)
    out = out * mask + img * (1 - mask)

os.makedirs(args.out, exist_ok=True)
to_image(out.cpu()).save(os.path.join(args.out, os.path.basename(args.img)))
