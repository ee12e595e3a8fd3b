# source: https://github.com/verl-project/verl/pull/565  ("misc: remove redundant .to(device)": data that had already been moved to the device was moved again)
# expect: DL004 at 22
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class PolicyHead(nn.Module):
    def __init__(self, hidden=256, vocab=1000):
        super().__init__()
        self.proj = nn.Linear(hidden, vocab)

    def forward(self, hidden_states):
        return torch.log_softmax(self.proj(hidden_states), dim=-1)


def compute_log_prob(head, loader, device):
    head.eval()
    outputs = []
    with torch.no_grad():
        for hidden_states, responses in loader:
            hidden_states = hidden_states.to(device).to(device)
            responses = responses.to(device)
            logp = head(hidden_states)
            outputs.append(torch.gather(logp, -1, responses.unsqueeze(-1)).squeeze(-1))
    return torch.cat(outputs)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    head = PolicyHead().to(device)
    data = TensorDataset(torch.randn(256, 32, 256), torch.randint(0, 1000, (256, 32)))
    print(compute_log_prob(head, DataLoader(data, batch_size=16, pin_memory=True), device).shape)
