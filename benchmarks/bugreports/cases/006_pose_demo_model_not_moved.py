# source: https://github.com/yuanyuanli85/Fast_Human_Pose_Estimation_Pytorch/issues/7
# seen: 2026-11-26
# style: argparse demo script (tools/mpii_demo.py as run with --device cuda); the fix commit adds model = model.to(device)
# expect: DL001 at 21, 22, 34
# why: the input is moved to args.device but the hourglass model is not
# also-ok: DL007 at 20
# also-ok: DL007 at 48
import argparse

import cv2
import numpy as np
import torch

import pose.models as models
from pose.utils.imutils import im_to_torch
from pose.utils.transforms import crop, get_preds_fromhm


def main(args):
    device = torch.device(args.device)
    model = models.__dict__[args.arch](num_stacks=args.stacks, num_blocks=args.blocks,
                                       num_classes=16, mobile=args.mobile)
    checkpoint = torch.load(args.checkpoint, map_location=device)
    model.load_state_dict(checkpoint['state_dict'])
    model.eval()

    img = cv2.imread(args.image)[:, :, ::-1]
    inp = im_to_torch(img.copy())
    center = np.array([img.shape[1] / 2, img.shape[0] / 2])
    inp = crop(inp, center, 1.0, [args.in_res, args.in_res])
    inp = inp.unsqueeze(0).to(device)

    with torch.no_grad():
        output = model(inp)
        score_map = output[-1].cpu()
    preds = get_preds_fromhm(score_map)
    print(preds)


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description='MPII demo')
    parser.add_argument('-a', '--arch', default='hg')
    parser.add_argument('-s', '--stacks', default=2, type=int)
    parser.add_argument('-b', '--blocks', default=1, type=int)
    parser.add_argument('--mobile', default=False, type=bool)
    parser.add_argument('--checkpoint', required=True)
    parser.add_argument('--in_res', default=256, type=int)
    parser.add_argument('--device', default='cuda')
    parser.add_argument('--image', default='data/sample.jpg')
    main(parser.parse_args())
