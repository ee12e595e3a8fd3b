# source: https://github.com/Dao-AILab/flash-attention/issues/1530  (layer_norm.py:958 `@custom_fwd` and :1017 `@custom_bwd` each emitted "FutureWarning: `torch.cuda.amp.custom_fwd(args...)` is deprecated")
# expect: DL005 at 9, 17
import torch
from torch.cuda.amp import custom_bwd, custom_fwd


class RMSNormFn(torch.autograd.Function):
    @staticmethod
    @custom_fwd
    def forward(ctx, x, weight, eps=1e-6):
        rstd = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)
        y = x * rstd * weight
        ctx.save_for_backward(x, weight, rstd)
        return y

    @staticmethod
    @custom_bwd
    def backward(ctx, dy):
        x, weight, rstd = ctx.saved_tensors
        x_hat = x * rstd
        dweight = (dy * x_hat).reshape(-1, x.size(-1)).sum(0)
        dx_hat = dy * weight
        dx = rstd * (dx_hat - x_hat * (dx_hat * x_hat).mean(dim=-1, keepdim=True))
        return dx, dweight, None


class RMSNorm(torch.nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return RMSNormFn.apply(x, self.weight, self.eps)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    norm = RMSNorm(64).to(device)
    x = torch.randn(4, 16, 64, device=device, requires_grad=True)
    norm(x).sum().backward()
    print(x.grad.abs().mean().item())
