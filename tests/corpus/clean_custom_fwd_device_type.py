# source: https://github.com/Dao-AILab/flash-attention/pull/1382  (fixed version: torch.amp.custom_fwd / custom_bwd with device_type="cuda")
# expect: clean
import torch
from torch.amp import custom_bwd, custom_fwd


class ScaledSiLU(torch.autograd.Function):
    @staticmethod
    @custom_fwd(device_type="cuda")
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return scale * x * torch.sigmoid(x)

    @staticmethod
    @custom_bwd(device_type="cuda")
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(x)
        return grad_out * ctx.scale * (s + x * s * (1 - s)), None


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x = torch.randn(1024, device=device, requires_grad=True)
    ScaledSiLU.apply(x, 1.5).sum().backward()
    print(x.grad.norm().item())
