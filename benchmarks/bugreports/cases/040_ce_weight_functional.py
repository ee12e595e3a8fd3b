# source: https://github.com/pytorch/pytorch/issues/3879#issuecomment-347681540
# seen: 2026-11-26
# style: reproduction snippet from the thread (Variable era), as a script
# expect: DL011 at 16, 17, 18
# why: the weight vector of CrossEntropyLoss is a CPU tensor while input and target are on CUDA
# also-ok: DL007 at 14
# also-ok: DL008 at 14
# also-ok: DL007 at 15
# also-ok: DL008 at 15
import torch
from torch.autograd import Variable
import torch.nn as nn

x = Variable(torch.randn(2, 2).cuda(), requires_grad=True)
t = Variable(torch.LongTensor([0, 1]).cuda(), requires_grad=False)
weight = torch.randn(2)
m = nn.CrossEntropyLoss(weight=weight)
m(x, t)
