# source: https://github.com/NetoPedro/Universal-Adversarial-Perturbations-Pytorch/issues/1
# seen: 2026-11-26
# style: research script: a trainer class builds and trains the net on the CPU, generate(trainset, testset, net) is handed the net and moves images to a CUDA device
# expect: DL001 at 121, 127
# why: generate() sends cur_img1/per_img1 to 'cuda' but the ConvNet handed in stays where the trainer left it, on the CPU -> "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same"
import numpy as np
import torch
import torchvision
from PIL import Image
from torch import nn, optim
from torchvision import transforms


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2))
        self.layer2 = nn.Sequential(nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2))
        self.drop_out = nn.Dropout()
        self.fc1 = nn.Linear(7 * 7 * 64, 1000)
        self.fc2 = nn.Linear(1000, 10)

    def forward(self, x):
        out = self.layer1(x)
        out = self.layer2(out)
        out = out.reshape(out.size(0), -1)
        out = self.drop_out(out)
        return self.fc2(self.fc1(out))


def load_data(batch_size=64):
    tf = transforms.Compose([transforms.ToTensor()])
    trainset = torchvision.datasets.MNIST(root="./data", train=True, download=True, transform=tf)
    testset = torchvision.datasets.MNIST(root="./data", train=False, download=True, transform=tf)
    trainloader = torch.utils.data.DataLoader(trainset, batch_size=batch_size, shuffle=True)
    testloader = torch.utils.data.DataLoader(testset, batch_size=batch_size, shuffle=False)
    return trainloader, testloader


class trainer:
    def __init__(self):
        self.device = torch.device("cpu")
        self.net = ConvNet()
        self.net.to(self.device)
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = optim.Adam(self.net.parameters(), lr=0.01)
        self.n_epochs = 2

    def train(self, trainloader, testloader):
        self.net.train()
        for epoch in range(self.n_epochs):
            running_loss = 0.0
            for i, (inputs, labels) in enumerate(trainloader, 0):
                inputs, labels = inputs.to(self.device), labels.to(self.device)
                self.optimizer.zero_grad()
                outputs = self.net(inputs)
                loss = self.criterion(outputs, labels)
                loss.backward()
                self.optimizer.step()
                running_loss += loss.item()
                if i % 200 == 199:
                    print("[%d, %5d] loss: %.3f" % (epoch + 1, i + 1, running_loss / 200))
                    running_loss = 0.0
        print("Finished Training")


def deepfool(image, net, num_classes=10, overshoot=0.02, max_iter=50):
    image = image[None, :]
    image.requires_grad_(True)
    f_image = net(image).data.cpu().numpy().flatten()
    I = f_image.argsort()[::-1][:num_classes]
    label = I[0]
    pert_image = image.clone()
    r_tot = np.zeros(image.shape)
    loop_i = 0
    k_i = label
    while k_i == label and loop_i < max_iter:
        fs = net(pert_image)
        fs[0, I[0]].backward(retain_graph=True)
        grad_orig = image.grad.data.cpu().numpy().copy()
        r_tot = r_tot + grad_orig * overshoot
        pert_image = image + (1 + overshoot) * torch.from_numpy(r_tot).float().to(image.device)
        k_i = np.argmax(net(pert_image).data.cpu().numpy().flatten())
        loop_i += 1
    return r_tot, loop_i, label, k_i, pert_image


def project_perturbation(data_point, p, perturbation):
    if p == 2:
        perturbation = perturbation * min(1, data_point / np.linalg.norm(perturbation.flatten(1)))
    elif p == np.inf:
        perturbation = np.sign(perturbation) * np.minimum(abs(perturbation), data_point)
    return perturbation


def generate(trainset, testset, net, delta=0.2, max_iter_uni=np.inf, xi=10, p=np.inf, num_classes=10, overshoot=0.2, max_iter_df=20):
    net.eval()
    device = "cuda" if torch.cuda.is_available() else "cpu"

    img_trn = []
    for image in trainset:
        for image2 in image[0]:
            img_trn.append(image2.numpy())

    num_img_trn = 300
    index_order = np.arange(num_img_trn)
    v = np.zeros([28, 28])
    fooling_rate = 0.0
    iter = 0

    transformer1 = transforms.Compose([transforms.ToTensor()])
    transformer2 = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(28)])

    while fooling_rate < 1 - delta and iter < max_iter_uni:
        np.random.shuffle(index_order)
        print("Iteration  ", iter)
        for index in index_order:
            v = v.reshape((v.shape[0], -1))
            cur_img = Image.fromarray(img_trn[index][0])
            cur_img1 = transformer1(transformer2(cur_img))[np.newaxis, :].to(device)
            r2 = net(cur_img1).max(1)[1]
            torch.cuda.empty_cache()

            per_img = Image.fromarray(transformer2(cur_img) + v.astype(np.uint8))
            per_img1 = transformer1(transformer2(per_img))[np.newaxis, :].to(device)

            r1 = net(per_img1).max(1)[1]
            torch.cuda.empty_cache()

            if r1 == r2:
                dr, iter_k, label, k_i, pert_image = deepfool(per_img1[0], net, num_classes=num_classes, overshoot=overshoot, max_iter=max_iter_df)
                if iter_k < max_iter_df - 1:
                    v[:, :] += dr[0, 0, :, :]
                    v = project_perturbation(xi, p, v)
        iter = iter + 1
        fooling_rate = 1.0
    return v


def main():
    t = trainer()
    trainset, testset = load_data()
    t.train(trainset, testset)
    v = generate(trainset, testset, t.net)
    np.save("perturbation.npy", v)


if __name__ == "__main__":
    main()
