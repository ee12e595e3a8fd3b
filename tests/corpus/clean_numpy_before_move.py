# source: https://github.com/chflame163/ComfyUI_FaceSimilarity/issues/10  (tensor2cv2 called image.numpy() on a CUDA image; here the NumPy conversion happens on the CPU copy, before the tensor is moved)
# expect: clean
import cv2
import numpy as np
import torch
import torch.nn as nn
from torchvision import transforms

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
to_tensor = transforms.ToTensor()
model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten()).to(device).eval()

bgr = cv2.imread("face.jpg")
image = to_tensor(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
preview = (image.permute(1, 2, 0).numpy() * 255).astype(np.uint8)
cv2.imwrite("preview.png", cv2.cvtColor(preview, cv2.COLOR_RGB2BGR))

image_gpu = image.unsqueeze(0).to(device)
with torch.no_grad():
    embedding = model(image_gpu)
print(image.numpy().shape, embedding.cpu().numpy().shape)
