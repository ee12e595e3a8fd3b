# tempts: DL008/DL011 with tensors created directly on the right device: device=, x.new_zeros(...), torch.zeros_like(x)
import torch
import torch.nn as nn


class Seq2SeqDecoder(nn.Module):
    def __init__(self, vocab=500, hidden=128):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.cell = nn.LSTMCell(hidden, hidden)
        self.proj = nn.Linear(hidden, vocab)
        self.hidden = hidden

    def forward(self, enc_state, max_len=20, bos_id=1):
        batch = enc_state.size(0)
        h = enc_state
        c = torch.zeros_like(enc_state)
        tokens = torch.full((batch,), bos_id, dtype=torch.long, device=enc_state.device)
        logits_all = enc_state.new_zeros(batch, max_len, self.proj.out_features)
        for t in range(max_len):
            h, c = self.cell(self.embed(tokens), (h, c))
            logits = self.proj(h)
            logits_all[:, t] = logits
            tokens = logits.argmax(dim=-1)
        return logits_all


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
decoder = Seq2SeqDecoder().to(device)
state = torch.randn(8, 128, device=device)
mask = torch.ones(8, 20, dtype=torch.bool, device=device)
with torch.no_grad():
    out = decoder(state)
    scores = out.masked_fill(~mask.unsqueeze(-1), 0.0).sum()
    print(scores.item())
