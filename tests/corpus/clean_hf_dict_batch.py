# source: https://github.com/bigscience-workshop/lm-evaluation-harness/pull/72  (fixed version: every tensor of the tokenized batch is put on the model's device)
# expect: clean
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
tokenizer = AutoTokenizer.from_pretrained("gpt2")
tokenizer.pad_token = tokenizer.eos_token
model = AutoModelForCausalLM.from_pretrained("gpt2").to(device)
model.eval()

prompts = ["Question: What is the capital of France?\nAnswer:", "Question: 2 + 2 =\nAnswer:"]
batch = tokenizer(prompts, return_tensors="pt", padding=True)
batch = {k: v.to(device) for k, v in batch.items()}

with torch.no_grad():
    out = model(**batch)
    next_token = out.logits[:, -1].argmax(dim=-1)
print(tokenizer.batch_decode(next_token.cpu().unsqueeze(-1)))
