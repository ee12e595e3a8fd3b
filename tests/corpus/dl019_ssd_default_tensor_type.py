# source: https://github.com/amdegroot/ssd.pytorch/issues/578  (--cuda set torch.cuda.FloatTensor as the default tensor type; iter(data_loader) over a shuffling loader raised "Expected a 'cuda' device type for generator but found 'cpu'")
# expect: DL019 at 44
import argparse

import torch
import torch.nn as nn
import torch.optim as optim
import torch.utils.data as data

parser = argparse.ArgumentParser(description="Single Shot MultiBox Detector training")
parser.add_argument("--batch_size", default=32, type=int)
parser.add_argument("--num_workers", default=4, type=int)
parser.add_argument("--cuda", default=True, type=bool)
parser.add_argument("--lr", default=1e-3, type=float)
parser.add_argument("--max_iter", default=120000, type=int)
args = parser.parse_args()

if torch.cuda.is_available():
    if args.cuda:
        torch.set_default_tensor_type("torch.cuda.FloatTensor")
    if not args.cuda:
        print("WARNING: a CUDA device is present but --cuda is off")
        torch.set_default_tensor_type("torch.FloatTensor")
else:
    torch.set_default_tensor_type("torch.FloatTensor")


def detection_collate(batch):
    images = torch.stack([sample[0] for sample in batch], 0)
    targets = [torch.FloatTensor(sample[1]) for sample in batch]
    return images, targets


class BoxDataset(data.Dataset):
    def __len__(self):
        return 1000

    def __getitem__(self, index):
        return torch.randn(3, 300, 300), [[0.1, 0.1, 0.5, 0.5, 1.0]]


def train(net, criterion):
    optimizer = optim.SGD(net.parameters(), lr=args.lr, momentum=0.9)
    data_loader = data.DataLoader(BoxDataset(), args.batch_size, num_workers=args.num_workers,
                                  shuffle=True, collate_fn=detection_collate, pin_memory=True)
    batch_iterator = iter(data_loader)
    for iteration in range(args.max_iter):
        try:
            images, targets = next(batch_iterator)
        except StopIteration:
            batch_iterator = iter(data_loader)
            images, targets = next(batch_iterator)
        out = net(images)
        optimizer.zero_grad()
        loss = criterion(out, targets)
        loss.backward()
        optimizer.step()
