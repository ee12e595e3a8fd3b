"""Path sensitivity on branches: an `if`/`elif`/`else`, a conditional expression or an
`and`/`or` whose test is a device condition (`torch.cuda.is_available()`, a flag set from it,
`device.type == "cuda"`, `x.is_cuda`) assumes the test's truth value in each arm, and an
`isinstance` test narrows the name it tests in the arm where it is false.

The cases are written the way course notebooks and book helpers write them (Udacity's
deep-learning-v2-pytorch, d2l's `evaluate_accuracy`); lines ending in `# <- DLnnn` must be
flagged with that code and nothing else may be flagged.
"""

import pytest
from inference_cases import expected, program

from devicelint.engine import lint_source

RULES = ["DL001", "DL002", "DL003", "DL004", "DL006", "DL009", "DL010", "DL011"]

CASES = {
    # ------------------------------------------------ a. the host use is guarded by the same flag
    "udacity_test_loop_conditional_numpy": """
train_on_gpu = torch.cuda.is_available()
if not train_on_gpu:
    print('CUDA is not available.  Training on CPU ...')
else:
    print('CUDA is available!  Training on GPU ...')

model = Net()
if train_on_gpu:
    model.cuda()
criterion = nn.CrossEntropyLoss()
test_loader = make_loader()
batch_size = 16
class_correct = list(0. for i in range(3))
class_total = list(0. for i in range(3))
test_loss = 0.0

model.eval()
for data, target in test_loader:
    # move tensors to GPU if CUDA is available
    if train_on_gpu:
        data, target = data.cuda(), target.cuda()
    output = model(data)
    loss = criterion(output, target)
    test_loss += loss.item()*data.size(0)
    _, pred = torch.max(output, 1)
    correct_tensor = pred.eq(target.data.view_as(pred))
    correct = np.squeeze(correct_tensor.numpy()) if not train_on_gpu else np.squeeze(correct_tensor.cpu().numpy())
    for i in range(batch_size):
        label = target.data[i]
        class_correct[label] += correct[i].item()
        class_total[label] += 1

dataiter = iter(test_loader)
images, labels = next(dataiter)
images.numpy()
if train_on_gpu:
    images = images.cuda()
output = model(images)
_, preds_tensor = torch.max(output, 1)
preds = np.squeeze(preds_tensor.numpy()) if not train_on_gpu else np.squeeze(preds_tensor.cpu().numpy())
""",
    "char_rnn_predict_moves_back_under_the_flag": """
train_on_gpu = torch.cuda.is_available()


class CharRNN(nn.Module):
    def __init__(self, tokens, n_hidden=256, n_layers=2, drop_prob=0.5):
        super().__init__()
        self.chars = tokens
        self.int2char = dict(enumerate(self.chars))
        self.char2int = {ch: ii for ii, ch in self.int2char.items()}
        self.n_hidden = n_hidden
        self.lstm = nn.LSTM(len(self.chars), n_hidden, n_layers, dropout=drop_prob, batch_first=True)
        self.fc = nn.Linear(n_hidden, len(self.chars))

    def forward(self, x, hidden):
        r_output, hidden = self.lstm(x, hidden)
        out = r_output.contiguous().view(-1, self.n_hidden)
        return self.fc(out), hidden


def one_hot_encode(arr, n_labels):
    one_hot = np.zeros((arr.size, n_labels), dtype=np.float32)
    one_hot[np.arange(one_hot.shape[0]), arr.flatten()] = 1.
    return one_hot.reshape((*arr.shape, n_labels))


def predict(net, char, h=None, top_k=None):
        x = np.array([[net.char2int[char]]])
        x = one_hot_encode(x, len(net.chars))
        inputs = torch.from_numpy(x)

        if(train_on_gpu):
            inputs = inputs.cuda()

        # detach hidden state from history
        h = tuple([each.data for each in h])
        out, h = net(inputs, h)

        # get the character probabilities
        p = F.softmax(out, dim=1).data
        if(train_on_gpu):
            p = p.cpu() # move to cpu

        # get top characters
        if top_k is None:
            top_ch = np.arange(len(net.chars))
        else:
            p, top_ch = p.topk(top_k)
            top_ch = top_ch.numpy().squeeze()

        p = p.numpy().squeeze()
        char = np.random.choice(top_ch, p=p/p.sum())
        return net.int2char[char], h
""",
    "cycle_gan_helper_moves_back_when_cuda_exists": """
def to_data(x):
    \"\"\"Converts variable to numpy.\"\"\"
    if torch.cuda.is_available():
        x = x.cpu()
    x = x.data.numpy()
    x = ((x +1)*255 / (2)).astype(np.uint8) # rescale to 0-255
    return x


def save_samples(fixed_Y, G_YtoX):
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    fake_X = G_YtoX(fixed_Y.to(device))
    return to_data(fake_X)
""",
    "cpu_only_else_arm_of_the_availability_check": """
character_to_idx = {c: i for i, c in enumerate("abcdefghijklmnopqrstuvwxyz")}


class CharLSTM(nn.Module):
    def __init__(self, n_char, char_dim, char_hidden):
        super().__init__()
        self.char_embedding = nn.Embedding(n_char, char_dim)
        self.char_lstm = nn.LSTM(char_dim, char_hidden, batch_first=True)

    def forward(self, x):
        x = self.char_embedding(x)
        _, h = self.char_lstm(x)
        return h[0]


class LSTMTagger(nn.Module):
    def __init__(self, n_word, n_char, char_dim, n_dim, char_hidden, n_hidden, n_tag):
        super().__init__()
        self.word_embedding = nn.Embedding(n_word, n_dim)
        self.char_lstm = CharLSTM(n_char, char_dim, char_hidden)
        self.lstm = nn.LSTM(n_dim + char_hidden, n_hidden, batch_first=True)
        self.linear1 = nn.Linear(n_hidden, n_tag)

    def forward(self, x, word):
        char = torch.FloatTensor()
        for each in word:
            char_list = []
            for letter in each:
                char_list.append(character_to_idx[letter.lower()])
            char_list = torch.LongTensor(char_list)
            char_list = char_list.unsqueeze(0)
            if torch.cuda.is_available():
                tempchar = self.char_lstm(char_list.cuda())
            else:
                tempchar = self.char_lstm(char_list)
            tempchar = tempchar.squeeze(0)
            char = torch.cat((char, tempchar.cpu().data), 0)
        if torch.cuda.is_available():
            char = char.cuda()
        x = self.word_embedding(x)
        x = torch.cat((x, char), 1)
        x, _ = self.lstm(x.unsqueeze(0))
        return self.linear1(x.squeeze(0))


model = LSTMTagger(100, 26, 10, 100, 50, 128, 5)
if torch.cuda.is_available():
    model = model.cuda()
""",
    "flag_kept_on_self_from_a_constructor_default": """
class Trainer:
    def __init__(self, model, loader, use_gpu=torch.cuda.is_available()):
        self.use_gpu = use_gpu
        self.model = model.cuda() if self.use_gpu else model
        self.loader = loader

    def predict(self):
        preds = []
        for x, _ in self.loader:
            if self.use_gpu:
                x = x.cuda()
            out = self.model(x).argmax(1)
            preds.append(out.numpy() if not self.use_gpu else out.cpu().numpy())
        return np.concatenate(preds)


Trainer(Net(), make_loader()).predict()
""",
    "plot_only_without_a_gpu": """
parser = argparse.ArgumentParser()
parser.add_argument("--plot", action="store_true")
args = parser.parse_args()
use_cuda = torch.cuda.is_available()
device = torch.device("cuda" if use_cuda else "cpu")
model = Net().to(device)
for x, y in make_loader():
    x = x.to(device)
    scores = model(x).softmax(-1)
    if args.plot and not use_cuda:
        print(scores.numpy().round(2))
    worst = not use_cuda and scores.numpy().min()
""",
    "device_type_and_is_cuda_checks": """
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)


def predict(x):
    out = model(x.to(device)).softmax(-1)
    preds = out.numpy() if device.type == "cpu" else out.cpu().numpy()
    if device == "cpu":
        probs = out.numpy()
    else:
        probs = out.cpu().numpy()
    return preds, probs


def to_numpy(t):
    if not t.is_cuda:
        return t.numpy()
    return t.cpu().numpy()


print(to_numpy(model(torch.randn(2, 8, device=device))))
""",
    "device_chosen_by_a_flag_set_from_availability": """
parser = argparse.ArgumentParser()
parser.add_argument("--no-cuda", action="store_true", default=False)
args = parser.parse_args()
args.cuda = not args.no_cuda and torch.cuda.is_available()
device = torch.device("cuda" if args.cuda else "cpu")
model = Net().to(device)
for data, target in make_loader():
    out = model(data.to(device))
    pred = out.numpy() if not args.cuda else out.cpu().numpy()
    if not args.cuda:
        print(out.argmax(1).numpy())
    else:
        print(out.argmax(1).numpy())  # <- DL003
""",
    # ------------------------------------------------ b. isinstance narrows the name it tests
    "d2l_evaluate_accuracy_plain_function_arm": """
import time


def evaluate_accuracy(data_iter, net, device=None):
    if device is None and isinstance(net, torch.nn.Module):
        # use the net's device if none was given
        device = list(net.parameters())[0].device
    acc_sum, n = 0.0, 0
    with torch.no_grad():
        for X, y in data_iter:
            if isinstance(net, torch.nn.Module):
                net.eval()  # evaluation mode: turns dropout off
                acc_sum += (net(X.to(device)).argmax(dim=1) == y.to(device)).float().sum().cpu().item()
                net.train()  # back to training mode
            else:  # a hand-written model (section 3.13 and before), never on the GPU
                if('is_training' in net.__code__.co_varnames):
                    acc_sum += (net(X, is_training=False).argmax(dim=1) == y).float().sum().item()
                else:
                    acc_sum += (net(X).argmax(dim=1) == y).float().sum().item()
            n += y.shape[0]
    return acc_sum / n


def train_ch5(net, train_iter, test_iter, batch_size, optimizer, device, num_epochs):
    net = net.to(device)
    print("training on ", device)
    loss = torch.nn.CrossEntropyLoss()
    for epoch in range(num_epochs):
        train_l_sum, train_acc_sum, n, batch_count, start = 0.0, 0.0, 0, 0, time.time()
        for X, y in train_iter:
            X = X.to(device)
            y = y.to(device)
            y_hat = net(X)
            l = loss(y_hat, y)
            optimizer.zero_grad()
            l.backward()
            optimizer.step()
            train_l_sum += l.cpu().item()
            train_acc_sum += (y_hat.argmax(dim=1) == y).sum().cpu().item()
            n += y.shape[0]
            batch_count += 1
        test_acc = evaluate_accuracy(test_iter, net)
        print('epoch %d, loss %.4f, train acc %.3f, test acc %.3f, time %.1f sec'
              % (epoch + 1, train_l_sum / batch_count, train_acc_sum / n, test_acc, time.time() - start))


device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
net = Net()
optimizer = torch.optim.Adam(net.parameters(), lr=0.001)
train_ch5(net, make_loader(), make_loader(), 16, optimizer, device, 5)
""",
    "to_numpy_helper_other_arm_is_no_tensor": """
def to_numpy(x):
    if not isinstance(x, torch.Tensor):
        return np.asarray(x)
    return x.detach().cpu().numpy()


def as_array(x):
    if isinstance(x, (list, tuple, torch.Tensor)):
        return x.detach().cpu().numpy() if hasattr(x, "detach") else np.array(x)
    return np.asarray(x)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
for x, y in make_loader():
    logits = model(x.to(device))
    probs = to_numpy(logits.softmax(-1))
    labels = as_array(y)
""",
    # ------------------------------------------------ c. still flagged
    "flag_guards_something_else": """
train_on_gpu = torch.cuda.is_available()
device = torch.device("cuda" if train_on_gpu else "cpu")
model = Net().to(device)
if train_on_gpu:
    torch.backends.cudnn.benchmark = True
for x, y in make_loader():
    out = model(x.to(device))
    if train_on_gpu:
        print("batch done on the GPU")
    preds = out.argmax(1).numpy()  # <- DL003
""",
    "numpy_in_the_arm_where_the_flag_is_true": """
train_on_gpu = torch.cuda.is_available()
model = Net()
if train_on_gpu:
    model.cuda()
dataiter = iter(make_loader())
images, labels = next(dataiter)
if train_on_gpu:
    images = images.cuda()
output = model(images)
_, preds_tensor = torch.max(output, 1)
preds = np.squeeze(preds_tensor.numpy()) if train_on_gpu else np.squeeze(preds_tensor.cpu().numpy())  # <- DL003
if torch.cuda.is_available():
    top = output.topk(2).indices.numpy()  # <- DL003
""",
    "moved_under_the_flag_then_numpy_unguarded": """
train_on_gpu = torch.cuda.is_available()
model = Net()
if train_on_gpu:
    model.cuda()
model.eval()
for data, target in make_loader():
    if train_on_gpu:
        data, target = data.cuda(), target.cuda()
    output = model(data)
    _, pred = torch.max(output, 1)
    correct = np.squeeze(pred.eq(target.data.view_as(pred)).numpy())  # <- DL003
""",
    "isinstance_true_arm_still_checked": """
def evaluate_accuracy(data_iter, net, device):
    acc_sum, n = 0.0, 0
    for X, y in data_iter:
        if isinstance(net, torch.nn.Module):
            net.eval()
            acc_sum += (net(X).argmax(dim=1) == y).float().sum().item()  # <- DL002
            net.train()
        else:
            acc_sum += (net(X).argmax(dim=1) == y).float().sum().item()
        n += y.shape[0]
    return acc_sum / n


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = Net().to(device)
print(evaluate_accuracy(make_loader(), net, device))
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_branch_case(name):
    code = program(CASES[name])
    got = {(f.code, f.line) for f in lint_source(code, f"{name}.py", select=RULES)}
    listing = "\n".join(f"{n:3d} {line}" for n, line in enumerate(code.splitlines(), 1))
    assert got == expected(code), f"got {sorted(got)}\n{listing}"


def test_one_finding_per_line_for_one_unmoved_batch():
    """`(net(X).argmax(dim=1) == y)`: the batch meets the model and, through its output, the
    labels: one cause, one finding (it used to come twice, with two messages)."""
    code = program(CASES["isinstance_true_arm_still_checked"])
    found = [(f.code, f.line) for f in lint_source(code, "d2l.py", select=["DL002"])]
    assert len(found) == len(set(found)) == 1, found
