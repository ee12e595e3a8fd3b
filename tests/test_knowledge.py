"""devicelint/knowledge/: library behaviour as data, in one schema, read by every part.

The guard test keeps it that way: no module outside knowledge/ may hold a table of library
qualified names. The behaviour tests pin what unifying the drifting copies changed (each copy
had a different answer before; the knowledge tables give the one torch documents)."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import pytest

from devicelint import knowledge as kb
from devicelint.engine import lint_file, lint_source
from devicelint.knowledge.schema import PLACES, Entry

PACKAGE = Path(kb.__file__).resolve().parent.parent

# The roots of the libraries devicelint knows, as a qualified name starts with them.
_LIBRARY_NAME = re.compile(
    r"^(torch|torchvision|torchaudio|torchtext|transformers|datasets|accelerate|diffusers|peft|lightning|"
    r"pytorch_lightning|lightning_fabric|timm|open_clip|numpy|np|pandas|pd|sklearn|matplotlib|plt|PIL|"
    r"tensorboard|tensorboardX|torch_geometric|deepspeed|sentence_transformers|einops)(\.|$)")

# Tables of library names still outside knowledge/, each with why (path -> line of the literal).
# Empty: every table the scan finds has moved. Add an entry only with a comment saying why it
# cannot move yet, and list it in docs/ARCHITECTURE.md §3.1.
ALLOWED: dict[str, set[int]] = {}


def library_tables(source: str, min_names: int = 3) -> list[tuple[int, list[str]]]:
    """(line, names) of every set/list/tuple/dict literal holding at least `min_names` string
    constants that are library qualified names (`"torch.load"`, `"transformers"`)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Set, ast.List, ast.Tuple, ast.Dict)):
            items = node.keys if isinstance(node, ast.Dict) else node.elts
            names = [e.value for e in items
                     if isinstance(e, ast.Constant) and isinstance(e.value, str) and _LIBRARY_NAME.match(e.value)]
            if len(names) >= min_names:
                out.append((node.lineno, names))
    return out


def test_the_scan_finds_a_table_of_library_names():
    # the kind of table that used to sit in rules and flow modules
    planted = textwrap.dedent('''
        _LOADS = {"torch.load", "torch.serialization.load", "torch.hub.load_state_dict_from_url"}
        _ROOTS = ("lightning", "pytorch_lightning", "transformers.Trainer")
        MESSAGES = {"torch.cuda.amp.autocast": "a", "torch.cuda.amp.GradScaler": "b", "torch.cpu.amp.autocast": "c"}
        _WORDS = {"loss", "criterion", "torchvision_like"}  # not library names
        ''')
    assert [line for line, _ in library_tables(planted)] == [2, 3, 4]


def test_no_module_outside_knowledge_holds_a_library_name_table():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        if rel.startswith("devicelint/knowledge/"):
            continue
        for line, names in library_tables(path.read_text(encoding="utf-8")):
            if line not in ALLOWED.get(rel, set()):
                found.append(f"{rel}:{line} {names[:3]}")
    assert not found, "library tables belong in devicelint/knowledge/: " + "; ".join(found)


# ----------------------------------------------------------------------------- the schema


def test_every_table_module_names_its_library_and_its_call_rows_stay_under_its_roots():
    for name in kb.__all__:
        mod = getattr(kb, name)
        if not hasattr(mod, "__file__") or not mod.__name__.startswith("devicelint.knowledge."):
            continue
        assert isinstance(getattr(mod, "LIBRARY", None), str), mod.__name__
        for pattern, kind in getattr(mod, "CALL_KINDS", ()):
            assert kind is None or isinstance(kind, str), (mod.__name__, pattern)
            plain = pattern.replace("\\.", ".")
            assert plain.startswith(mod.CALL_ROOTS), (mod.__name__, pattern)


def test_a_name_compiles_only_its_librarys_call_patterns_and_gets_the_kind_all_of_them_give():
    """kind_of_call compiles a table's patterns when a name under its roots is first asked
    about (not all 40 at import), and answers what the first match over every table gives."""
    every = [(re.compile(p + "$"), kind) for table in kb._CALL_TABLES for p, kind in table.CALL_KINDS]

    def first_of_all(q):
        return next((kind for pattern, kind in every if pattern.match(q)), None) if ".__" not in q else None

    kb._CACHE.clear()
    kb._patterns.cache_clear()
    assert kb.kind_of_call("torchvision.models.resnet50") == "module"
    assert kb._patterns.cache_info().currsize == 1  # torchvision's alone
    names = ["torchvision.models.feature_extraction.create_feature_extractor", "torchvision.models.__dict__",
             "transformers.AutoModelForCausalLM.from_pretrained", "transformers.pipeline", "diffusers.DiffusionPipeline",
             "PIL.Image.open", "sklearn.manifold.TSNE", "sklearn.metrics.f1_score", "matplotlib.pyplot.subplots",
             "torch.utils.data.DataLoader", "torch.utils.data.default_collate", "torch.hub.load", "timm.create_model",
             "torch_geometric.data.Data", "torchtext.data.BucketIterator", "torch.nn.Linear", "os.path.join", ""]
    # each pattern spelled out as a name, roughly (some match it, some not)
    names += [p.replace("\\.", ".").replace("\\w+", "Thing").replace("\\w*", "")
              for table in kb._CALL_TABLES for p, _kind in table.CALL_KINDS]
    assert [kb.kind_of_call(q) for q in names] == [first_of_all(q) for q in names]
    assert sum(kind is not None for kind in map(kb.kind_of_call, names)) > 15


@pytest.mark.parametrize("qualname, fields", [
    ("torch.nn.Linear", {"is_module_class": True, "owns_weights": True, "is_loss_without_weights": False}),
    ("torch.nn.ReLU", {"is_module_class": True, "owns_weights": False, "is_loss_without_weights": True}),
    ("torch.nn.DataParallel", {"manages_placement": True}),
    ("torch.nn.Module.half", {"returns_self": True}),
    ("torch.zeros", {"result_place": "arg"}),
    ("torch.cat", {"result_place": "inputs"}),
    ("numpy.concatenate", {"converts_to_numpy": True, "result_place": "host"}),
    ("sklearn.metrics.f1_score", {"converts_to_numpy": True}),
    ("torch.jit.trace", {"runs_module": True}),
    ("transformers.AutoModelForCausalLM.from_pretrained", {"kind": "module", "owns_weights": True}),
    ("transformers.AutoTokenizer.from_pretrained", {"kind": "encoder", "moves_in_place": True}),
    ("sentence_transformers.SentenceTransformer", {"kind": "module_placed", "manages_placement": True}),
    ("torchvision.models.resnet50", {"kind": "module"}),
    ("torch_geometric.data.Data", {"kind": "graph", "moves_in_place": True}),
    ("lightning.Trainer", {"manages_placement": True}),
    ("accelerate.Accelerator", {"manages_placement": True}),
])
def test_lookup_answers_in_the_one_schema(qualname, fields):
    entry = kb.lookup(qualname)
    assert isinstance(entry, Entry) and entry.qualname == qualname
    for field, value in fields.items():
        assert getattr(entry, field) == value, (qualname, field)
    assert entry.result_place in PLACES + (None,)


def test_lookup_says_nothing_of_names_no_table_knows():
    assert kb.lookup("mypackage.models.Net") is None
    assert kb.lookup("numpy.random.seed") is None  # no conversion: it takes no array


def test_the_library_base_classes_in_one_place():
    assert kb.base_class("torch.nn.Module", "Module") == kb.BaseFacts(module=True, weights=False)
    assert kb.base_class("torch.nn.Module", "Base") == kb.BaseFacts(module=True, weights=False)  # an alias
    assert kb.base_class("torch.nn.Conv2d", "Conv2d").weights
    assert kb.base_class("torch.utils.data.Dataset", "Dataset").dataset
    assert kb.base_class("pytorch_lightning.LightningModule", "LightningModule").framework
    assert kb.base_class("transformers.BertModel", "BertModel") == kb.BaseFacts(module=True, weights=True)
    assert kb.base_class("mypackage.Base", "Base") is None
    assert kb.is_plain_base("typing.Generic", "Generic") and not kb.is_plain_base("mypackage.Base", "Base")


def test_one_list_of_module_methods_that_return_the_module():
    # torch: `def share_memory(self: T) -> T`, `def apply(self: T, fn) -> T`; zero_grad returns None
    assert {"eval", "train", "half", "apply", "share_memory"} <= kb.nn.MODULE_RETURNS_SELF
    assert "zero_grad" not in kb.nn.MODULE_RETURNS_SELF


# ----------------------------------------------------------------------------- what unifying changed


def _project(tmp_path: Path, files: dict) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text).lstrip("\n"))


def test_a_project_model_class_built_on_a_transformers_model_is_a_module_with_weights(tmp_path):
    # project.py's copy of the base-class test did not ask the library table, so a class built on
    # `BertModel` in another file was opaque there (while the same class in the file was a model)
    _project(tmp_path, {
        "pyproject.toml": "",
        "models.py": """
            import torch.nn as nn
            from transformers import BertModel


            class Classifier(BertModel):
                def __init__(self, config, num_labels=2):
                    super().__init__(config)
                    self.head = nn.Linear(config.hidden_size, num_labels)

                def forward(self, input_ids, attention_mask=None):
                    out = super().forward(input_ids, attention_mask=attention_mask)
                    return self.head(out.pooler_output)
            """,
        "train.py": """
            import argparse

            import torch
            from transformers import BertConfig

            from models import Classifier


            def main():
                parser = argparse.ArgumentParser()
                parser.add_argument("--epochs", type=int, default=3)
                args = parser.parse_args()
                device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
                model = Classifier(BertConfig())
                optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
                ids = torch.randint(0, 30522, (8, 128)).to(device)
                mask = torch.ones(8, 128, dtype=torch.long).to(device)
                labels = torch.randint(0, 2, (8,)).to(device)
                for _ in range(args.epochs):
                    logits = model(ids, attention_mask=mask)
                    loss = torch.nn.functional.cross_entropy(logits, labels)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()


            if __name__ == "__main__":
                main()
            """,
    })
    found = [(f.code, f.line) for f in lint_file(str(tmp_path / "train.py")) if f.code == "DL001"]
    assert found == [("DL001", 20)]


def test_share_memory_hands_back_the_module_in_an_imported_factory(tmp_path):
    # summary.py's copy of "returns the module itself" lacked share_memory: the factory's result
    # was unknown, so the model it builds on the host was never flagged
    _project(tmp_path, {
        "pyproject.toml": "",
        "nets.py": """
            import torch.nn as nn


            class Policy(nn.Module):
                def __init__(self, obs, act):
                    super().__init__()
                    self.body = nn.Sequential(nn.Linear(obs, 64), nn.Tanh(), nn.Linear(64, act))

                def forward(self, x):
                    return self.body(x)


            def shared_policy(obs, act):
                return Policy(obs, act).share_memory()
            """,
        "train.py": """
            import torch

            from nets import shared_policy

            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            policy = shared_policy(8, 4)
            obs = torch.randn(16, 8).to(device)
            logits = policy(obs)
            """,
    })
    found = [(f.code, f.line) for f in lint_file(str(tmp_path / "train.py")) if f.code == "DL001"]
    assert found == [("DL001", 8)]


def test_dl007_follows_a_model_built_with_apply_into_its_forward():
    # cpu_run.py's copy lacked `apply`: `Net().apply(init)` was not known to be a Net, so its
    # forward was not reached and the hard-coded CUDA tensor there went unflagged
    code = textwrap.dedent("""
        import torch
        import torch.nn as nn


        def init_weights(m):
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)


        class Tagger(nn.Module):
            def __init__(self, vocab, hidden):
                super().__init__()
                self.hidden = hidden
                self.embed = nn.Embedding(vocab, hidden)
                self.rnn = nn.GRU(hidden, hidden, batch_first=True)

            def forward(self, tokens):
                h0 = torch.zeros(1, tokens.size(0), self.hidden).cuda()
                out, _ = self.rnn(self.embed(tokens), h0)
                return out


        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = Tagger(100, 32).apply(init_weights)
        model.to(device)
        print(model(torch.randint(0, 100, (4, 7), device=device)).shape)
        """).lstrip("\n")
    assert [f.line for f in lint_source(code, "train.py", select=["DL007"])] == [18]


def test_dl016_knows_a_transformers_model_base_as_a_module():
    # DL016's own copy of the base-class test knew only `*PreTrainedModel` and `ModelMixin`
    code = textwrap.dedent("""
        import torch.nn as nn
        from transformers import BertModel


        class BertWithHead(BertModel):
            def __init__(self, config):
                super().__init__(config)
                self.config = config

            def forward(self, input_ids):
                hidden = super().forward(input_ids).last_hidden_state
                head = nn.Linear(self.config.hidden_size, 2)
                return head(hidden[:, 0])
        """).lstrip("\n")
    assert [(f.code, f.line) for f in lint_source(code, "model.py", select=["DL016"])] == [("DL016", 13)]


def test_all_names_every_public_name_the_package_and_its_readers_use():
    # `__all__` is the query API: every public name knowledge/__init__ defines, and every `kb.X`
    # another module reads, is in it (MODEL_NAMESPACES, MODEL_BUILDERS, OBJECT_KINDS were not)
    tree = ast.parse((PACKAGE / "knowledge" / "__init__.py").read_text(encoding="utf-8"))
    defined = {t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets
               if isinstance(t, ast.Name)}
    defined |= {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    defined = {name for name in defined if not name.startswith("_")}
    read = set()
    for path in PACKAGE.rglob("*.py"):
        if "knowledge" not in path.parts:
            read |= set(re.findall(r"\bkb\.([A-Za-z]\w*)", path.read_text(encoding="utf-8")))
    assert not (defined | read) - set(kb.__all__)
