import os
import pickle

import numpy as np
import torch
from torch.utils.data import DataLoader, SubsetRandomSampler


def normalize_data(data, scaler=None):
    data = np.asarray(data, dtype=np.float32)
    if np.any(sum(np.isnan(data))):
        data = np.nan_to_num(data)
    mn, mx = data.min(0), data.max(0)
    return (data - mn) / (mx - mn + 1e-8), (mn, mx)


def get_data(dataset, max_train_size=None, max_test_size=None, normalize=False, train_start=0, test_start=0):
    prefix = os.path.join("datasets", "ServerMachineDataset", "processed") if dataset.startswith("machine") else os.path.join("datasets", "data", "processed")
    with open(os.path.join(prefix, dataset + "_train.pkl"), "rb") as f:
        train_data = pickle.load(f)
    with open(os.path.join(prefix, dataset + "_test.pkl"), "rb") as f:
        test_data = pickle.load(f)
    try:
        with open(os.path.join(prefix, dataset + "_test_label.pkl"), "rb") as f:
            test_label = pickle.load(f)
    except (KeyError, FileNotFoundError):
        test_label = None
    if normalize:
        train_data, scaler = normalize_data(train_data)
        test_data, _ = normalize_data(test_data, scaler=scaler)
    return (train_data, None), (test_data, test_label)


def get_target_dims(dataset):
    if dataset == "SMAP":
        return [0]
    if dataset == "MSL":
        return [0]
    return None


class SlidingWindowDataset(torch.utils.data.Dataset):
    def __init__(self, data, window, target_dim=None, horizon=1):
        self.data = data
        self.window = window
        self.target_dim = target_dim
        self.horizon = horizon

    def __getitem__(self, index):
        x = self.data[index : index + self.window]
        y = self.data[index + self.window : index + self.window + self.horizon]
        return x, y

    def __len__(self):
        return len(self.data) - self.window


def create_data_loaders(train_dataset, batch_size, val_split=0.1, shuffle=True, test_dataset=None):
    dataset_size = len(train_dataset)
    indices = list(range(dataset_size))
    split = int(np.floor(val_split * dataset_size))
    if shuffle:
        np.random.shuffle(indices)
    train_indices, val_indices = indices[split:], indices[:split]
    train_loader = DataLoader(train_dataset, batch_size=batch_size, sampler=SubsetRandomSampler(train_indices))
    val_loader = DataLoader(train_dataset, batch_size=batch_size, sampler=SubsetRandomSampler(val_indices))
    test_loader = DataLoader(test_dataset, batch_size=batch_size) if test_dataset is not None else None
    return train_loader, val_loader, test_loader


def load(model, PATH, device="cpu"):
    """Loads the model's parameters from the path mentioned."""
    model.load_state_dict(torch.load(PATH, map_location=device))
