# source: https://github.com/pytorch/tutorials/pull/3257
# seen: 2026-11-26
# style: tutorial recipe script (recipes_source/recipes/amp_recipe.py)
# expect: DL005 at 64
# why: torch.cuda.amp.GradScaler() emits the FutureWarning; torch.amp.GradScaler("cuda") replaces it
# also-ok: DL007 at 19
# also-ok: DL007 at 25
# also-ok: DL007 at 26
# also-ok: DL007 at 27
# also-ok: DL007 at 32
# also-ok: DL007 at 45
# also-ok: DL007 at 55
# also-ok: DL007 at 56
# also-ok: DL007 at 58
import time

import torch

device = "cuda"
torch.backends.cudnn.benchmark = True


def timer_start():
    global start_time
    torch.cuda.empty_cache()
    torch.cuda.reset_max_memory_allocated()
    torch.cuda.synchronize()
    start_time = time.time()


def timer_end(local_msg):
    torch.cuda.synchronize()
    end_time = time.time()
    print("\n" + local_msg)
    print("Total execution time = {:.3f} sec".format(end_time - start_time))
    print("Max memory used by tensors = {} bytes".format(torch.cuda.max_memory_allocated()))


def make_model(in_size, out_size, num_layers):
    layers = []
    for _ in range(num_layers - 1):
        layers.append(torch.nn.Linear(in_size, in_size))
        layers.append(torch.nn.ReLU())
    layers.append(torch.nn.Linear(in_size, out_size))
    return torch.nn.Sequential(*tuple(layers)).cuda()


batch_size = 512
in_size = 4096
out_size = 4096
num_layers = 3
num_batches = 50
epochs = 3

data = [torch.randn(batch_size, in_size, device=device) for _ in range(num_batches)]
targets = [torch.randn(batch_size, out_size, device=device) for _ in range(num_batches)]

loss_fn = torch.nn.MSELoss().cuda()

use_amp = True

net = make_model(in_size, out_size, num_layers)
opt = torch.optim.SGD(net.parameters(), lr=0.001)
scaler = torch.cuda.amp.GradScaler(enabled=use_amp)

timer_start()
for epoch in range(epochs):
    for input, target in zip(data, targets):
        with torch.autocast(device_type=device, dtype=torch.float16, enabled=use_amp):
            output = net(input)
            loss = loss_fn(output, target)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
timer_end("Mixed precision:")
