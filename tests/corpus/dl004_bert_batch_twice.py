# source: https://github.com/huggingface/transformers/pull/4069  ("Delete batch = tuple(t.to(args.device) for t in batch) for it performs two times": the example script moved the same batch to the device twice per step)
# expect: DL004 at 31
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset
from transformers import BertForSequenceClassification


def evaluate(args, model, eval_dataloader):
    model.eval()
    logits_all = []
    for batch in eval_dataloader:
        batch = tuple(t.to(args.device) for t in batch)
        with torch.no_grad():
            inputs = {"input_ids": batch[0], "attention_mask": batch[1], "labels": batch[3]}
            inputs["token_type_ids"] = batch[2]
            outputs = model(**inputs)
            logits_all.append(outputs.logits)
    return torch.cat(logits_all)


def train(args, model, train_dataloader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    model.zero_grad()
    for _ in range(args.num_train_epochs):
        for step, batch in enumerate(train_dataloader):
            model.train()
            batch = tuple(t.to(args.device) for t in batch)
            inputs = {"input_ids": batch[0], "attention_mask": batch[1], "labels": batch[3]}
            batch = tuple(t.to(args.device) for t in batch)
            inputs["token_type_ids"] = batch[2]
            outputs = model(**inputs)
            outputs.loss.backward()
            optimizer.step()
            model.zero_grad()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--learning_rate", type=float, default=5e-5)
    parser.add_argument("--num_train_epochs", type=int, default=1)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    model = BertForSequenceClassification.from_pretrained("bert-base-uncased").to(args.device)
    n = 64
    data = TensorDataset(torch.randint(0, 30000, (n, 64)), torch.ones(n, 64, dtype=torch.long),
                         torch.zeros(n, 64, dtype=torch.long), torch.randint(0, 2, (n,)))
    loader = DataLoader(data, batch_size=8, pin_memory=True)
    train(args, model, loader)
    print(evaluate(args, model, loader).shape)


if __name__ == "__main__":
    main()
