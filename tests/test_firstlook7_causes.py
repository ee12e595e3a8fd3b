"""False-positive causes found by the first look of 2026-11-27 (seventh round, devicelint
56e726f, `benchmarks/firstlook/2026-11-27b.json`), each as a realistic program with its
control: the same program with the bug put back must still be flagged.

- `validate(val_loader, model, criterion)` called with `model = nn.DataParallel(model).cuda()`:
  the parameter took "a model moved to the device" from its callers and lost the wrapper,
  which copies host inputs to its GPUs itself (2 false DL002 in a paper's ImageNet/CIFAR
  training and test scripts). A wrapper built in the same function was already exempt.
- `self.logstd = nn.Parameter(torch.zeros(n, device=ptu.device))` then a bare
  `self.logstd.to(ptu.device)`: a discarded move of a tensor already on that very device
  loses nothing (1 false DL006 in a course's homework policy).
- `compute_td_loss([s], [a], [r], [next_s], [done]).backward()` beside `total_reward += r`:
  every name inside the differentiated call was taken for the loss, so the gym reward `r`
  "carried a graph" (1 false DL010 in a course's Q-learning seminar notebook).

Lines ending in `# <- DLnnn` must be flagged with that code and nothing else may be flagged.
"""

import textwrap

import pytest
from inference_cases import assert_marked

from devicelint.engine import lint_file

# --- DataParallel handed to a function ---------------------------------------------------

_CUTMIX_TRAIN = '''
import argparse
import time

import torch
import torch.nn as nn
import torchvision.datasets as datasets
import torchvision.transforms as transforms

import resnet as RN

parser = argparse.ArgumentParser(description="CutMix ImageNet training")
parser.add_argument("--data", default="/data/imagenet")
parser.add_argument("--epochs", type=int, default=300)
parser.add_argument("--batch_size", type=int, default=256)
parser.add_argument("--lr", type=float, default=0.1)
args = parser.parse_args()


def main():
    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    train_dataset = datasets.ImageFolder(args.data + "/train", transforms.Compose([
        transforms.RandomResizedCrop(224), transforms.ToTensor(), normalize]))
    val_dataset = datasets.ImageFolder(args.data + "/val", transforms.Compose([
        transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), normalize]))
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=args.batch_size, shuffle=True,
                                               num_workers=8, pin_memory=True)
    val_loader = torch.utils.data.DataLoader(val_dataset, batch_size=args.batch_size, shuffle=False,
                                             num_workers=8, pin_memory=True)
    model = RN.ResNet("imagenet", depth=50, num_classes=1000)
    model = WRAP
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9, weight_decay=1e-4)
    for epoch in range(args.epochs):
        train_loss = train(train_loader, model, criterion, optimizer, epoch)
        err1 = validate(val_loader, model, criterion, epoch)
        print(f"epoch {epoch}: train loss {train_loss:.3f}, top-1 err {err1:.2f}")


def train(train_loader, model, criterion, optimizer, epoch):
    model.train()
    total = 0.0
    for i, (input, target) in enumerate(train_loader):
        input = input.cuda()
        target = target.cuda()
        output = model(input)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(train_loader)


def validate(val_loader, model, criterion, epoch):
    model.eval()
    errors, seen, end = 0.0, 0, time.time()
    for i, (input, target) in enumerate(val_loader):
        target = target.cuda()

        output = model(input)
        loss = criterion(output, target)
        errors += (output.argmax(1) != target).sum().item()
        seen += input.size(0)
    print(f"validation took {time.time() - end:.1f}s")
    return 100.0 * errors / seen


if __name__ == "__main__":
    main()
'''


_RESNET = '''
import torch.nn as nn


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, kernel_size=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, planes * 4, kernel_size=1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * 4)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        residual = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        return self.relu(self.bn3(self.conv3(out)) + residual)


class ResNet(nn.Module):
    def __init__(self, dataset, depth, num_classes):
        super().__init__()
        self.dataset = dataset
        self.conv1 = nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = nn.Sequential(*[Bottleneck(64 if i == 0 else 256, 64, downsample=nn.Conv2d(64, 256, 1)
                                                 if i == 0 else None) for i in range(depth // 16)])
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(256, num_classes)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.avgpool(self.layer1(x))
        return self.fc(x.flatten(1))
'''


def _dl002_lines(tmp_path, wrap: str) -> list:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "resnet.py").write_text(textwrap.dedent(_RESNET).lstrip("\n"))
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(_CUTMIX_TRAIN).lstrip("\n").replace("WRAP", wrap))
    return [f.line for f in lint_file(str(path)) if f.code in ("DL001", "DL002", "DL011")]


def _line_of(tmp_path, text: str) -> int:
    """The line of the last occurrence of `text` in train.py."""
    lines = (tmp_path / "train.py").read_text().splitlines()
    return max(i for i, line in enumerate(lines, start=1) if text in line)


def test_a_data_parallel_model_handed_to_a_function_takes_host_batches(tmp_path):
    # DataParallel scatters the host batch to its GPUs itself: `model(input)` runs
    assert _dl002_lines(tmp_path, "torch.nn.DataParallel(model).cuda()") == []


def test_control_a_plain_moved_model_handed_to_a_function_meets_the_host_batch(tmp_path):
    # the same script without the wrapper: the host batch meets the model on the GPU
    assert _dl002_lines(tmp_path, "model.cuda()") == [_line_of(tmp_path, "output = model(input)")]


# --- a discarded move of a tensor already there ------------------------------------------

_POLICY = """
import itertools

from torch import optim

parser = argparse.ArgumentParser()
parser.add_argument("--no_gpu", action="store_true")
parser.add_argument("--n_layers", type=int, default=2)
parser.add_argument("--size", type=int, default=64)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() and not args.no_gpu else "cpu")


def build_mlp(input_size, output_size, n_layers, size):
    layers = []
    for _ in range(n_layers):
        layers += [nn.Linear(input_size, size), nn.Tanh()]
        input_size = size
    layers.append(nn.Linear(input_size, output_size))
    return nn.Sequential(*layers)


class MLPPolicySL(nn.Module):
    def __init__(self, ac_dim, ob_dim, n_layers, size, learning_rate=1e-4):
        super().__init__()
        self.mean_net = build_mlp(ob_dim, ac_dim, n_layers, size)
        self.mean_net.to(device)
        self.logstd = nn.Parameter(
            torch.zeros(ac_dim, dtype=torch.float32, device=device)
        )
        self.logstd.to(device)
        self.optimizer = optim.Adam(itertools.chain([self.logstd], self.mean_net.parameters()), learning_rate)

    def forward(self, observation):
        mean = self.mean_net(observation)
        return torch.distributions.Normal(mean, torch.exp(self.logstd))

    def update(self, observations, actions):
        obs = torch.from_numpy(observations).float().to(device)
        acts = torch.from_numpy(actions).float().to(device)
        noise = torch.randn(acts.shape[-1])
        noise.to(device)  # <- DL006
        loss = -self(obs).log_prob(acts + noise).sum(-1).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


policy = MLPPolicySL(6, 17, args.n_layers, args.size)
for step in range(1000):
    obs, acts = np.random.randn(64, 17), np.random.randn(64, 6)
    print(step, policy.update(obs, acts))
"""


# --- a reward summed beside a loss made from it ------------------------------------------

_QLEARNING = """
import gym

env = gym.make("CartPole-v1")
n_actions, state_dim = env.action_space.n, env.observation_space.shape
network = nn.Sequential(nn.Linear(state_dim[0], 100), nn.ReLU(), nn.Linear(100, 100), nn.ReLU(),
                        nn.Linear(100, n_actions))
opt = torch.optim.Adam(network.parameters(), lr=1e-4)


def get_action(state, epsilon=0):
    q_values = network(torch.tensor(state[None], dtype=torch.float32)).detach().numpy()
    if np.random.random() < epsilon:
        return int(np.random.choice(n_actions))
    return int(np.argmax(q_values))


def compute_td_loss(states, actions, rewards, next_states, is_done, gamma=0.99):
    states = torch.tensor(np.array(states), dtype=torch.float32)
    actions = torch.tensor(actions, dtype=torch.long)
    rewards = torch.tensor(rewards, dtype=torch.float32)
    next_states = torch.tensor(np.array(next_states), dtype=torch.float32)
    is_done = torch.tensor(is_done, dtype=torch.bool)
    predicted = network(states)[range(states.shape[0]), actions]
    next_values = network(next_states).max(dim=-1)[0]
    target = torch.where(is_done, rewards, rewards + gamma * next_values)
    return torch.mean((predicted - target.detach()) ** 2)


def generate_session(env, t_max=1000, epsilon=0, train=False):
    total_reward = 0
    s, _ = env.reset()
    for t in range(t_max):
        a = get_action(s, epsilon=epsilon)
        next_s, r, terminated, truncated, _ = env.step(a)
        if train:
            opt.zero_grad()
            compute_td_loss([s], [a], [r], [next_s], [terminated]).backward()
            opt.step()
        total_reward += r
        s = next_s
        if terminated or truncated:
            break
    return total_reward


def td_losses(env, t_max=1000, epsilon=0.1):
    total_loss = 0
    s, _ = env.reset()
    for t in range(t_max):
        a = get_action(s, epsilon=epsilon)
        next_s, r, terminated, truncated, _ = env.step(a)
        loss = compute_td_loss([s], [a], [r], [next_s], [terminated])
        opt.zero_grad()
        loss.backward()
        opt.step()
        total_loss += loss  # <- DL010
        s = next_s
        if terminated or truncated:
            break
    return total_loss


epsilon = 0.5
for i in range(100):
    rewards = [generate_session(env, epsilon=epsilon, train=True) for _ in range(100)]
    epsilon *= 0.99
    print(f"epoch #{i}: mean reward = {np.mean(rewards):.3f}, loss {float(td_losses(env)):.3f}")
"""

CASES = {
    "hw1_policy_logstd_made_on_device": _POLICY,
    "seminar_gym_reward_beside_td_loss": _QLEARNING,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_firstlook7_cause(name):
    assert_marked(name, CASES[name])
