# source: https://github.com/kyegomez/zeta/issues/181
# seen: 2026-11-27
# style: a library's usage example (example_mamba.py) next to the package module zeta/simple_mamba.py: a MambaBlock nn.Module whose selective_scan builds its running state with torch.zeros((b, d_in, n)); the example picks cuda when available, builds the block, moves only the input and calls the block
# expect: DL001 at 13, 17
# also-ok: DL011 at zeta/simple_mamba.py:81, zeta/simple_mamba.py:84
# why: the reporter's run fails in in_proj ("found at least two devices ... when checking argument for argument mat2 in method wrapper_CUDA_mm"): the block is built on the CPU and never moved while x is moved to cuda; a commenter who moved the block then hit the second bug in simple_mamba.py: selective_scan's state x = torch.zeros((b, d_in, n)) is made on the CPU and multiplied with deltaA on the device (fix: torch.zeros(..., device=deltaA.device)); that one is also-ok, not expected: in the library module the input's place is unknown
import torch

from zeta import MambaBlock

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

block = MambaBlock(dim=64, depth=1)

x = torch.randn(1, 10, 64).to(device)

y = block(x).to(device)

print(y.shape)
