# source: https://github.com/idiap/coqui-ai-TTS/pull/144
# seen: 2026-11-27
# style: vocoder GAN training pieces (TTS/vocoder/layers/losses.py style): a multi-resolution STFT loss computed in float32 under `with torch.cuda.amp.autocast(enabled=False):`, feature-matching and discriminator losses, a GeneratorLoss module combining them with weights from a config
# expect: DL005 at 26
# expect: DL005 at 58
# why: torch.cuda.amp.autocast(args...) is deprecated ("Please use torch.autocast('cuda', args...)"); the PR replaces both uses that keep the spectral losses out of mixed precision
import torch
import torch.nn.functional as F
from torch import nn


def stft(x, n_fft, hop_length, win_length, window):
    spec = torch.stft(x, n_fft, hop_length, win_length, window, return_complex=True)
    return torch.clamp(spec.abs() ** 2, min=1e-8).sqrt()


class STFTLoss(nn.Module):
    def __init__(self, n_fft, hop_length, win_length):
        super().__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.win_length = win_length
        self.register_buffer("window", torch.hann_window(win_length))

    def forward(self, y_hat, y):
        with torch.cuda.amp.autocast(enabled=False):
            y_hat_M = stft(y_hat.float(), self.n_fft, self.hop_length, self.win_length, self.window)
            y_M = stft(y.float(), self.n_fft, self.hop_length, self.win_length, self.window)
        loss_mag = F.l1_loss(torch.log(y_M), torch.log(y_hat_M))
        loss_sc = torch.norm(y_M - y_hat_M, p="fro") / torch.norm(y_M, p="fro")
        return loss_mag, loss_sc


class MultiScaleSTFTLoss(nn.Module):
    def __init__(self, n_ffts=(1024, 2048, 512), hop_lengths=(120, 240, 50), win_lengths=(600, 1200, 240)):
        super().__init__()
        self.loss_funcs = nn.ModuleList(
            [STFTLoss(n_fft, hop, win) for n_fft, hop, win in zip(n_ffts, hop_lengths, win_lengths)]
        )

    def forward(self, y_hat, y):
        n = len(self.loss_funcs)
        loss_sc = 0
        loss_mag = 0
        for f in self.loss_funcs:
            lm, lsc = f(y_hat, y)
            loss_mag += lm
            loss_sc += lsc
        return loss_mag / n, loss_sc / n


class MelLoss(nn.Module):
    def __init__(self, mel_fn):
        super().__init__()
        self.mel_fn = mel_fn

    def forward(self, y_hat, y):
        with torch.cuda.amp.autocast(enabled=False):
            mel_hat = self.mel_fn(y_hat.float())
            mel = self.mel_fn(y.float())
        return F.l1_loss(mel_hat, mel)


def feature_loss(feats_real, feats_generated):
    loss = 0
    for dr, dg in zip(feats_real, feats_generated):
        for rl, gl in zip(dr, dg):
            loss += torch.mean(torch.abs(rl - gl))
    return loss * 2


def generator_adv_loss(scores_fake):
    loss = 0
    for dg in scores_fake:
        loss += torch.mean((1 - dg) ** 2)
    return loss


class GeneratorLoss(nn.Module):
    def __init__(self, c, mel_fn=None):
        super().__init__()
        self.use_stft_loss = c.get("use_stft_loss", True)
        self.use_mel_loss = c.get("use_mel_loss", False)
        self.stft_loss_weight = c.get("stft_loss_weight", 0.5)
        self.mel_loss_weight = c.get("mel_loss_weight", 45.0)
        self.feat_match_loss_weight = c.get("feat_match_loss_weight", 2.0)
        self.stft_loss = MultiScaleSTFTLoss()
        self.mel_loss = MelLoss(mel_fn) if self.use_mel_loss else None

    def forward(self, y_hat, y, scores_fake, feats_fake, feats_real):
        return_dict = {}
        gen_loss = generator_adv_loss(scores_fake)
        return_dict["G_gen_loss"] = gen_loss
        loss = gen_loss
        if self.use_stft_loss:
            stft_mag, stft_sc = self.stft_loss(y_hat.squeeze(1), y.squeeze(1))
            return_dict["G_stft_loss_mg"] = stft_mag
            return_dict["G_stft_loss_sc"] = stft_sc
            loss = loss + self.stft_loss_weight * (stft_mag + stft_sc)
        if self.use_mel_loss:
            mel_loss = self.mel_loss(y_hat, y)
            return_dict["G_mel_loss"] = mel_loss
            loss = loss + self.mel_loss_weight * mel_loss
        if feats_fake is not None:
            fm = feature_loss(feats_real, feats_fake)
            return_dict["G_feat_match_loss"] = fm
            loss = loss + self.feat_match_loss_weight * fm
        return_dict["G_loss"] = loss
        return return_dict
