"""DL003 on the consumers that convert device tensors to NumPy behind the user's back: a
scikit-learn estimator (`TSNE(...).fit_transform(z)`), a matplotlib Axes (`ax.imshow(img)`),
arguments handed by keyword (`f1_score(y_true=..., y_pred=...)`, `np.savez(f, emb=z)`), and a
LightningModule step scoring its batch with sklearn. Each case is an evaluation or plotting
script the way users write them; lines ending in `# <- DLnnn` must be flagged with that code
and nothing else may be flagged (all default rules run). The clean cases are the tempting
ones: the `.cpu()` already done, host tensors, a PyG graph moved only in part.
"""

import pytest
from inference_cases import expected, program

from devicelint.engine import lint_source

RULES = ["DL001", "DL002", "DL003", "DL004", "DL006", "DL009", "DL010", "DL011"]

CASES = {
    "tsne_of_encoder_features_for_a_plot": """
import matplotlib.pyplot as plt
from sklearn.manifold import TSNE

parser = argparse.ArgumentParser()
parser.add_argument("--perplexity", type=float, default=30.0)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
model.load_state_dict(torch.load("net.pt", map_location=device))
model.eval()
feats, labels = [], []
with torch.no_grad():
    for x, y in make_loader():
        feats.append(F.relu(model.fc1(x.to(device))))
        labels.append(y)
features = torch.cat(feats)
emb = TSNE(n_components=2, perplexity=args.perplexity).fit_transform(features)  # <- DL003
plt.scatter(emb[:, 0], emb[:, 1], c=torch.cat(labels), s=4, cmap="tab10")
plt.savefig("tsne.png")
""",
    "estimator_kept_in_a_variable_then_fitted": """
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
model.eval()
x_train, y_train = torch.randn(256, 8).to(device), torch.randint(0, 3, (256,)).to(device)
with torch.no_grad():
    z_train = F.relu(model.fc1(x_train))
pca = PCA(n_components=4, whiten=True)
z_small = pca.fit_transform(z_train)  # <- DL003
probe = LogisticRegression(max_iter=1000)
probe.fit(z_small, y_train)  # <- DL003
print("linear probe accuracy", probe.score(z_small, y_train.cpu()))
""",
    "prediction_grid_drawn_on_subplot_axes": """
import matplotlib.pyplot as plt

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
model.eval()
x = torch.randn(8, 8, device=device)
with torch.no_grad():
    probs = model(x).softmax(-1)
fig, axs = plt.subplots(2, 4, figsize=(12, 6))
for i in range(8):
    axs[i // 4, i % 4].bar(range(3), probs[i])  # <- DL003
    axs[i // 4, i % 4].set_title(f"sample {i}")
fig2, (ax_loss, ax_hist) = plt.subplots(1, 2)
ax_hist.hist(probs.max(dim=1).values, bins=20)  # <- DL003
fig3 = plt.figure(figsize=(4, 4))
ax = fig3.add_subplot(111)
ax.imshow(probs, cmap="viridis")  # <- DL003
fig.savefig("preds.png")
""",
    "metrics_handed_by_keyword": """
from sklearn.metrics import classification_report, f1_score

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
model.eval()
all_preds, all_labels = [], []
with torch.no_grad():
    for x, y in make_loader():
        x, y = x.to(device), y.to(device)
        all_preds.append(model(x).argmax(1))
        all_labels.append(y)
preds, labels = torch.cat(all_preds), torch.cat(all_labels)
macro = f1_score(y_true=labels, y_pred=preds, average="macro")  # <- DL003
print(classification_report(labels.cpu(), preds.cpu(), digits=3))
print(f"macro F1 {f1_score(labels, y_pred=preds, average='macro'):.3f}")  # <- DL003
""",
    "embeddings_exported_with_savez_keywords": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
model.eval()
with torch.no_grad():
    batch = torch.randn(32, 8).to(device)
    hidden = F.relu(model.fc1(batch))
np.savez("embeddings.npz", hidden=hidden, logits=model.fc2(hidden).cpu())  # <- DL003
""",
    "lightning_validation_step_scores_with_sklearn": """
import pytorch_lightning as pl
from sklearn.metrics import accuracy_score


class LitClassifier(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = Net()

    def forward(self, x):
        return self.net(x)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        self.log("val_loss", F.cross_entropy(logits, y))
        acc = accuracy_score(y, logits.argmax(dim=1))  # <- DL003
        self.log("val_acc", acc)

    def test_step(self, batch, batch_idx):
        x, y = batch
        self.log("test_acc", accuracy_score(y.cpu(), self(x).argmax(dim=1).cpu()))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=3)
trainer.fit(LitClassifier(), make_loader(), make_loader())
""",
    # ------------------------------------------------ clean but tempting
    "cpu_done_before_every_consumer_is_clean": """
import matplotlib.pyplot as plt
from sklearn.manifold import TSNE
from sklearn.metrics import f1_score

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
model.eval()
x = torch.randn(64, 8).to(device)
with torch.no_grad():
    z = F.relu(model.fc1(x))
    preds = model(x).argmax(1)
emb = TSNE(n_components=2).fit_transform(z.cpu().numpy())
fig, ax = plt.subplots()
ax.scatter(emb[:, 0], emb[:, 1], c=preds.cpu())
ax.plot(torch.linspace(0, 1, 50), torch.linspace(0, 1, 50) ** 2)
print(f1_score(y_true=preds.cpu(), y_pred=preds.cpu(), average="micro"))
np.savez("z.npz", z=z.detach().cpu(), grid=torch.arange(10))
plt.figure(figsize=(6, 4))
fig.savefig("emb.png")
""",
    "estimator_on_host_features_is_clean": """
from sklearn.cluster import KMeans

features = torch.randn(500, 8)
labels = KMeans(n_clusters=3, n_init=10).fit_predict(features)
centres = torch.tensor(KMeans(n_clusters=3, n_init=10).fit(features).cluster_centers_)
""",
    "pyg_graph_moved_in_part_keeps_its_labels_unknown": """
import torch_geometric.transforms as T
from sklearn.linear_model import LogisticRegression
from torch_geometric.datasets import Planetoid

dataset = Planetoid("data/Cora", "Cora", transform=T.NormalizeFeatures())
data = dataset[0]
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
data = data.to(device, "x", "edge_index")
model = Net().to(device)
with torch.no_grad():
    out = model.fc1(data.x).cpu()
clf = LogisticRegression()
clf.fit(out[data.train_mask], data.y[data.train_mask])
print(clf.score(out[data.val_mask], data.y[data.val_mask]))
""",
    # a Swin-style block sizes its attention mask with NumPy from the feature map's height and
    # width: forward's `H`, `W` are ints, which `np.ceil` takes as well (only a guess makes a
    # forward parameter a tensor, so a NumPy function given one proves nothing)
    "window_sizes_computed_with_numpy_in_forward_is_clean": """
class WindowBlock(nn.Module):
    def __init__(self, dim, window_size=7):
        super().__init__()
        self.window_size = window_size
        self.proj = nn.Linear(dim, dim)

    def create_mask(self, x, H, W):
        Hp = int(np.ceil(H / self.window_size)) * self.window_size
        Wp = int(np.ceil(W / self.window_size)) * self.window_size
        img_mask = torch.zeros((1, Hp, Wp, 1), device=x.device)
        return img_mask

    def forward(self, x, H, W):
        mask = self.create_mask(x, H, W)
        return self.proj(x), mask
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_consumer_case(name):
    code = program(CASES[name])
    got = {(f.code, f.line) for f in lint_source(code, f"{name}.py", select=RULES)}
    listing = "\n".join(f"{n:3d} {line}" for n, line in enumerate(code.splitlines(), 1))
    assert got == expected(code), f"got {sorted(got)}\n{listing}"


def test_the_finding_points_at_the_argument_and_the_fix_moves_it():
    code = program(CASES["metrics_handed_by_keyword"])
    found = [f for f in lint_source(code, "eval.py", select=["DL003"])]
    line = next(n for n, text in enumerate(code.splitlines(), 1) if "macro = f1_score(" in text)
    on_line = sorted((f for f in found if f.line == line), key=lambda f: f.column)
    # both keyword arguments, each with its own `.cpu()`
    assert [code.splitlines()[line - 1][f.column - 1:f.end_column - 1] for f in on_line] == ["labels", "preds"]
    assert all("`f1_score` converts this tensor on the device" in f.message for f in on_line)


def test_a_lightning_step_says_why_its_batch_is_on_the_device():
    code = program(CASES["lightning_validation_step_scores_with_sklearn"])
    # both arguments of `accuracy_score(y, logits.argmax(dim=1))`: the batch's `y`, and the
    # logits `self(x)` computes from the batch on the module's device
    found = lint_source(code, "lit.py", select=["DL003"])
    assert len(found) == 2
    assert all("the Lightning trainer runs this step on the module's device" in f.message for f in found)


def test_the_consumer_objects_are_knowledge_rows():
    from devicelint import knowledge as kb

    assert kb.kind_of_call("sklearn.manifold.TSNE") == "estimator"
    assert kb.kind_of_call("sklearn.decomposition.PCA") == "estimator"
    # functions, and the metrics' display classes, stay conversions of their own arguments
    assert kb.kind_of_call("sklearn.metrics.accuracy_score") is None
    assert kb.kind_of_call("sklearn.metrics.ConfusionMatrixDisplay") is None
    assert kb.converts_to_numpy("sklearn.metrics.accuracy_score")
    assert kb.kind_of_call("matplotlib.pyplot.subplots") == "figure_and_axes"
    assert kb.kind_of_call("matplotlib.pyplot.subplot") == "axes"
    assert kb.kind_of_call("matplotlib.pyplot.figure") == "figure"
    assert kb.kind_of_call("matplotlib.pyplot.plot") is None and kb.converts_to_numpy("matplotlib.pyplot.plot")
    assert "fit_transform" in kb.consumers.CONVERTING_METHODS["estimator"]
    assert kb.consumers.OBJECT_METHODS["figure"]["add_subplot"] == "axes"
