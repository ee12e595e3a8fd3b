# source: https://github.com/appvision-ai/fast-bert/pull/159  (metrics accuracy() received CUDA logits and failed with "can't convert CUDA tensor to numpy. Use Tensor.cpu() ...")
# expect: DL003 at 24
import numpy as np
import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForSequenceClassification, AutoTokenizer


def accuracy(preds: np.ndarray, labels: np.ndarray) -> float:
    return float((preds == labels).mean())


def validate(model, loader, device):
    model.eval()
    logits_all, labels_all = [], []
    with torch.no_grad():
        for batch in loader:
            batch = {k: v.to(device) for k, v in batch.items()}
            outputs = model(**batch)
            logits_all.append(outputs.logits)
            labels_all.append(batch["labels"])
    logits = torch.cat(logits_all)
    labels = torch.cat(labels_all).cpu().numpy()
    preds = logits.argmax(dim=-1).numpy()
    return {"accuracy": accuracy(preds, labels)}


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=2).to(device)
    texts = ["great product", "terrible support", "works as expected", "broke after a day"]
    enc = tokenizer(texts, padding=True, return_tensors="pt")
    rows = [{"input_ids": enc["input_ids"][i], "attention_mask": enc["attention_mask"][i],
             "labels": torch.tensor(i % 2)} for i in range(len(texts))]
    print(validate(model, DataLoader(rows, batch_size=2, pin_memory=True), device))
