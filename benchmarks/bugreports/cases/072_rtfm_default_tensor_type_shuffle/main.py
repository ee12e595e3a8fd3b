# source: https://github.com/tianyu0207/RTFM/issues/47
# seen: 2026-11-26
# style: two-file project: main.py builds shuffling DataLoaders and imports train() from train.py, whose module top calls torch.set_default_tensor_type('torch.cuda.FloatTensor')
# expect: DL019 at 26, 29
# also-ok: DL007 at train.py:4, train.py:33
# why: importing train.py makes CUDA the default tensor type; RandomSampler then draws with a CPU generator under a CUDA default -> "Expected a 'cuda' device type for generator but found 'cpu'" at next(nloader)
import os

import numpy as np
import torch
import torch.optim as optim
from torch.utils.data import DataLoader
from tqdm import tqdm

import option
from dataset import Dataset
from model import Model
from test_10crop import test
from train import train
from utils import Visualizer, save_best_record

viz = Visualizer(env="shanghai tech 10 crop", use_incoming_socket=False)

if __name__ == "__main__":
    args = option.parser.parse_args()
    train_nloader = DataLoader(Dataset(args, test_mode=False, is_normal=True),
                               batch_size=args.batch_size, shuffle=True,
                               num_workers=0, pin_memory=False, drop_last=True)
    train_aloader = DataLoader(Dataset(args, test_mode=False, is_normal=False),
                               batch_size=args.batch_size, shuffle=True,
                               num_workers=0, pin_memory=False, drop_last=True)
    test_loader = DataLoader(Dataset(args, test_mode=True),
                             batch_size=1, shuffle=False,
                             num_workers=0, pin_memory=False)

    model = Model(args.feature_size, args.batch_size)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = model.to(device)

    if not os.path.exists("./ckpt"):
        os.makedirs("./ckpt")

    optimizer = optim.Adam(model.parameters(), lr=args.lr, weight_decay=0.005)
    test_info = {"epoch": [], "test_AUC": []}
    best_AUC = -1
    auc = test(test_loader, model, args, viz, device)

    for step in tqdm(range(1, args.max_epoch + 1), total=args.max_epoch, dynamic_ncols=True):
        if (step - 1) % len(train_nloader) == 0:
            loadern_iter = iter(train_nloader)
        if (step - 1) % len(train_aloader) == 0:
            loadera_iter = iter(train_aloader)

        train(loadern_iter, loadera_iter, model, args.batch_size, optimizer, viz, device)

        if step % 5 == 0 and step > 200:
            auc = test(test_loader, model, args, viz, device)
            test_info["epoch"].append(step)
            test_info["test_AUC"].append(auc)
            if test_info["test_AUC"][-1] > best_AUC:
                best_AUC = test_info["test_AUC"][-1]
                torch.save(model.state_dict(), "./ckpt/" + args.model_name + "{}-i3d.pkl".format(step))
                save_best_record(test_info, os.path.join("", "{}-step-AUC.txt".format(step)))
    torch.save(model.state_dict(), "./ckpt/" + args.model_name + "final.pkl")
