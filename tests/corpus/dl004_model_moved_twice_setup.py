# source: https://github.com/metatensor/metatomic/pull/64  ("Remove redundant `to(device)` in ASE calculator": the model was moved to the device again although it was already there)
# expect: DL004 at 27
import torch
import torch.nn as nn


class EnergyModel(nn.Module):
    def __init__(self, n_species=10, hidden=64):
        super().__init__()
        self.embed = nn.Embedding(n_species, hidden)
        self.mlp = nn.Sequential(nn.Linear(hidden + 1, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def forward(self, species, distances):
        feats = torch.cat([self.embed(species), distances.unsqueeze(-1)], dim=-1)
        return self.mlp(feats).sum()


class Calculator:
    def __init__(self, model_path, device=None):
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        model = EnergyModel()
        model.load_state_dict(torch.load(model_path, map_location="cpu"))
        self.model = model.to(self.device)
        self.model.eval()

    def calculate(self, species, positions):
        self.model.to(self.device)
        species = torch.as_tensor(species, device=self.device)
        positions = torch.as_tensor(positions, dtype=torch.float32, device=self.device).requires_grad_(True)
        distances = positions.norm(dim=-1)
        energy = self.model(species, distances)
        forces = -torch.autograd.grad(energy, positions)[0]
        return energy.detach().cpu().numpy(), forces.cpu().numpy()
