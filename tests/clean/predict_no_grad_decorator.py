# tempts: DL002/DL003 in an inference module: @torch.no_grad() predict() moves its input and returns a NumPy array via .cpu()
import numpy as np
import torch
import torch.nn as nn
from PIL import Image
from torchvision import transforms

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
PREPROCESS = transforms.Compose([
    transforms.Resize((96, 96)),
    transforms.ToTensor(),
    transforms.Normalize([0.5, 0.5, 0.5], [0.5, 0.5, 0.5]),
])


def load_model(path):
    model = nn.Sequential(nn.Conv2d(3, 8, 5), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4))
    model.load_state_dict(torch.load(path, map_location=DEVICE))
    model.to(DEVICE)
    model.eval()
    return model


@torch.no_grad()
def predict(model, image: Image.Image) -> np.ndarray:
    x = PREPROCESS(image).unsqueeze(0).to(DEVICE)
    probs = model(x).softmax(dim=1)
    return probs.squeeze(0).cpu().numpy()


if __name__ == "__main__":
    net = load_model("classifier.pt")
    img = Image.new("RGB", (120, 120), color=(10, 200, 30))
    print(predict(net, img))
