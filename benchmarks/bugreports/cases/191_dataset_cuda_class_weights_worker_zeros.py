# source: https://github.com/pytorch/pytorch/issues/128497
# seen: 2026-11-27
# style: bug-report script: a map-style Dataset whose __init__ builds its class weights and puts them on the GPU with .cuda(), a main() that wraps it in a shuffling, pinned DataLoader with one worker process, and prints the dataset's weights before and during iteration
# expect: DL017 at 13
# also-ok: DL007 at 13
# also-ok: DL008 at 13
# why: the Dataset holds a CUDA tensor (self.class_weights = torch.tensor([...]).cuda()) and is handed to a DataLoader with num_workers=1 and pin_memory=True; the worker process receives the dataset with its CUDA storage and the weights read back as zeros during iteration ("When the variable in the dataset is of type cuda, calling the dataloader will result in 0"); CUDA tensors do not belong in a Dataset that worker processes load
import torch
from torch.utils.data import Dataset
# from datasets.base_dataset import BaseDataset
class dataset(Dataset):
    def __init__(self):
        self.class_weights = torch.tensor([0.8373, 0.918, 0.866, 1.0345,
                                           1.0166, 0.9969, 0.9754, 1.0489,
                                           0.8786, 1.0023, 0.9539, 0.9843,
                                           1.1116, 0.9037, 1.0865, 1.0955,
                                           1.0865, 1.1529, 1.0507]).cuda()
    def __getitem__(self, index):
        return index
    def __len__(self):
        return 10
def main():

    datasets = dataset()
    trainloader = torch.utils.data.DataLoader(
        datasets,
        batch_size=2,
        shuffle=True,
        num_workers=1,
        pin_memory=True,
        drop_last=True,
    )
    print(trainloader.dataset.class_weights)
    for _ in trainloader:
        print(trainloader.dataset.class_weights)
if __name__ == '__main__':
    main()
