# source: https://github.com/facebookresearch/pytext/pull/297  (zero hidden state allocated on the CPU breaks BiLSTM when the embedding is on the GPU)
# expect: DL011 at 25, 33
import torch
import torch.nn as nn


class BiLSTMEncoder(nn.Module):
    def __init__(self, embed_dim=16, hidden=8, layers=1):
        super().__init__()
        self.hidden = hidden
        self.layers = layers
        self.embed = nn.Embedding(100, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden, layers, bidirectional=True, batch_first=True)

    def zero_state(self, batch_size):
        return (
            torch.zeros(self.layers * 2, batch_size, self.hidden),
            torch.zeros(self.layers * 2, batch_size, self.hidden),
        )

    def forward(self, tokens):
        emb = self.embed(tokens)
        state = self.zero_state(tokens.size(0))
        h0, c0 = state
        out, _ = self.lstm(emb, (h0, c0))
        return out


device = "cuda" if torch.cuda.is_available() else "cpu"
encoder = BiLSTMEncoder().to(device)
tokens = torch.randint(0, 100, (4, 7), device=device)
keep = torch.tensor([[1.0], [1.0], [0.0], [1.0]])
features = encoder(tokens).mean(dim=1) * keep
print(features.shape)
