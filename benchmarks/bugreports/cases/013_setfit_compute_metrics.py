# source: https://github.com/huggingface/setfit/issues/339
# seen: 2026-11-26
# style: Hugging Face SetFit trainer with a user compute_metrics callback (fewshot_classify_notes_multilabel_kfold.py)
# expect: DL003 at 17
# why: with the differentiable head SetFit hands CUDA tensors to the metric callback; .numpy() without .cpu()
import numpy as np
from datasets import load_dataset
from sklearn.metrics import f1_score, accuracy_score
from setfit import SetFitModel, SetFitTrainer

categories = ["cardiac", "respiratory", "renal", "neuro"]


def compute_metrics(y_pred, y_test):
    predictions = y_pred
    labels = y_test
    predictions = predictions.numpy()
    labels = np.array(labels)
    return {
        "f1_micro": f1_score(labels, predictions, average="micro"),
        "accuracy": accuracy_score(labels, predictions),
    }


dataset = load_dataset("csv", data_files={"train": "train.csv", "test": "test.csv"})

model = SetFitModel.from_pretrained(
    "sentence-transformers/paraphrase-mpnet-base-v2",
    multi_target_strategy="one-vs-rest",
    use_differentiable_head=True,
    head_params={"out_features": len(categories)},
)

trainer = SetFitTrainer(
    model=model,
    train_dataset=dataset["train"],
    eval_dataset=dataset["test"],
    metric=compute_metrics,
    num_iterations=20,
    column_mapping={"text": "text", "label": "label"},
)
trainer.train()
metrics = trainer.evaluate()
print(metrics)
