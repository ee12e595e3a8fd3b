# VGG with FullGrad hooks: getBiases / getFeatures beside the usual forward.
import torch
import torch.nn as nn
import torch.utils.model_zoo as model_zoo

model_urls = {"vgg16_bn": "https://download.pytorch.org/models/vgg16_bn-6c64b313.pth"}
cfg = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"]


class VGG(nn.Module):
    def __init__(self, features, num_classes=1000):
        super(VGG, self).__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096), nn.ReLU(True), nn.Dropout(),
            nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(),
            nn.Linear(4096, num_classes),
        )

    def getBiases(self):
        biases = []
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                biases.append(m.bias.detach())
            elif isinstance(m, nn.BatchNorm2d):
                b = -(m.running_mean * m.weight / torch.sqrt(m.running_var + m.eps)) + m.bias
                biases.append(b.detach())
        return biases

    def getFeatures(self, x):
        feats = []
        for m in self.features:
            x = m(x)
            if isinstance(m, (nn.Conv2d, nn.BatchNorm2d)):
                x.retain_grad()
                feats.append(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        for m in self.classifier:
            x = m(x)
            if isinstance(m, nn.Linear):
                feats.append(x)
        return x, feats

    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


def make_layers(cfg, batch_norm=False):
    layers = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
        else:
            conv2d = nn.Conv2d(in_channels, v, kernel_size=3, padding=1)
            layers += [conv2d, nn.BatchNorm2d(v), nn.ReLU(inplace=True)] if batch_norm else [conv2d, nn.ReLU(inplace=True)]
            in_channels = v
    return nn.Sequential(*layers)


def vgg16_bn(pretrained=False, **kwargs):
    model = VGG(make_layers(cfg, batch_norm=True), **kwargs)
    if pretrained:
        model.load_state_dict(model_zoo.load_url(model_urls["vgg16_bn"]))
    return model
