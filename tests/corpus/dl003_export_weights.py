# source: https://github.com/ztxz16/fastllm/issues/231  (torch2flm export: cur = dict[key].numpy() failed with "can't convert cuda:0 device type tensor to numpy" because the model had not been moved back to the CPU)
# expect: DL003 at 15
import struct

import numpy as np
import torch
from transformers import AutoModelForCausalLM


def export_flat(model, path):
    with open(path, "wb") as fo:
        state = model.state_dict()
        fo.write(struct.pack("i", len(state)))
        for key, tensor in state.items():
            arr = tensor.float().numpy()
            name = key.encode()
            fo.write(struct.pack("i", len(name)))
            fo.write(name)
            fo.write(struct.pack("i", arr.ndim))
            for dim in arr.shape:
                fo.write(struct.pack("i", dim))
            fo.write(arr.astype(np.float16).tobytes())


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = AutoModelForCausalLM.from_pretrained("gpt2", torch_dtype=torch.float16).to(device)
    model.eval()
    export_flat(model, "gpt2-fp16.flm")
