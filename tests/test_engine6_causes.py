"""Misses of the blind bug-report set (benchmarks/bugreports), each as the general piece of the
engine it lacked, shown on realistic scripts other than the cases themselves:

- A module that builds no weights of its own but keeps those of a model it is handed
  (`self.features = vgg.features[:26]`, `self.teacher = teacher`): it is that model under
  another name, not a parameter-free module (case 109: a content loss over a VGG the
  `except` arm builds on the host). With a branch join in front: one arm loads the model to
  the device, the other builds it on the host; both reach the call, so the host arm fails.
- A device parameter whose default is `"cuda"` in a file with no CUDA check (DL007), flagged
  where the default is used: a function called here without the argument, or called from
  nowhere in the file (an entry point); not one every call hands a device (case 122).

Lines ending in `# <- DLnnn` must be flagged with that code and nothing else may be flagged.
"""

import pytest
from inference_cases import expected, findings_at, program

MISSION = ["DL001", "DL002", "DL003", "DL004", "DL006", "DL010", "DL011"]

_PERCEPTUAL = """
import torchvision.models as models

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=5)
parser.add_argument("--lr", type=float, default=1e-3)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class PerceptualLoss(nn.Module):
    \"\"\"L2 distance between the early VGG features of two images.\"\"\"

    def __init__(self, backbone, layers=16):
        super().__init__()
        self.blocks = backbone.features[:layers]
        self.criterion = nn.MSELoss()

    def forward(self, restored, target):
        return self.criterion(self.blocks(restored), self.blocks(target))


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 3, 3, padding=1))

    def forward(self, x):
        return x - self.body(x)


vgg = models.vgg16(weights="IMAGENET1K_V1"){vgg_move}
vgg.eval()
perceptual = PerceptualLoss(vgg){loss_move}
model = Denoiser().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
loader = DataLoader(TensorDataset(torch.rand(32, 3, 64, 64), torch.rand(32, 3, 64, 64)), batch_size=8)

for epoch in range(args.epochs):
    for noisy, clean in loader:
        noisy, clean = noisy.to(device), clean.to(device)
        restored = model(noisy)
        loss = F.l1_loss(restored, clean) + 0.1 * perceptual(restored, clean){mark}
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


def _assert_marked(case: str, rules=MISSION) -> None:
    code = program(case)
    got = findings_at(code, rules)
    assert got == expected(code), f"got {sorted(got)}"


def test_a_loss_module_keeping_a_handed_host_model_is_a_model_never_moved():
    _assert_marked(_PERCEPTUAL.format(vgg_move="", loss_move="", mark="  # <- DL001"))


@pytest.mark.parametrize("vgg_move, loss_move", [(".to(device)", ""), ("", ".to(device)")])
def test_the_handed_model_or_its_keeper_moved_is_silent(vgg_move, loss_move):
    # moving either moves the same parameters
    _assert_marked(_PERCEPTUAL.format(vgg_move=vgg_move, loss_move=loss_move, mark=""))


_DISTILL = """
import os

import zoo

parser = argparse.ArgumentParser()
parser.add_argument("--teacher", default="teacher.pt")
parser.add_argument("--epochs", type=int, default=3)
args = parser.parse_args()
device = "cuda" if torch.cuda.is_available() else "cpu"


class DistillLoss(nn.Module):
    def __init__(self, teacher, temperature=4.0):
        super().__init__()
        self.teacher = teacher
        self.t = temperature

    def forward(self, student_logits, x):
        with torch.no_grad():
            soft = F.softmax(self.teacher(x) / self.t, dim=1)
        return F.kl_div(F.log_softmax(student_logits / self.t, dim=1), soft, reduction="batchmean")


if os.path.exists(args.teacher):
    teacher = torch.load(args.teacher, map_location=device)
    print("loaded the trained teacher")
else:
    teacher = {other_arm}
teacher.eval()
distill = DistillLoss(teacher)
student = Net().to(device)
optimizer = torch.optim.SGD(student.parameters(), lr=0.1)

for epoch in range(args.epochs):
    for x, y in make_loader():
        x, y = x.to(device), y.to(device)
        logits = student(x)
        loss = F.cross_entropy(logits, y) + distill(logits, x){mark}
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


def test_one_arm_of_a_join_leaves_the_kept_model_on_the_host():
    # both arms reach the loss; the `else` arm's teacher never leaves the host
    _assert_marked(_DISTILL.format(other_arm="Net()", mark="  # <- DL001"))


@pytest.mark.parametrize("other_arm", ["Net().to(device)", "zoo.build_teacher(args.arch, device=device)"])
def test_both_arms_placed_or_one_unknown_is_silent(other_arm):
    # the device on both paths, or a model from code we cannot see on the other: not certain
    _assert_marked(_DISTILL.format(other_arm=other_arm, mark=""))


_SCORER = '''
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer


class Scorer:
    def __init__(self, name, max_length=512, device="cuda:0"):
        self.device = device
        self.max_length = max_length
        self.tokenizer = AutoTokenizer.from_pretrained(name)
        self.model = AutoModelForSequenceClassification.from_pretrained(name)
        self.model.to(device)
        self.model.eval()

    def dummy_batch(self, n=2, device="cuda"):
        # a method nobody in this file calls: its package's other files drive it
        return torch.zeros(n, self.max_length, dtype=torch.long, device=device)

    @torch.no_grad()
    def score(self, texts, batch_size=16):
        out = []
        for i in range(0, len(texts), batch_size):
            enc = self.tokenizer(texts[i:i + batch_size], truncation=True, padding=True, return_tensors="pt")
            enc = {k: v.to(self.device) for k, v in enc.items()}
            out += self.model(**enc).logits.softmax(-1)[:, 1].tolist()
        return out


def load_scorer(name="org/toxicity", device=DEFAULT):
    return Scorer(name, device=device)


def score_file(path, device="cuda"):
    with open(path) as f:
        texts = [line.strip() for line in f]
    return load_scorer(device=device).score(texts)
'''


def _dl007_lines(code: str) -> set:
    return {line for _, line in findings_at(code, ["DL007"], "scorer.py")}


def _line_of(code: str, text: str) -> int:
    return next(i for i, line in enumerate(code.splitlines(), start=1) if text in line)


def test_a_cuda_default_only_an_entry_point_runs_with_is_flagged_there():
    # `Scorer` and `load_scorer` are always handed `device` here: their callers decide;
    # `score_file` is called from nowhere in the file: its callers get "cuda" (a method
    # nobody here calls, `dummy_batch`, is left to its package's other files)
    code = _SCORER.replace("DEFAULT", '"cuda:0"')
    assert _dl007_lines(code) == {_line_of(code, "def score_file")}


def test_a_cuda_default_of_a_function_called_here_without_it_is_flagged():
    code = _SCORER.replace("DEFAULT", '"cuda:0"') + "\n\nprint(load_scorer().score(['fine']))\n"
    assert _dl007_lines(code) == {_line_of(code, "def load_scorer"), _line_of(code, "def score_file")}


def test_a_cuda_default_in_a_file_that_checks_for_cuda_is_silent():
    code = _SCORER.replace("DEFAULT", '"cuda" if torch.cuda.is_available() else "cpu"')
    assert _dl007_lines(code) == set()


_STAGE = """
import torchvision.models as models
from pipeline.core import BaseStage, register_stage

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class EmbedStage(BaseStage):
    \"\"\"Embeds every image of a shard with a ResNet trunk; the runner builds the stage.\"\"\"

    def __init__(self, config):
        super().__init__(config)
        self.batch_size = config.get("batch_size", 64)
        trunk = models.resnet50(weights="IMAGENET1K_V2")
        trunk.fc = nn.Identity()
        self.net = trunk.eval()

    def _embed(self, images):
        batch = torch.stack(images).to(DEVICE)
        with torch.no_grad():
            return self.net(batch).cpu(){mark}

    {extra}def process(self, shard):
        out = []
        for i in range(0, len(shard), self.batch_size):
            out.append(self._embed(shard[i:i + self.batch_size]))
        return torch.cat(out)


register_stage("embed", EmbedStage)
{tail}"""


def test_a_class_of_an_unseen_base_that_places_its_inputs_keeps_its_model_where_built():
    # the stage moves its batches to the module's device itself and is no `nn.Module` (no
    # `forward`, never `self.to()`, no object of it moved here): its ResNet stays on the host
    _assert_marked(_STAGE.format(mark="  # <- DL001", extra="", tail=""))


@pytest.mark.parametrize("extra, tail", [
    ("def forward(self, x):\n        return self.net(x)\n\n    ", ""),  # may be a module moved by its runner
    ("", "stage = EmbedStage({})\nstage.to(DEVICE)\n"),  # an object of it moved here
])
def test_an_unseen_base_that_may_move_the_object_is_silent(extra, tail):
    _assert_marked(_STAGE.format(mark="", extra=extra, tail=tail))


def test_an_unseen_base_whose_methods_move_to_its_own_device_is_silent():
    # `self.device` may be set by the base, which may place the trunk there too
    case = _STAGE.format(mark="", extra="", tail="").replace(".to(DEVICE)", ".to(self.device)")
    _assert_marked(case)


_SAMPLER = """
import math

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=1000)
parser.add_argument("--n", type=int, default=16)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def cosine_betas(steps, s=0.008):
    betas = []
    for i in range(steps):
        f1 = math.cos((i / steps + s) / (1 + s) * math.pi / 2) ** 2
        f2 = math.cos(((i + 1) / steps + s) / (1 + s) * math.pi / 2) ** 2
        betas.append(min(1 - f2 / f1, 0.999))
    return torch.tensor(betas)


def gather(schedule, t, x):
    return schedule[t].view(-1, *([1] * (x.dim() - 1))){mark}


class Sampler:
    def __init__(self, betas):
        self.betas = torch.as_tensor(betas, dtype=torch.float32){place}
        self.alphas_bar = torch.cumprod(1 - self.betas, dim=0)

    @torch.no_grad()
    def sample(self, model, shape):
        x = torch.randn(shape, device=device)
        for i in reversed(range(len(self.betas))):
            t = torch.full((shape[0],), i, dtype=torch.long, device=device)
            eps = model(x)
            a = gather(self.alphas_bar, t, x)
            x = (x - (1 - a).sqrt() * eps) / a.sqrt()
        return x


model = Net().to(device)
sampler = Sampler(cosine_betas(args.steps))
samples = sampler.sample(model, (args.n, 8))
torch.save(samples.cpu(), "samples.pt")
"""


def test_a_tensor_copied_from_a_host_tensor_a_caller_hands_in_stays_on_the_host():
    # `torch.as_tensor(betas)` of the host tensor `cosine_betas` returns: still on the host,
    # indexed with timesteps on the device
    _assert_marked(_SAMPLER.format(mark="  # <- DL011", place=""))


def test_the_copy_placed_on_the_device_is_silent():
    _assert_marked(_SAMPLER.format(mark="", place=".to(device)"))
