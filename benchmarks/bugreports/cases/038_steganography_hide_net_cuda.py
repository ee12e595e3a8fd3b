# source: https://github.com/pytorch/pytorch/issues/3717#issuecomment-567795366
# seen: 2026-11-26
# style: flat script (zllrunning/Deep-Steganography main.py) run on a Mac without CUDA
# expect: DL007 at 34, 35
# why: hide_net.cuda() with no availability check: "Torch not compiled with CUDA enabled" on a CPU-only machine
# also-ok: DL007 at 37
# also-ok: DL007 at 42
# also-ok: DL008 at 42
# also-ok: DL007 at 43
# also-ok: DL008 at 43
import torch
import torch.nn as nn
import torch.nn.init as init
import torch.optim as optim

from models.HidingUNet import UnetGenerator
from models.RevealNet import RevealNet


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        init.kaiming_normal(m.weight.data, a=0, mode='fan_in')
    elif classname.find('BatchNorm') != -1:
        m.weight.data.normal_(1.0, 0.02)
        m.bias.data.fill_(0)


hide_net = UnetGenerator(input_nc=6, output_nc=3, num_downs=7, output_function=nn.Sigmoid)
hide_net.apply(weights_init)
reveal_net = RevealNet(output_function=nn.Sigmoid)
reveal_net.apply(weights_init)

hide_net.cuda()
reveal_net.cuda()

mse = nn.MSELoss().cuda()
optim_h = optim.Adam(hide_net.parameters(), lr=0.001, betas=(0.5, 0.999))
optim_r = optim.Adam(reveal_net.parameters(), lr=0.001, betas=(0.5, 0.999))

for epoch in range(100):
    cover = torch.rand(4, 3, 256, 256).cuda()
    secret = torch.rand(4, 3, 256, 256).cuda()
    container = hide_net(torch.cat([cover, secret], dim=1))
    revealed = reveal_net(container)
    err_h = mse(container, cover)
    err_r = mse(revealed, secret)
    loss = err_h + 0.75 * err_r
    optim_h.zero_grad()
    optim_r.zero_grad()
    loss.backward()
    optim_h.step()
    optim_r.step()
