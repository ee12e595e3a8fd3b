# source: https://github.com/matssteinweg/PIXOR/issues/6
# seen: 2026-11-26
# style: evaluation script (evaluate_model.py): the Dataset builds its voxel tensors with device=self.device in __getitem__, load_dataset(device=device) hands the device down, evaluate_model(model, data_loader) is a helper
# expect: DL001 at 104
# why: the point clouds are created on cuda:0 inside the dataset, but PIXOR() is only loaded with map_location=device and never moved -> "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same"
# also-ok: DL003 at 111, 116
import os

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

import kitti_utils
from config import INPUT_DIM_0, INPUT_DIM_1


class PIXOR(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(36, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.Conv2d(64, 128, 3, stride=2, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
        )
        self.header = nn.Conv2d(128, 7, 3, padding=1)

    def forward(self, x):
        return self.header(self.backbone(x))


def my_collate_test(batch):
    point_clouds = []
    labels = []
    calibs = []
    for tuple_id, tuple in enumerate(batch):
        point_clouds.append(tuple[0])
        labels.append(tuple[1])
        calibs.append(tuple[2])
    point_clouds = torch.stack(point_clouds)
    return point_clouds, labels, calibs


class PointCloudDataset(Dataset):
    def __init__(self, root_dir, split="training", device=torch.device("cpu"), show_times=True):
        self.show_times = show_times
        self.device = device
        self.root_dir = root_dir
        self.split = split
        self.split_dir = os.path.join(root_dir, split)
        self.num_samples = 6481 if split == "training" else 1000
        self.lidar_dir = os.path.join(self.split_dir, "velodyne")
        self.calib_dir = os.path.join(self.split_dir, "calib")
        self.label_dir = os.path.join(self.split_dir, "label_2")

    def __len__(self):
        return self.num_samples

    def __getitem__(self, index):
        lidar_filename = os.path.join(self.lidar_dir, "%06d.bin" % index)
        lidar_data = kitti_utils.load_velo_scan(lidar_filename)
        voxel_point_cloud = torch.tensor(kitti_utils.voxelize(point_cloud=lidar_data), requires_grad=True, device=self.device).float()
        voxel_point_cloud = voxel_point_cloud.permute([2, 0, 1])
        calib = kitti_utils.Calibration(os.path.join(self.calib_dir, "%06d.txt" % index))
        labels = kitti_utils.read_label(os.path.join(self.label_dir, "%06d.txt" % index))
        return voxel_point_cloud, labels, calib


def load_dataset(root="./kitti/object/", batch_size=1, test_set=False, device=torch.device("cpu")):
    num_workers = 0
    test_dataset = PointCloudDataset(root_dir=root, device=device, split="testing")
    data_loader = DataLoader(test_dataset, batch_size=batch_size, shuffle=False, collate_fn=my_collate_test,
                             num_workers=num_workers, drop_last=True)
    return data_loader


def process_predictions(predictions, confidence=0.6):
    sigmoid = nn.Sigmoid()
    classification_prediction = sigmoid(predictions[:, :, :, -1])
    predictions[:, :, :, -1] = classification_prediction
    conf_mask = (classification_prediction > confidence).float().unsqueeze(3)
    predictions = predictions * conf_mask
    final_predictions = None
    for idp in range(predictions.size(0)):
        prediction = predictions[idp].reshape(-1, predictions.size(-1))
        keep = prediction[:, -1] > 0
        if keep.sum() == 0:
            continue
        final_prediction = prediction[keep]
        batch_ind = torch.zeros([final_prediction.size(0), 1]).fill_(idp)
        final_prediction = torch.cat([batch_ind, final_prediction], dim=1)
        if final_predictions is None:
            final_predictions = final_prediction
        else:
            final_predictions = torch.cat([final_predictions, final_prediction])
    return final_predictions


def evaluate_model(model, data_loader):
    model.eval()
    for batch_id, (batch_data, batch_labels, batch_calib) in enumerate(data_loader):
        with torch.set_grad_enabled(False):
            # forward pass
            batch_predictions = model(batch_data)
            batch_predictions = batch_predictions.permute([0, 2, 3, 1])
            output = process_predictions(batch_predictions)

            batch_size = batch_data.size(0)
            for id in range(batch_size):
                # get point cloud as numpy array
                point_cloud = batch_data[id].detach().numpy().transpose((1, 2, 0))
                bev_img = kitti_utils.draw_bev_image(point_cloud)
                if output is not None:
                    predictions = torch.stack([prediction for prediction in output if prediction[0] == id], dim=0)
                    for idp in range(predictions.size(0)):
                        bbox_corners_camera_coord = predictions[idp, 1:-1].detach().numpy()
                        bbox_corners_camera_coord = np.reshape(bbox_corners_camera_coord, (2, 4)).T
                        bev_img = kitti_utils.draw_projected_box_bev(bev_img, bbox_corners_camera_coord, color=(0, 0, 255))
                print(bev_img.shape, INPUT_DIM_0, INPUT_DIM_1)


if __name__ == "__main__":
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    batch_size = 1
    root_dir = os.path.join("kitti/", "object/")
    data_loader = load_dataset(root=root_dir, batch_size=batch_size, device=device, test_set=True)

    pixor = PIXOR()
    pixor.load_state_dict(torch.load("Models/PIXOR_Epoch_15.pt", map_location=device))

    evaluate_model(pixor, data_loader)
