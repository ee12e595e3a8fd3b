"""Device inference on realistic code: across functions and classes, through batches and
control flow, and silent under frameworks that place things themselves.

Each case is a small but realistic program; lines ending in `# <- DLnnn` must be flagged
with that code and nothing else may be flagged.
"""

import pytest
from inference_cases import expected, program

from devicelint.engine import lint_source

CASES = {
    # ---------------------------------------------------------------- across functions
    "train_fn_moves_only_data": """
def train(model, loader, device):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(model(x), y)
        loss.backward()

def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Net()
    train(model, make_loader(), device)  # <- DL001

main()
""",
    "helper_moves_the_batch": """
def to_device(batch, device):
    return [t.to(device) for t in batch]

def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Net().to(device)
    for batch in make_loader():
        x, y = to_device(batch, device)
        loss = F.cross_entropy(model(x), y)

main()
""",
    "helper_returns_device": """
def try_gpu(i=0):
    if torch.cuda.device_count() >= i + 1:
        return torch.device(f"cuda:{i}")
    return torch.device("cpu")

device = try_gpu()
model = Net()
x = torch.randn(4, 8).to(device)
out = model(x)  # <- DL001
""",
    "factory_returns_moved_model": """
def build_model(device):
    return Net().to(device)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = build_model(device)
for x, y in make_loader():
    out = model(x)  # <- DL002
""",
    "model_moved_by_helper_is_fine": """
def setup(model, device):
    model.to(device)
    return model

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net()
setup(model, device)
for x, y in make_loader():
    out = model(x.to(device))
""",
    # ---------------------------------------------------------------- classes
    "trainer_class_self_model": """
class Trainer:
    def __init__(self, model, loader, device):
        self.device = device
        self.model = model.to(device)
        self.loader = loader

    def train_epoch(self):
        for x, y in self.loader:
            x = x.to(self.device)
            logits = self.model(x)
            loss = F.cross_entropy(logits, y)  # <- DL002
        return loss

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
Trainer(Net(), make_loader(), device).train_epoch()
""",
    "setup_method_sets_device": """
class Runner:
    def setup(self):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = Net().to(self.device)

    def predict(self, x):
        with torch.no_grad():
            probs = self.model(x.to(self.device)).softmax(-1)
        return probs.numpy()  # <- DL003
""",
    # ---------------------------------------------------------------- batches
    "dict_batch_comprehension_moves_all": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
loader = DataLoader([{"x": torch.randn(8), "y": torch.tensor(1)} for _ in range(16)], batch_size=4)
for batch in loader:
    batch = {k: v.to(device) for k, v in batch.items()}
    loss = F.cross_entropy(model(batch["x"]), batch["y"])
""",
    "dict_batch_label_forgotten": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
loader = DataLoader([{"x": torch.randn(8), "y": torch.tensor(1)} for _ in range(16)], batch_size=4)
for step, batch in enumerate(loader):
    logits = model(batch["x"].to(device))
    loss = F.cross_entropy(logits, batch["y"])  # <- DL002
""",
    "zip_of_two_loaders": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
for (xs, ys), (xt, _) in zip(make_loader(), make_loader()):
    xs = xs.to(device)
    loss = F.cross_entropy(model(xs), ys.to(device)) + model(xt).mean()  # <- DL002
""",
    "tensordataset_already_on_device": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
X = torch.randn(64, 8, device=device)
Y = torch.randint(0, 3, (64,), device=device)
loader = DataLoader(TensorDataset(X, Y), batch_size=16)
model = Net().to(device)
for x, y in loader:
    loss = F.cross_entropy(model(x), y)
""",
    "tuple_comprehension_moves_batch": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
for batch in make_loader():
    x, y = tuple(t.to(device, non_blocking=True) for t in batch)
    loss = F.cross_entropy(model(x), y)
""",
    # ---------------------------------------------------------------- control flow
    "moved_on_both_branches": """
parser = argparse.ArgumentParser()
parser.add_argument("--cuda", action="store_true")
args = parser.parse_args()
device = torch.device("cuda" if args.cuda else "cpu")
model = Net().to(device)
for x, y in make_loader():
    if args.cuda:
        x, y = x.cuda(), y.cuda()
    else:
        x, y = x.to(device), y.to(device)
    loss = F.cross_entropy(model(x), y)
""",
    "moved_on_one_branch_only_is_unsure": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
for x, y in make_loader():
    if torch.cuda.is_available():
        x = x.to(device)
    out = model(x)
""",
    "early_continue": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
for x, y in make_loader():
    if x.shape[0] < 16:
        continue
    x, y = x.to(device), y.to(device)
    loss = F.cross_entropy(model(x), y)
""",
    "try_except_fallback": """
try:
    device = torch.device("cuda:0")
    model = Net().to(device)
except RuntimeError:
    device = torch.device("cpu")
    model = Net()
for x, y in make_loader():
    loss = F.cross_entropy(model(x.to(device)), y.to(device))
""",
    "default_device_context": """
with torch.device("cuda" if torch.cuda.is_available() else "cpu"):
    model = Net()
    x = torch.randn(4, 8)
    out = model(x)
""",
    "set_default_device": """
torch.set_default_device("cuda" if torch.cuda.is_available() else "cpu")
model = Net()
x = torch.randn(4, 8)
preds = model(x).argmax(-1).numpy()
""",
    "model_cpu_brings_back": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
model.cpu()
w = model.fc1.weight.detach().numpy()
x = torch.randn(2, 8)
out = model(x).detach().numpy()
""",
    "numpy_after_detach_cpu": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device).eval()
preds = []
with torch.inference_mode():
    for x, _ in make_loader():
        preds.append(model(x.to(device)).argmax(-1).detach().cpu())
arr = torch.cat(preds).numpy()
bad = np.asarray(model(torch.randn(2, 8, device=device)))  # <- DL003
""",
    "list_of_device_tensors_to_numpy": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
outputs = []
for x, _ in make_loader():
    outputs.append(model(x.to(device)))
stacked = torch.cat(outputs).detach().numpy()  # <- DL003
""",
    # ---------------------------------------------------------------- frameworks
    "lightning_module_silent": """
import lightning.pytorch as pl

class LitNet(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = Net()

    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.cross_entropy(self.net(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        preds = self.net(x).argmax(-1)
        self.log("acc", (preds == y).float().mean())

trainer = pl.Trainer(max_epochs=1)
trainer.fit(LitNet(), make_loader())
""",
    "accelerate_prepare_silent": """
from accelerate import Accelerator

accelerator = Accelerator()
model = Net()
optimizer = torch.optim.AdamW(model.parameters())
model, optimizer, loader = accelerator.prepare(model, optimizer, make_loader())
for x, y in loader:
    loss = F.cross_entropy(model(x), y)
    accelerator.backward(loss)
""",
    "hf_trainer_silent": """
from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments

model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=2)
trainer = Trainer(model=model, args=TrainingArguments(output_dir="out"), train_dataset=None)
trainer.train()
""",
    "ddp_wrapped_model": """
from torch.nn.parallel import DistributedDataParallel as DDP

def run(rank):
    model = DDP(Net().to(rank), device_ids=[rank])
    for x, y in make_loader():
        x, y = x.to(rank), y.to(rank)
        loss = F.cross_entropy(model(x), y)
""",
    "hf_model_moved_in_pipeline_style": """
from transformers import AutoModel, AutoTokenizer

device = "cuda" if torch.cuda.is_available() else "cpu"
tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
model = AutoModel.from_pretrained("bert-base-uncased")
enc = tokenizer(["a", "b"], return_tensors="pt").to(device)
hidden = model(**enc).last_hidden_state  # <- DL001
""",
    # ---------------------------------------------------------------- regressions from real code
    # (each modelled on a false positive or crash seen linting transformers/timm/diffusers)
    "prefetcher_moves_items_by_computed_key": """
class Prefetcher:
    def __init__(self, loader, device):
        self.loader = loader
        self.device = device
        self.mean = torch.tensor([0.5]).to(device)

    def __iter__(self):
        for inputs, target in self.loader:
            for k, v in inputs.items():
                inputs[k] = inputs[k].to(device=self.device, non_blocking=True)
            patches = inputs["patches"].sub(self.mean)
            yield patches, target.to(self.device)
""",
    "model_held_by_class_with_imported_base": """
from mylib.modeling import BaseForecaster

class Forecaster(BaseForecaster):
    def __init__(self, config):
        super().__init__(config)
        self.model = Net()

    def forecast(self, x):
        return self.model(x.to(self.device))
""",
    "module_may_be_offloaded_between_moves": """
class Pipeline:
    def __call__(self, prompt, device):
        if self.checker is not None:
            self.checker.to(device)
        images = self.generate(prompt)
        self.maybe_free_model_hooks()
        self.checker.to(device)
        return self.checker(images)
""",
    "recursive_module_tree": """
class Tree(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.leaf = nn.Linear(8, 8)
        self.children_ = nn.ModuleList([Tree(depth - 1)]) if depth else nn.ModuleList()

    def forward(self, x):
        return self.leaf(x)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
tree = Tree(3).to(device)
out = tree(torch.randn(2, 8, device=device))
""",
    "callable_chosen_at_runtime": """
def relu_head(x):
    return F.relu(x)

def gelu_head(x):
    return F.gelu(x)

head = relu_head if torch.rand(1).item() > 0.5 else gelu_head
y = head(torch.randn(3))
""",
    "offload_loop_moves_each_module_back": """
def offload(modules):
    for m in modules:
        m.to("cpu")
        torch.cuda.empty_cache()
""",
    "no_grad_export_after_cpu": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
state = {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}
""",
    "state_dict_numpy_on_device": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
for name, tensor in model.state_dict().items():
    arr = tensor.float().numpy()  # <- DL003
""",
    # ---------------------------------------------------------------- redundant moves
    "invariant_mask_moved_each_step": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
class_weights = torch.tensor([1.0, 2.0, 0.5])
for x, y in make_loader():
    x, y = x.to(device), y.to(device)
    loss = F.cross_entropy(model(x), y, weight=class_weights.to(device))  # <- DL004
""",
    "model_moved_again_after_init": """
class Predictor:
    def __init__(self):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = Net().to(self.device)

    def predict(self, x):
        self.model.to(self.device)  # <- DL004
        return self.model(x.to(self.device))
""",
    "model_offloaded_between_calls_is_not_redundant": """
class Predictor:
    def __init__(self):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = Net().to(self.device)

    def release(self):
        self.model.cpu()

    def predict(self, x):
        self.model.to(self.device)
        return self.model(x.to(self.device))
""",
    "model_moved_every_step": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net()
for x, y in make_loader():
    model.to(device)  # <- DL004
    loss = F.cross_entropy(model(x.to(device)), y.to(device))
""",
    "moves_to_different_devices_are_fine": """
devices = [torch.device(f"cuda:{i}") for i in range(torch.cuda.device_count())]
x = torch.randn(4, 8)
for d in devices:
    y = x.to(d)
""",
}



@pytest.mark.parametrize("name", sorted(CASES))
def test_inference_case(name):
    code = program(CASES[name])
    got = {(f.code, f.line) for f in lint_source(code, f"{name}.py", select=["DL001", "DL002", "DL003", "DL004", "DL005"])}
    assert got == expected(code), "\n".join(f"{n:3d} {line}" for n, line in enumerate(code.splitlines(), 1))
