"""False-positive causes found by the first look of 2026-11-27 (sixth round, devicelint
6bb5022, `benchmarks/firstlook/2026-11-27.json`), each as a realistic program with its
control: the same program with the bug put back must still be flagged.

- `accelerator.backward(loss)` (accelerate; Fabric and DeepSpeed engines read the same) was
  taken for a tensor's own `backward`, which "proved" `accelerator` a tensor with a graph; then
  `accelerator.unwrap_model(student)` was a tensor, its in-place `student.to("cpu")` a discarded
  move (3 false DL006), and `accelerator.gather(loss.repeat(n))` a graph kept in a list (1 false
  DL010) in a Kaggle solution's knowledge-distillation and MLM scripts.
- A replaced head built as `nn.Sequential(nn.Dropout(...), nn.Linear(...).to(device))` was taken
  for a host layer although its only layer with weights is moved as it is built (1 false DL001
  in a course's experiment-tracking script), and the message named the callee
  (`writer.add_graph`) for the model handed to it as `model=model`.
- `utils = torch.hub.load(repo, "nvidia_ssd_processing_utils")` was taken for a model that must
  be moved because its method is given device detections (1 false DL001 in a course notebook).
- `confusion_matrix[t.long(), p.long()] += 1` over `zip(classes.view(-1), preds.view(-1))`: the
  elements of iterating a tensor may be 0-dim, which PyTorch reads as numbers when they index
  a host tensor (1 false DL011 in a course project).

Lines ending in `# <- DLnnn` must be flagged with that code and nothing else may be flagged.
"""

import pytest
from inference_cases import assert_marked, program

from devicelint.engine import lint_source

_KD_SWA = """
from accelerate import Accelerator
from torch.optim.swa_utils import SWALR, AveragedModel
from transformers import AutoModel

parser = argparse.ArgumentParser()
parser.add_argument("--model", default="microsoft/deberta-v3-base")
parser.add_argument("--swa_start", type=int, default=100)
parser.add_argument("--eval_every", type=int, default=50)
args = parser.parse_args()


class Student(nn.Module):
    def __init__(self, name):
        super().__init__()
        self.base_model = AutoModel.from_pretrained(name)
        self.classifier = nn.Linear(self.base_model.config.hidden_size, 1)

    def get_logits(self, batch):
        out = self.base_model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])
        return self.classifier(out.last_hidden_state)

    def compute_loss(self, logits, labels):
        loss = F.binary_cross_entropy_with_logits(logits.squeeze(-1), labels, reduction="none")
        return loss.mean()


def train(train_dl, valid_dl):
    student = Student(args.model)
    swa_model = AveragedModel(student)
    optimizer = torch.optim.AdamW(student.parameters(), lr=2e-5)
    accelerator = Accelerator(mixed_precision="fp16")
    student, optimizer, train_dl, valid_dl = accelerator.prepare(student, optimizer, train_dl, valid_dl)
    swa_scheduler = SWALR(optimizer, swa_lr=1e-6)
    step = 0
    for batch in train_dl:
        student.train()
        logits = student.get_logits(batch)
        loss = student.compute_loss(logits, batch["labels"])
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
        step += 1
        if step % args.eval_every == 0:
            student.eval()
            losses = []
            for vb in valid_dl:
                with torch.no_grad():
                    v_logits = student.get_logits(vb)
                v_loss = student.compute_loss(v_logits, vb["labels"])
                losses.append(accelerator.gather(v_loss.repeat(8)))
            print("valid loss", torch.cat(losses).mean().item())
            student = accelerator.unwrap_model(student)
            torch.save(student.state_dict(), "student.pt")
            if step >= args.swa_start:
                student.to("cpu")
                swa_model.update_parameters(student)
                swa_scheduler.step()
                torch.save(swa_model.state_dict(), "swa.pt")
                student = accelerator.prepare(student)
    return swa_model
"""

# control: the same script with a tensor's move thrown away (a mask built on the host)
_KD_SWA_CONTROL = _KD_SWA.replace(
    """        accelerator.backward(loss)
""", """        accelerator.backward(loss)
        mask = torch.ones(logits.shape[0], 1)
        mask.to(accelerator.device)  # <- DL006
""")

_EXPERIMENT_TRACKING = """
import torchvision
from torch.utils.tensorboard import SummaryWriter

device = "cuda" if torch.cuda.is_available() else "cpu"


def train(model, train_dataloader, loss_fn, optimizer, epochs, writer):
    results = {"train_loss": []}
    for epoch in range(epochs):
        model.train()
        train_loss = 0.0
        for X, y in train_dataloader:
            X, y = X.to(device), y.to(device)
            loss = loss_fn(model(X), y)@MARK@
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            train_loss += loss.item()
        results["train_loss"].append(train_loss / len(train_dataloader))
        writer.add_scalars(main_tag="Loss", tag_scalar_dict={"train_loss": train_loss}, global_step=epoch)
        writer.add_graph(model=model, input_to_model=torch.randn(32, 3, 224, 224, device=device))@MARK@
    writer.close()
    return results


class_names = ["pizza", "steak", "sushi"]
weights = torchvision.models.EfficientNet_B0_Weights.DEFAULT
model = torchvision.models.efficientnet_b0(weights=weights).to(device)
for param in model.features.parameters():
    param.requires_grad = False
model.classifier = torch.nn.Sequential(
    nn.Dropout(p=0.2, inplace=True),
    nn.Linear(in_features=1280, out_features=len(class_names), bias=True)@MOVED@)
train_dataloader = make_loader()
optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
results = train(model, train_dataloader, nn.CrossEntropyLoss(), optimizer, 5, SummaryWriter())
"""

_SSD_HUB = """
import matplotlib.pyplot as plt
import matplotlib.patches as patches

precision = "fp32"
ssd = torch.hub.load("NVIDIA/DeepLearningExamples:torchhub", "nvidia_ssd", model_math=precision)
utils = torch.hub.load("NVIDIA/DeepLearningExamples:torchhub", "nvidia_ssd_processing_utils")
@MOVE@
ssd.eval()
urls = [
    "http://images.cocodataset.org/test2017/000000550803.jpg",
    "http://images.cocodataset.org/test2017/000000004053.jpg",
]
inputs = [utils.prepare_input(url) for url in urls]
tensor = utils.prepare_tensor(inputs, precision == "fp16").to("cuda")
with torch.no_grad():
    detections = ssd(tensor)@MARK@
results = utils.decode_results(detections)
best_results = [utils.pick_best(r, 0.40) for r in results]
classes_to_labels = utils.get_coco_object_dictionary()
for image_idx in range(len(best_results)):
    fig, ax = plt.subplots(1, figsize=(7, 7))
    ax.imshow(inputs[image_idx] / 2 + 0.5)
    bboxes, classes, confidences = best_results[image_idx]
    for idx in range(len(bboxes)):
        left, bot, right, top = bboxes[idx]
        x, y, w, h = [val * 300 for val in [left, bot, right - left, top - bot]]
        ax.add_patch(patches.Rectangle((x, y), w, h, linewidth=1, edgecolor="r", facecolor="none"))
        ax.text(x, y, "{} {:.0f}%".format(classes_to_labels[classes[idx] - 1], confidences[idx] * 100))
plt.show()
"""

_CONFUSION = """
from torchvision import models
from torchvision.datasets import ImageFolder
import torchvision.transforms as tt


def to_device(data, device):
    if isinstance(data, (list, tuple)):
        return [to_device(x, device) for x in data]
    return data.to(device, non_blocking=True)


class DeviceDataLoader:
    \"\"\"Wrap a dataloader to move data to a device\"\"\"

    def __init__(self, dl, device):
        self.dl = dl
        self.device = device

    def __iter__(self):
        for b in self.dl:
            yield to_device(b, self.device)

    def __len__(self):
        return len(self.dl)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
valid_ds = ImageFolder("data/validation", tt.Compose([tt.Resize(64), tt.ToTensor()]))
valid_dl = DeviceDataLoader(DataLoader(valid_ds, 128, num_workers=3, pin_memory=True), device)
model = to_device(models.resnet18(num_classes=3), device)

nb_classes = 3
class_weights = torch.tensor([1.0, 2.0, 0.5])
confusion_matrix = torch.zeros(nb_classes, nb_classes)
with torch.no_grad():
    for i, (inputs, classes) in enumerate(valid_dl):
        inputs = inputs.to(device)
        classes = classes.to(device)
        outputs = model(inputs)
        _, preds = torch.max(outputs, 1)
        for t, p in zip(classes.view(-1), preds.view(-1)):
            confusion_matrix[t.long(), p.long()] += 1
@CONTROL@
print(confusion_matrix.diag() / confusion_matrix.sum(1))
"""

def _fill(template: str, **parts) -> str:
    for key, text in parts.items():
        template = template.replace(f"@{key.upper()}@", text)
    return template


CASES = {
    # accelerate's `backward(loss)` is no tensor's own: the object stays what it was
    "kd_swa_accelerate": _KD_SWA,
    "kd_swa_accelerate_control": _KD_SWA_CONTROL,
    # a head whose only layer with weights is moved as it is built
    "head_moved_inside_sequential": _fill(_EXPERIMENT_TRACKING, moved=".to(device)", mark=""),
    # (since engine8 reported where the new layer runs, not on the call that hands the moved model in)
    "head_left_on_host_control": _fill(_EXPERIMENT_TRACKING, moved="", mark="  # <- DL001"),
    # a hub entry point's helper object, never used as a model
    "hub_processing_utils": _fill(_SSD_HUB, move='ssd.to("cuda")', mark=""),
    "hub_model_not_moved_control": _fill(_SSD_HUB, move="", mark="  # <- DL001"),
    # the elements of iterating a flattened device tensor index a host matrix as numbers
    "confusion_matrix_elements": _fill(_CONFUSION, control=""),
    "whole_index_tensor_control": _fill(
        _CONFUSION, control="        pred_weights = class_weights[preds]  # <- DL011"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_firstlook_cause(name):
    assert_marked(name, CASES[name])


def test_a_model_handed_to_a_graph_writer_is_named_as_handed():
    """`writer.add_graph(model=model, ...)` on a model whose head was replaced on the host: the
    message names `model`, not the callee `writer.add_graph`."""
    code = program(_fill(_EXPERIMENT_TRACKING, moved="", mark=""))
    messages = [f.message for f in lint_source(code, "tracking.py", select=["DL001"])]
    assert messages and all(m.startswith("`model.classifier` was replaced") for m in messages), messages
