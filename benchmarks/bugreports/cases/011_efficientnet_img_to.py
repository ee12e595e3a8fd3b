# source: https://github.com/lukemelas/EfficientNet-PyTorch/issues/52
# seen: 2026-11-26
# style: short inference script from the issue
# expect: DL006 at 19, 23
# why: img.to(device) result is discarded; img stays on the CPU while the model is on cuda:0
# also-ok: DL007 at 16
# also-ok: DL007 at 20
import torch
from PIL import Image
from torchvision import transforms

from efficientnet_pytorch import EfficientNet

model = EfficientNet.from_pretrained('efficientnet-b0')

device = torch.device('cuda:0')
tfms = transforms.Compose([transforms.Resize(224), transforms.ToTensor(), transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),])
img = tfms(Image.open('img.png')).unsqueeze(0)
img.to(device)
model.to(device)
model.eval()
with torch.no_grad():
    outputs = model(img)
print(outputs.argmax(-1))
