import torch
import torch.nn as nn


class ConvLayer(nn.Module):
    def __init__(self, n_features, kernel_size=7):
        super(ConvLayer, self).__init__()
        self.padding = nn.ConstantPad1d((kernel_size - 1) // 2, 0.0)
        self.conv = nn.Conv1d(in_channels=n_features, out_channels=n_features, kernel_size=kernel_size)
        self.relu = nn.ReLU()

    def forward(self, x):
        x = x.permute(0, 2, 1)
        x = self.padding(x)
        x = self.relu(self.conv(x))
        return x.permute(0, 2, 1)


class MTAD_GAT(nn.Module):
    def __init__(self, n_features, window_size, out_dim, kernel_size=7, gru_hid_dim=150,
                 forecast_hid_dim=150, recon_hid_dim=150, dropout=0.2):
        super(MTAD_GAT, self).__init__()
        self.conv = ConvLayer(n_features, kernel_size)
        self.gru = nn.GRU(3 * n_features, gru_hid_dim, batch_first=True)
        self.feature_proj = nn.Linear(n_features, 2 * n_features)
        self.forecasting_model = nn.Sequential(nn.Linear(gru_hid_dim, forecast_hid_dim), nn.ReLU(), nn.Dropout(dropout),
                                               nn.Linear(forecast_hid_dim, out_dim))
        self.recon_decoder = nn.GRU(gru_hid_dim, recon_hid_dim, batch_first=True)
        self.recon_fc = nn.Linear(recon_hid_dim, out_dim)
        self.window_size = window_size

    def forward(self, x):
        x = self.conv(x)
        h_cat = torch.cat([x, self.feature_proj(x)], dim=2)
        _, h_end = self.gru(h_cat)
        h_end = h_end[-1]
        predictions = self.forecasting_model(h_end)
        h_rep = h_end.unsqueeze(1).repeat(1, self.window_size, 1)
        recon, _ = self.recon_decoder(h_rep)
        return predictions, self.recon_fc(recon)
