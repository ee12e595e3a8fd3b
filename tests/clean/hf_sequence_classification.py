# tempts: DL001/DL002 with Hugging Face idioms: from_pretrained(...).to(device), dict-comprehension batch moves, model(**batch)
import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForSequenceClassification, AutoTokenizer, DataCollatorWithPadding, get_linear_schedule_with_warmup
from datasets import load_dataset

MODEL_NAME = "distilbert-base-uncased"
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

tokenizer = AutoTokenizer.from_pretrained(MODEL_NAME)
model = AutoModelForSequenceClassification.from_pretrained(MODEL_NAME, num_labels=2).to(device)

raw = load_dataset("imdb", split="train[:2000]")
encoded = raw.map(lambda ex: tokenizer(ex["text"], truncation=True, max_length=256), batched=True)
encoded = encoded.remove_columns(["text"]).rename_column("label", "labels")
encoded.set_format("torch")
collator = DataCollatorWithPadding(tokenizer)
train_loader = DataLoader(encoded, batch_size=16, shuffle=True, collate_fn=collator, pin_memory=True)

optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
scheduler = get_linear_schedule_with_warmup(optimizer, 100, len(train_loader) * 2)

model.train()
for epoch in range(2):
    epoch_loss = 0.0
    for step, batch in enumerate(train_loader):
        batch = {k: v.to(device) for k, v in batch.items()}
        outputs = model(**batch)
        loss = outputs.loss
        loss.backward()
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        epoch_loss += loss.item()
    print(f"epoch {epoch}: {epoch_loss / len(train_loader):.4f}")

model.eval()
with torch.no_grad():
    enc = tokenizer(["a wonderful film", "a waste of two hours"], padding=True, return_tensors="pt")
    enc = {k: v.to(device) for k, v in enc.items()}
    probs = model(**enc).logits.softmax(dim=-1)
    print(probs.cpu().numpy())
