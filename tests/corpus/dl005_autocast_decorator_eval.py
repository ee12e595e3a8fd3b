# source: https://github.com/LAION-AI/CLIP_benchmark/issues/136  (zero-shot evaluation emitted "`torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead")
# expect: DL005 at 9
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader


@torch.no_grad()
@torch.cuda.amp.autocast()
def zero_shot_classifier(model, tokenizer, classnames, templates, device):
    weights = []
    for name in classnames:
        texts = tokenizer([t.format(c=name) for t in templates]).to(device)
        emb = F.normalize(model.encode_text(texts), dim=-1).mean(dim=0)
        weights.append(F.normalize(emb, dim=0))
    return torch.stack(weights, dim=1)


@torch.no_grad()
def run_classification(model, classifier, dataloader: DataLoader, device):
    hits, seen = [], 0
    for images, target in dataloader:
        images = images.to(device)
        target = target.to(device)
        with torch.autocast(device_type=device.type, enabled=device.type == "cuda"):
            feats = F.normalize(model.encode_image(images), dim=-1)
            logits = 100.0 * feats @ classifier
        hits.append((logits.argmax(dim=1) == target).sum())
        seen += images.size(0)
    return torch.stack(hits).sum() / seen
