# source: https://github.com/pytorch/pytorch/issues/52186
# seen: 2026-11-27
# style: Google Colab script pasted into an issue: a pandas-based loading_data(data_root_path, combine_feature, n_hour) helper, a click_dataset Dataset of double tensors, a DataLoader without shuffling, a device picked with cuda-if-available, an LSTM_model(nn.Module) that builds its initial states inside forward, the model moved with .to(device).double(), and an epoch loop that moves data and label to the device (loading_data's body is not in the report and is rebuilt; the model, dataset, loader and loop are the reporter's)
# also-ok: DL014 at 100, 101
# also-ok: DL013 at 114
# expect: DL011 at 69, 70, 73
# why: forward builds h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size).double() and c0 the same way, on the CPU, while x and the LSTM's weights are on cuda:0 -> "RuntimeError: Input and hidden tensors are not at the same device, found input tensor at cuda:0 and hidden tensor at cpu" in self.lstm(x, (h0, c0)); the answer creates them with device=x.device
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

data_root_path = '/content/drive/MyDrive/click_prediction/'
combine_feature = True
n_hour = 24
batch_size = 64
hidden_size = 128
num_layers = 2
num_classes = 2
num_epochs = 20
learning_rate = 0.001


def loading_data(data_root_path, combine_feature, n_hour):
    train_df = pd.read_csv(data_root_path + 'train.csv')
    test_df = pd.read_csv(data_root_path + 'test.csv')
    features = [c for c in train_df.columns if c not in ('label', 'user_id', 'hour')]
    if combine_feature:
        train_df['ctr'] = train_df['clicks'] / (train_df['impressions'] + 1)
        test_df['ctr'] = test_df['clicks'] / (test_df['impressions'] + 1)
        features.append('ctr')

    def to_sequences(df):
        xs, ys = [], []
        for _, group in df.groupby('user_id'):
            values = group[features].values
            labels = group['label'].values
            for start in range(0, len(group) - n_hour):
                xs.append(values[start:start + n_hour])
                ys.append(labels[start + n_hour])
        return np.array(xs), np.array(ys)

    return to_sequences(train_df), to_sequences(test_df), len(features)


class click_dataset(Dataset):
    def __init__(self, data):
        self.x = torch.from_numpy(data[0]).double()
        self.y = torch.from_numpy(data[1]).long()

    def __len__(self):
        return len(self.y)

    def __getitem__(self, idx):
        return self.x[idx], self.y[idx]


class LSTM_model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, num_classes):
        super(LSTM_model, self).__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, num_classes)

    def forward(self, x):
        # Set initial hidden and cell states
        h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size).double()
        c0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size).double()

        # Forward propagate LSTM
        out, _ = self.lstm(x, (h0, c0))  # out: tensor of shape (batch_size, seq_length, hidden_size)

        # Decode the hidden state of the last time step
        out = self.fc(out[:, -1, :])
        return out


# ---------
# load the dataset
train, test, feature_num = loading_data(data_root_path, combine_feature, n_hour)

# assign to dataloader
train_data = click_dataset(train)
train_dataloader = DataLoader(train_data, batch_size=batch_size, shuffle=False, num_workers=0)

# Device configuration
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

model = LSTM_model(input_size=feature_num, hidden_size=hidden_size, num_layers=num_layers, num_classes=num_classes).to(device).double()

criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)

# Train the model
total_step = len(train_dataloader)
for epoch in range(num_epochs):
    for i, (data, label) in enumerate(train_dataloader):
        data = data.to(device)
        label = label.to(device)

        # Forward pass
        outputs = model(data)
        loss = criterion(outputs, label)

        # Backward and optimize
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if (i + 1) % 100 == 0:
            print('Epoch [{}/{}], Step [{}/{}], Loss: {:.4f}'
                  .format(epoch + 1, num_epochs, i + 1, total_step, loss.item()))
