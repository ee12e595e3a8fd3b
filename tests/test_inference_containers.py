"""Values through containers and returns, and where a batch comes from (issue 20, items 2
and 4): lists grown by `append`, dicts by `update`, hidden states returned through a list
comprehension and unpacked, sums of a list of device tensors, a `None` default filled in on
the host, a list of layers built in a loop, and loaders a Trainer keeps on `self` and sets in
a method of its own; `dict(k=v)` holds its values (a checkpoint of device tensors written with
`dict(model=model.state_dict())` is no host file).

Each case is a realistic program; lines ending in `# <- DLnnn` must be flagged with that code
and nothing else may be flagged.
"""

import pytest
from inference_cases import expected, program

from devicelint.engine import lint_source

RULES = ["DL001", "DL002", "DL003", "DL004", "DL006", "DL009", "DL010", "DL011", "DL015"]

CASES = {
    # ------------------------------------------------ loaders kept on self
    "trainer_sets_its_loaders_in_a_method_after_the_one_that_reads_them": """
class Solver:
    def __init__(self, cfg):
        self.cfg = cfg
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.net = Net().to(self.device)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=cfg.lr)

    def fit(self):
        for epoch in range(self.cfg.epochs):
            for images, targets in self.samples:
                logits = self.net(images)  # <- DL002
                loss = F.cross_entropy(logits, targets.to(self.device))
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()

    def evaluate(self):
        batch = next(iter(self.held_out))
        with torch.no_grad():
            return self.net(batch[0].to(self.device)).argmax(1)

    def prepare(self):
        train = TensorDataset(torch.randn(256, 8), torch.randint(0, 3, (256,)))
        self.samples = DataLoader(train, batch_size=self.cfg.batch_size, shuffle=True)
        self.held_out = DataLoader(train, batch_size=64)
""",
    "trainer_with_a_collate_that_moves_and_a_dataset_that_places_its_items": """
class OnDevice(torch.utils.data.Dataset):
    def __init__(self, device):
        self.x = torch.randn(128, 8)
        self.device = device

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"x": self.x[i].to(self.device), "y": i % 3}


class Solver:
    def __init__(self):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.net = Net().to(self.device)

    def fit(self):
        for x, y in self.stream:
            self.net(x).sum().backward()
        for batch in self.placed:
            self.net(batch["x"]).sum().backward()

    def prepare(self):
        pairs = TensorDataset(torch.randn(64, 8), torch.randint(0, 3, (64,)))
        self.stream = DataLoader(pairs, batch_size=8, collate_fn=self.to_device)
        self.placed = DataLoader(OnDevice(self.device), batch_size=8)

    def to_device(self, rows):
        xs = torch.stack([r[0] for r in rows])
        ys = torch.stack([r[1] for r in rows])
        return xs.to(self.device), ys.to(self.device)
""",
    # ------------------------------------------------ a list of layers built in a loop
    "layers_appended_to_a_plain_list_in_a_loop_are_never_moved": """
class Tower(nn.Module):
    def __init__(self, dim=16, depth=3):
        super().__init__()
        self.stem = nn.Linear(8, dim)
        self.blocks = []
        for _ in range(depth):
            self.blocks.append(nn.Linear(dim, dim))
        self.heads = {}
        self.heads.update({"cls": nn.Linear(dim, 3)})

    def forward(self, x):
        h = self.stem(x)
        for block in self.blocks:
            h = F.relu(block(h))  # <- DL001
        return self.heads["cls"](h)  # <- DL001


class Wrapped(nn.Module):
    def __init__(self, dim=16, depth=3):
        super().__init__()
        self.blocks = []
        for _ in range(depth):
            self.blocks.append(nn.Linear(dim, dim))
        self.blocks = nn.ModuleList(self.blocks)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class Sequenced(nn.Module):
    def __init__(self, dim=16, depth=3):
        super().__init__()
        self.layers = []
        for _ in range(depth):
            self.layers.append(nn.Linear(dim, dim))
        self.body = nn.Sequential(*self.layers)
        self.extra = [nn.Linear(dim, dim) for _ in range(depth)]
        self.tail = nn.Sequential(*self.extra)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        for layer in self.extra:
            x = layer(x)
        return x


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
tower = Tower().to(device)
print(tower(torch.randn(4, 8, device=device)))
wrapped = Wrapped().to(device)
print(wrapped(torch.randn(4, 16, device=device)))
sequenced = Sequenced().to(device)
print(sequenced(torch.randn(4, 16, device=device)))
""",
    # ------------------------------------------------ hidden states through returns
    "lstm_hidden_states_returned_by_a_list_comprehension_and_unpacked": """
class CharRNN(nn.Module):
    def __init__(self, vocab, hidden=32, layers=2):
        super().__init__()
        self.hidden, self.layers = hidden, layers
        self.embed = nn.Embedding(vocab, hidden)
        self.lstm = nn.LSTM(hidden, hidden, layers, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, x, state):
        y, state = self.lstm(self.embed(x), state)
        return self.out(y), state

    def init_hidden(self, batch_size):
        return [torch.zeros(self.layers, batch_size, self.hidden) for _ in range(2)]


parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=100)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = CharRNN(vocab=50).to(device)
optimizer = torch.optim.Adam(model.parameters())
for step in range(args.steps):
    tokens = torch.randint(0, 50, (8, 20), device=device)
    h, c = model.init_hidden(8)
    logits, (h, c) = model(tokens[:, :-1], (h, c))  # <- DL011
    loss = F.cross_entropy(logits.reshape(-1, 50), tokens[:, 1:].reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
""",
    "forward_fills_a_none_hidden_state_on_the_host": """
class Recurrent(nn.Module):
    def __init__(self, n_in=8, n_hidden=16):
        super().__init__()
        self.n_hidden = n_hidden
        self.cell = nn.GRUCell(n_in, n_hidden)
        self.head = nn.Linear(n_hidden, 3)

    def forward(self, x, hidden=None):
        if hidden is None:
            hidden = torch.zeros(x.size(0), self.n_hidden)
        hidden = self.cell(x, hidden)  # <- DL011
        return self.head(hidden), hidden


class Placed(nn.Module):
    def __init__(self, n_in=8, n_hidden=16):
        super().__init__()
        self.n_hidden = n_hidden
        self.cell = nn.GRUCell(n_in, n_hidden)

    def forward(self, x, hidden=None):
        if hidden is None:
            hidden = torch.zeros(x.size(0), self.n_hidden, device=x.device)
        return self.cell(x, hidden)
""",
    # ------------------------------------------------ reducers over a list of device tensors
    "epoch_losses_collected_in_a_list_then_summed_and_converted": """
parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=2)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
print(sum(p.numel() for p in model.parameters()), "parameters")
for epoch in range(args.epochs):
    losses = []
    for x, y in make_loader():
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    total = sum(losses)
    print(f"epoch {epoch}: {total.numpy() / len(losses):.3f}")  # <- DL003
    history = dict()
    history.update(train=torch.stack(losses).mean())
    history.setdefault("best", torch.zeros(1))
    print(history["train"].cpu().numpy(), sum(l.item() for l in losses))
""",
    # ------------------------------------------------ dict(...) is a mapping of its keyword values
    "checkpoint_written_as_a_dict_call_of_the_device_state_then_loaded": """
parser = argparse.ArgumentParser()
parser.add_argument("--ckpt", default="last.pt")
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
optimizer = torch.optim.Adam(model.parameters())
torch.save(dict(model=model.state_dict(), optimizer=optimizer.state_dict(), epoch=3), args.ckpt)
state = torch.load(args.ckpt)  # <- DL009
model.load_state_dict(state["model"])
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_container_case(name):
    code = program(CASES[name])
    got = {(f.code, f.line) for f in lint_source(code, f"{name}.py", select=RULES)}
    listing = "\n".join(f"{n:3d} {line}" for n, line in enumerate(code.splitlines(), 1))
    assert got == expected(code), f"got {sorted(got)}\n{listing}"


def test_the_loop_built_plain_list_gets_the_module_list_fix():
    """DL001's fix wraps the list literal the loop fills, as it does a comprehension."""
    from devicelint.fix import fix_source

    code = program(CASES["layers_appended_to_a_plain_list_in_a_loop_are_never_moved"])
    fixed, applied = fix_source(code.encode(), "tower.py", select=["DL001"], unsafe=True)
    assert applied == 2
    text = fixed.decode()
    assert "self.blocks = nn.ModuleList([])" in text
    assert "self.heads = nn.ModuleDict({})" in text
