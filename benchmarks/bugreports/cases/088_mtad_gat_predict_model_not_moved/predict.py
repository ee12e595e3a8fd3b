# source: https://github.com/ML4ITS/mtad-gat-pytorch/issues/23
# seen: 2026-11-26
# style: repository entry point (predict.py) with argparse, the model class in mtad_gat.py, a load(model, path, device) helper and the data helpers in utils.py, a Predictor class in prediction.py that moves each window to "cuda"
# expect: DL001 at 83, prediction.py:42, prediction.py:45
# why: load() maps the checkpoint to the device but only loads it into the CPU model; nothing moves the model, and Predictor.get_score feeds it windows moved to cuda ("Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same")
import argparse
import datetime
import json
import os

import torch

from mtad_gat import MTAD_GAT
from prediction import Predictor
from utils import get_data, get_target_dims, load

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", type=str.upper, default="SMD")
    parser.add_argument("--group", type=str, default="1-1")
    parser.add_argument("--model_id", type=str, default=None)
    parser.add_argument("--use_cuda", type=lambda s: s.lower() == "true", default=True)
    parser.add_argument("--level", type=float, default=None)
    parser.add_argument("--q", type=float, default=None)
    parser.add_argument("--gamma", type=float, default=1)
    parser.add_argument("--use_mov_av", type=lambda s: s.lower() == "true", default=False)
    args = parser.parse_args()
    print(args)

    dataset = args.dataset
    if args.model_id is None:
        dir_path = f"./output/{dataset}/{args.group}" if dataset == "SMD" else f"./output/{dataset}"
        subfolders = [s for s in os.listdir(dir_path) if os.path.isdir(f"{dir_path}/{s}") and s != "logs"]
        date_times = sorted(datetime.datetime.strptime(s, "%d%m%Y_%H%M%S") for s in subfolders)
        model_id = date_times[-1].strftime("%d%m%Y_%H%M%S")
    else:
        model_id = args.model_id
    model_path = f"./output/{dataset}/{args.group}/{model_id}" if dataset == "SMD" else f"./output/{dataset}/{model_id}"

    model_parser = argparse.ArgumentParser()
    model_args, unknown = model_parser.parse_known_args()
    with open(f"{model_path}/config.txt") as f:
        model_args.__dict__ = json.load(f)
    window_size = model_args.lookback

    if dataset == "SMD":
        (x_train, _), (x_test, y_test) = get_data(f"machine-{args.group[0]}-{args.group[2:]}", normalize=model_args.normalize)
    else:
        (x_train, _), (x_test, y_test) = get_data(dataset, normalize=model_args.normalize)
    x_train = torch.from_numpy(x_train).float()
    x_test = torch.from_numpy(x_test).float()
    n_features = x_train.shape[1]

    target_dims = get_target_dims(dataset)
    out_dim = n_features if target_dims is None else (1 if isinstance(target_dims, int) else len(target_dims))

    model = MTAD_GAT(
        n_features,
        window_size,
        out_dim,
        kernel_size=model_args.kernel_size,
        gru_hid_dim=model_args.gru_hid_dim,
        forecast_hid_dim=model_args.fc_hid_dim,
        recon_hid_dim=model_args.recon_hid_dim,
        dropout=model_args.dropout,
    )

    device = "cuda" if args.use_cuda and torch.cuda.is_available() else "cpu"
    load(model, f"{model_path}/model.pt", device=device)

    level_q_dict = {"SMAP": (0.90, 0.005), "MSL": (0.90, 0.001), "SMD-1": (0.9950, 0.001)}
    key = "SMD-" + args.group[0] if dataset == "SMD" else dataset
    level, q = level_q_dict[key]
    prediction_args = {
        "target_dims": target_dims,
        "level": args.level or level,
        "q": args.q or q,
        "use_mov_av": args.use_mov_av,
        "gamma": args.gamma,
        "save_path": model_path,
    }
    label = y_test[window_size:] if y_test is not None else None
    predictor = Predictor(model, window_size, n_features, prediction_args)
    predictor.predict_anomalies(x_train, x_test, label)
