# source: https://github.com/robustness-gym/robustness-gym/pull/39
# seen: 2026-11-26
# style: two-file library code: robustnessgym/core/model.py (a HuggingfaceModel wrapper that moves the model to cuda when available, predicts over a dataset in batches and scores the predictions) and robustnessgym/core/metrics.py (compute_metric, dispatching to sklearn by metric name)
# expect: DL003 at robustnessgym/core/metrics.py:19, robustnessgym/core/metrics.py:24, robustnessgym/core/metrics.py:28, robustnessgym/core/metrics.py:32
# why: evaluate() collects argmax predictions and labels on the model's CUDA device and hands them to compute_metric, which passes them to sklearn's accuracy_score / f1_score -> "can't convert cuda:0 device type tensor to numpy" (the PR puts the tensors on the CPU before computing metrics)
from typing import Dict, List

import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from robustnessgym.core.metrics import compute_metric


class HuggingfaceModel:
    def __init__(self, identifier: str, task, device: str = None):
        self.identifier = identifier
        self.task = task
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = device
        self.tokenizer = AutoTokenizer.from_pretrained(identifier)
        self.model = AutoModelForSequenceClassification.from_pretrained(identifier)
        self.model.to(self.device)
        self.model.eval()

    def encode_batch(self, batch: Dict[str, List], columns: List[str]):
        texts = [batch[column] for column in columns]
        return self.tokenizer(*texts, truncation=True, padding=True, return_tensors="pt")

    def predict_batch(self, batch: Dict[str, List], input_columns: List[str]):
        encoded = self.encode_batch(batch, input_columns)
        encoded = {k: v.to(self.device) for k, v in encoded.items()}
        with torch.no_grad():
            logits = self.model(**encoded).logits
        return {"logits": logits, "pred": logits.argmax(dim=-1)}

    def evaluate(self, dataset, input_columns: List[str], output_columns: List[str], batch_size: int = 32,
                 metrics: List[str] = None):
        predictions = []
        labels = []
        for start in range(0, len(dataset), batch_size):
            batch = dataset[start:start + batch_size]
            out = self.predict_batch(batch, input_columns)
            predictions.append(out["pred"])
            labels.append(torch.tensor(batch[output_columns[0]], device=self.device))
        predictions = torch.cat(predictions)
        labels = torch.cat(labels)

        evaluation_dict = {}
        for metric in metrics or self.task.metrics:
            evaluation_dict[metric] = compute_metric(metric, predictions, labels, self.task.num_classes)
        return evaluation_dict
