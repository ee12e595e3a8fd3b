"""Device inference on code shaped like real training and inference repositories: library
objects (transformers, diffusers, torchvision, PyG), in-place `.to()`, collate functions,
branches on a device flag, statement order, Python-number losses, host-data checkpoints.

Each case is a small but realistic program; lines ending in `# <- DLnnn` must be flagged
with that code and nothing else may be flagged (all rules on by default run).
"""

import pytest
from inference_cases import expected, program

from devicelint.engine import lint_source

RULES = ["DL001", "DL002", "DL003", "DL004", "DL006", "DL009", "DL010", "DL011"]

CASES = {
    # ------------------------------------------------ a. models from code we cannot see
    "imported_teacher_never_moved": """
from models import ResNetTeacher, StudentNet

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
teacher = ResNetTeacher(num_classes=3)
teacher.load_state_dict(torch.load("teacher.pt", map_location="cpu"))
teacher.eval()
student = StudentNet(num_classes=3).to(device)
optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
for x, y in make_loader():
    x, y = x.to(device), y.to(device)
    with torch.no_grad():
        soft = teacher(x).softmax(-1)  # <- DL001
    loss = F.kl_div(student(x).log_softmax(-1), soft, reduction="batchmean")
""",
    "torchvision_arch_by_name_never_moved": """
import torchvision

parser = argparse.ArgumentParser()
parser.add_argument("--arch", default="resnet18")
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = getattr(torchvision.models, args.arch)(weights=None)
model.eval()
images = torch.randn(2, 3, 224, 224).to(device)
logits = model(images)  # <- DL001
""",
    "architecture_function_from_a_package": """
import robust_models as rc

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = rc.wide_resnet(depth=28, widen_factor=10)
state = torch.load("wrn.pt", map_location="cpu")
model.load_state_dict(state["model"])
model.eval()
correct = 0
for x, y in make_loader():
    x, y = x.to(device), y.to(device)
    correct += (model(x).argmax(1) == y).sum().item()  # <- DL001
""",
    "imported_model_moved_or_handed_over_is_fine": """
from accelerate import Accelerator
from models import Encoder, Decoder, build_model

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
enc = Encoder()
enc.load_state_dict(torch.load("enc.pt", map_location="cpu"))
enc.to(device)
dec = Decoder()
dec.eval()
accelerator = Accelerator()
dec = accelerator.prepare(dec)
net = build_model("resnet")
net.eval()
x = torch.randn(2, 8).to(device)
z = enc(x)
y = dec(z)
w = net(x)
""",
    "imported_callable_not_proved_a_module": """
from transforms import Normalize

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
norm = Normalize(0.5, 0.2)
x = norm(torch.randn(2, 8).to(device))
""",
    # ------------------------------------------------ b. batches from sources not modelled
    "tokenizer_output_not_moved": """
from transformers import AutoModel, AutoTokenizer

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
encoder = AutoModel.from_pretrained("bert-base-uncased").to(device)

def embed(texts):
    enc = tokenizer(texts, padding=True, truncation=True, return_tensors="pt")
    with torch.no_grad():
        out = encoder(**enc)  # <- DL002
    return out.last_hidden_state[:, 0]
""",
    "classes_imported_from_their_submodule": """
from transformers.models.bert import BertModel, BertTokenizerFast
from diffusers.models import AutoencoderKL

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
tokenizer = BertTokenizerFast.from_pretrained("bert-base-uncased")
encoder = BertModel.from_pretrained("bert-base-uncased")
vae = AutoencoderKL.from_pretrained("stabilityai/sd-vae-ft-mse").to(device)

def embed(texts, images):
    enc = tokenizer(texts, padding=True, return_tensors="pt").to(device)
    with torch.no_grad():
        out = encoder(**enc)  # <- DL001
        latents = vae.encode(images.to(device)).latent_dist.sample()
    return out.last_hidden_state[:, 0], latents
""",
    "generator_resolution_sizes_a_pil_image": """
import PIL.Image

import legacy


def project(network_pkl, target_fname):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    G = legacy.load_network_pkl(open(network_pkl, "rb"))["G_ema"].requires_grad_(False).to(device)
    target_pil = PIL.Image.open(target_fname).convert("RGB")
    # a size the moved generator keeps: a number, so the image stays a PIL image
    target_pil = target_pil.resize((G.img_resolution, G.img_resolution), PIL.Image.LANCZOS)
    target_uint8 = np.array(target_pil, dtype=np.uint8)
    target = torch.tensor(target_uint8.transpose([2, 0, 1]), device=device)
    synth = G.synthesis(torch.randn(1, G.num_ws, G.w_dim, device=device))
    return (synth - target).square().mean().item()
""",
    "evaluator_moves_predictions_to_its_cpu_device": """
from evaluation.coco import COCOEvaluator


class RotatedCOCOEvaluator(COCOEvaluator):
    def process(self, inputs, outputs):
        for input, output in zip(inputs, outputs):
            prediction = {"image_id": input["image_id"]}
            if "instances" in output:
                instances = output["instances"].to(self._cpu_device)
                prediction["instances"] = self.instances_to_json(instances, input["image_id"])
            self._predictions.append(prediction)

    def instances_to_json(self, instances, img_id):
        boxes = instances.pred_boxes.tensor.numpy()
        return [{"image_id": img_id, "bbox": b} for b in boxes.tolist()]
""",
    "labels_rebuilt_on_the_host_and_losses_plotted": """
import matplotlib.pyplot as plt


def train(model, loader, device, epochs=3):
    opt = torch.optim.Adam(model.parameters())
    crit = nn.CrossEntropyLoss()
    losses = []
    for epoch in range(epochs):
        for x, y in loader:
            x = x.to(device)
            y = torch.LongTensor(y)
            out = model(x)
            loss = crit(out, y)  # <- DL011
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.detach())
    # once the labels are fixed, the losses are device tensors: plotting them fails too
    plt.plot(losses)  # <- DL003
    return losses


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train(Net().to(device), make_loader(), device)
""",
    "lightning_steps_run_on_the_module_device": """
import lightning as L


class LitClassifier(L.LightningModule):
    def __init__(self, num_classes=10):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, num_classes))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self.net(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        preds = self.net(x).argmax(1)
        self.log("val_acc", (preds == y).float().mean())
        return preds.numpy()  # <- DL003

    def predict_step(self, batch, batch_idx):
        x, _ = batch
        return self.net(x).softmax(-1).cpu().numpy()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)
""",
    "rollout_carries_the_next_observation_back_on_the_host": """
import gymnasium as gym
from torch.distributions import Categorical


class Agent(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, n_actions))

    def act(self, x):
        return Categorical(logits=self.actor(x)).sample()


def rollout(args):
    device = torch.device("cuda" if torch.cuda.is_available() and args.cuda else "cpu")
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1") for _ in range(4)])
    agent = Agent(4, 2).to(device)
    next_obs, _ = envs.reset(seed=1)
    next_obs = torch.Tensor(next_obs).to(device)
    for step in range(128):
        with torch.no_grad():
            action = agent.act(next_obs)  # <- DL011
        next_obs, reward, term, trunc, info = envs.step(action.cpu().numpy())
        # the next round meets the agent with this host tensor
        next_obs = torch.Tensor(next_obs)


def rollout_moved(args):
    device = torch.device("cuda" if torch.cuda.is_available() and args.cuda else "cpu")
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1") for _ in range(4)])
    agent = Agent(4, 2).to(device)
    next_obs = torch.Tensor(envs.reset(seed=1)[0]).to(device)
    for step in range(128):
        with torch.no_grad():
            action = agent.act(next_obs)
        next_obs, reward, term, trunc, info = envs.step(action.cpu().numpy())
        next_obs = torch.Tensor(next_obs).to(device)
""",
    "hf_collator_loader_not_moved": """
from transformers import AutoModelForSequenceClassification, DataCollatorWithPadding

def train(model, tokenizer, train_ds, device):
    loader = DataLoader(train_ds, batch_size=16, collate_fn=DataCollatorWithPadding(tokenizer))
    model.to(device)
    model.train()
    for batch in loader:
        outputs = model(**batch)  # <- DL002
        outputs.loss.backward()
""",
    "data_iter_parameter_not_moved": """
def evaluate(model, data_iter, device):
    correct = 0
    for images, labels in data_iter:
        images = images.to(device)
        preds = model(images).argmax(1)
        correct += (preds == labels).sum().item()  # <- DL002
    return correct

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
""",
    "eval_loop_of_a_script_whose_train_loop_moves": """
from data import get_loaders

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
train_loader, test_loader = get_loaders(batch_size=32)
model = Net().to(device)
optimizer = torch.optim.Adam(model.parameters())
for x, y in train_loader:
    x, y = x.to(device), y.to(device)
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
model.eval()
with torch.no_grad():
    for x, y in test_loader:
        logits = model(x)  # <- DL002
""",
    "prepared_loaders_stay_unknown": """
from accelerate import Accelerator
from data import get_loaders

accelerator = Accelerator()
device = accelerator.device
train_loader, test_loader = get_loaders(batch_size=32)
model = Net().to(device)
model, train_loader, test_loader = accelerator.prepare(model, train_loader, test_loader)
for x, y in train_loader:
    loss = F.cross_entropy(model(x), y)
for x, y in test_loader:
    logits = model(x)
""",
    "loader_class_over_device_data_stays_unknown": """
from torch_geometric.datasets import Planetoid
from torch_geometric.loader import NeighborLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
data = Planetoid("data", "Cora")[0].to(device, "x", "y")
train_loader = NeighborLoader(data, num_neighbors=[10, 5], batch_size=128)
model = Net().to(device)
for batch in train_loader:
    out = model(batch.x, batch.edge_index.to(device))
    loss = F.cross_entropy(out, batch.y)
""",
    "visible_loader_factory_is_followed_not_guessed": """
from torch_geometric.datasets import Planetoid
from torch_geometric.loader import NeighborLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
data = Planetoid("data", "Cora")[0]
data.to(device, "x", "y")

def get_loader(nodes):
    return NeighborLoader(data, input_nodes=nodes, num_neighbors=[10, 5], batch_size=128)

train_loader = get_loader(data.train_mask)
model = Net().to(device)
for batch in train_loader:
    out = model(batch.x, batch.edge_index.to(device))
    loss = F.cross_entropy(out, batch.y)
""",
    # ------------------------------------------------ c. model methods other than __call__
    "model_method_with_host_batch": """
from transformers import CLIPModel

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
clip = CLIPModel.from_pretrained("openai/clip-vit-base-patch32").to(device)
loader = DataLoader(TensorDataset(torch.randn(32, 3, 224, 224)), batch_size=8)
for (pixels,) in loader:
    with torch.no_grad():
        feats = clip.get_image_features(pixel_values=pixels)  # <- DL002
""",
    "peft_wrapper_keeps_the_placement": """
from peft import LoraConfig, PeftModel, get_peft_model
from transformers import AutoModelForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"
base = AutoModelForCausalLM.from_pretrained("gpt2", device_map=device)
model = get_peft_model(base, LoraConfig(r=8))
model.eval()
ids = torch.randint(10, 100, (1, 16)).to(device)
out = model(ids)
plain = AutoModelForCausalLM.from_pretrained("gpt2")
tuned = PeftModel.from_pretrained(plain, "adapter")
logits = tuned(ids)  # <- DL001
""",
    "storage_object_moved_in_place_is_not_a_model": """
from storage import RolloutStorage

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
rollouts = RolloutStorage(128, 8)
rollouts.to(device)
for step in range(128):
    masks = torch.FloatTensor([[1.0] for _ in range(8)])
    rollouts.insert(torch.randn(8, 4), masks)
""",
    "adapter_wrapper_moved_again_is_not_redundant": """
from peft import PeftModel
from diffusers import UNet2DConditionModel

device = "cuda" if torch.cuda.is_available() else "cpu"
unet = UNet2DConditionModel.from_pretrained("sd", subfolder="unet").to(device)
model = PeftModel.from_pretrained(unet, "adapter")
model = model.to(device)
""",
    # ------------------------------------------------ 1. non-tensors read from models
    "diffusers_pipeline_images_are_pil": """
from diffusers import StableDiffusionPipeline

device = "cuda" if torch.cuda.is_available() else "cpu"
pipe = StableDiffusionPipeline.from_pretrained("some/checkpoint", torch_dtype=torch.float16)
pipe = pipe.to(device)
result = pipe(prompt="a watercolor fox", num_inference_steps=30, guidance_scale=7.5)
image = result.images[0]
pixels = np.asarray(image)
grid = np.stack([np.array(im) for im in pipe(["a", "b"]).images])
""",
    "diffusers_pipeline_moved_in_place": """
from diffusers import DiffusionPipeline

def generate(prompts, out_dir):
    pipe = DiffusionPipeline.from_pretrained("some/checkpoint")
    pipe.to("cuda")
    for i, prompt in enumerate(prompts):
        images = pipe(prompt, num_images_per_prompt=2).images
        for j, img in enumerate(images):
            arr = np.array(img).astype(np.float32) / 255.0
            np.save(f"{out_dir}/{i}_{j}.npy", arr)
""",
    "diffusers_pipeline_pt_output_is_a_device_tensor": """
from diffusers import StableDiffusionPipeline

pipe = StableDiffusionPipeline.from_pretrained("some/checkpoint").to("cuda")
batch = pipe("a red bicycle", output_type="pt").images
arr = batch.numpy()  # <- DL003
""",
    "transformers_pipeline_outputs_are_python": """
from transformers import pipeline

classifier = pipeline("sentiment-analysis", device=0)
results = classifier(["great movie", "terrible plot"])
scores = np.array([r["score"] for r in results])
""",
    "numbers_and_strings_from_model_outputs": """
from transformers import AutoModelForCausalLM, AutoTokenizer

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
tokenizer = AutoTokenizer.from_pretrained("gpt2")
model = AutoModelForCausalLM.from_pretrained("gpt2").to(device)

class Generator:
    def __init__(self, model, tokenizer):
        self.model = model
        self.tokenizer = tokenizer

    def run(self, prompt):
        enc = self.tokenizer(prompt, return_tensors="pt").to(device)
        with torch.no_grad():
            out_ids = self.model.generate(**enc, max_new_tokens=20)
        text = self.tokenizer.decode(out_ids[0], skip_special_tokens=True)
        n_tokens = out_ids.size(1)
        lengths = np.array([len(text), n_tokens, out_ids.shape[0]])
        return np.asarray(text.split()), lengths

Generator(model, tokenizer).run("Hello")
""",
    "to_pil_then_numpy": """
from torchvision import transforms

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
to_pil = transforms.ToPILImage()
model = Net().to(device)
x = torch.randn(4, 8).to(device)
recon = model(x)
img = to_pil(recon.cpu())
arr = np.asarray(img)
item = recon.mean().item()
vals = np.array([item, float(recon.sum())])
""",
    "converter_callables_do_not_return_device_tensors": """
class Demo:
    def __init__(self, model, render_fn, decode_fn, device):
        self.model = model
        self.render = render_fn
        self.decode = decode_fn
        self.device = device

    def run(self, x):
        pred = self.model(x.to(self.device))
        frame = np.asarray(self.render(pred))
        words = np.array(self.decode(pred.argmax(-1)))
        return frame, words, pred.numpy()  # <- DL003

def encode_prompts(text_encoder, ids, device):
    with torch.no_grad():
        emb = text_encoder(ids.to(device))[0]
    return emb.numpy()  # <- DL003
""",
    # ------------------------------------------------ 2. in-place .to()
    "batch_encoding_moved_in_place": """
from transformers import AutoModelForSequenceClassification, AutoTokenizer

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased").to(device)
texts = ["a", "b"]
inputs = tokenizer(texts, padding=True, truncation=True, return_tensors="pt")
inputs.to(device)
with torch.no_grad():
    logits = model(**inputs).logits
""",
    "loader_batch_object_moved_in_place": """
from transformers import AutoModelForSequenceClassification

def evaluate(model, eval_dataloader, device):
    model.eval()
    for batch in eval_dataloader:
        batch.to(device)
        with torch.no_grad():
            outputs = model(**batch)
        preds = outputs.logits.argmax(-1).cpu().numpy()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased")
model.to(device)
evaluate(model, DataLoader([], batch_size=8), device)
""",
    "pyg_batches_move_in_place": """
from torch_geometric.data import Data
from torch_geometric.loader import DataLoader as GraphLoader

class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 2)

    def forward(self, x, edge_index):
        return self.lin(x)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = GCN().to(device)
graph = Data(x=torch.randn(10, 16), edge_index=torch.randint(0, 10, (2, 30)))
graph.to(device)
out = model(graph.x, graph.edge_index)
loader = GraphLoader([graph], batch_size=4)
for data in loader:
    data.to(device)
    loss = F.cross_entropy(model(data.x, data.edge_index), data.y)
""",
    "user_class_with_own_to": """
class Episode:
    def __init__(self, obs, actions):
        self.obs = obs
        self.actions = actions

    def to(self, device):
        self.obs = self.obs.to(device)
        self.actions = self.actions.to(device)
        return self

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
ep = Episode(torch.randn(5, 8), torch.randint(0, 3, (5,)))
ep.to(device)
loss = F.cross_entropy(model(ep.obs), ep.actions)
""",
    "module_parameter_of_a_module_method": """
class Adapter(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def replace(self, parent, name, new_module, child):
        setattr(parent, name, new_module)
        new_module.to(child.weight.device)

    def forward(self, x, mask):
        mask.to(x.device)  # <- DL006
        return self.proj(x)
""",
    "quantized_model_is_placed_by_the_loader": """
from transformers import AutoModelForCausalLM, BitsAndBytesConfig

model = AutoModelForCausalLM.from_pretrained("opt", quantization_config=BitsAndBytesConfig(load_in_8bit=True))
ids = torch.randint(0, 100, (1, 8)).to("cuda")
out = model(input_ids=ids)
""",
    "tensor_to_as_statement_still_flagged": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
for x, y in make_loader():
    x.to(device)  # <- DL006
    y = y.to(device)
""",
    # ------------------------------------------------ 3. collate functions that move
    "collate_builds_tensors_on_device": """
class Collator:
    def __init__(self, device):
        self.device = device

    def collate(self, samples):
        xs = torch.tensor([s[0] for s in samples], device=self.device)
        ys = torch.tensor([s[1] for s in samples], device=self.device)
        return xs, ys

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
collator = Collator(device)
loader = DataLoader(list(range(100)), batch_size=8, collate_fn=collator.collate)
for xs, ys in loader:
    loss = F.cross_entropy(model(xs), ys)
""",
    "collate_function_calls_to_device": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

def collate(samples):
    xs = torch.stack([s[0] for s in samples])
    ys = torch.stack([s[1] for s in samples])
    return to_device((xs, ys))

def to_device(batch):
    return tuple(t.to(device) for t in batch)

model = Net().to(device)
loader = DataLoader(list(range(100)), batch_size=8, collate_fn=collate)
for xs, ys in loader:
    loss = F.cross_entropy(model(xs), ys)
""",
    # ------------------------------------------------ 4. branches on a device flag
    "gpu_mode_flag_branches": """
class GAN:
    def __init__(self, args):
        self.gpu_mode = args.gpu_mode
        self.G = Net()
        if self.gpu_mode:
            self.G.cuda()

    def sample(self, z):
        if self.gpu_mode:
            z = z.cuda()
        samples = self.G(z)
        if self.gpu_mode:
            samples = samples.cpu().data.numpy()
        else:
            samples = samples.data.numpy()
        return samples
""",
    "args_gpu_none_is_the_cpu_path": """
parser = argparse.ArgumentParser()
parser.add_argument("--gpu", type=int, default=None)
args = parser.parse_args()
model = Net()
if args.gpu is not None:
    model = model.cuda(args.gpu)
x = torch.randn(4, 8)
if args.gpu is not None:
    x = x.cuda(args.gpu)
out = model(x)
if args.gpu is None:
    arr = out.detach().numpy()
else:
    arr = out.detach().cpu().numpy()
""",
    "greedy_decode_casts_with_type_and_stays_on_the_device": """
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def greedy_decode(model, src, max_len, start_symbol, end_symbol):
    src = src.to(DEVICE)
    memory = model.encode(src)
    ys = torch.ones(1, 1).fill_(start_symbol).type(torch.long).to(DEVICE)
    for _ in range(max_len - 1):
        out = model.decode(ys, memory)
        _, next_word = torch.max(model.generator(out[:, -1]), dim=1)
        next_word = next_word.item()
        ys = torch.cat([ys, torch.ones(1, 1).type_as(src.data).fill_(next_word)], dim=0)
        if next_word == end_symbol:
            break
    return ys


def translate(model, src_transform, sentence):
    src = src_transform(sentence).view(-1, 1)
    tgt_tokens = greedy_decode(model, src, max_len=src.shape[0] + 5, start_symbol=2, end_symbol=3).flatten()
    return list(tgt_tokens.numpy())  # <- DL003
""",
    "tensor_type_cast_to_a_tensor_class_may_move_it": """
cuda = torch.cuda.is_available()
Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor
for imgs, _ in make_loader():
    real_imgs = imgs.type(Tensor)
    print(real_imgs.numpy().mean())
""",
    "running_return_with_an_unseen_factor_stays_on_the_device": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
discriminator = Net().to(device)


def predict_reward(state, masks, gamma, returns=None):
    # called by the rollout code of another file: `masks` may be anything that multiplies
    with torch.no_grad():
        reward = discriminator(state.to(device)).sigmoid().log()
    returns = reward.clone() if returns is None else returns * masks * gamma + reward
    print(returns.numpy().mean())  # <- DL003
    return reward
""",
    "model_built_fresh_or_restored_from_a_pickled_checkpoint": """
from models import Encoder

parser = argparse.ArgumentParser()
parser.add_argument("--checkpoint", default=None)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
if args.checkpoint is None:
    encoder = Encoder()
else:
    checkpoint = torch.load(args.checkpoint, map_location="cpu")
    encoder = checkpoint["encoder"]
encoder.train()
for imgs, caps in make_loader():
    imgs = imgs.to(device)
    features = encoder(imgs)  # <- DL001
""",
    "backend_built_with_a_device_keyword_or_handed_in": """
from models.common import DetectMultiBackend
from utils.torch_utils import select_device


def run(weights, device="", model=None, dataloader=None):
    training = model is not None
    if training:  # called by train.py with its model
        device = next(model.parameters()).device
    else:
        device = select_device(device)
        model = DetectMultiBackend(weights, device=device, fp16=False)
    model.eval()
    for images, labels in dataloader:
        images, labels = images.to(device), labels.to(device)
        y = model(images)
""",
    "factory_keywords_unpacked_from_a_mapping_may_hold_the_device": """
def dct_kernel(kernel_size, device=None, dtype=None):
    dd = dict(device=device, dtype=dtype)
    x = torch.eye(kernel_size, **dd)
    k = torch.arange(kernel_size, device=device, dtype=torch.long)[None, :] / (kernel_size * 2)
    v = x * torch.exp(k)
    v[:, 0] = v[:, 0] * torch.sqrt(torch.tensor(1 / (kernel_size * 4), **dd))
    return v
""",
    "one_branch_moves_the_images_but_leaves_the_target": """
parser = argparse.ArgumentParser()
parser.add_argument("--gpu", type=int, default=None)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
criterion = nn.CrossEntropyLoss().to(device)


def validate(loader):
    model.eval()
    with torch.no_grad():
        for i, (images, target) in enumerate(loader):
            if args.gpu is not None and device.type == "cuda":
                images = images.cuda(args.gpu, non_blocking=True)
            else:
                images = images.to(device)
                target = target.to(device)
            output = model(images)
            loss = criterion(output, target)  # <- DL002


validate(make_loader())
""",
    "each_branch_moves_the_whole_batch_its_own_way": """
parser = argparse.ArgumentParser()
parser.add_argument("--gpu", type=int, default=None)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)


def validate(loader):
    model.eval()
    with torch.no_grad():
        for i, (images, target) in enumerate(loader):
            if args.gpu is not None and device.type == "cuda":
                images = images.cuda(args.gpu, non_blocking=True)
                target = target.cuda(args.gpu, non_blocking=True)
            else:
                images = images.to(device)
                target = target.to(device)
            loss = F.cross_entropy(model(images), target)


validate(make_loader())
""",
    "use_cuda_flag_numpy_in_cpu_branch": """
use_cuda = torch.cuda.is_available()
model = Net()
if use_cuda:
    model.cuda()
for x, y in make_loader():
    if use_cuda:
        x, y = x.cuda(), y.cuda()
    out = model(x)
    if not use_cuda:
        preds = out.argmax(1).numpy()
""",
    "device_chosen_under_flag": """
parser = argparse.ArgumentParser()
parser.add_argument("--cuda", action="store_true")
args = parser.parse_args()
device = "cpu"
if args.cuda:
    device = "cuda"
model = Net().to(device)
noise = torch.randn(4, 8, device=device)
out = model(noise)
if not args.cuda:
    arr = out.detach().numpy()
    arr2 = noise.numpy()
""",
    "device_type_check": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
out = model(torch.randn(2, 8, device=device))
if device.type == "cuda":
    arr = out.detach().cpu().numpy()
else:
    arr = out.detach().numpy()
""",
    "availability_guarded_move_then_numpy": """
model = Net()
x = torch.randn(4, 8)
if torch.cuda.is_available():
    model = model.cuda()
    x = x.cuda()
with torch.no_grad():
    out = model(x)
preds = out.argmax(1).numpy()  # <- DL003
""",
    # ------------------------------------------------ 5. statement order
    "shape_probe_before_move": """
class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(8, 32), nn.ReLU())
        with torch.no_grad():
            n_feat = self.features(torch.zeros(1, 8)).shape[1]
        self.head = nn.Linear(n_feat, 3)

    def forward(self, x):
        return self.head(self.features(x))

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
backbone = Net()
with torch.no_grad():
    probe = backbone(torch.zeros(2, 8))
print(probe.shape)
backbone.to(device)
model = Classifier().to(device)
out = model(torch.randn(2, 8).to(device))
""",
    "probe_in_init_then_attribute_moved": """
class Trainer:
    def __init__(self, device):
        self.device = device
        self.model = Net()
        with torch.no_grad():
            n_out = self.model(torch.zeros(1, 8)).shape[1]
        self.model = self.model.to(device)
        self.head = nn.Linear(n_out, 2).to(device)

    def predict(self, x):
        with torch.no_grad():
            return self.model(x.to(self.device)).numpy()  # <- DL003
""",
    "checkpoint_cpu_then_back": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
for epoch in range(3):
    for x, y in make_loader():
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
    model.cpu()
    torch.save(model.state_dict(), f"ckpt_{epoch}.pt")
    model.to(device)
""",
    "checkpoint_through_eval_chain": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
for epoch in range(3):
    for batch_id, (x, y) in enumerate(make_loader()):
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        if batch_id % 100 == 0:
            model.eval().cpu()
            torch.save(model.state_dict(), "ckpt.pth")
            model.to(device).train()
""",
    "save_helper_moves_to_cpu": """
def save_checkpoint(model, path):
    model.cpu()
    torch.save(model.state_dict(), path)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net()
model.to(device)
save_checkpoint(model, "init.pt")
model.to(device)
out = model(torch.randn(2, 8, device=device))
""",
    # ------------------------------------------------ 6. floats and host checkpoints
    "python_float_losses": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
total, seen = 0.0, 0
for x, y in make_loader():
    x, y = x.to(device), y.to(device)
    out = model(x)
    loss = F.cross_entropy(out, y)
    loss.backward()
    ratio = x.size(0) / y.size(0)
    total += ratio
    loss = loss.item()
    total += loss
    seen += float(out.shape[0])
    total += float(loss) * x.size(0)
""",
    "ratio_returned_by_forward_is_a_number": """
class Pooled(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 1)

    def forward(self, x):
        keep = x[x.sum(1) > 0]
        ratio = keep.size(0) / x.size(0)
        return self.fc(keep).view(-1), ratio

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Pooled().to(device)

def evaluate(loader):
    total_ratio = 0
    for x, y in loader:
        out, ratio = model(x.to(device))
        total_ratio += ratio
    return total_ratio / len(loader)

evaluate(make_loader())
""",
    "graph_accumulated_in_eval_loop": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
val_loss = 0.0
for x, y in make_loader():
    loss = F.cross_entropy(model(x.to(device)), y.to(device))
    val_loss += loss  # <- DL010
""",
    "load_of_host_features": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
feats = []
with torch.no_grad():
    for x, _ in make_loader():
        feats.append(model(x.to(device)).cpu())
torch.save(torch.cat(feats), "features.pt")
torch.save(torch.from_numpy(np.zeros((3, 3))), "table.pt")
features = torch.load("features.pt")
table = torch.load("table.pt")
state = torch.load("model.pt")  # <- DL009
""",
    # ------------------------------------------------ h. methods of models from code we cannot see
    "attention_maps_from_a_moved_model_built_elsewhere": """
import matplotlib.pyplot as plt
from backbones import build_vit


def plot_attention(maps, idx=0):
    maps = [m[idx].detach().numpy() for m in maps]  # <- DL003
    fig, axes = plt.subplots(1, len(maps))
    for ax, m in zip(axes, maps):
        ax.imshow(m[0])


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = build_vit("vit_small").to(device)
model.eval()
images = torch.rand(2, 3, 224, 224)
with torch.no_grad():
    maps = model.get_attention_maps(images.to(device))
plot_attention(maps)
""",
    "upsampled_attention_keeps_its_device": """
parser = argparse.ArgumentParser()
parser.add_argument("--patch-size", type=int, default=16)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
vit = torch.hub.load("facebookresearch/dino:main", "dino_vits16").to(device)
img = torch.rand(1, 3, 224, 224)
attn = vit.get_last_selfattention(img.to(device))
attn = attn[0, :, 0, 1:].reshape(6, 14, 14)
heat = F.interpolate(attn.unsqueeze(0), scale_factor=args.patch_size, mode="nearest")[0]
np.save("attn.npy", heat.numpy())  # <- DL003
""",
    "accelerate_prepare_returns_no_tensors": """
from accelerate import Accelerator
from torch.optim import AdamW
from transformers import AutoModelForSequenceClassification, get_linear_schedule_with_warmup

accelerator = Accelerator()
model = AutoModelForSequenceClassification.from_pretrained("bert-base-cased").to(accelerator.device)
optimizer = AdamW(params=model.parameters(), lr=2e-5)
scheduler = get_linear_schedule_with_warmup(optimizer=optimizer, num_warmup_steps=100, num_training_steps=1000)
model, optimizer, train_dl, scheduler = accelerator.prepare(model, optimizer, make_loader(), scheduler)
for step, batch in enumerate(train_dl):
    batch.to(accelerator.device)
    loss = model(**batch).loss
    accelerator.backward(loss)
    optimizer.step()
    scheduler.step()
""",
    "metric_method_of_a_moved_model_gives_host_numbers": """
from graph_models import build_renet

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = build_renet(num_nodes=100, num_rels=10).to(device)
result = torch.tensor([0, 0, 0, 0], dtype=torch.float)
for data in make_loader():
    x, y = data[0].to(device), data[1].to(device)
    with torch.no_grad():
        log_prob = model(x)
    result += model.test(log_prob, y) * y.size(0)
print(result.tolist())
""",
    "unmoved_model_called_with_a_batch_moved_under_the_cuda_flag": """
from torch.autograd import Variable
from data import detection_batches

parser = argparse.ArgumentParser()
parser.add_argument("--cuda", action="store_true")
args = parser.parse_args()
net = Net()
batches = detection_batches(args.root)
for it in range(100):
    images, targets = next(batches)
    if args.cuda:
        images = Variable(images.cuda())
    else:
        images = Variable(images)
    out = net(images)  # <- DL001
""",
    "loss_summed_before_the_accelerator_differentiates_it": """
from accelerate import Accelerator


class Trainer:
    def __init__(self, diffusion_model, loader, accumulate_every=2):
        self.accelerator = Accelerator()
        self.model = diffusion_model
        self.dl = loader
        self.accumulate_every = accumulate_every
        self.opt = torch.optim.Adam(diffusion_model.parameters(), lr=1e-4)

    def train(self, steps):
        device = self.accelerator.device
        for step in range(steps):
            total_loss = 0.0
            for _ in range(self.accumulate_every):
                data = next(self.dl).to(device)
                with self.accelerator.autocast():
                    loss = self.model(data)
                    loss = loss / self.accumulate_every
                    total_loss += loss  # <- DL010
                self.accelerator.backward(loss)
            self.opt.step()
            self.opt.zero_grad()
            print(f"step {step}: loss {total_loss:.4f}")
""",
    "ddp_given_device_ids_for_a_model_never_moved": """
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=0)
args = parser.parse_args()
dist.init_process_group("nccl")
torch.cuda.set_device(args.local_rank)
backbone = Net()
backbone.cuda(args.local_rank)
backbone = DDP(backbone, device_ids=[args.local_rank])
head = nn.Linear(3, 10)
head = nn.parallel.DistributedDataParallel(head, device_ids=[args.local_rank])  # <- DL001
restored = Net()
load_checkpoint(restored, "last.pth")
restored = DDP(restored, device_ids=[args.local_rank])
cpu_only = DDP(Net())
""",
    "heterogeneous_graph_model_never_moved": """
from torch_geometric.datasets import OGB_MAG
from torch_geometric.loader import NeighborLoader
from torch_geometric.nn import GraphSAGE, to_hetero

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
data = OGB_MAG(root="data/mag")[0]
loader = NeighborLoader(data, num_neighbors=[10, 10], batch_size=128, input_nodes=("paper", None))
model = GraphSAGE(-1, 64, num_layers=2, out_channels=349)
model = to_hetero(model, data.metadata(), aggr="sum")
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for batch in loader:
    batch = batch.to(device)
    n = batch["paper"].batch_size
    out = model(batch.x_dict, batch.edge_index_dict)["paper"][:n]  # <- DL001
    loss = F.cross_entropy(out, batch["paper"].y[:n])
""",
    "loss_from_a_factory_meets_an_unmoved_validation_label": """
from ptsemseg.loss import get_loss_function

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
loss_fn = get_loss_function({"name": "cross_entropy"})
val_loader = make_loader()
with torch.no_grad():
    for images_val, labels_val in val_loader:
        images_val = images_val.to(device)
        outputs = model(images_val)
        val_loss = loss_fn(input=outputs, target=labels_val)  # <- DL002
        gt = labels_val.numpy()
""",
    "onnx_export_helper_given_a_moved_image": """
import onnxruntime
from PIL import Image
from torchvision import transforms


def stylize_onnx(content_image, model_path):
    session = onnxruntime.InferenceSession(model_path)

    def to_numpy(tensor):
        return tensor.detach().numpy()  # <- DL003

    return session.run(None, {session.get_inputs()[0].name: to_numpy(content_image)})[0]


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
image = transforms.ToTensor()(Image.open("amber.jpg").convert("RGB"))
image = image.unsqueeze(0).to(device)
styled = stylize_onnx(image, "candy.onnx")
""",
    "architecture_picked_over_branches_never_moved": """
from torchvision import models as torchvision_models

parser = argparse.ArgumentParser()
parser.add_argument("--arch", default="resnet50")
args = parser.parse_args()
if "xcit" in args.arch:
    model = torch.hub.load("facebookresearch/xcit:main", args.arch, num_classes=0)
elif args.arch in torchvision_models.__dict__.keys():
    model = torchvision_models.__dict__[args.arch](num_classes=0)
    model.fc = nn.Identity()
else:
    raise SystemExit(f"unknown architecture {args.arch}")
model.eval()
for images, _ in make_loader():
    feats = model(images.cuda(non_blocking=True))  # <- DL001
""",
    "architecture_picked_over_branches_one_handed_to_a_loader": """
from torchvision import models as torchvision_models
from checkpoints import load_pretrained

parser = argparse.ArgumentParser()
parser.add_argument("--arch", default="resnet50")
args = parser.parse_args()
if "xcit" in args.arch:
    model = torch.hub.load("facebookresearch/xcit:main", args.arch, num_classes=0)
    load_pretrained(model, args.arch)
else:
    model = torchvision_models.__dict__[args.arch](num_classes=0)
for images, _ in make_loader():
    feats = model(images.cuda(non_blocking=True))
""",
    "running_loss_reset_only_when_logged": """
parser = argparse.ArgumentParser()
parser.add_argument("--log-every", type=int, default=100)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
running_loss, log_steps = 0.0, 0
for step, (x, y) in enumerate(make_loader()):
    loss = F.cross_entropy(model(x.to(device)), y.to(device))
    opt.zero_grad()
    loss.backward()
    opt.step()
    running_loss += loss  # <- DL010
    log_steps += 1
    if step % args.log_every == 0:
        print(f"step {step}: loss {running_loss / log_steps:.4f}")
        running_loss = 0.0
        log_steps = 0
""",
    "total_reset_every_iteration_is_no_leak": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in make_loader():
    total = 0.0
    for chunk_x, chunk_y in zip(x.chunk(2), y.chunk(2)):
        loss = F.cross_entropy(model(chunk_x.to(device)), chunk_y.to(device))
        total = total + loss
    opt.zero_grad()
    total.backward()
    opt.step()
""",
    "methods_of_a_moved_unknown_that_convert_or_get_host_data_stay_silent": """
from captioning import load_captioner

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
captioner = load_captioner("coco").to(device)
images = torch.rand(2, 3, 224, 224)
ids = captioner.generate_ids(images.to(device))
texts = captioner.decode_to_tensor(ids)
print(np.asarray(texts.numpy()))
stats = captioner.summarize(torch.zeros(3))
print(stats.numpy())
""",
    # ------------------------------------------------ PyG models and batches
    "pyg_model_from_a_contrib_package_never_moved": """
from torch_geometric.contrib.nn.models import GraphAttentionNet
from torch_geometric.loader import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = GraphAttentionNet(in_channels=14, out_channels=1, n_layers=3)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
criterion = nn.BCEWithLogitsLoss()
for epoch in range(1, 11):
    model.train()
    for data in DataLoader(dataset, batch_size=32, shuffle=True):
        data = data.to(device)
        optimizer.zero_grad()
        out = model(data)  # <- DL001
        loss = criterion(out.squeeze(-1), data.y.float())
        loss.backward()
        optimizer.step()
""",
    "pyg_sequential_made_heterogeneous_never_moved": """
from torch_geometric.loader import NeighborLoader
from torch_geometric.nn import Linear, SAGEConv, Sequential, to_hetero

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
data = dataset[0].to(device, "x", "y")
model = Sequential("x, edge_index", [
    (SAGEConv((-1, -1), 64), "x, edge_index -> x"),
    (Linear(-1, dataset.num_classes), "x -> x"),
])
model = to_hetero(model, data.metadata(), aggr="sum")
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)


def train(loader):
    model.train()
    for batch in loader:
        optimizer.zero_grad()
        batch = batch.to(device, "edge_index")
        out = model(batch.x_dict, batch.edge_index_dict)["paper"]  # <- DL001
        loss = F.cross_entropy(out, batch["paper"].y)
        loss.backward()
        optimizer.step()


train(NeighborLoader(data, num_neighbors=[10, 10], input_nodes=("paper", None)))
""",
    "pyg_pretrained_qm9_model_comes_with_its_splits": """
from torch_geometric.loader import DataLoader
from torch_geometric.nn import SchNet

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
for target in range(12):
    model, datasets = SchNet.from_qm9_pretrained(path, dataset, target)
    train_dataset, val_dataset, test_dataset = datasets
    maes = []
    for data in DataLoader(test_dataset, batch_size=256):
        data = data.to(device)
        with torch.no_grad():
            pred = model(data.z, data.pos, data.batch)  # <- DL001
        maes.append((pred.view(-1) - data.y[:, target]).abs())
""",
    "pyg_pretrained_qm9_model_moved_is_fine": """
from torch_geometric.loader import DataLoader
from torch_geometric.nn import DimeNet

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model, (train_dataset, val_dataset, test_dataset) = DimeNet.from_qm9_pretrained(path, dataset, 7)
model = model.to(device)
for data in DataLoader(test_dataset, batch_size=64):
    data = data.to(device)
    with torch.no_grad():
        pred = model(data.z, data.pos, data.batch)
""",
    "neighbor_loader_over_a_feature_store_yields_host_batches": """
from torch_geometric.loader import NeighborLoader
from torch_geometric.nn import SAGEConv


class GraphSAGE(nn.Module):
    def __init__(self, in_channels, hidden_channels, out_channels):
        super().__init__()
        self.conv1 = SAGEConv(in_channels, hidden_channels)
        self.conv2 = SAGEConv(hidden_channels, out_channels)

    def forward(self, x, edge_index):
        return self.conv2(self.conv1(x, edge_index).relu(), edge_index)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
feature_store, graph_store = db.get_torch_geometric_remote_backend(num_threads=8)
loader = NeighborLoader(data=(feature_store, graph_store), num_neighbors={("paper", "cites", "paper"): [12, 12]},
                        batch_size=1152, input_nodes=("paper", input_nodes))
model = GraphSAGE(128, 1024, 172).to(device)
for batch in loader:
    batch_size = batch["paper"].batch_size
    out = model(batch["paper"].x, batch["paper", "cites", "paper"].edge_index)[:batch_size]  # <- DL002
""",
    "neighbor_loader_over_a_graph_already_on_the_device": """
from torch_geometric.loader import NeighborLoader
from torch_geometric.nn import GraphSAGE


def run(rank, dataset):
    data = dataset[0]
    data = data.to(rank, "x", "y")
    kwargs = dict(data=data, batch_size=1024, num_neighbors=[25, 10])
    train_loader = NeighborLoader(input_nodes=data.train_mask, shuffle=True, **kwargs)
    val_loader = NeighborLoader(data, input_nodes=data.val_mask, num_neighbors=[25, 10])
    model = GraphSAGE(dataset.num_features, 256, 2, dataset.num_classes).to(rank)
    for loader in (train_loader, val_loader):
        for batch in loader:
            out = model(batch.x, batch.edge_index.to(rank))[:batch.batch_size]
            loss = F.cross_entropy(out, batch.y[:batch.batch_size])
""",
    "collater_object_of_this_file_leaves_the_batch_on_the_host": """
from torch_geometric.data import Batch


class DistanceCollater:
    def __init__(self, follow_batch=None):
        self.follow_batch = follow_batch or []

    def __call__(self, graphs):
        batch = Batch.from_data_list(graphs, follow_batch=self.follow_batch)
        batch.dist = torch.block_diag(*[g.dist for g in graphs])
        return batch


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
loader = DataLoader(graphs, batch_size=32, shuffle=True, collate_fn=DistanceCollater())
model.eval()
for data in loader:
    out = model(data)  # <- DL002
""",
    "collater_object_that_moves_the_batch_itself": """
class DeviceCollater:
    def __init__(self, device):
        self.device = device

    def __call__(self, samples):
        xs, ys = zip(*samples)
        return torch.stack(xs).to(self.device), torch.tensor(ys, device=self.device)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
loader = DataLoader(samples, batch_size=32, collate_fn=DeviceCollater(device))
for x, y in loader:
    loss = F.cross_entropy(model(x), y)
""",
    "metric_method_of_a_moved_model_may_return_host_numbers": """
from torch_geometric.nn.models.re_net import RENet

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = RENet(num_nodes, num_rels, hidden_channels=200, seq_len=10).to(device)


def test(loader):
    model.eval()
    result = torch.tensor([0, 0, 0, 0], dtype=torch.float)
    for data in loader:
        data = data.to(device)
        with torch.no_grad():
            log_prob_obj, log_prob_sub = model(data)
        result += model.test(log_prob_obj, data.obj) * data.obj.size(0)
    return (result / len(loader.dataset)).tolist()
""",
    # ------------------------------------------------ a pretrained model's head replaced after the move
    "transfer_learning_replaces_the_head_after_moving_the_model": """
import torchvision

parser = argparse.ArgumentParser()
parser.add_argument("--arch", default="resnet18")
parser.add_argument("--classes", type=int, default=2)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torchvision.models.resnet18(weights="IMAGENET1K_V1")
model = model.to(device)
for p in model.parameters():
    p.requires_grad = False
model.fc = nn.Linear(model.fc.in_features, args.classes)
optimizer = torch.optim.SGD(model.fc.parameters(), lr=1e-3, momentum=0.9)
for images, labels in make_loader():
    images, labels = images.to(device), labels.to(device)
    loss = F.cross_entropy(model(images), labels)  # <- DL001
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

vgg = torchvision.models.vgg16(weights="DEFAULT").to(device)
vgg.classifier[6] = nn.Linear(4096, args.classes)
vgg.eval()
with torch.no_grad():
    print(vgg(torch.randn(1, 3, 224, 224, device=device)).shape)  # <- DL001
""",
    "transfer_learning_moves_after_replacing_the_head": """
import torchvision

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torchvision.models.resnet18(weights="IMAGENET1K_V1").to(device)
model.fc = nn.Linear(512, 2)
model.to(device)
alex = torchvision.models.alexnet(weights="DEFAULT").to(device)
alex.classifier[6] = nn.Linear(4096, 2).to(device)
alex.features[1] = nn.ReLU(inplace=False)
for images, labels in make_loader():
    images = images.to(device)
    print(model(images).shape, alex(images).shape)
""",
    # ------------------------------------------------ torchvision transforms and PyG datasets give host data
    "inference_script_classifies_an_image_turned_into_a_tensor_on_the_host": """
import torchvision
from PIL import Image
from torchvision import transforms
import torchvision.transforms.functional as TF

parser = argparse.ArgumentParser()
parser.add_argument("image")
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torchvision.models.resnet50(weights="DEFAULT").to(device).eval()
preprocess = transforms.Compose([
    transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(),
    transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
])
augment = transforms.Compose([transforms.RandomHorizontalFlip(), transforms.ColorJitter(0.2)])
image = Image.open(args.image).convert("RGB")
batch = preprocess(augment(image)).unsqueeze(0)
with torch.no_grad():
    print(model(batch).softmax(1).topk(5))  # <- DL002
    print(model(TF.to_tensor(image)[None]).argmax(1))  # <- DL002
    print(model(preprocess(image).unsqueeze(0).to(device)).argmax(1))
""",
    "pyg_dataset_items_are_host_graphs_unless_a_transform_places_them": """
import torch_geometric.transforms as T
from torch_geometric.datasets import Planetoid, TUDataset
from torch_geometric.nn import GCNConv


class GCN(nn.Module):
    def __init__(self, in_channels, hidden, out_channels):
        super().__init__()
        self.conv1, self.conv2 = GCNConv(in_channels, hidden), GCNConv(hidden, out_channels)

    def forward(self, x, edge_index):
        return self.conv2(self.conv1(x, edge_index).relu(), edge_index)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
dataset = Planetoid("data/Planetoid", name="Cora")
data = dataset[0]
model = GCN(dataset.num_features, 16, dataset.num_classes).to(device)
out = model(data.x, data.edge_index)  # <- DL002
data.to(device)
out = model(data.x, data.edge_index)
placed = Planetoid("data/Planetoid", name="Cora", transform=T.Compose([T.NormalizeFeatures(), T.ToDevice(device)]))[0]
out = model(placed.x, placed.edge_index)
""",
    "a_project_loader_factory_is_not_a_model_registry": """
from torchvision import transforms
from data_loader import get_loader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
transform = transforms.Compose([transforms.RandomCrop(224), transforms.ToTensor()])
data_loader = get_loader("images/", "captions.json", transform, batch_size=32, shuffle=True)
model = Net().to(device)
for images, labels in data_loader:
    labels = labels.to(device)
    loss = F.cross_entropy(model(images), labels)  # <- DL002
""",
    # ------------------------------------------------ libraries that convert tensors to NumPy themselves
    "sklearn_metrics_and_pyplot_given_device_tensors": """
import matplotlib.pyplot as plt
from sklearn.metrics import accuracy_score, f1_score

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
model.eval()
batch_acc, y_true, y_pred = [], [], []
with torch.no_grad():
    for x, y in make_loader():
        x, y = x.to(device), y.to(device)
        preds = model(x).argmax(dim=1)
        print("batch accuracy", accuracy_score(y, preds))  # <- DL003
        batch_acc.append((preds == y).float().mean())
        y_true.append(y.cpu())
        y_pred.append(preds.cpu())
print("macro F1", f1_score(torch.cat(y_true), torch.cat(y_pred), average="macro"))
print("mean batch accuracy", np.mean(batch_acc))  # <- DL003
weights = model.fc1.weight.detach()
plt.imshow(weights)  # <- DL003
plt.imshow(weights.cpu())
plt.savefig("fc1.png")
""",
    "numpy_reductions_environments_and_legacy_numbers_are_no_device_conversion": """
import random
import gym

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
env = gym.make("CartPole-v1")
policy = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
optimizer = torch.optim.Adam(policy.parameters())
buffer, losses = [], []
state = env.reset()
for step in range(1000):
    q = policy(torch.as_tensor(state, dtype=torch.float32, device=device))
    action = q.argmax()
    next_state, reward, done, info = env.step(action.item())
    buffer.append((np.expand_dims(state, 0), action.item(), reward, np.expand_dims(next_state, 0), done))
    state = env.reset() if done else next_state
    if len(buffer) >= 32:
        states, actions, rewards, next_states, dones = zip(*random.sample(buffer, 32))
        states = torch.as_tensor(np.concatenate(states), device=device)
        loss = policy(states).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.data[0])  # a number in PyTorch < 0.4
print(np.mean(losses), np.mean(q))
""",
    "data_parallel_over_a_model_from_code_we_cannot_see": """
from segmentation.models import build_segmenter

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = build_segmenter(cfg)
model = torch.nn.DataParallel(model, device_ids=range(torch.cuda.device_count()))
for images, labels in make_loader():
    images = images.to(device)
    outputs = model(images)
""",
    # ------------------------------------------------ where a batch comes from: the dataset
    # a course-style Dataset that moves each item itself: the batches are on the device
    "dataset_whose_getitem_moves_items_through_random_split": """
from torch.utils.data import Dataset, DataLoader, random_split

device = "cuda" if torch.cuda.is_available() else "cpu"


class CustomDataset(Dataset):
    def __init__(self, x_tensor, y_tensor):
        self.x = x_tensor
        self.y = y_tensor

    def __getitem__(self, index):
        return (self.x[index].to(device), self.y[index].to(device))

    def __len__(self):
        return len(self.x)


x = torch.randn(100, 1)
y = 2 * x + 1 + 0.1 * torch.randn(100, 1)
dataset = CustomDataset(x, y)
train_data, val_data = random_split(dataset, [80, 20])
train_loader = DataLoader(dataset=train_data, batch_size=16, shuffle=True)
val_loader = DataLoader(dataset=val_data, batch_size=20)
model = nn.Sequential(nn.Linear(1, 1)).to(device)
loss_fn = nn.MSELoss(reduction="mean")
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(10):
    for x_batch, y_batch in train_loader:
        model.train()
        loss = loss_fn(y_batch, model(x_batch))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    with torch.no_grad():
        for x_val, y_val in val_loader:
            model.eval()
            val_loss = loss_fn(y_val, model(x_val))
""",
    # the data placed once in __init__: items are on the device too
    "dataset_that_moves_its_data_in_init": """
class SeqDataset(torch.utils.data.Dataset):
    def __init__(self, seqs, labels, device):
        self.seqs = torch.as_tensor(seqs).float().to(device)
        self.labels = torch.as_tensor(labels).long().to(device)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.seqs[i], self.labels[i]


parser = argparse.ArgumentParser()
parser.add_argument("--batch-size", type=int, default=32)
args = parser.parse_args()
dev = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
ds = SeqDataset(np.random.rand(256, 20), np.random.randint(0, 4, 256), dev)
loader = torch.utils.data.DataLoader(torch.utils.data.Subset(ds, range(200)), batch_size=args.batch_size)
net = nn.GRU(20, 4, batch_first=True).to(dev)
for seq, label in loader:
    out, _ = net(seq)
""",
    # casts in a Dataset are no moves: its items stay on the host, and so do the batches
    "dataset_that_only_casts_yields_host_batches_through_subset": """
import pandas as pd
from torch.utils.data import DataLoader, Dataset, Subset


class TabularDataset(Dataset):
    def __init__(self, frame):
        self.features = torch.tensor(frame.drop(columns="target").values).to(torch.float32)
        self.target = torch.tensor(frame["target"].values).to(dtype=torch.long)

    def __len__(self):
        return len(self.target)

    def __getitem__(self, idx):
        return self.features[idx].to("cpu"), self.target[idx]


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
full = TabularDataset(pd.read_csv("train.csv"))
train_loader = DataLoader(Subset(full, list(range(1000))), batch_size=64, shuffle=True)
model = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, 3)).to(device)
criterion = nn.CrossEntropyLoss()
for features, target in train_loader:
    logits = model(features)  # <- DL002
""",
    # ------------------------------------------------ syntax: f-strings, slots of containers
    "conversions_inside_f_strings_and_sums_kept_in_a_history": """
parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=10)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loader = DataLoader(TensorDataset(torch.randn(256, 16), torch.randint(0, 4, (256,))), batch_size=32)
history = {"train_loss": [0.0] * args.epochs, "acc": []}
for epoch in range(args.epochs):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        history["train_loss"][epoch] += loss  # <- DL010
    preds = logits.argmax(dim=1)
    print(f"epoch {epoch}: loss {history['train_loss'][epoch]:.4f} preds {preds.numpy()[:8]}")  # <- DL003
    print(f"first logits {logits[0].detach().cpu().numpy()}")
""",
    # a torchvision dataset's items are host tensors (ToTensor), one sample or a loader's batch
    "torchvision_dataset_sample_predicted_on_the_device": """
from torchvision import datasets
from torchvision.transforms import ToTensor

device = "cuda" if torch.cuda.is_available() else "cpu"
test_data = datasets.FashionMNIST(root="data", train=False, download=True, transform=ToTensor())
classes = test_data.classes
model = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 512), nn.ReLU(), nn.Linear(512, 10)).to(device)
model.load_state_dict(torch.load("model.pth", map_location=device))
model.eval()
x, y = test_data[0][0], test_data[0][1]
with torch.no_grad():
    pred = model(x)  # <- DL002
    print(f'Predicted: "{classes[pred[0].argmax(0)]}", Actual: "{classes[y]}"')
""",
    # a transform that places the images: the dataset's items are not known to be host data
    "torchvision_dataset_with_a_placing_transform_is_unknown": """
import torchvision
import torchvision.transforms as T

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
to_device = T.Lambda(lambda img: img.to(device))
train_set = torchvision.datasets.CIFAR10("data", train=True, download=True,
                                         transform=T.Compose([T.ToTensor(), to_device]))
net = torchvision.models.resnet18(num_classes=10).to(device)
image, label = train_set[0]
logits = net(image.unsqueeze(0))
""",
    # `.type(dtypeFloat)` with `dtypeFloat = torch.cuda.FloatTensor` under CUDA: a move, not a cast
    "tensor_type_held_in_a_variable_may_move": """
if torch.cuda.is_available():
    dtypeFloat = torch.cuda.FloatTensor
else:
    dtypeFloat = torch.FloatTensor


class GraphConvNet(nn.Module):
    def __init__(self, d_in, d_out, k):
        super().__init__()
        self.k = k
        self.fc = nn.Linear(d_in * k, d_out)

    def forward(self, x, lap):
        x0 = x.permute(1, 2, 0).contiguous().view(x.size(1), -1)
        xs = [x0]
        for _ in range(1, self.k):
            xs.append(torch.sparse.mm(lap, xs[-1]))
        h = torch.stack(xs, 0).view(self.k, x.size(1), -1, x.size(0)).permute(3, 1, 2, 0)
        return self.fc(h.reshape(x.size(0), x.size(1), -1))


net = GraphConvNet(16, 4, k=3)
if torch.cuda.is_available():
    net.cuda()
lap = torch.randn(10, 10).type(dtypeFloat)
x = torch.randn(2, 10, 16).type(dtypeFloat)
y = net(x, lap)
ones = torch.ones(2, 10, 4).type(torch.float32)
total = (y + ones).sum()  # <- DL011
""",
    # a loss subclass holds a tensor only when it hands its base one (`weight=`)
    "loss_subclasses_with_and_without_a_weight": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def sequence_mask(X, valid_len, value=0):
    maxlen = X.size(1)
    mask = torch.arange(maxlen, dtype=torch.float32, device=X.device)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


class MaskedSoftmaxCELoss(nn.CrossEntropyLoss):
    def forward(self, pred, label, valid_len):
        weights = torch.ones_like(label)
        weights = sequence_mask(weights, valid_len)
        self.reduction = "none"
        unweighted = super().forward(pred.permute(0, 2, 1), label)
        return (unweighted * weights).mean(dim=1)


class WeightedCE(nn.CrossEntropyLoss):
    def __init__(self, class_counts):
        super().__init__(weight=1.0 / torch.tensor(class_counts, dtype=torch.float32))


loss = MaskedSoftmaxCELoss()
wloss = WeightedCE([10, 20, 30])
pred = torch.randn(4, 5, 3, device=device)
label = torch.randint(0, 3, (4, 5), device=device)
valid = torch.tensor([5, 4, 3, 2], device=device)
l = loss(pred, label, valid)
w = wloss(pred.reshape(-1, 3), label.reshape(-1))  # <- DL001
""",
    # `np.squeeze(t)` calls `t.squeeze()`: a tensor where `t` was, nothing converted
    "numpy_squeeze_of_a_device_tensor_is_its_own_method": """
use_cuda = torch.cuda.is_available()
model = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 3))
if use_cuda:
    model = model.cuda()
correct = 0.0
for data, target in DataLoader(TensorDataset(torch.randn(64, 16), torch.randint(0, 3, (64,))), batch_size=16):
    if use_cuda:
        data, target = data.cuda(), target.cuda()
    output = model(data)
    pred = output.data.max(1, keepdim=True)[1]
    correct += np.sum(np.squeeze(pred.eq(target.data.view_as(pred))).cpu().numpy())
    top = np.squeeze(pred).numpy()  # <- DL003
""",
}



@pytest.mark.parametrize("name", sorted(CASES))
def test_library_case(name):
    code = program(CASES[name])
    got = {(f.code, f.line) for f in lint_source(code, f"{name}.py", select=RULES)}
    listing = "\n".join(f"{n:3d} {line}" for n, line in enumerate(code.splitlines(), 1))
    assert got == expected(code), f"got {sorted(got)}\n{listing}"


def test_model_kwargs_unpacked_into_from_pretrained_may_place_it():
    # a notebook-style generation script: the placement hides in a dict of loader options
    src = '''
import torch
from peft import PeftModel
from transformers import AutoModelForCausalLM, AutoTokenizer

device = "cuda" if torch.cuda.is_available() else "cpu"
model_kwargs = {"device_map": "auto"}
model = AutoModelForCausalLM.from_pretrained("base-model", **model_kwargs)
model = PeftModel.from_pretrained(model, "adapter")
tokenizer = AutoTokenizer.from_pretrained("base-model")
inputs = tokenizer("Write an essay.", return_tensors="pt")
inputs = {k: v.to(device) for k, v in inputs.items()}
outputs = model.generate(**inputs, max_new_tokens=64)
print(tokenizer.decode(outputs[0]))
'''
    assert lint_source(src.encode(), "generate.py", select=["ALL"]) == []


def test_unmoved_model_method_call_names_the_model_not_the_method():
    src = '''
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

device = torch.device("cuda")
model = AutoModelForCausalLM.from_pretrained("base-model")
model.eval()
tokenizer = AutoTokenizer.from_pretrained("base-model")
inputs = tokenizer("Write an essay.", return_tensors="pt").to(device)
outputs = model.generate(**inputs, max_new_tokens=64)
'''
    found = [f for f in lint_source(src.encode(), "generate.py") if f.code == "DL001"]
    assert [f.line for f in found] == [10]
    assert found[0].message.startswith("`model.generate()` is called with tensors on the device but `model` is never moved")
    assert "use `model.to(device)`" in found[0].message


def test_a_move_chained_onto_the_same_move_is_redundant_whatever_moves():
    src = '''
import argparse

import torch
import torchvision
from transformers import AutoTokenizer

parser = argparse.ArgumentParser()
parser.add_argument("--arch", default="resnet18")
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = getattr(torchvision.models, args.arch)(weights=None)
model = model.to(device).to(device)
teacher = torchvision.models.resnet50().cuda().cuda()
tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
batch = tokenizer(["a photo"], return_tensors="pt")
batch.to(device).to(device)
images = torch.rand(8, 3, 224, 224).to(device).to(torch.float16)
half = torch.rand(8, 3, 224, 224).to(device, non_blocking=True).to(device)
'''
    found = [(f.line, f.code) for f in lint_source(src.encode(), "train.py", select=["DL004"])]
    # line 18 changes the dtype; line 19 (flagged by the inference) moves a tensor already there
    assert found == [(13, "DL004"), (14, "DL004"), (17, "DL004"), (19, "DL004")]


def test_a_size_read_from_shape_does_not_hide_where_a_tensor_is():
    src = '''
import argparse

import numpy as np
import torch
from sklearn.decomposition import PCA


def extract_features(loader, model, use_cuda):
    features = None
    for samples, index in loader:
        feats = model(samples.cuda(non_blocking=True)).clone()
        if features is None:
            features = torch.zeros(len(loader.dataset), feats.shape[-1])
            if use_cuda:
                features = features.cuda(non_blocking=True)
        features[index] = feats
    return features


parser = argparse.ArgumentParser()
parser.add_argument("--use_cuda", default=True, type=bool)
args = parser.parse_args()
model = torch.hub.load("facebookresearch/dino:main", "dino_vits16").cuda()
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.rand(8, 3, 224, 224), torch.arange(8)))
whitening = extract_features(loader, model, args.use_cuda)
whitening -= whitening.mean(dim=0)
cov = torch.mm(whitening.T, whitening) / whitening.shape[0]
pca = PCA(whiten=True).fit(cov.numpy())
'''
    found = [(f.code, f.line) for f in lint_source(src.encode(), "eval_copy_detection.py", select=["DL003"])]
    assert found == [("DL003", 29)]
