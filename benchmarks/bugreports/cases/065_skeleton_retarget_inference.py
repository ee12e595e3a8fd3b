# source: https://github.com/ANYMS-A/Skeleton_Aware_Networks_for_Deep_Motion_Retargeting/issues/1
# seen: 2026-11-26
# style: inference script (inference.py) with option parser, encoder/decoder modules loaded from checkpoints, BVH in and out
# expect: DL002 at 53
# why: the static encoder is moved to the device, but the offsets tensor built from the BVH file stays on the CPU -> "Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same"
import argparse
import os

import numpy as np
import torch

from datasets.bvh_parser import BVH_file
from datasets.bvh_writer import BVH_writer
from model.enc_and_dec import Decoder, Encoder, StaticEncoder
from model.skeleton import build_edge_topology


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument('--cuda_device', type=str, default='cuda:0')
    parser.add_argument('--input_a', type=str, default='./examples/input_a.bvh')
    parser.add_argument('--input_b', type=str, default='./examples/input_b.bvh')
    parser.add_argument('--save_dir', type=str, default='./pretrained/')
    parser.add_argument('--output', type=str, default='./examples/output.bvh')
    return parser.parse_args()


def main():
    args = get_args()
    device = torch.device(args.cuda_device if torch.cuda.is_available() else 'cpu')
    file_a = BVH_file(args.input_a)
    file_b = BVH_file(args.input_b)
    edges_a = build_edge_topology(file_a.topology, torch.zeros((len(file_a.topology), 3)))
    edges_b = build_edge_topology(file_b.topology, torch.zeros((len(file_b.topology), 3)))

    static_enc_a = StaticEncoder(args, edges_a).to(device)
    enc_a = Encoder(args, edges_a).to(device)
    dec_b = Decoder(args, enc_a, StaticEncoder(args, edges_b)).to(device)
    static_enc_b = StaticEncoder(args, edges_b).to(device)
    for name, module in (('static_enc_a', static_enc_a), ('enc_a', enc_a), ('dec_b', dec_b),
                         ('static_enc_b', static_enc_b)):
        module.load_state_dict(torch.load(os.path.join(args.save_dir, name + '.pt'), map_location=device))
        module.eval()

    motion_a = torch.tensor(file_a.to_tensor(), dtype=torch.float).unsqueeze(0).to(device)
    static_a = torch.tensor(file_a.offset, dtype=torch.float).unsqueeze(0)
    static_b = torch.tensor(file_b.offset, dtype=torch.float).unsqueeze(0).to(device)
    mean = torch.tensor(np.load(os.path.join(args.save_dir, 'mean.npy')), dtype=torch.float).to(device)
    var = torch.tensor(np.load(os.path.join(args.save_dir, 'var.npy')), dtype=torch.float).to(device)

    with torch.no_grad():
        motion_a = (motion_a - mean) / var
        s_latent_a = static_enc_a(static_a)
        latent = enc_a(motion_a, s_latent_a)
        s_latent_b = static_enc_b(static_b)
        result = dec_b(latent, s_latent_b)
        result = result * var + mean

    writer = BVH_writer(file_b.edges, file_b.names)
    writer.write_raw(result[0].cpu().numpy(), 'quaternion', args.output)


if __name__ == '__main__':
    main()
