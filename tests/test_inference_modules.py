"""Device inference inside model code and around it, on patterns audited in real repositories:
`forward` of a module nobody in the file moves (a module runs on its input's device), shape
probes that `__init__` runs, unittest classes, methods that place their own inputs, parts
swapped into a moved pipeline, checkpoints this script writes, and numbers a model returns.

Each case is a realistic program; lines ending in `# <- DLnnn` must be flagged with that code
and nothing else may be flagged.
"""

import pytest
from inference_cases import expected, program

from devicelint.engine import lint_source

RULES = ["DL001", "DL002", "DL003", "DL004", "DL006", "DL009", "DL010", "DL011", "DL015"]

CASES = {
    # ------------------------------------------------ layers kept in plain containers are never moved
    "residual_blocks_kept_in_a_plain_list_and_heads_in_a_plain_dict": """
class MultiHead(nn.Module):
    def __init__(self, dim=16, depth=2, tasks=("a", "b")):
        super().__init__()
        self.stem = nn.Linear(8, dim)
        self.blocks = [nn.Linear(dim, dim) for _ in range(depth)]
        self.heads = {t: nn.Linear(dim, 2) for t in tasks}
        self.acts = [nn.ReLU(), nn.GELU()]

    def forward(self, x, task="a"):
        h = self.stem(x)
        for block, act in zip(self.blocks, self.acts):
            h = h + act(block(h))  # <- DL001
        return self.heads[task](h)  # <- DL001


class Registered(nn.Module):
    def __init__(self, dim=16, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])
        layers = [nn.Linear(dim, dim) for _ in range(depth)]
        for i, layer in enumerate(layers):
            self.add_module(f"extra{i}", layer)
        self.extra = layers

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        for layer in self.extra:
            x = layer(x)
        return x


class NeverMoved(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = [nn.Linear(8, 8)]

    def forward(self, x):
        return self.blocks[0](x)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = MultiHead().to(device)
registered = Registered().to(device)
cpu_only = NeverMoved()
print(model(torch.randn(4, 8, device=device)).shape, cpu_only(torch.randn(2, 8)).shape)
""",
    # ------------------------------------------------ legacy constructors, scatter, CTC lengths, default tensor type
    "vae_script_with_legacy_constructors_and_a_host_one_hot": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Linear(784, 64), nn.ReLU(), nn.Linear(64, 10)).to(device)
image = np.random.rand(28, 28).astype("float32")
logits = model(torch.FloatTensor(image).view(1, -1))  # <- DL011
labels = torch.randint(0, 10, (8,), device=device)
one_hot = torch.zeros(8, 10).scatter_(1, labels.unsqueeze(1), 1)  # <- DL011
targets = torch.zeros(8, 10, device=device).scatter_(1, labels.unsqueeze(1), 1)
""",
    "streaming_mask_helper_counts_chunks_with_numbers": """
def chunk_mask(x_len, chunk_starts, left_window=0):
    starts = torch.Tensor(chunk_starts).long()
    ends = F.pad(starts, (0, 1), value=x_len)[1:]
    positions = torch.arange(0, x_len).unsqueeze(-1)
    chunk = ((positions < ends) & (positions >= starts)).nonzero()[:, 1]
    first = (chunk - left_window).clamp(min=0)
    return torch.arange(0, x_len).unsqueeze(0) >= starts[first].unsqueeze(-1)


class StreamingEncoder(nn.Module):
    def __init__(self, dim=32, chunk_size=8, left_chunk=2):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.chunk_size, self.left_chunk = chunk_size, left_chunk

    def _streaming_mask(self, seq_len, batch_size, chunk_size, left_chunk):
        starts = np.arange(0, seq_len, chunk_size)
        return chunk_mask(seq_len, starts, left_window=left_chunk).unsqueeze(0).expand(batch_size, -1, -1)

    def forward(self, x):
        mask = self._streaming_mask(x.size(1), x.size(0), self.chunk_size, self.left_chunk).to(x.device)
        return self.proj(x).masked_fill(~mask[..., :1], 0.0)
""",
    "ctc_lengths_stay_on_the_host_and_a_cuda_default_tensor_type": """
from warpctc_pytorch import CTCLoss

parser = argparse.ArgumentParser()
parser.add_argument("--cuda", action="store_true")
parser.add_argument("--baidu-ctc", action="store_true")
args = parser.parse_args()
if args.cuda and torch.cuda.is_available():
    torch.set_default_tensor_type("torch.cuda.FloatTensor")
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
criterion = CTCLoss() if args.baidu_ctc else nn.CTCLoss(zero_infinity=True).to(device)
model = nn.Linear(8, 5).to(device)
preds = model(torch.randn(4, 10, 8, device=device)).log_softmax(2).permute(1, 0, 2)
text = torch.randint(1, 5, (4, 3), device=device)
preds_size = torch.IntTensor([preds.size(0)] * 4)
length = torch.IntTensor([3] * 4)
cost = criterion(preds, text, preds_size, length)
scale = torch.Tensor([640, 480, 640, 480])
boxes = preds[0, :, :4] * scale
""",
    # ------------------------------------------------ a host tensor indexed by device indices fails
    "focal_loss_weights_indexed_by_the_targets": """
class FocalLoss(nn.Module):
    def __init__(self, alpha=(0.25, 0.5, 0.25), gamma=2.0):
        super().__init__()
        self.gamma = gamma
        self.alpha = torch.tensor(alpha)

    def forward(self, logits, target):
        ce = F.cross_entropy(logits, target, reduction="none")
        pt = torch.exp(-ce)
        return (self.alpha[target] * (1 - pt) ** self.gamma * ce).mean()  # <- DL015


class WeightedLoss(nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.register_buffer("weights", torch.tensor(weights))

    def forward(self, logits, target):
        return (self.weights[target] * F.cross_entropy(logits, target, reduction="none")).mean()
""",
    "validation_reorders_a_host_field_by_indices_the_decoder_made_on_the_device": """
class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)

    def forward(self, feats, lengths):
        lengths, sort_ind = lengths.sort(dim=0, descending=True)
        return self.fc(feats[sort_ind]), sort_ind


def validate(decoder, loader, device):
    references = []
    with torch.no_grad():
        for feats, lengths, allcaps in loader:
            feats, lengths = feats.to(device), lengths.to(device)
            scores, sort_ind = decoder(feats, lengths)
            allcaps = allcaps[sort_ind]  # <- DL002
            references.extend(allcaps.tolist())
            ordered = feats[sort_ind.cpu()]
    return references


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader(TensorDataset(torch.randn(32, 8), torch.randint(1, 9, (32,)), torch.randint(0, 99, (32, 5))), batch_size=8)
print(len(validate(Decoder().to(device), loader, device)))
""",
    # ------------------------------------------------ lists that keep each step's graph
    "training_loop_keeps_every_loss_in_a_list": """
def train(model, loader, optimizer, device, epochs):
    history = {"loss": [], "acc": []}
    for epoch in range(epochs):
        epoch_losses = []
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            logits = model(x)
            loss = F.cross_entropy(logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            epoch_losses.append(loss)  # <- DL010
            history["loss"].append(loss)  # <- DL010
            history["acc"].append((logits.argmax(1) == y).float().mean().item())
        print(f"epoch {epoch}: {torch.stack(epoch_losses).mean().item():.4f}")
    return history


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
history = train(model, make_loader(), torch.optim.Adam(model.parameters()), device, epochs=3)
""",
    "lists_of_graphs_kept_for_a_later_update_or_built_without_a_step": """
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 2))

    def forward(self, state):
        return F.softmax(self.net(state), dim=-1)


def run_episode(policy, env, device):
    log_probs, rewards = [], []
    state, done = env.reset(), False
    while not done:
        dist = Categorical(policy(torch.as_tensor(state, dtype=torch.float32, device=device)))
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        state, reward, done, _ = env.step(action.item())
        rewards.append(reward)
    return log_probs, rewards


def predict(model, loader, device):
    outputs = []
    for x, _ in loader:
        outputs.append(model(x.to(device)).cpu())
    return torch.cat(outputs)


def accumulate(model, loader, optimizer, device, every=4):
    pending = []
    for step, (x, y) in enumerate(loader):
        pending.append(F.cross_entropy(model(x.to(device)), y.to(device)))
        if len(pending) == every:
            torch.stack(pending).mean().backward()
            optimizer.step()
            optimizer.zero_grad()
            pending = []
""",
    # ------------------------------------------------ methods of the model's own class, called from the script
    "char_rnn_init_hidden_builds_the_state_on_the_host": """
class CharRNN(nn.Module):
    def __init__(self, vocab, hidden=128, layers=2):
        super().__init__()
        self.hidden, self.layers = hidden, layers
        self.embed = nn.Embedding(vocab, hidden)
        self.lstm = nn.LSTM(hidden, hidden, layers, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def init_hidden(self, batch_size):
        return (torch.zeros(self.layers, batch_size, self.hidden),
                torch.zeros(self.layers, batch_size, self.hidden))

    def forward(self, x, hidden):
        out, hidden = self.lstm(self.embed(x), hidden)
        return self.head(out), hidden


parser = argparse.ArgumentParser()
parser.add_argument("--seq-len", type=int, default=64)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
text = torch.randint(0, 65, (10_000,))
model = CharRNN(65).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
for step in range(100):
    i = int(torch.randint(0, len(text) - args.seq_len - 1, (1,)))
    x = text[i:i + args.seq_len].unsqueeze(0).to(device)
    y = text[i + 1:i + args.seq_len + 1].unsqueeze(0).to(device)
    hidden = model.init_hidden(1)
    logits, hidden = model(x, hidden)  # <- DL011
    loss = F.cross_entropy(logits.view(-1, 65), y.view(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
""",
    "init_hidden_on_the_weights_device_and_lengths_kept_on_the_host": """
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class Encoder(nn.Module):
    def __init__(self, vocab=100, hidden=64):
        super().__init__()
        self.hidden = hidden
        self.embed = nn.Embedding(vocab, 32)
        self.rnn = nn.GRU(32, hidden, batch_first=True)

    def init_hidden(self, batch_size):
        weight = next(self.parameters())
        return weight.new_zeros(1, batch_size, self.hidden)

    def forward(self, tokens, seq_sizes, h0):
        packed = pack_padded_sequence(self.embed(tokens), seq_sizes, batch_first=True, enforce_sorted=False)
        out, h = self.rnn(packed, h0)
        return pad_packed_sequence(out, batch_first=True)[0], h


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Encoder().to(device)
batch = [[5, 6, 7], [8, 9]]
tokens = torch.zeros(2, 3, dtype=torch.long)
for row, seq in enumerate(batch):
    tokens[row, :len(seq)] = torch.tensor(seq)
out, h = model(tokens.to(device), torch.tensor([3, 2]), model.init_hidden(2))
""",
    # ------------------------------------------------ empty placeholders: replaced is fine, concatenated onto is not
    "eval_loop_concatenates_predictions_onto_an_empty_host_tensor": """
def evaluate(model, loader, device):
    model.eval()
    all_logits = torch.tensor([])
    all_labels = torch.empty(0, dtype=torch.long)
    with torch.no_grad():
        for x, y in loader:
            logits = model(x.to(device))
            all_logits = torch.cat([all_logits, logits], dim=0)  # <- DL011
            all_labels = torch.cat((all_labels, y))
    return (all_logits.argmax(1).cpu() == all_labels).float().mean().item()


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
print(f"accuracy {evaluate(model, make_loader(), device):.3f}")
""",
    "multi_crop_forward_takes_a_tensor_or_a_list_and_concatenates_onto_a_host_placeholder": """
class MultiCropWrapper(nn.Module):
    def __init__(self, backbone, head):
        super().__init__()
        self.backbone, self.head = backbone, head

    def forward(self, x):
        if not isinstance(x, list):
            x = [x]
        output = torch.empty(0)
        for crops in x:
            output = torch.cat((output, self.backbone(crops)))  # <- DL011
        return self.head(output)


class MultiCropOnItsDevice(MultiCropWrapper):
    def forward(self, x):
        if not isinstance(x, list):
            x = [x]
        output = torch.empty(0).to(x[0].device)
        for crops in x:
            output = torch.cat((output, self.backbone(crops)))
        return self.head(output)
""",
    "eval_loop_concatenates_on_the_host_or_on_the_device": """
def collect(model, loader, device):
    model.eval()
    on_host = torch.Tensor()
    on_device = torch.zeros(0, 3, device=device)
    with torch.no_grad():
        for x, _ in loader:
            logits = model(x.to(device))
            on_host = torch.cat([on_host, logits.cpu()])
            on_device = torch.cat([on_device, logits])
    return on_host, on_device


class Memory(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.size = size
        self.bank = torch.empty(0)  # replaced by the first batch's features, never joined onto

    def forward(self, feats):
        if self.bank.numel() == 0:
            self.bank = feats.detach()
        return feats @ self.bank.T


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
host_logits, device_logits = collect(model, make_loader(), device)
""",
    # ------------------------------------------------ forward of any module: inputs live on its device
    "gpt_positions_built_on_the_host": """
class GPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_embd):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab_size, n_embd),
            wpe=nn.Embedding(block_size, n_embd),
            drop=nn.Dropout(0.1),
        ))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long)
        tok_emb = self.transformer.wte(idx)
        pos_emb = self.transformer.wpe(pos)  # <- DL011
        return self.lm_head(self.transformer.drop(tok_emb + pos_emb))
""",
    "sparse_attention_row_sums_through_a_custom_autograd_function": """
class SparseRowMatmul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, indices, values, shape, dense):
        sparse = torch.sparse_coo_tensor(indices, values, shape)
        ctx.save_for_backward(sparse, dense)
        return torch.matmul(sparse, dense)

    @staticmethod
    def backward(ctx, grad_output):
        sparse, dense = ctx.saved_tensors
        return None, None, None, sparse.t().matmul(grad_output)


class SpGraphAttention(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.W = nn.Parameter(torch.zeros(size=(in_features, out_features)))
        self.a = nn.Parameter(torch.zeros(size=(1, 2 * out_features)))

    def forward(self, x, adj):
        n = x.size(0)
        edge = adj.nonzero().t()
        h = torch.mm(x, self.W)
        edge_e = torch.exp(-self.a.mm(torch.cat((h[edge[0], :], h[edge[1], :]), dim=1).t()).squeeze())
        rowsum = SparseRowMatmul.apply(edge, edge_e, torch.Size([n, n]), torch.ones(size=(n, 1)))  # <- DL011
        return SparseRowMatmul.apply(edge, edge_e, torch.Size([n, n]), h).div(rowsum)
""",
    "sparse_attention_row_sums_on_the_input_device": """
class SparseRowMatmul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, indices, values, shape, dense):
        sparse = torch.sparse_coo_tensor(indices, values, shape)
        ctx.save_for_backward(sparse, dense)
        return torch.matmul(sparse, dense)


class SpGraphAttention(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.W = nn.Parameter(torch.zeros(size=(in_features, out_features)))

    def forward(self, x, adj):
        n = x.size(0)
        edge = adj.nonzero().t()
        h = torch.mm(x, self.W)
        ones = torch.ones(size=(n, 1), device=x.device)
        return SparseRowMatmul.apply(edge, h.sum(1)[edge[0]], torch.Size([n, n]), ones)
""",
    "positions_handed_to_a_rotary_embedding_that_moves_them": """
class RotaryPosEmbed(nn.Module):
    def __init__(self, dim, theta=10000.0):
        super().__init__()
        self.register_buffer("freqs", 1.0 / theta ** (torch.arange(0, dim, 2).float() / dim), persistent=False)

    def forward(self, positions, device):
        positions = positions.to(device=device, dtype=torch.float32)
        return torch.einsum("d,bn->bnd", self.freqs, positions).cos()


class VideoTransformer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.rope = RotaryPosEmbed(dim)

    def forward(self, hidden_states):
        b, n, _ = hidden_states.shape
        frame_indices = torch.arange(0, n).unsqueeze(0).expand(b, -1)
        rotary = self.rope(frame_indices, device=hidden_states.device)
        return self.proj(hidden_states) * rotary
""",
    "positions_handed_to_a_rotary_embedding_that_uses_them_as_they_are": """
class RotaryPosEmbed(nn.Module):
    def __init__(self, dim, theta=10000.0):
        super().__init__()
        self.register_buffer("freqs", 1.0 / theta ** (torch.arange(0, dim, 2).float() / dim), persistent=False)

    def forward(self, positions):
        return torch.einsum("d,bn->bnd", self.freqs, positions.float()).cos()


class VideoTransformer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.rope = RotaryPosEmbed(dim)

    def forward(self, hidden_states):
        b, n, _ = hidden_states.shape
        frame_indices = torch.arange(0, n).unsqueeze(0).expand(b, -1)
        rotary = self.rope(frame_indices)  # <- DL011
        return self.proj(hidden_states) * rotary
""",
    "discriminator_that_asks_where_its_input_is_moves_nothing": """
class Discriminator(nn.Module):
    def __init__(self, ngpu):
        super().__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(nn.Conv2d(3, 64, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(64, 1, 4, 1, 0))

    def forward(self, input):
        if input.is_cuda and self.ngpu > 1:
            output = nn.parallel.data_parallel(self.main, input, range(self.ngpu))
        else:
            output = self.main(input)
        return output.view(-1, 1).squeeze(1)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
netD = Discriminator(1).to(device)
for i, data in enumerate(make_loader()):
    real = data[0]
    output = netD(real)  # <- DL002
""",
    "discriminator_output_from_inputs_it_moved_itself": """
class Discriminator(nn.Module):
    def __init__(self, input_dim, hidden_dim, device):
        super().__init__()
        self.device = device
        self.trunk = nn.Sequential(nn.Linear(input_dim, hidden_dim), nn.Tanh(), nn.Linear(hidden_dim, 1)).to(device)
        self.optimizer = torch.optim.Adam(self.trunk.parameters())

    def reward(self, expert_state, expert_action):
        state = torch.as_tensor(expert_state, dtype=torch.float32).to(self.device)
        action = expert_action.to(self.device)
        with torch.no_grad():
            d = self.trunk(torch.cat([state, action], dim=1))
        s = torch.sigmoid(d)
        return (s.log() - (1 - s).log()).numpy()  # <- DL003
""",
    "gpt_positions_on_the_input_device": """
class GPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_embd):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab_size, n_embd),
            wpe=nn.Embedding(block_size, n_embd),
        ))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        return self.lm_head(self.transformer.wte(idx) + self.transformer.wpe(pos))
""",
    "sinusoidal_embedding_of_timesteps": """
import math


class SinusoidalPosEmb(nn.Module):
    def __init__(self, dim, theta=10000):
        super().__init__()
        self.dim = dim
        self.theta = theta

    def forward(self, x):
        half_dim = self.dim // 2
        emb = math.log(self.theta) / (half_dim - 1)
        emb = torch.exp(torch.arange(half_dim) * -emb)
        emb = x[:, None] * emb[None, :]  # <- DL011
        return torch.cat((emb.sin(), emb.cos()), dim=-1)
""",
    "attention_mask_from_eye": """
class Attention(nn.Module):
    def __init__(self, dim, heads=4):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(dim, dim * 3, bias=False)
        self.to_out = nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        dots = q @ k.transpose(-1, -2) * (q.shape[-1] ** -0.5)
        mask = torch.eye(dots.shape[-1], dtype=torch.bool)
        dots = dots.masked_fill(mask, -torch.finfo(dots.dtype).max)  # <- DL011
        return self.to_out(dots.softmax(dim=-1) @ v)
""",
    "lstm_state_helper_called_from_forward": """
class Tagger(nn.Module):
    def __init__(self, vocab, hidden=32):
        super().__init__()
        self.hidden = hidden
        self.embed = nn.Embedding(vocab, 16)
        self.lstm = nn.LSTM(16, hidden, batch_first=True)

    def init_hidden(self, batch_size):
        h = torch.zeros(1, batch_size, self.hidden)
        return h, h.clone()

    def forward(self, tokens):
        state = self.init_hidden(tokens.size(0))
        out, _ = self.lstm(self.embed(tokens), state)  # <- DL011
        return out
""",
    "shape_probe_run_by_init_is_not_forward": """
class DQN(nn.Module):
    def __init__(self, input_shape, num_actions):
        super().__init__()
        self.input_shape = input_shape
        self.features = nn.Sequential(nn.Conv2d(input_shape[0], 32, 8, stride=4), nn.ReLU())
        self.fc = nn.Sequential(nn.Linear(self.feature_size(), 256), nn.ReLU(), nn.Linear(256, num_actions))

    def forward(self, x):
        return self.fc(self.features(x).view(x.size(0), -1))

    def feature_size(self):
        return self.features(torch.zeros(1, *self.input_shape)).view(1, -1).size(1)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = DQN((4, 84, 84), 6).to(device)
q = model(torch.randn(2, 4, 84, 84, device=device))
""",
    "host_copy_of_the_output_meets_a_host_support": """
class Categorical(nn.Module):
    def __init__(self, n_in, n_actions, n_atoms=51):
        super().__init__()
        self.n_actions, self.n_atoms = n_actions, n_atoms
        self.fc = nn.Linear(n_in, n_actions * n_atoms)

    def forward(self, x):
        return F.softmax(self.fc(x).view(-1, self.n_actions, self.n_atoms), dim=-1)

    def act(self, state):
        dist = self.forward(state).data.cpu()
        dist = dist * torch.linspace(-10, 10, self.n_atoms)
        return dist.sum(2).max(1)[1].numpy()[0]


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
policy = Categorical(8, 4).to(device)
action = policy.act(torch.randn(1, 8, device=device))
""",
    "grid_list_rebuilt_before_use": """
class Detect(nn.Module):
    def __init__(self, nc=80, anchors=3, nl=3):
        super().__init__()
        self.nl, self.na, self.no = nl, anchors, nc + 5
        self.grid = [torch.empty(0) for _ in range(nl)]
        self.m = nn.ModuleList(nn.Conv2d(64, self.no * self.na, 1) for _ in range(nl))

    def _make_grid(self, nx, ny, i):
        d = self.m[i].weight.device
        yv, xv = torch.meshgrid(torch.arange(ny, device=d), torch.arange(nx, device=d), indexing="ij")
        return torch.stack((xv, yv), 2).expand(1, self.na, ny, nx, 2).float()

    def forward(self, x):
        z = []
        for i in range(self.nl):
            x[i] = self.m[i](x[i])
            bs, _, ny, nx = x[i].shape
            y = x[i].view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2)
            if self.grid[i].shape[2:4] != y.shape[2:4]:
                self.grid[i] = self._make_grid(nx, ny, i)
            z.append(y[..., :2].sigmoid() * 2 + self.grid[i])
        return torch.cat([t.view(bs, -1, 2) for t in z], 1)
""",
    # ------------------------------------------------ unittest: each test gets setUp's instance
    "unittest_move_in_one_test_not_seen_by_another": """
import unittest


class TestNet(unittest.TestCase):
    def setUp(self):
        self.model = Net()

    def test_cuda_forward(self):
        self.model.cuda()
        y = self.model(torch.randn(4, 8).cuda())

    def test_cpu_forward(self):
        x = torch.randn(4, 8)
        y = self.model(x)
        self.assertEqual(y.shape, (4, 3))
""",
    # ------------------------------------------------ methods that place what they are given
    "tile_predict_moves_its_own_slices": """
class Segmenter(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.conv = nn.Conv2d(3, n_classes, 3, padding=1)

    def forward(self, x):
        return self.conv(x)

    def tile_predict(self, imgs, side=32):
        on_cuda = next(self.parameters()).is_cuda
        out = []
        for s in range(0, imgs.shape[-1], side):
            tile = imgs[..., s:s + side]
            if on_cuda:
                tile = tile.cuda()
            out.append(self.forward(tile).detach().cpu())
        return torch.cat(out, -1)


model = Segmenter()
model.cuda(0)
model.eval()
img = torch.from_numpy(np.zeros((1, 3, 64, 64), dtype=np.float32))
pred = model.tile_predict(img).numpy()
""",
    # ------------------------------------------------ a moved pipeline whose parts are swapped
    "pipeline_moved_again_after_adapters_replace_parts": """
from diffusers import StableDiffusionPipeline
from peft import PeftModel


def load_adapter(pipe, ckpt_dir, adapter_name="default"):
    pipe.unet = PeftModel.from_pretrained(pipe.unet, ckpt_dir + "/unet", adapter_name=adapter_name)


def get_pipeline(ckpt_dir, base, device="cuda"):
    pipe = StableDiffusionPipeline.from_pretrained(base, torch_dtype=torch.float16).to(device)
    load_adapter(pipe, ckpt_dir)
    pipe.to(device)
    return pipe


def get_text_pipeline(ckpt_dir, base, device="cuda"):
    pipe = StableDiffusionPipeline.from_pretrained(base).to(device)
    pipe.text_encoder = PeftModel.from_pretrained(pipe.text_encoder, ckpt_dir)
    pipe.to(device)
    return pipe
""",
    "pipeline_moved_twice_for_nothing": """
from diffusers import StableDiffusionPipeline

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
pipe = StableDiffusionPipeline.from_pretrained("runwayml/stable-diffusion-v1-5").to(device)
pipe.set_progress_bar_config(disable=True)
pipe.to(device)  # <- DL004
""",
    # ------------------------------------------------ checkpoints this script writes
    "features_saved_on_the_host_loaded_from_another_folder": """
import os

parser = argparse.ArgumentParser()
parser.add_argument("--dump_features", default="")
parser.add_argument("--load_features", default="")
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
if args.load_features:
    train_features = torch.load(os.path.join(args.load_features, "trainfeat.pth"))
else:
    with torch.no_grad():
        train_features = torch.cat([model(x.to(device)) for x, _ in make_loader()])
    torch.save(train_features.cpu(), os.path.join(args.dump_features, "trainfeat.pth"))
""",
    "vocabulary_vectors_cached_by_this_script": """
parser = argparse.ArgumentParser()
parser.add_argument("--vector_cache", default=".vector_cache/input_vectors.pt")
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)


class Vocab:
    vectors = None


vocab = Vocab()
if args.vector_cache and os.path.isfile(args.vector_cache):
    vocab.vectors = torch.load(args.vector_cache)
else:
    torch.save(vocab.vectors, args.vector_cache)
""",
    "checkpoint_dict_saved_and_resumed": """
import os

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
optimizer = torch.optim.Adam(model.parameters())
ckpt_path = "checkpoints/sac_checkpoint.pt"
if os.path.exists(ckpt_path):
    checkpoint = torch.load(ckpt_path)  # <- DL009
    model.load_state_dict(checkpoint["model"])
for x, y in make_loader():
    loss = F.cross_entropy(model(x.to(device)), y.to(device))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, ckpt_path)
""",
    # ------------------------------------------------ numbers a model returns
    "pooling_ratio_from_library_layer_sizes": """
from torch_geometric.nn import TopKPooling


class PoolNet(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.lin = nn.Linear(c, 1)
        self.pool = TopKPooling(c, min_score=0.05)

    def forward(self, x, edge_index, batch):
        out, edge_index, _, batch, perm, score = self.pool(x, edge_index, None, batch)
        ratio = out.size(0) / x.size(0)
        return self.lin(out).view(-1), ratio


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = PoolNet(8).to(device)
total_ratio = 0
for x, y in make_loader():
    x = x.to(device)
    edge_index = torch.zeros(2, 0, dtype=torch.long, device=device)
    batch = torch.zeros(x.size(0), dtype=torch.long, device=device)
    out, ratio = model(x, edge_index, batch)
    total_ratio += ratio
""",
    # ------------------------------------------------ DataParallel / DDP move nothing, but scatter inputs
    "data_parallel_around_a_model_never_moved": """
import torch.backends.cudnn as cudnn

device = "cuda" if torch.cuda.is_available() else "cpu"
net = Net()
if device == "cuda":
    net = torch.nn.DataParallel(net)
    cudnn.benchmark = True
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for inputs, targets in make_loader():
    inputs, targets = inputs.to(device), targets.to(device)
    outputs = net(inputs)  # <- DL001
    loss = F.cross_entropy(outputs, targets)
""",
    "data_parallel_around_a_moved_model": """
device = "cuda" if torch.cuda.is_available() else "cpu"
net = Net().to(device)
if device == "cuda":
    net = torch.nn.DataParallel(net)
for inputs, targets in make_loader():
    inputs, targets = inputs.to(device), targets
    loss = F.cross_entropy(net(inputs), targets)  # <- DL002
""",
    "ddp_scatters_host_inputs_itself": """
import os
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def demo_basic(rank, world_size):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    model = Net().to(rank)
    ddp_model = DDP(model, device_ids=[rank])
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.001)
    outputs = ddp_model(torch.randn(20, 8))
    labels = torch.randint(0, 3, (20,), device=rank)
    F.cross_entropy(outputs, labels).backward()
    optimizer.step()
""",
    "variable_wrapper_under_a_cuda_flag": """
from torch.autograd import Variable

parser = argparse.ArgumentParser()
parser.add_argument("--cuda", action="store_true")
args = parser.parse_args()
net = Net()
if args.cuda:
    net = net.cuda()
for images, targets in make_loader():
    if args.cuda:
        images = Variable(images.cuda())
        targets = Variable(targets.cuda())
    else:
        images = Variable(images)
        targets = Variable(targets)
    loss = F.cross_entropy(net(images), targets)
    pred = net(images).argmax(1).numpy()  # <- DL003
""",
    # ------------------------------------------------ a loss proven differentiable by its backward
    "loss_from_a_helper_summed_after_backward": """
def cal_performance(pred, gold, smoothing=False):
    loss = F.cross_entropy(pred, gold, label_smoothing=0.1 if smoothing else 0.0)
    n_correct = pred.argmax(1).eq(gold).sum().item()
    return loss, n_correct, gold.numel()


def train_epoch(model, training_data, optimizer, device):
    total_loss, n_word_total = 0, 0
    for src, gold in training_data:
        optimizer.zero_grad()
        pred = model(src.to(device))
        loss, n_correct, n_word = cal_performance(pred, gold.to(device), smoothing=True)
        loss.backward()
        optimizer.step()
        n_word_total += n_word
        total_loss += loss  # <- DL010
    return total_loss / n_word_total
""",
    "loss_item_summed_after_backward": """
def train_steps(model, optimizer, steps, device):
    total_loss = 0.0
    for step in range(steps):
        optimizer.zero_grad()
        x = torch.randn(16, 8, device=device)
        loss = model(x).pow(2).mean()
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    return total_loss / steps
""",
    # ------------------------------------------------ what a forward computes from its module's tensors
    "einops_heads_meet_a_host_mask": """
from einops import rearrange


class Attention(nn.Module):
    def __init__(self, dim, heads=8, dim_head=16):
        super().__init__()
        inner_dim = heads * dim_head
        self.heads = heads
        self.temperature = nn.Parameter(torch.log(torch.tensor(dim_head ** -0.5)))
        self.to_qkv = nn.Linear(dim, inner_dim * 3, bias=False)
        self.to_out = nn.Linear(inner_dim, dim)

    def forward(self, x):
        qkv = self.to_qkv(x).chunk(3, dim=-1)
        q, k, v = map(lambda t: rearrange(t, "b n (h d) -> b h n d", h=self.heads), qkv)
        dots = torch.matmul(q, k.transpose(-1, -2)) * self.temperature.exp()
        mask = torch.eye(dots.shape[-1], dtype=torch.bool)
        dots = dots.masked_fill(mask, -torch.finfo(dots.dtype).max)  # <- DL011
        out = rearrange(torch.matmul(dots.softmax(dim=-1), v), "b h n d -> b n (h d)")
        return self.to_out(out)
""",
    "codebook_lookup_through_the_embedding_weight": """
class VectorQuantizer(nn.Module):
    def __init__(self, num_embeddings, embedding_dim):
        super().__init__()
        self.K = num_embeddings
        self.embedding = nn.Embedding(num_embeddings, embedding_dim)

    def forward(self, latents):
        flat = latents.view(-1, self.embedding.weight.size(1))
        dist = torch.cdist(flat, self.embedding.weight)
        inds = dist.argmin(dim=1).unsqueeze(1)
        one_hot = torch.zeros(inds.size(0), self.K)
        one_hot.scatter_(1, inds, 1)  # <- DL011
        return torch.matmul(one_hot, self.embedding.weight)  # <- DL011
""",
    "relative_positions_from_integer_sizes": """
class RelPosAttention(nn.Module):
    def __init__(self, dim, size):
        super().__init__()
        self.rel_pos = nn.Parameter(torch.zeros(2 * size - 1, dim))
        self.proj = nn.Linear(dim, dim)

    def get_rel_pos(self, q_size: int, k_size: int, rel_pos):
        q_coords = torch.arange(q_size)[:, None] * max(k_size / q_size, 1.0)
        k_coords = torch.arange(k_size)[None, :] * max(q_size / k_size, 1.0)
        relative_coords = (q_coords - k_coords) + (k_size - 1) * max(q_size / k_size, 1.0)
        return rel_pos[relative_coords.long()]

    @staticmethod
    def sinusoid_table(num_embeddings, embedding_dim):
        half_dim = embedding_dim // 2
        emb = torch.exp(torch.arange(half_dim).float() * -0.1)
        emb = torch.arange(num_embeddings).float().unsqueeze(1) * emb.unsqueeze(0)
        return torch.cat([torch.sin(emb), torch.cos(emb), torch.zeros(num_embeddings, 1)], dim=1)

    def forward(self, x):
        bias = self.get_rel_pos(x.shape[1], x.shape[1], self.rel_pos)
        return self.proj(x) + bias.sum(-1)
""",
    "empty_placeholder_for_an_unused_weight": """
class SelfAttention(nn.Module):
    def __init__(self, embed_dim, num_heads):
        super().__init__()
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.out_proj = nn.Linear(embed_dim, embed_dim)

    def forward(self, hidden_states):
        query = key = value = hidden_states.transpose(0, 1)
        out, _ = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads,
            torch.empty([0]),
            torch.cat((self.q_proj.bias, self.k_proj.bias, self.v_proj.bias)),
            None, None, False, 0.0,
            self.out_proj.weight, self.out_proj.bias,
            use_separate_proj_weight=True,
            q_proj_weight=self.q_proj.weight, k_proj_weight=self.k_proj.weight, v_proj_weight=self.v_proj.weight,
        )
        return out
""",
    # ------------------------------------------------ loops over a logging wrapper of the loader
    "metric_logger_yields_the_loaders_batches": """
import utils


def train_linear(model, linear_classifier, optimizer, loader, epoch):
    metric_logger = utils.MetricLogger(delimiter="  ")
    header = "Epoch: [{}]".format(epoch)
    for (inp, target) in metric_logger.log_every(loader, 20, header):
        inp = inp.cuda(non_blocking=True)
        with torch.no_grad():
            output = model(inp)
        output = linear_classifier(output)
        loss = nn.CrossEntropyLoss()(output, target)  # <- DL002
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        metric_logger.update(loss=loss.item())
""",
    # ------------------------------------------------ PyG: library models, graphs moved in place
    "pyg_graphsage_never_moved": """
from torch_geometric.loader import LinkNeighborLoader
from torch_geometric.nn import GraphSAGE


def train(model, loader, optimizer, device):
    model.train()
    for data in loader:
        data = data.to(device)
        optimizer.zero_grad()
        h = model(data.x, data.edge_index)
        link_pred = (h[data.edge_label_index[0]] * h[data.edge_label_index[1]]).sum(dim=-1)
        loss = F.binary_cross_entropy_with_logits(link_pred, data.edge_label)
        loss.backward()
        optimizer.step()


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = GraphSAGE(in_channels=50, hidden_channels=64, num_layers=2, out_channels=64)
optimizer = torch.optim.Adam(model.parameters(), lr=0.005)
# DL001 blames where the model enters the call chain: the call that hands it to train()
train(model, LinkNeighborLoader(None, batch_size=2048, num_neighbors=[10, 10]), optimizer, device)  # <- DL001
""",
    "pyg_post_processing_without_weights": """
from torch_geometric.nn import CorrectAndSmooth

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
y_soft = torch.rand(100, 4, device=device).softmax(-1)
y_train = torch.randint(0, 4, (20,), device=device)
train_idx = torch.arange(20, device=device)
adj = torch.eye(100, device=device)
post = CorrectAndSmooth(num_correction_layers=50, correction_alpha=1.0,
                        num_smoothing_layers=50, smoothing_alpha=0.8)
y_soft = post.correct(y_soft, y_train, train_idx, adj)
y_soft = post.smooth(y_soft, y_train, train_idx, adj)
""",
    # ------------------------------------------------ a module's own buffers and parameters live with it
    "diffusion_timesteps_gather_a_registered_buffer": """
import math
from functools import partial


def extract(a, t, x_shape):
    b, *_ = t.shape
    out = a.gather(-1, t)
    return out.reshape(b, *((1,) * (len(x_shape) - 1)))


def cosine_beta_schedule(timesteps, s=0.008):
    x = torch.linspace(0, timesteps, timesteps + 1, dtype=torch.float64)
    alphas_cumprod = torch.cos(((x / timesteps) + s) / (1 + s) * math.pi * 0.5) ** 2
    alphas_cumprod = alphas_cumprod / alphas_cumprod[0]
    return torch.clip(1 - (alphas_cumprod[1:] / alphas_cumprod[:-1]), 0, 0.999)


class GaussianDiffusion(nn.Module):
    def __init__(self, model, *, image_size, timesteps=1000):
        super().__init__()
        self.model = model
        self.image_size = image_size
        betas = cosine_beta_schedule(timesteps)
        alphas_cumprod = torch.cumprod(1. - betas, dim=0)
        self.num_timesteps = int(betas.shape[0])
        register_buffer = lambda name, val: self.register_buffer(name, val.to(torch.float32))
        register_buffer("sqrt_alphas_cumprod", torch.sqrt(alphas_cumprod))
        register_buffer("sqrt_one_minus_alphas_cumprod", torch.sqrt(1. - alphas_cumprod))

    def q_sample(self, x_start, t, noise=None):
        noise = torch.randn_like(x_start) if noise is None else noise
        return (extract(self.sqrt_alphas_cumprod, t, x_start.shape) * x_start +
                extract(self.sqrt_one_minus_alphas_cumprod, t, x_start.shape) * noise)

    def p_losses(self, x_start, t, noise=None):
        noise = torch.randn_like(x_start) if noise is None else noise
        x = self.q_sample(x_start=x_start, t=t, noise=noise)
        return F.mse_loss(self.model(x, t), noise)

    def forward(self, img, *args, **kwargs):
        b, c, h, w, device = *img.shape, img.device
        t = torch.randint(0, self.num_timesteps, (b,)).long()
        return self.p_losses(img, t, *args, **kwargs)  # <- DL011
""",
    "fourier_features_scale_a_parameter": """
class GaussianFourierProjection(nn.Module):
    def __init__(self, embed_dim, scale=30.0):
        super().__init__()
        self.W = nn.Parameter(torch.randn(embed_dim // 2) * scale, requires_grad=False)
        self.register_buffer("freq_bands", 2.0 ** torch.linspace(0, 7, 8))

    def forward(self, x):
        noise_level = torch.rand(x.shape[0])
        x_proj = x[:, None] * self.W[None, :] * 2 * np.pi
        bands = noise_level[:, None] * self.freq_bands  # <- DL011
        return torch.cat([torch.sin(x_proj), torch.cos(x_proj), bands], dim=-1)
""",
    "buffer_indexed_by_positions_made_on_its_device": """
class SinusoidalPositions(nn.Module):
    def __init__(self, dim, max_len=512):
        super().__init__()
        pos = torch.arange(max_len).unsqueeze(1)
        div = torch.exp(torch.arange(0, dim, 2) * (-math.log(10000.0) / dim))
        pe = torch.zeros(max_len, dim)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe)

    def forward(self, x):
        idx = torch.arange(x.size(1), device=x.device)
        return x + self.pe.index_select(0, idx)
""",
    # ------------------------------------------------ a class that places its own parts
    "discriminator_moves_its_trunk_to_the_device_it_is_given": """
from baselines.running_mean_std import RunningMeanStd


class Discriminator(nn.Module):
    def __init__(self, input_dim, hidden_dim, device):
        super().__init__()
        self.device = device
        self.trunk = nn.Sequential(
            nn.Linear(input_dim, hidden_dim), nn.Tanh(),
            nn.Linear(hidden_dim, 1)).to(device)
        self.optimizer = torch.optim.Adam(self.trunk.parameters())
        self.returns = None
        self.ret_rms = RunningMeanStd(shape=())

    def predict_reward(self, state, action, gamma, masks, update_rms=True):
        with torch.no_grad():
            d = self.trunk(torch.cat([state, action], dim=1))
            s = torch.sigmoid(d)
            reward = s.log() - (1 - s).log()
            if self.returns is None:
                self.returns = reward.clone()
            if update_rms:
                # masks and gamma come from the caller: whatever they are, the result is
                # where the trunk's output is, or the product fails
                self.returns = self.returns * masks * gamma + reward
                self.ret_rms.update(self.returns.numpy())  # <- DL003
            return reward / np.sqrt(self.ret_rms.var[0] + 1e-8)

    def score_states(self, states):
        scores = self.trunk(states.to(self.device))
        return scores.cpu().numpy()


class Critic(nn.Module):
    def __init__(self, obs_dim):
        super().__init__()
        self.v = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, 1))

    def value(self, obs):
        # nothing here places the critic: it runs wherever its caller put it
        return self.v(obs).numpy()
""",
    # ------------------------------------------------ a post-processor written for device inputs
    "panoptic_post_processor_written_for_outputs_on_the_device": """
from PIL import Image
from util.misc import interpolate


class PostProcessSegm(nn.Module):
    def __init__(self, threshold=0.85):
        super().__init__()
        self.threshold = threshold

    def forward(self, outputs, processed_sizes):
        results = []
        for logits, masks, size in zip(outputs["pred_logits"], outputs["pred_masks"], processed_sizes):
            scores, labels = logits.softmax(-1).max(-1)
            keep = scores > self.threshold
            masks = interpolate(masks[keep][:, None], size, mode="bilinear").squeeze(1)
            h, w = masks.shape[-2:]

            def paint(m):
                ids = m.transpose(0, 1).softmax(-1)
                if ids.shape[-1] == 0:
                    ids = torch.zeros((h, w), dtype=torch.long, device=ids.device)
                else:
                    ids = ids.argmax(-1).view(h, w)
                return Image.fromarray(ids.view(h, w).numpy().astype(np.uint8))  # <- DL003

            results.append({"labels": labels[keep].cpu().numpy(), "image": paint(masks)})
        return results


class ToArray(nn.Module):
    # a preprocessing step the dataset applies per sample, on the host
    def forward(self, img):
        x = np.array(img.numpy(), dtype=np.float32)
        return torch.from_numpy(x / 255.0)
""",
    # ------------------------------------------------ collectives of the NCCL backend
    "detection_loss_averages_the_box_count_over_processes": """
import torch.distributed as dist


class SetCriterion(nn.Module):
    def __init__(self, num_classes, weight_dict):
        super().__init__()
        self.num_classes = num_classes
        self.weight_dict = weight_dict

    def forward(self, outputs, targets):
        num_boxes = sum(len(t["labels"]) for t in targets)
        num_boxes = torch.as_tensor([num_boxes], dtype=torch.float)
        if dist.is_available() and dist.is_initialized():
            dist.all_reduce(num_boxes)  # <- DL011
        num_boxes = torch.clamp(num_boxes / dist.get_world_size(), min=1).item()
        counts = torch.as_tensor([len(t["boxes"]) for t in targets], device=outputs["pred_logits"].device)
        dist.all_reduce(counts)
        return F.cross_entropy(outputs["pred_logits"].transpose(1, 2), targets[0]["labels"]) / num_boxes


def average_on_cpu_workers(values):
    # a gloo job on CPU workers: nothing in this function or file runs on a GPU
    total = torch.tensor([sum(values), len(values)], dtype=torch.float64)
    dist.all_reduce(total)
    return (total[0] / total[1]).item()
""",
    "distributed_eval_reduces_counts_made_on_the_host": """
import torch.distributed as dist


def evaluate(model, loader, device):
    model.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(1) == y).sum().item()
            total += y.numel()
    # NCCL refuses host tensors, 0-dim ones too
    hits = torch.tensor(correct)
    seen = torch.tensor(total, device=device)
    dist.all_reduce(hits)  # <- DL011
    dist.all_reduce(seen)
    return hits.item() / seen.item()


def main(local_rank):
    dist.init_process_group("nccl")
    device = torch.device("cuda", local_rank)
    model = Net().to(device)
    return evaluate(model, make_loader(), device)
""",
    # ------------------------------------------------ a number a caller passes becomes a host tensor
    "unet_subclass_turns_a_python_timestep_into_a_host_tensor": """
from diffusers.models import UNet2DConditionModel


class ControlledUNet(UNet2DConditionModel):
    def forward(self, sample, timestep, encoder_hidden_states, timestep_cond=None):
        timesteps = timestep
        if not torch.is_tensor(timesteps):
            dtype = torch.float64 if isinstance(timestep, float) else torch.int64
            timesteps = torch.tensor([timesteps], dtype=dtype)
        elif len(timesteps.shape) == 0:
            timesteps = timesteps[None].to(sample.device)
        timesteps = timesteps.expand(sample.shape[0])
        # time_proj and time_embedding are parts the diffusers base class built
        t_emb = self.time_proj(timesteps)
        t_emb = t_emb.to(dtype=sample.dtype)
        emb = self.time_embedding(t_emb, timestep_cond)  # <- DL011
        sample = self.conv_in(sample)
        for block in self.down_blocks:
            sample, _ = block(hidden_states=sample, temb=emb, encoder_hidden_states=encoder_hidden_states)
        return sample


class PlacedUNet(UNet2DConditionModel):
    def forward(self, sample, timestep, encoder_hidden_states):
        timesteps = timestep
        if not isinstance(timesteps, torch.Tensor):
            timesteps = torch.tensor([timesteps], dtype=torch.int64, device=sample.device)
        t_emb = self.time_proj(timesteps.expand(sample.shape[0])).to(dtype=sample.dtype)
        return self.time_embedding(t_emb)


class SigmaScaler:
    # a scheduler's helper: no module, nothing here runs on the device
    def precondition_noise(self, sigma):
        if not isinstance(sigma, torch.Tensor):
            sigma = torch.tensor([sigma])
        return 0.25 * torch.log(sigma)
""",
    # ------------------------------------------------ a cast keeps a tensor where it is
    "attention_bias_cast_to_half_stays_on_the_host": """
class Scorer(nn.Module):
    def __init__(self, dim, n):
        super().__init__()
        self.proj = nn.Linear(dim, n)

    def forward(self, x):
        bias = torch.zeros(x.size(0), self.proj.out_features).to(torch.float16)
        causal = torch.ones(x.size(0), x.size(0)).to(dtype=torch.bool)
        scores = self.proj(x) + bias  # <- DL011
        return scores, causal  # <- DL011
""",
    # ------------------------------------------------ indexing with None / ... keeps a tensor's dimensions
    "token_ids_gathered_through_a_batched_index_helper": """
from einops import repeat


def batched_index_select(values, indices, dim=1):
    value_dims = values.shape[(dim + 1):]
    indices = indices[(..., *((None,) * len(value_dims)))]
    indices = indices.expand(*((-1,) * (dim + 1)), *value_dims)
    values = values[(*((slice(None),) * dim), ...)]
    return values.gather(dim, indices)


class TokenSampler(nn.Module):
    def __init__(self, dim, keep):
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.keep = keep

    def forward(self, x):
        b, n = x.shape[:2]
        token_ids = repeat(torch.arange(n), "n -> b n", b=b)
        sampled = self.score(x).squeeze(-1).topk(self.keep, dim=-1).indices
        x = batched_index_select(x, sampled, dim=1)
        token_ids = batched_index_select(token_ids, sampled, dim=1)  # <- DL011
        return x, token_ids
""",
    # ------------------------------------------------ an EMA / momentum copy left on the host
    "momentum_teacher_copied_from_the_student_and_never_moved": """
import copy


def momentum_update(teacher, student, m):
    for p_t, p_s in zip(teacher.parameters(), student.parameters()):
        p_t.data.mul_(m).add_(p_s.detach().data, alpha=1 - m)


def train(args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    student = Net()
    teacher = copy.deepcopy(student)
    for p in teacher.parameters():
        p.requires_grad = False
    student.to(device)
    opt = torch.optim.SGD(student.parameters(), lr=0.1)
    for x, y in make_loader():
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(student(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            momentum_update(teacher, student, 0.996)  # <- DL001


def train_with_a_cuda_flag(args):
    device = torch.device("cuda" if args.cuda else "cpu")
    student = Net()
    if args.cuda:
        student.cuda()
    # copied after a move on one path: where the copy is depends on that path
    teacher = copy.deepcopy(student)
    for x, y in make_loader():
        x = x.to(device)
        with torch.no_grad():
            momentum_update(teacher, student, 0.996)


def export_or_stylize(args, image):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    image = image.to(device)
    with torch.no_grad():
        style_model = Net()
        style_model.load_state_dict(torch.load(args.model, map_location="cpu"))
        style_model.eval()
        if args.export_onnx:
            # exporting traces the model where it is: it moves nothing (and runs the host
            # model on the device image, which fails as the call below does)
            torch.onnx.export(style_model, image, args.export_onnx)  # <- DL001
        else:
            return style_model(image)  # <- DL001
""",
    # ------------------------------------------------ a device property and factories with keywords set
    "packed_images_use_a_device_property_and_a_partial_arange": """
from functools import partial

from einops import rearrange


class PackedViT(nn.Module):
    def __init__(self, dim, patch_dim, max_images):
        super().__init__()
        self.to_patch_embedding = nn.Linear(patch_dim, dim)
        self.queries = nn.Parameter(torch.randn(max_images, dim))

    @property
    def device(self):
        return next(self.parameters()).device

    def forward(self, batched_sequences):
        device = self.device
        arange = partial(torch.arange, device=device)
        num_images, image_ids = [], []
        for sequences in batched_sequences:
            num_images.append(len(sequences))
            counts = [seq.shape[0] for seq in sequences]
            image_ids.append(torch.repeat_interleave(arange(len(sequences)), torch.tensor(counts)))  # <- DL011
        num_images = torch.tensor(num_images, dtype=torch.long)
        x = self.to_patch_embedding(torch.stack([torch.cat(s) for s in batched_sequences]))
        slots = arange(int(max(len(s) for s in batched_sequences)))
        is_image = slots < rearrange(num_images, "b -> b 1")  # <- DL011
        return x, is_image


class PlacedPackedViT(PackedViT):
    def forward(self, batched_sequences):
        arange = partial(torch.arange, device=self.device)
        counts = torch.tensor([len(s) for s in batched_sequences], device=self.device)
        return arange(len(batched_sequences)).repeat_interleave(counts)
""",
    # ------------------------------------------------ blocks taken from a ModuleList built by appending
    "padding_mask_built_on_the_host_and_handed_to_each_block": """
class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, dim * 3)

    def forward(self, x, mask=None):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        sim = q @ k.transpose(-1, -2)
        if mask is not None:
            sim = sim.masked_fill(~mask[:, None, :], -1e4)
        return sim.softmax(-1) @ v


class Encoder(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.layers = nn.ModuleList([])
        for _ in range(depth):
            self.layers.append(nn.ModuleList([Attention(dim), nn.Linear(dim, dim)]))

    def forward(self, x, lengths):
        b, n = x.shape[:2]
        mask = torch.ones((b, n), dtype=torch.bool)
        for attn, ff in self.layers:
            x = attn(x, mask=mask) + x  # <- DL011
            x = ff(x) + x
        return x


class PlacedEncoder(Encoder):
    def forward(self, x, lengths):
        mask = torch.ones(x.shape[:2], dtype=torch.bool, device=x.device)
        for attn, ff in self.layers:
            x = ff(attn(x, mask=mask)) + x
        return x
""",
    # ------------------------------------------------ einops keeps a tensor where it is
    "token_ids_repeated_with_einops_then_gathered": """
from einops import rearrange, repeat


class TokenPruner(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])

    def forward(self, x, keep):
        b, n = x.shape[:2]
        token_ids = repeat(torch.arange(n), "n -> b n", b=b)
        for layer in self.layers:
            x = layer(x)
        return x, token_ids.gather(1, keep)  # <- DL011


class PatchDropout(nn.Module):
    def __init__(self, prob):
        super().__init__()
        self.prob = prob

    def forward(self, x):
        b, n, _ = x.shape
        # an index: CUDA tensors accept host index tensors
        batch_indices = rearrange(torch.arange(b), "... -> ... 1")
        keep = torch.randn(b, n, device=x.device).topk(max(1, int(n * (1 - self.prob))), dim=-1).indices
        return x[batch_indices, keep]
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_module_case(name):
    code = program(CASES[name])
    got = {(f.code, f.line) for f in lint_source(code, f"{name}.py", select=RULES)}
    listing = "\n".join(f"{n:3d} {line}" for n, line in enumerate(code.splitlines(), 1))
    assert got == expected(code), f"got {sorted(got)}\n{listing}"


def test_data_parallel_around_a_moved_model_from_an_unknown_factory():
    code = program("""
from ptsemseg.models import get_model

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = get_model({"arch": "fcn8s"}, 21).to(device)
model = torch.nn.DataParallel(model, device_ids=range(torch.cuda.device_count()))
model.eval()
with torch.no_grad():
    for images_val, labels_val in make_loader():
        outputs = model(images_val.to(device))
        pred = outputs.data.max(1)[1].numpy()  # <- DL003
        gt = labels_val.numpy()
""")
    got = {(f.code, f.line) for f in lint_source(code, "validate.py", select=RULES)}
    assert got == expected(code)
