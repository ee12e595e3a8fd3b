# source: https://github.com/RajKKapadia/Transformers-Text-Classification-BERT-Blog/issues/1  (get_prediction moved the encoding to trainer.model.device but called a freshly loaded model that was still on the CPU)
# expect: DL001 at 19
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
CHECKPOINT = "./results/checkpoint-best"

new_tokenizer = AutoTokenizer.from_pretrained(CHECKPOINT)
new_model = AutoModelForSequenceClassification.from_pretrained(CHECKPOINT)
new_model.eval()
id2label = new_model.config.id2label


def get_prediction(text):
    encoding = new_tokenizer(text, return_tensors="pt", padding="max_length", truncation=True, max_length=128)
    encoding = {k: v.to(device) for k, v in encoding.items()}
    with torch.no_grad():
        outputs = new_model(**encoding)
    probs = torch.softmax(outputs.logits.squeeze(0), dim=-1)
    best = int(probs.argmax())
    return id2label[best], float(probs[best])


if __name__ == "__main__":
    print(get_prediction("I am not happy to see you."))
