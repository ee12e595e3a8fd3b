# source: https://github.com/bigscience-workshop/lm-evaluation-harness/pull/72  (tokens were never put on the user-specified device, so --device cuda failed with "Expected all tensors to be on the same device ... index_select")
# expect: DL002 at 16
import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer


def score_loglikelihood(model, loader, device):
    model.eval()
    nlls = []
    total_tokens = 0
    with torch.no_grad():
        for batch in loader:
            input_ids = batch["input_ids"].to(device)
            attention_mask = batch["attention_mask"]
            outputs = model(input_ids=input_ids, attention_mask=attention_mask)
            logits = outputs.logits[:, :-1]
            targets = input_ids[:, 1:]
            nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, reduction="sum")
            nlls.append(nll)
            total_tokens += targets.numel()
    return torch.stack(nlls).sum() / total_tokens


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tok = AutoTokenizer.from_pretrained("gpt2")
    tok.pad_token = tok.eos_token
    model = AutoModelForCausalLM.from_pretrained("gpt2").to(device)
    texts = ["The quick brown fox jumps over the lazy dog."] * 64
    enc = tok(texts, return_tensors="pt", padding=True)
    rows = [{"input_ids": enc["input_ids"][i], "attention_mask": enc["attention_mask"][i]} for i in range(len(texts))]
    loader = DataLoader(rows, batch_size=8, pin_memory=True)
    print("nll/token", score_loglikelihood(model, loader, device).item())


if __name__ == "__main__":
    main()
