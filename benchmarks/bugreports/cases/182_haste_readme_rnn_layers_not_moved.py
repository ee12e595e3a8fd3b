# source: https://github.com/lmnt-com/haste/issues/9
# seen: 2026-11-27
# style: README usage example of a CUDA RNN-layer library (haste_pytorch), run as the script a user copies: the layers built with keyword sizes, a CUDA input of shape [T,N,C], and each layer called on it
# expect: DL001 at 11, 12, 13, 18, 19, 20
# also-ok: DL007 at 16
# also-ok: DL008 at 16
# why: the PyTorch example builds haste.GRU / haste.LSTM / haste.LayerNormLSTM on the CPU and then calls them on x = torch.rand([25, 5, 128]).cuda(); the layers' weights are never moved, so the example fails ("the three PyTorch layers defined in the README should be put on the GPU, e.g. haste.LayerNormLSTM(...).cuda() since the input is a CUDA tensor"); fixed in the README
import torch
import haste_pytorch as haste

gru_layer = haste.GRU(input_size=128, hidden_size=256, zoneout=0.1, dropout=0.05)
lstm_layer = haste.LSTM(input_size=128, hidden_size=256, zoneout=0.1, dropout=0.05)
norm_lstm_layer = haste.LayerNormLSTM(input_size=128, hidden_size=256, zoneout=0.1, dropout=0.05)

# `x` is a CUDA tensor with shape [T,N,C]
x = torch.rand([25, 5, 128]).cuda()

y, state = gru_layer(x)
y, state = lstm_layer(x)
y, state = norm_lstm_layer(x)
