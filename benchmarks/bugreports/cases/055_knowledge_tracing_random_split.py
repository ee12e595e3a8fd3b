# source: https://github.com/hcnoh/knowledge-tracing-collection-pytorch/issues/1
# seen: 2026-11-26
# style: argparse + config.json training entry point (train.py), several model classes chosen by name, training loop inside the model
# expect: DL019 at 24, 62, 66
# why: with the default tensor type set to torch.cuda.FloatTensor, random_split() without generator= draws randperm with the CPU default generator -> "Expected a 'cuda' device type for generator but found 'cpu'"
import argparse
import json
import os
import pickle

import torch
from torch.optim import SGD, Adam
from torch.utils.data import DataLoader, random_split

from data_loaders.assist2009 import ASSIST2009
from data_loaders.assist2015 import ASSIST2015
from models.dkt import DKT
from models.dkvmn import DKVMN
from models.sakt import SAKT
from models.utils import collate_fn

if torch.cuda.is_available():
    from torch.cuda import FloatTensor
    torch.set_default_tensor_type(torch.cuda.FloatTensor)
else:
    from torch import FloatTensor


def main(model_name, dataset_name):
    ckpt_path = os.path.join("ckpts", model_name, dataset_name)
    os.makedirs(ckpt_path, exist_ok=True)

    with open("config.json") as f:
        config = json.load(f)
        model_config = config[model_name]
        train_config = config["train_config"]

    batch_size = train_config["batch_size"]
    num_epochs = train_config["num_epochs"]
    train_ratio = train_config["train_ratio"]
    learning_rate = train_config["learning_rate"]
    optimizer = train_config["optimizer"]
    seq_len = train_config["seq_len"]

    if dataset_name == "ASSIST2009":
        dataset = ASSIST2009(seq_len)
    elif dataset_name == "ASSIST2015":
        dataset = ASSIST2015(seq_len)

    if model_name == "dkt":
        model = DKT(dataset.num_q, **model_config)
    elif model_name == "dkvmn":
        model = DKVMN(dataset.num_q, **model_config)
    elif model_name == "sakt":
        model = SAKT(dataset.num_q, **model_config)
    else:
        print("The wrong model name was used...")
        return

    train_size = int(len(dataset) * train_ratio)
    test_size = len(dataset) - train_size
    train_dataset, test_dataset = random_split(
        dataset, [train_size, test_size]
    )

    train_loader = DataLoader(train_dataset, batch_size=batch_size, shuffle=True, collate_fn=collate_fn)
    test_loader = DataLoader(test_dataset, batch_size=test_size, shuffle=True, collate_fn=collate_fn)

    if optimizer == "sgd":
        opt = SGD(model.parameters(), learning_rate, momentum=0.9)
    elif optimizer == "adam":
        opt = Adam(model.parameters(), learning_rate)

    aucs, loss_means = model.train_model(train_loader, test_loader, num_epochs, opt, ckpt_path)

    with open(os.path.join(ckpt_path, "aucs.pkl"), "wb") as f:
        pickle.dump(aucs, f)
    with open(os.path.join(ckpt_path, "loss_means.pkl"), "wb") as f:
        pickle.dump(loss_means, f)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name", type=str, default="dkt")
    parser.add_argument("--dataset_name", type=str, default="ASSIST2009")
    args = parser.parse_args()
    main(args.model_name, args.dataset_name)
