import json

import numpy as np
import pandas as pd
import torch
from tqdm import tqdm

from utils import SlidingWindowDataset


class Predictor:
    """MTAD-GAT predictor: anomaly scores from forecasting and reconstruction errors."""

    def __init__(self, model, window_size, n_features, pred_args):
        self.model = model
        self.window_size = window_size
        self.n_features = n_features
        self.target_dims = pred_args["target_dims"]
        self.q = pred_args["q"]
        self.level = pred_args["level"]
        self.use_mov_av = pred_args["use_mov_av"]
        self.gamma = pred_args["gamma"]
        self.save_path = pred_args["save_path"]
        self.batch_size = 256
        self.use_cuda = True
        self.pred_args = pred_args

    def get_score(self, values):
        print("Predicting and calculating anomaly scores..")
        data = SlidingWindowDataset(values, self.window_size, self.target_dims)
        loader = torch.utils.data.DataLoader(data, batch_size=self.batch_size, shuffle=False)
        device = "cuda" if self.use_cuda and torch.cuda.is_available() else "cpu"

        self.model.eval()
        preds = []
        recons = []
        with torch.no_grad():
            for x, y in tqdm(loader):
                x = x.to(device)
                y = y.to(device)

                y_hat, _ = self.model(x)

                recon_x = torch.cat((x[:, 1:, :], y), dim=1)
                _, window_recon = self.model(recon_x)

                preds.append(y_hat.detach().cpu().numpy())
                recons.append(window_recon[:, -1, :].detach().cpu().numpy())

        preds = np.concatenate(preds, axis=0)
        recons = np.concatenate(recons, axis=0)
        actual = values.detach().cpu().numpy()[self.window_size:]
        if self.target_dims is not None:
            actual = actual[:, self.target_dims]
        return np.mean(np.sqrt((preds - actual) ** 2) + self.gamma * np.sqrt((recons - actual) ** 2), 1)

    def predict_anomalies(self, train, test, true_anomalies):
        train_anomaly_scores = self.get_score(train)
        test_anomaly_scores = self.get_score(test)
        if self.use_mov_av:
            smoothing_window = int(self.batch_size * self.window_size * 0.05)
            train_anomaly_scores = pd.DataFrame(train_anomaly_scores).ewm(span=smoothing_window).mean().values.flatten()
        threshold = np.quantile(train_anomaly_scores, self.level)
        pred = (test_anomaly_scores > threshold).astype(int)
        df = pd.DataFrame({"a_score": test_anomaly_scores, "pred_anomaly": pred, "anomaly": true_anomalies})
        df.to_pickle(f"{self.save_path}/anomaly_preds.pkl")
        with open(f"{self.save_path}/summary.txt", "w") as f:
            json.dump({"pred_args": self.pred_args, "threshold": float(threshold)}, f, indent=2)
        print("-- Done.")
