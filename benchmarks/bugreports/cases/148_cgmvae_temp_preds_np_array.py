# source: https://github.com/JunwenBai/C-GMVAE/pull/1
# seen: 2026-11-27
# style: research training module (train.py, called from main.py with parsed args): a label-balanced index sampler class, train(args) loading an .npy dataset, a VAE moved to the module-level device, Adam with cosine restarts, a step loop that accumulates smoothed losses and collects the per-step labels and predictions in lists, a periodic summary that turns the collected lists into arrays, valid() at the end
# expect: DL003 at 129, 130
# also-ok: DL010 at 108, 109, 110, 111
# why: temp_pred_x / temp_label collect CUDA tensors (pred_x from the VAE on cuda:0, input_label moved there); at every check_freq step np.array(temp_pred_x) converts them and fails with "TypeError: can't convert cuda:0 device type tensor to numpy"; the PR turns each entry into v.cpu().detach().numpy() first
import datetime
import math
import os
import random
import sys
from copy import deepcopy

import numpy as np
import torch
from torch import optim
from torch.utils.tensorboard import SummaryWriter

import evals
from model import VAE, compute_loss
from utils import THRESHOLDS, build_path, get_feat, get_label

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
sys.path.append('./')


class DataLoader:
    def __init__(self, indices, labels):
        self.indices = indices
        self.n_label = labels.shape[1]
        self.label_sets = [[] for _ in range(self.n_label)]
        for i, label in zip(indices, labels):
            for j in range(self.n_label):
                if label[j] == 1:
                    self.label_sets[j].append(i)
        self.labels = range(self.n_label)

    def sample_idxs(self, bs):
        if bs < self.n_label:
            label_ids = random.choices(self.labels, k=bs)
            return list(map(lambda idx: random.choice(self.label_sets[idx]), label_ids))
        num = math.floor(bs / self.n_label)
        ids = np.concatenate(list(map(lambda idx: random.choices(self.label_sets[idx], k=num), self.labels)))
        return np.concatenate([ids, random.choices(self.indices, k=bs - self.n_label * num)])


def train(args):
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    data = np.load(args.data_dir)
    train_idx = np.load(args.train_idx)
    valid_idx = np.load(args.valid_idx)
    labels = get_label(data, train_idx, args.meta_offset, args.label_dim)
    dataloader = DataLoader(train_idx, labels)

    param_setting = "lr-{}_nll-{:.2f}_c-{:.2f}".format(args.learning_rate, args.nll_coeff, args.c_coeff)
    summary_dir = 'summary/{}/{}'.format(args.dataset, param_setting)
    model_dir = 'model/model_{}/{}'.format(args.dataset, param_setting)
    build_path(summary_dir)
    build_path(model_dir)

    one_epoch_iter = np.ceil(len(train_idx) / args.batch_size)
    writer = SummaryWriter(log_dir=summary_dir)

    vae = VAE(args).to(device)
    vae.train()

    optimizer = optim.Adam(vae.parameters(), lr=args.learning_rate, weight_decay=1e-5)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, eta_min=args.eta_min, T_0=args.T0, T_mult=args.T_mult)

    current_step = 0
    smooth_nll_loss = 0.0
    smooth_c_loss = 0.0
    smooth_kl_loss = 0.0
    smooth_total_loss = 0.0
    smooth_macro_f1 = 0.0
    smooth_micro_f1 = 0.0
    best_macro_f1 = 0.0

    temp_label = []
    temp_pred_x = []

    for one_epoch in range(args.max_epoch):
        if one_epoch:
            scheduler.step()
        print('epoch ' + str(one_epoch + 1) + ' starts!')
        np.random.shuffle(train_idx)

        for i in range(int(len(train_idx) / float(args.batch_size)) + 1):
            optimizer.zero_grad()
            start = i * args.batch_size
            end = min(args.batch_size * (i + 1), len(train_idx))
            input_feat = get_feat(data, train_idx[start:end], args.meta_offset, args.label_dim, args.feature_dim)
            input_label = get_label(data, train_idx[start:end], args.meta_offset, args.label_dim)
            input_feat, input_label = torch.from_numpy(input_feat).to(device), torch.from_numpy(input_label)
            input_label = deepcopy(input_label).float().to(device)
            output = vae(input_label, input_feat)

            total_loss, nll_loss, nll_loss_x, c_loss, c_loss_x, kl_loss, cpc_loss, _, pred_x = compute_loss(input_label, output, args)

            total_loss.backward()
            optimizer.step()

            train_metrics = evals.compute_metrics(pred_x.cpu().data.numpy(), input_label.cpu().data.numpy(), 0.5, all_metrics=False)
            macro_f1, micro_f1 = train_metrics['maF1'], train_metrics['miF1']

            smooth_nll_loss += nll_loss
            smooth_c_loss += c_loss
            smooth_kl_loss += kl_loss
            smooth_total_loss += total_loss
            smooth_macro_f1 += macro_f1
            smooth_micro_f1 += micro_f1

            temp_label.append(input_label)
            temp_pred_x.append(pred_x)

            current_step += 1
            writer.add_scalar('learning_rate', optimizer.param_groups[0]['lr'], current_step)

            if current_step % args.check_freq == 0:
                nll_loss = smooth_nll_loss / float(args.check_freq)
                c_loss = smooth_c_loss / float(args.check_freq)
                kl_loss = smooth_kl_loss / float(args.check_freq)
                total_loss = smooth_total_loss / float(args.check_freq)
                macro_f1 = smooth_macro_f1 / float(args.check_freq)
                micro_f1 = smooth_micro_f1 / float(args.check_freq)

                temp_pred_x = np.reshape(np.array(temp_pred_x), (-1))
                temp_label = np.reshape(np.array(temp_label), (-1))

                time_str = datetime.datetime.now().isoformat()
                print("step=%d  %s\nmacro_f1=%.6f, micro_f1=%.6f\nnll_loss=%.6f\tc_loss=%.6f\tkl_loss=%.6f\ttotal_loss=%.6f\n" % (
                    current_step, time_str, macro_f1, micro_f1, nll_loss * args.nll_coeff, c_loss * args.c_coeff, kl_loss, total_loss))
                temp_pred_x = []
                temp_label = []

                smooth_nll_loss = 0
                smooth_c_loss = 0
                smooth_kl_loss = 0
                smooth_total_loss = 0
                smooth_macro_f1 = 0
                smooth_micro_f1 = 0

            if current_step % int(one_epoch_iter * args.save_epoch) == 0:
                val_metrics = valid(data, vae, valid_idx, args)
                if val_metrics['maF1'] > best_macro_f1:
                    torch.save(vae.state_dict(), os.path.join(model_dir, 'vae-' + str(current_step)))
                best_macro_f1 = max(best_macro_f1, val_metrics['maF1'])
                vae.train()

    torch.save(vae.state_dict(), os.path.join(model_dir, 'vae-' + str(current_step)))


def valid(data, vae, valid_idx, args):
    vae.eval()
    all_pred_x = []
    all_label = []
    real_batch_size = min(args.batch_size, len(valid_idx))
    for i in range(int((len(valid_idx) - 1) / real_batch_size) + 1):
        start = real_batch_size * i
        end = min(real_batch_size * (i + 1), len(valid_idx))
        input_feat = get_feat(data, valid_idx[start:end], args.meta_offset, args.label_dim, args.feature_dim)
        input_label = get_label(data, valid_idx[start:end], args.meta_offset, args.label_dim)
        input_feat, input_label = torch.from_numpy(input_feat).to(device), torch.from_numpy(input_label)
        input_label = deepcopy(input_label).float().to(device)
        with torch.no_grad():
            output = vae(input_label, input_feat)
            _, _, _, _, _, _, _, _, pred_x = compute_loss(input_label, output, args)
        all_pred_x.append(pred_x)
        all_label.append(input_label)

    all_pred_x = torch.cat(all_pred_x).detach().cpu().numpy()
    all_label = torch.cat(all_label).detach().cpu().numpy()
    best = None
    for threshold in THRESHOLDS:
        metrics = evals.compute_metrics(all_pred_x, all_label, threshold, all_metrics=True)
        if best is None or metrics['maF1'] > best['maF1']:
            best = metrics
    return best
