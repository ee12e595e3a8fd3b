# source: https://github.com/harryhan618/SCNN_Pytorch/issues/29
# seen: 2026-11-26
# style: inference server script (lane_detection_server.py) adapted from demo_test.py: argparse, model loaded from a checkpoint, per-file loop over images and a video
# expect: DL002 at 56
# why: the network is moved with net.cuda() but the transformed image x stays on the CPU -> "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same"
# also-ok: DL007 at 41
import argparse
import os
import sys

import cv2
import numpy as np
import torch

from model import SCNN
from utils.prob2lines import getLane
from utils.transforms import Compose, Normalize, Resize, ToTensor

net = SCNN(input_size=(800, 288), pretrained=False)
mean = (0.3598, 0.3653, 0.3662)
std = (0.2573, 0.2663, 0.2756)
transform_img = Resize((800, 288))
transform_to_net = Compose(ToTensor(), Normalize(mean=mean, std=std))


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", "-i", type=str, default="demo/demo.jpg", help="Path to demo img")
    parser.add_argument("--output", "-o", type=str, default="demo/", help="Path to output folder")
    parser.add_argument("--weight_path", "-w", type=str, help="Path to model weights")
    parser.add_argument("--visualize", "-v", action="store_true", default=False, help="Visualize the result")
    return parser.parse_args()


def main():
    args = parse_args()
    weight_path = args.weight_path
    save_dict = torch.load(weight_path, map_location='cpu')
    net.load_state_dict(save_dict['net'])
    net.eval()
    net.cuda()

    files = [args.input] if os.path.isfile(args.input) else \
        [os.path.join(args.input, f) for f in sorted(os.listdir(args.input))]
    for filename in files:
        if not filename.lower().endswith(('.jpg', '.png')):
            print("file format [{}] is not supported".format(filename))
            sys.exit()
        img = cv2.imread(filename)
        height, width = img.shape[:2]
        img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
        img = transform_img({'img': img})['img']
        x = transform_to_net({'img': img})['img']
        x.unsqueeze_(0)

        seg_pred, exist_pred = net(x)[:2]
        seg_pred = seg_pred.detach().cpu().numpy()
        exist_pred = exist_pred.detach().cpu().numpy()
        seg_pred = seg_pred[0]
        exist = [1 if exist_pred[0, i] > 0.5 else 0 for i in range(4)]
        lane_coords = getLane.prob2lines_CULane(seg_pred, exist, resize_shape=(height, width))
        print(os.path.basename(filename), lane_coords)

        if args.visualize:
            img = cv2.cvtColor(img, cv2.COLOR_RGB2BGR)
            lane_img = np.zeros_like(img)
            color = np.array([[255, 125, 0], [0, 255, 0], [0, 0, 255], [0, 255, 255]], dtype='uint8')
            coord_mask = np.argmax(seg_pred, axis=0)
            for i in range(0, 4):
                if exist_pred[0, i] > 0.5:
                    lane_img[coord_mask == (i + 1)] = color[i]
            img = cv2.addWeighted(src1=lane_img, alpha=0.8, src2=img, beta=1., gamma=0.)
            img = cv2.resize(img, (width, height))
            cv2.imwrite(os.path.join(args.output, os.path.basename(filename)), img)


if __name__ == '__main__':
    main()
