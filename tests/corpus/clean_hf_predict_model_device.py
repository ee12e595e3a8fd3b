# source: https://github.com/RajKKapadia/Transformers-Text-Classification-BERT-Blog/issues/1  (fixed version: the reloaded model is moved, and the encoding follows model.device)
# expect: clean
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
tokenizer = AutoTokenizer.from_pretrained("./results/checkpoint-best")
model = AutoModelForSequenceClassification.from_pretrained("./results/checkpoint-best")
model.to(device)
model.eval()


@torch.no_grad()
def get_prediction(text):
    encoding = tokenizer(text, return_tensors="pt", truncation=True, max_length=128)
    encoding = {k: v.to(model.device) for k, v in encoding.items()}
    probs = model(**encoding).logits.softmax(dim=-1).squeeze(0)
    return model.config.id2label[int(probs.argmax())], probs.cpu().numpy()


print(get_prediction("I am not happy to see you."))
