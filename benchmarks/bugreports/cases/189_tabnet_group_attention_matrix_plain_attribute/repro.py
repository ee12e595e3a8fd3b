# source: https://github.com/dreamquark-ai/tabnet/issues/578
# seen: 2026-11-27
# style: the reproduction script run against the library module it imports (pytorch_tabnet/tab_network.py, trimmed to the classes TabNetNoEmbeddings runs: GBN, TabNetEncoder, TabNetNoEmbeddings, AttentiveTransformer, FeatTransformer, GLU_Block, GLU_Layer; rebuilt from pytorch-tabnet 4.1, where TabNetEncoder keeps the default group matrix as a plain tensor attribute)
# expect: DL015 at pytorch_tabnet/tab_network.py:109, pytorch_tabnet/tab_network.py:179
# also-ok: DL008 at pytorch_tabnet/tab_network.py:166, pytorch_tabnet/tab_network.py:385, repro.py:13
# why: with no group_attention_matrix given, TabNetEncoder.__init__ stores self.group_attention_matrix = torch.eye(self.input_dim), a plain attribute (not a buffer), so TabNetNoEmbeddings(...).to(device) leaves it on the CPU and forward's torch.matmul(M, self.group_attention_matrix) meets the cuda mask -> "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument mat2 in method wrapper_CUDA_mm)"; the report asks for register_buffer
import torch
from pytorch_tabnet.tab_network import TabNetNoEmbeddings

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = TabNetNoEmbeddings(input_dim=3, output_dim=2).to(device)

x = torch.randn(2, 3).to(device)
out = model(x)  # Throws device mismatch error due to unregistered buffer
