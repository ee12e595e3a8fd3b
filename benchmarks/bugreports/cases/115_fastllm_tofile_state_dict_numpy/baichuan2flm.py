# source: https://github.com/ztxz16/fastllm/issues/231
# seen: 2026-11-26
# style: two-file project: tools/baichuan2flm.py (loads Baichuan2 with from_pretrained(device_map="auto"), normalizes lm_head, exports with the package's tofile) and tools/fastllm_pytools/torch2flm.py (tofile walks model.state_dict() and writes each tensor as NumPy bytes)
# expect: DL003 at fastllm_pytools/torch2flm.py:112
# why: device_map="auto" puts the weights on the GPU; tofile converts every state_dict tensor with dict[key].numpy() -> "can't convert cuda:0 device type tensor to numpy" (the maintainers' advice: move the model to the CPU first, or dict[key].cpu().numpy())
import sys

import torch
from fastllm_pytools import torch2flm
from transformers import AutoModelForCausalLM, AutoTokenizer
from transformers.generation.utils import GenerationConfig

if __name__ == "__main__":
    modelpath = "baichuan-inc/Baichuan2-7B-Chat"
    tokenizer = AutoTokenizer.from_pretrained(modelpath, use_fast=False, trust_remote_code=True)
    model = AutoModelForCausalLM.from_pretrained(modelpath, device_map="auto", torch_dtype=torch.float32, trust_remote_code=True)
    # normalize lm_head
    state_dict = model.state_dict()
    state_dict['lm_head.weight'] = torch.nn.functional.normalize(state_dict['lm_head.weight'])
    model.load_state_dict(state_dict)

    try:
        model.generation_config = GenerationConfig.from_pretrained(modelpath)
    except Exception:
        pass
    dtype = sys.argv[2] if len(sys.argv) >= 3 else "float16"
    exportPath = sys.argv[1] if len(sys.argv) >= 2 else "baichuan2-7b-" + dtype + ".flm"
    torch2flm.tofile(exportPath, model, tokenizer, dtype=dtype)
