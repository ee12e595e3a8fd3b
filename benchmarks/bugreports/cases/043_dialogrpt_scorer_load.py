# source: https://github.com/golsun/DialogRPT/issues/7
# seen: 2026-11-26
# style: model class with a load() method (src/model.py) plus get_model() helper (src/score.py), run with --cpu
# expect: DL009 at 41
# why: weights saved on GPU are loaded with torch.load(path) and no map_location on a machine without CUDA
import numpy as np
import torch
from transformers import GPT2Tokenizer, GPT2Model, GPT2Config


class OptionInfer:
    def __init__(self, cuda=True):
        self.cuda = cuda


class ScorerBase(torch.nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.ix_EOS = 50256
        self.ix_OMT = 986
        self.opt = opt
        self.tokenizer = GPT2Tokenizer.from_pretrained('gpt2')

    def core(self, ids, l_ids, return_logits=False):
        raise NotImplementedError

    def predict(self, cxt, hyps, max_cxt_turn=None):
        scores = []
        for hyp in hyps:
            ids = self.tokenizer.encode(cxt) + [self.ix_EOS] + self.tokenizer.encode(hyp)
            ids = torch.tensor([ids]).view(1, -1)
            if self.opt.cuda:
                ids = ids.cuda()
            scores.append(self.core(ids, [len(ids)]).item())
        return np.array(scores)

    def load(self, path):
        from shared import download_model
        download_model(path)
        print('loading from ' + path)
        weights = torch.load(path)
        if path.endswith('.pkl'):
            # DialoGPT checkpoint
            weights['score.weight'] = weights['lm_head.decoder.weight'][self.ix_EOS: self.ix_EOS + 1, :]
            del weights['lm_head.decoder.weight']
        self.load_state_dict(weights)


class Scorer(ScorerBase):
    def __init__(self, opt):
        super().__init__(opt)
        n_embd = 1024
        config = GPT2Config(n_embd=n_embd, n_layer=24, n_head=16)
        self.transformer = GPT2Model(config)
        self.score = torch.nn.Linear(n_embd, 1, bias=False)

    def core(self, ids, l_ids, return_logits=False):
        n = ids.shape[0]
        attention_mask = torch.ones_like(ids)
        for i in range(n):
            attention_mask[i, l_ids[i]:] *= 0
        hidden_states, _ = self.transformer(ids, attention_mask=attention_mask)
        logits = self.score(hidden_states).squeeze(-1)
        logits = torch.stack([logits[i, l_ids[i] - 1] for i in range(n)])
        if return_logits:
            return logits
        return torch.sigmoid(logits)


def get_model(path, cuda=True):
    opt = OptionInfer(cuda)
    model = Scorer(opt)
    model.load(path)
    if cuda:
        model.cuda()
    return model
