"""Causes of misses found by the seventh round of the blind bug-report set (2026-11-27, cases
156-175 scored at 56e726f, `benchmarks/README.md` §8), each as a realistic program in the
shape users write, with its controls where the shape is right and must stay silent.

Lines ending in `# <- DLnnn` must be flagged with that code; nothing else of the rules under
test may be flagged.
"""

from inference_cases import expected, findings_at


# --- DL001: a torchvision head swapped in after the model was moved (case 157) ---

# The torchvision detection fine-tuning recipe: a pretrained Faster R-CNN, its box predictor
# replaced by a new FastRCNNPredictor for the dataset's classes, SGD over the trainable
# parameters and a train_one_epoch helper that moves images and target dicts. Written with
# `.to(device)` on the builder, the new head is built after the move and stays on the host.
_DETECTION_FINETUNE = '''
import argparse

import torch
from torch.utils.data import DataLoader
from torchvision.models.detection import fasterrcnn_resnet50_fpn_v2
from torchvision.models.detection.faster_rcnn import FastRCNNPredictor
from torchvision.models.detection.mask_rcnn import MaskRCNNPredictor

from boxes import BoxDataset, collate_fn


def train_one_epoch(model, optimizer, data_loader, device, epoch):
    model.train()
    for step, (images, targets) in enumerate(data_loader):
        images = list(image.to(device) for image in images)
        targets = [{k: v.to(device) for k, v in t.items()} for t in targets]
        loss_dict = model(images, targets)MARK
        losses = sum(loss for loss in loss_dict.values())
        optimizer.zero_grad()
        losses.backward()
        optimizer.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data/boxes")
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
    data_loader = DataLoader(BoxDataset(args.data), batch_size=4, shuffle=True, collate_fn=collate_fn)

    BUILD
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=0.005, momentum=0.9, weight_decay=0.0005)
    for epoch in range(args.epochs):
        train_one_epoch(model, optimizer, data_loader, device, epoch)


if __name__ == "__main__":
    main()
'''

_SWAP_AFTER_MOVE = '''model = fasterrcnn_resnet50_fpn_v2(weights="DEFAULT").to(device)
    in_features = model.roi_heads.box_predictor.cls_score.in_features
    model.roi_heads.box_predictor = FastRCNNPredictor(in_features, 2)'''

_SWAP_BEFORE_MOVE = '''model = fasterrcnn_resnet50_fpn_v2(weights="DEFAULT")
    in_features = model.roi_heads.box_predictor.cls_score.in_features
    model.roi_heads.box_predictor = FastRCNNPredictor(in_features, 2)
    model.to(device)'''

_SWAP_MOVED_HEAD = '''model = fasterrcnn_resnet50_fpn_v2(weights="DEFAULT").to(device)
    in_features = model.roi_heads.box_predictor.cls_score.in_features
    model.roi_heads.box_predictor = FastRCNNPredictor(in_features, 2).to(device)'''

_SWAP_MASK_HEAD_AFTER_MOVE = '''model = fasterrcnn_resnet50_fpn_v2(weights="DEFAULT").to(device)
    in_features_mask = 256
    model.roi_heads.mask_predictor = MaskRCNNPredictor(in_features_mask, 256, 2)'''


def _detection(build: str, flagged: bool) -> str:
    return _DETECTION_FINETUNE.replace("BUILD", build).replace("MARK", "  # <- DL001" if flagged else "")


def test_a_torchvision_head_swapped_in_after_the_move_leaves_the_model_on_the_host():
    # (reported where the new head runs since engine8, as case 157's header expects: the model
    # handed to train_one_epoch was moved, the new head was not)
    # silent at 56e726f: `FastRCNNPredictor(...)` was a class from a library it did not know as
    # a module, so the replaced layer was not taken for one
    for build in (_SWAP_AFTER_MOVE, _SWAP_MASK_HEAD_AFTER_MOVE):
        src = _detection(build, flagged=True)
        assert findings_at(src, ["DL001"]) == expected(src), build


def test_a_torchvision_head_swapped_in_before_the_move_or_moved_itself_is_no_finding():
    for build in (_SWAP_BEFORE_MOVE, _SWAP_MOVED_HEAD):
        assert findings_at(_detection(build, flagged=False), ["DL001"]) == set(), build


# --- DL003: device scalars drawn as matplotlib patches (case 173) ---

# A detection tutorial's plotting helper: it unpacks each box of an annotation dict and draws a
# `patches.Rectangle`. Handed the model's predictions (boxes on the device), matplotlib turns
# the corners into NumPy when it draws: "can't convert cuda:0 device type tensor to numpy".
_PLOT_PREDICTIONS = '''
import matplotlib.patches as patches
import matplotlib.pyplot as plt
import torch
import torchvision


def plot_image_from_output(img, annotation):
    img = img.cpu().permute(1, 2, 0)
    fig, ax = plt.subplots(1)
    ax.imshow(img)
    for idx in range(len(annotation["boxes"])):
        xmin, ymin, xmax, ymax = BOX
        rect = patches.Rectangle((xmin, ymin), (xmax - xmin), (ymax - ymin), linewidth=1, edgecolor="r", facecolor="none")MARK
        ax.add_patch(rect)
    plt.show()


device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
model = torchvision.models.detection.fasterrcnn_resnet50_fpn(weights="DEFAULT").to(device)
model.eval()
images = [torch.rand(3, 480, 640).to(device)]
with torch.no_grad():
    pred = model(images)
plot_image_from_output(images[0], pred[0])
'''


def _plot(box: str, flagged: bool) -> str:
    return _PLOT_PREDICTIONS.replace("BOX", box).replace("MARK", "  # <- DL003" if flagged else "")


def test_device_coordinates_handed_to_a_matplotlib_patch_are_converted_to_numpy():
    # silent at 56e726f: `matplotlib.patches` was not among the libraries that convert what they
    # are given (pyplot was)
    src = _plot('annotation["boxes"][idx]', flagged=True)
    assert findings_at(src, ["DL003"]) == expected(src)


def test_host_coordinates_handed_to_a_matplotlib_patch_are_no_finding():
    for box in ('annotation["boxes"][idx].cpu()', 'annotation["boxes"][idx].tolist()'):
        assert findings_at(_plot(box, flagged=False), ["DL003"]) == set(), box


# --- DL002 stays silent: a dataset we cannot see, built with the device (case 160's false findings) ---

# A MONAI segmentation script: the dataset's transform chain ends in `ToDeviced(..., device=...)`,
# so the loader's batches are on the device already and the loop hands them to the model as they
# come. The dataset class and its transforms are code devicelint cannot see; the only thing it
# can read is that their construction was handed the device.
_MONAI_TRAIN = '''
import argparse
import glob
import os

import torch
from monai.data import DataLoader, Dataset
from monai.losses import DiceLoss
from monai.networks.nets import UNet
from monai.transforms import Compose, EnsureChannelFirstd, LoadImaged, ScaleIntensityRanged, ToDeviced, ToTensord


def build_transforms(device):
    return Compose([
        LoadImaged(keys=["image", "label"]),
        EnsureChannelFirstd(keys=["image", "label"]),
        ScaleIntensityRanged(keys=["image"], a_min=-57, a_max=164, b_min=0.0, b_max=1.0, clip=True),
        ToDeviced(keys=["image", "label"], device=device),
    ])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default="data/Task09_Spleen")
    parser.add_argument("--epochs", type=int, default=100)
    args = parser.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    images = sorted(glob.glob(os.path.join(args.data_dir, "imagesTr", "*.nii.gz")))
    labels = sorted(glob.glob(os.path.join(args.data_dir, "labelsTr", "*.nii.gz")))
    files = [{"image": image, "label": label} for image, label in zip(images, labels)]

    train_ds = DATASET
    train_loader = DataLoader(train_ds, batch_size=2, shuffle=True, num_workers=0)

    model = UNet(spatial_dims=3, in_channels=1, out_channels=2, channels=(16, 32, 64, 128, 256),
                 strides=(2, 2, 2, 2), num_res_units=2).to(device)
    loss_function = DiceLoss(to_onehot_y=True, softmax=True)
    optimizer = torch.optim.Adam(model.parameters(), 1e-4)

    for epoch in range(args.epochs):
        model.train()
        for batch_data in train_loader:
            inputs, labels_ = batch_data["image"], batch_data["label"]
            optimizer.zero_grad()
            outputs = model(inputs)MARK
            loss = loss_function(outputs, labels_)MARK
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
'''


def _monai(dataset: str, flagged: bool) -> str:
    return _MONAI_TRAIN.replace("DATASET", dataset).replace("MARK", "  # <- DL002" if flagged else "")


def test_batches_of_a_dataset_we_cannot_see_built_with_the_device_are_not_taken_for_host_batches():
    # flagged at 56e726f: a dataset of code it cannot see yields host batches, whatever its
    # construction was told (here a transform chain ending in ToDeviced(device=device))
    for dataset in (
        "Dataset(data=files, transform=build_transforms(device))",
        'Dataset(data=files, transform=Compose([LoadImaged(keys=["image", "label"]), '
        'ToDeviced(keys=["image", "label"], device=device)]))',
    ):
        assert findings_at(_monai(dataset, flagged=False), ["DL002"]) == set(), dataset


def test_batches_of_a_dataset_we_cannot_see_built_without_a_device_are_still_host_batches():
    src = _monai('Dataset(data=files, transform=Compose([LoadImaged(keys=["image", "label"]), '
                 'ToTensord(keys=["image", "label"])]))', flagged=True)
    assert findings_at(src, ["DL002"]) == expected(src)
