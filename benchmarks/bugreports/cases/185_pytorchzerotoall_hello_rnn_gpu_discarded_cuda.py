# source: https://github.com/hunkim/PyTorchZeroToAll/pull/6
# seen: 2026-11-27
# style: lecture script (11_3_hello_rnn_gpu.py, "Lab 12 RNN"): one-hot character data as Python lists, a to_var helper that is meant to put a tensor on the GPU when one is available and wrap it in a Variable, an RNN(nn.Module) whose forward builds h_0 through to_var, the model moved with rnn.cuda() when CUDA is available, and a 100-epoch loop printing the decoded prediction (to_var's body before the fix is rebuilt from the PR's description)
# expect: DL006 at 30
# also-ok: DL011 at 60, 88, 70
# also-ok: DL013 at 94
# why: to_var calls x.cuda() as a statement and returns Variable(x), so inputs, labels and h_0 stay CPU tensors while rnn.cuda() put the RNN on the GPU -> the lab fails on a GPU machine ("To convert a cpu tensor to a cuda tensor, you should use the assignment operator ... x.cuda()  # this is not okay (x is still a cpu tensor); x = x.cuda()  # this is okay"); the PR writes x = x.cuda()
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(777)  # reproducibility


idx2char = ['h', 'i', 'e', 'l', 'o']

# Teach hihell -> ihello
x_data = [[0, 1, 0, 2, 3, 3]]   # hihell
x_one_hot = [[[1, 0, 0, 0, 0],   # h 0
              [0, 1, 0, 0, 0],   # i 1
              [1, 0, 0, 0, 0],   # h 0
              [0, 0, 1, 0, 0],   # e 2
              [0, 0, 0, 1, 0],   # l 3
              [0, 0, 0, 1, 0]]]  # l 3

y_data = [1, 0, 2, 3, 3, 4]    # ihello

def to_var(x):
    if torch.cuda.is_available():
        x.cuda()
    return Variable(x)


# As we have one batch of samples, we will change them to variables only once
inputs = to_var(torch.Tensor(x_one_hot))
labels = to_var(torch.LongTensor(y_data))

num_classes = 5
input_size = 5  # one-hot size
hidden_size = 5  # output from the LSTM. 5 to directly predict one-hot
batch_size = 1   # one sentence
sequence_length = 6  # |ihello| == 6
num_layers = 1  # one-layer rnn


class RNN(nn.Module):
    def __init__(self, num_classes, input_size, hidden_size, num_layers):
        super(RNN, self).__init__()

        self.num_classes = num_classes
        self.num_layers = num_layers
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.sequence_length = sequence_length

        self.rnn = nn.RNN(input_size=5, hidden_size=5, batch_first=True)

    def forward(self, x):
        # Initialize hidden and cell states
        h_0 = to_var(torch.zeros(
            x.size(0), self.num_layers, self.hidden_size))

        # Reshape input
        x.view(x.size(0), self.sequence_length, self.input_size)

        # Propagate input through RNN
        # Input: (batch, seq_len, input_size)
        # h_0: (batch, num_layers * num_directions, hidden_size)

        out, _ = self.rnn(x, h_0)
        return out.view(-1, num_classes)


# Instantiate RNN model
rnn = RNN(num_classes, input_size, hidden_size, num_layers)
if torch.cuda.is_available():
    rnn.cuda()

print(rnn)

# Set loss and optimizer function
# CrossEntropyLoss = LogSoftmax + NLLLoss
criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(rnn.parameters(), lr=0.1)

# Train the model
for epoch in range(100):
    outputs = rnn(inputs)
    optimizer.zero_grad()
    loss = criterion(outputs, labels)
    loss.backward()
    optimizer.step()
    _, idx = outputs.max(1)
    idx = idx.data.cpu().numpy()
    result_str = [idx2char[c] for c in idx.squeeze()]
    print("epoch: %d, loss: %1.3f" % (epoch + 1, loss.data[0]))
    print("Predicted string: ", ''.join(result_str))

print("Learning finished!")
