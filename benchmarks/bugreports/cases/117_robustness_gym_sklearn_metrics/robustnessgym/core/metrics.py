import re
import statistics
from typing import Sequence, Union

import numpy as np
import torch
from sklearn.metrics import accuracy_score, f1_score


def get_metric(name: str):
    if name == "rouge1" or name == "rouge2" or name == "rougeLsum":
        from rouge_score import rouge_scorer
        return rouge_scorer.RougeScorer([name], use_stemmer=True)
    raise NotImplementedError(name)


def accuracy(predictions: Union[list, np.array, torch.Tensor], labels: Union[list, np.array, torch.Tensor]):
    """Calculate accuracy."""
    return accuracy_score(y_true=labels, y_pred=predictions)


def f1(predictions, labels):
    """Calculate F1 score for binary classification."""
    return f1_score(y_true=labels, y_pred=predictions)


def f1_micro(predictions, labels):
    return f1_score(y_true=labels, y_pred=predictions, average="micro")


def f1_macro(predictions, labels):
    return f1_score(y_true=labels, y_pred=predictions, average="macro")


def class_distribution(labels: Union[list, np.array, torch.Tensor], num_classes: int = None, min_label: int = 0):
    """Compute the distribution of labels."""
    if isinstance(labels, torch.Tensor):
        labels = labels.cpu().numpy()
    counts = np.bincount(np.asarray(labels) - min_label, minlength=num_classes)
    return counts / counts.sum()


def compute_metric(metric: str, predictions: Union[Sequence, torch.Tensor], labels: Union[Sequence, torch.Tensor],
                   num_classes: int) -> Union[float, np.ndarray]:
    """Compute metric given predictions and target labels."""
    if metric == "accuracy":
        score = accuracy(predictions=predictions, labels=labels)
    elif metric == "f1":
        score = f1(predictions=predictions, labels=labels)
    elif metric == "f1_micro":
        score = f1_micro(predictions=predictions, labels=labels)
    elif metric == "f1_macro":
        score = f1_macro(predictions=predictions, labels=labels)
    elif metric == "class_dist":
        score = class_distribution(labels=labels, num_classes=num_classes)
    elif metric == "pred_dist":
        score = class_distribution(labels=predictions, num_classes=num_classes)
    elif re.match("rouge", metric):
        scorer = get_metric(metric)
        score = statistics.mean(scorer.score(p, l)[metric].fmeasure for p, l in zip(predictions, labels))
    else:
        raise NotImplementedError
    return score
