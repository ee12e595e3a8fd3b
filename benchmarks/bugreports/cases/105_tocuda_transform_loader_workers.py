# source: https://github.com/pytorch/pytorch/issues/13775
# seen: 2026-11-26
# style: script: a ToCuda transform class appended to a torchvision Compose (to matmul each input with a large matrix on the GPU), MNIST with that transform, a DataLoader with a worker process, the model moved with .cuda()
# expect: DL017 at 18, 32
# why: the transform runs inside the dataset's __getitem__, i.e. in the DataLoader's forked worker (num_workers=1), and calls tensor.cuda() there: "CUDA error: initialization error" / "Cannot re-initialize CUDA in forked subprocess"
# also-ok: DL007 at 35, 42
import torch
import torch.utils.data
import torchvision


class ToCuda:
    def __init__(self):
        self.is_cuda = torch.cuda.is_available()

    def __call__(self, tensor):
        if self.is_cuda:
            tensor = tensor.cuda()
        return tensor


class ProjectInput:
    def __init__(self, matrix):
        self.matrix = matrix

    def __call__(self, tensor):
        return torch.matmul(tensor.view(-1), self.matrix)


transform = torchvision.transforms.Compose([torchvision.transforms.ToTensor(), ToCuda()])
dataset = torchvision.datasets.MNIST('../data', transform=transform)
loader = torch.utils.data.DataLoader(dataset, batch_size=256, num_workers=1)

model = torch.nn.Linear(784, 10)
model = model.cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
criterion = torch.nn.CrossEntropyLoss()

for images, labels in loader:
    print('it works')
    outputs = model(images.view(images.size(0), -1))
    loss = criterion(outputs, labels.cuda())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
