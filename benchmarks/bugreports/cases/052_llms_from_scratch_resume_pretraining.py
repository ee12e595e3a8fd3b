# source: https://github.com/rasbt/LLMs-from-scratch/issues/232
# seen: 2026-11-26
# style: book chapter script (chapter 5, exercise 5.4: continue pretraining from a saved model and optimizer)
# expect: DL018 at 41, 42
# why: AdamW state is loaded into an optimizer whose parameters are still on the CPU; the model is moved to the GPU afterwards, so exp_avg stays on the host and step() fails with tensors on different devices
import tiktoken
import torch

from gpt_train import train_model_simple
from previous_chapters import GPTModel, create_dataloader_v1

GPT_CONFIG_124M = {
    "vocab_size": 50257,
    "context_length": 256,
    "emb_dim": 768,
    "n_heads": 12,
    "n_layers": 12,
    "drop_rate": 0.1,
    "qkv_bias": False,
}

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
tokenizer = tiktoken.get_encoding("gpt2")

with open("the-verdict.txt", "r", encoding="utf-8") as file:
    text_data = file.read()

train_ratio = 0.90
split_idx = int(train_ratio * len(text_data))
train_loader = create_dataloader_v1(text_data[:split_idx], batch_size=2, max_length=GPT_CONFIG_124M["context_length"],
                                    stride=GPT_CONFIG_124M["context_length"], drop_last=True, shuffle=True, num_workers=0)
val_loader = create_dataloader_v1(text_data[split_idx:], batch_size=2, max_length=GPT_CONFIG_124M["context_length"],
                                  stride=GPT_CONFIG_124M["context_length"], drop_last=False, shuffle=False, num_workers=0)

checkpoint = torch.load("model_and_optimizer.pth", map_location="cpu", weights_only=True)

model = GPTModel(GPT_CONFIG_124M)
model.load_state_dict(checkpoint["model_state_dict"])

optimizer = torch.optim.AdamW(model.parameters(), lr=0.0004, weight_decay=0.1)
optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
model.to(device)
model.train()

torch.manual_seed(123)
num_epochs = 1
train_losses, val_losses, tokens_seen = train_model_simple(
    model, train_loader, val_loader, optimizer, device,
    num_epochs=num_epochs, eval_freq=5, eval_iter=5,
    start_context="Every effort moves you", tokenizer=tokenizer
)
