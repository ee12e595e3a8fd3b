"""torch.amp: the deprecated per-device spellings and what replaces them (DL005)."""

from __future__ import annotations

LIBRARY = "torch.amp"

DEPRECATED_AMP = {
    "torch.cuda.amp.autocast": 'torch.amp.autocast("cuda", ...)',
    "torch.cuda.amp.autocast_mode.autocast": 'torch.amp.autocast("cuda", ...)',
    "torch.cuda.amp.GradScaler": 'torch.amp.GradScaler("cuda", ...)',
    "torch.cuda.amp.grad_scaler.GradScaler": 'torch.amp.GradScaler("cuda", ...)',
    "torch.cuda.amp.custom_fwd": 'torch.amp.custom_fwd(device_type="cuda", ...)',
    "torch.cuda.amp.custom_bwd": 'torch.amp.custom_bwd(device_type="cuda")',
    "torch.cuda.amp.autocast_mode.custom_fwd": 'torch.amp.custom_fwd(device_type="cuda", ...)',
    "torch.cuda.amp.autocast_mode.custom_bwd": 'torch.amp.custom_bwd(device_type="cuda")',
    "torch.cpu.amp.autocast": 'torch.amp.autocast("cpu", ...)',
    "torch.cpu.amp.autocast_mode.autocast": 'torch.amp.autocast("cpu", ...)',
    "torch.cpu.amp.GradScaler": 'torch.amp.GradScaler("cpu", ...)',
    "torch.cpu.amp.grad_scaler.GradScaler": 'torch.amp.GradScaler("cpu", ...)',
}

