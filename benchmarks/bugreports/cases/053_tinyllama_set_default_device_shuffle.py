# source: https://github.com/pytorch/pytorch/issues/118084
# seen: 2026-11-26
# style: notebook-style fine-tuning script (Hugging Face model + custom dataset class + manual loop with gradient accumulation)
# expect: DL019 at 19, 69
# why: torch.set_default_device('cuda') makes the RandomSampler's randperm a CUDA tensor; the shuffling DataLoader built without generator= fails ("can't convert cuda:0 device type tensor to numpy" / "Expected a 'cuda' device type for generator")
import torch
import torch.nn as nn
from datasets import load_dataset
from torch.optim import Adam
from torch.utils.data import DataLoader
from transformers import AutoModelForSequenceClassification, AutoTokenizer

print("Torch version: ", torch.__version__)


def getDefaultDevice():
    if torch.cuda.is_available():
        print("\nSetting default device to cuda.\n")
        torch.set_default_device('cuda')
        print("Device name: ", torch.cuda.get_device_name(device=None))
        return torch.device('cuda')
    else:
        print("No GPU detected, default device is cpu")
        return torch.device('cpu')


device = getDefaultDevice()

DATASET_ID = 'FinanceInc/auditor_sentiment'
MODEL_ID = 'TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T'
config = {
    'n_labels': 3,
    'batch_size': 2,
    'lr': 5e-5,
    'epochs': 5,
    'accumulation_steps': 16,
    'max_length': 128,
}

data = load_dataset(DATASET_ID)
df_train = data['train'].to_pandas()
df_test = data['test'].to_pandas()
tokenizer = AutoTokenizer.from_pretrained(MODEL_ID)
tokenizer.pad_token = tokenizer.eos_token


class FinanceIncDataset(object):
    def __init__(self, df, tokenizer, max_length):
        self.texts = df['sentence'].tolist()
        self.labels = df['label'].tolist()
        self.tokenizer = tokenizer
        self.max_length = max_length

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, idx):
        enc = self.tokenizer(self.texts[idx], truncation=True, padding='max_length',
                             max_length=self.max_length, return_tensors='pt')
        return {
            'input_ids': enc['input_ids'].squeeze(0),
            'attention_mask': enc['attention_mask'].squeeze(0),
            'labels': torch.tensor(self.labels[idx]),
        }


train_dataset = FinanceIncDataset(df_train, tokenizer, config['max_length'])
test_dataset = FinanceIncDataset(df_test, tokenizer, config['max_length'])
train_loader = DataLoader(train_dataset, batch_size=config['batch_size'], shuffle=True)
test_loader = DataLoader(test_dataset, batch_size=config['batch_size'], shuffle=False)

model = AutoModelForSequenceClassification.from_pretrained(MODEL_ID, num_labels=config['n_labels'])
model.config.pad_token_id = tokenizer.pad_token_id
model.to(device)
optimizer = Adam(model.parameters(), lr=config['lr'])
loss_fn = nn.CrossEntropyLoss()

for epoch in range(config['epochs']):
    model.train()
    optimizer.zero_grad()
    for step, batch in enumerate(train_loader):
        batch = {k: v.to(device) for k, v in batch.items()}
        outputs = model(input_ids=batch['input_ids'], attention_mask=batch['attention_mask'])
        loss = loss_fn(outputs.logits, batch['labels']) / config['accumulation_steps']
        loss.backward()
        if (step + 1) % config['accumulation_steps'] == 0:
            optimizer.step()
            optimizer.zero_grad()
    print(f"epoch {epoch} done, last loss {loss.item():.4f}")
