import numpy as np
import torch
import torch.nn as nn
from nltk import sent_tokenize
from tqdm import tqdm
from transformers import AutoConfig, AutoModelForSeq2SeqLM, AutoTokenizer

from utils import add_question, print_scores


class UniEvaluator:
    def __init__(self, model_name_or_path, max_length=1024, device='cuda:0', cache_dir=None):
        """ Set up model """
        self.device = device
        self.max_length = max_length

        self.config = AutoConfig.from_pretrained(model_name_or_path, cache_dir=cache_dir)
        self.tokenizer = AutoTokenizer.from_pretrained(model_name_or_path, cache_dir=cache_dir)
        self.model = AutoModelForSeq2SeqLM.from_pretrained(model_name_or_path, config=self.config, cache_dir=cache_dir)

        self.model.eval()
        self.model.to(device)

        self.softmax = nn.Softmax(dim=1)

        self.pos_id = self.tokenizer("Yes").input_ids[0]
        self.neg_id = self.tokenizer("No").input_ids[0]

    def score(self, inputs, batch_size=8):
        """Get scores for the given samples: final_score = postive_score / (postive_score + negative_score)"""
        # The implementation of "forward" in T5 still requires decoder_input_ids.
        # Therefore, we construct a random one-word target sequence.
        tgts = ["No" for _ in range(len(inputs))]

        pos_score_list, neg_score_list = [], []
        for i in tqdm(range(0, len(inputs), batch_size)):
            src_list = inputs[i: i + batch_size]
            tgt_list = tgts[i: i + batch_size]
            with torch.no_grad():
                encoded_src = self.tokenizer(src_list, max_length=self.max_length, truncation=True, padding=True, return_tensors='pt')
                encoded_tgt = self.tokenizer(tgt_list, max_length=self.max_length, truncation=True, padding=True, return_tensors='pt')

                src_tokens = encoded_src['input_ids'].to(self.device)
                src_mask = encoded_src['attention_mask'].to(self.device)
                tgt_tokens = encoded_tgt['input_ids'].to(self.device)[:, 0].unsqueeze(-1)

                output = self.model(input_ids=src_tokens, attention_mask=src_mask, labels=tgt_tokens)
                logits = output.logits.view(-1, self.model.config.vocab_size)

                pos_score = self.softmax(logits)[:, self.pos_id]
                neg_score = self.softmax(logits)[:, self.neg_id]
                pos_score_list += pos_score.tolist()
                neg_score_list += neg_score.tolist()

        return [x / (x + y) for x, y in zip(pos_score_list, neg_score_list)]


class SumEvaluator:
    def __init__(self, max_length=1024, device='cuda:0', cache_dir=None):
        """ Set up evaluator for text summarization """
        self.scorer = UniEvaluator(model_name_or_path='MingZhong/unieval-sum', max_length=max_length,
                                   device=device, cache_dir=cache_dir)
        self.task = 'summarization'
        self.dimensions = ['coherence', 'consistency', 'fluency', 'relevance']

    def evaluate(self, data, dims=None, overall=True, print_result=False):
        n_data = len(data)
        eval_scores = [{} for _ in range(n_data)]
        eval_dims = dims if dims is not None else self.dimensions

        for dim in eval_dims:
            if dim == 'consistency' or dim == 'fluency':
                src_list, output_list = [], []
                n_sents = []
                for i in range(n_data):
                    source = data[i]['source'] if dim == 'consistency' else ''
                    system_outputs = sent_tokenize(data[i]['system_output'])
                    n_sents.append(len(system_outputs))
                    for j in range(len(system_outputs)):
                        src_list.append(source)
                        output_list.append(system_outputs[j])
                input_list = add_question(dimension=dim, output=output_list, src=src_list, task=self.task)
                sent_score = self.scorer.score(input_list)
                start_idx = 0
                score = []
                for cur_n_sent in n_sents:
                    score.append(sum(sent_score[start_idx: start_idx + cur_n_sent]) / cur_n_sent)
                    start_idx += cur_n_sent
            else:
                src_list = [data[i]['source'] for i in range(n_data)]
                output_list = [data[i]['system_output'] for i in range(n_data)]
                ref_list = [data[i]['reference'] for i in range(n_data)] if dim == 'relevance' else None
                input_list = add_question(dimension=dim, output=output_list, src=src_list, ref=ref_list, task=self.task)
                score = self.scorer.score(input_list)

            for i in range(n_data):
                eval_scores[i][dim] = score[i]

        if overall:
            for i in range(n_data):
                eval_scores[i]['overall'] = np.mean(list(eval_scores[i].values()))

        if print_result:
            print_scores(eval_scores)
        return eval_scores


def get_evaluator(task, max_length=1024, device='cuda:0', cache_dir=None):
    assert task in ['summarization']
    if task == 'summarization':
        return SumEvaluator(max_length=max_length, device=device, cache_dir=cache_dir)
