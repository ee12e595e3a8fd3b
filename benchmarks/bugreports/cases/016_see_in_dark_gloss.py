# source: https://github.com/lavi135246/pytorch-Learning-to-See-in-the-Dark/issues/10
# seen: 2026-11-26
# style: flat training script (train_Sony.py), NumPy array of per-image losses
# expect: DL003 at 98
# why: loss.data is a CUDA tensor; storing it into a NumPy array converts it to NumPy (fix: loss.cpu().data)
import glob
import os
import time

import numpy as np
import rawpy
import torch
import torch.optim as optim

from model import SeeInDark

input_dir = './dataset/Sony/short/'
gt_dir = './dataset/Sony/long/'
result_dir = './result_Sony/'
model_dir = './saved_model/'

train_fns = glob.glob(gt_dir + '0*.ARW')
train_ids = [int(os.path.basename(train_fn)[0:5]) for train_fn in train_fns]

ps = 512
save_freq = 100

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')


def pack_raw(raw):
    im = raw.raw_image_visible.astype(np.float32)
    im = np.maximum(im - 512, 0) / (16383 - 512)
    im = np.expand_dims(im, axis=2)
    H, W = im.shape[0], im.shape[1]
    return np.concatenate((im[0:H:2, 0:W:2, :], im[0:H:2, 1:W:2, :],
                           im[1:H:2, 1:W:2, :], im[1:H:2, 0:W:2, :]), axis=2)


def reduce_mean(out_im, gt_im):
    return torch.abs(out_im - gt_im).mean()


gt_images = [None] * 6000
input_images = {'300': [None] * len(train_ids), '250': [None] * len(train_ids), '100': [None] * len(train_ids)}
g_loss = np.zeros((5000, 1))

learning_rate = 1e-4
model = SeeInDark().to(device)
model._initialize_weights()
opt = optim.Adam(model.parameters(), lr=learning_rate)
for epoch in range(0, 4001):
    cnt = 0
    if epoch > 2000:
        for g in opt.param_groups:
            g['lr'] = 1e-5

    for ind in np.random.permutation(len(train_ids)):
        train_id = train_ids[ind]
        in_files = glob.glob(input_dir + '%05d_00*.ARW' % train_id)
        in_path = in_files[np.random.randint(0, len(in_files))]
        in_fn = os.path.basename(in_path)
        gt_files = glob.glob(gt_dir + '%05d_00*.ARW' % train_id)
        gt_path = gt_files[0]
        gt_fn = os.path.basename(gt_path)
        in_exposure = float(in_fn[9:-5])
        gt_exposure = float(gt_fn[9:-5])
        ratio = min(gt_exposure / in_exposure, 300)

        st = time.time()
        cnt += 1

        if input_images[str(ratio)[0:3]][ind] is None:
            raw = rawpy.imread(in_path)
            input_images[str(ratio)[0:3]][ind] = np.expand_dims(pack_raw(raw), axis=0) * ratio
            gt_raw = rawpy.imread(gt_path)
            im = gt_raw.postprocess(use_camera_wb=True, half_size=False, no_auto_bright=True, output_bps=16)
            gt_images[ind] = np.expand_dims(np.float32(im / 65535.0), axis=0)

        H = input_images[str(ratio)[0:3]][ind].shape[1]
        W = input_images[str(ratio)[0:3]][ind].shape[2]
        xx = np.random.randint(0, W - ps)
        yy = np.random.randint(0, H - ps)
        input_patch = input_images[str(ratio)[0:3]][ind][:, yy:yy + ps, xx:xx + ps, :]
        gt_patch = gt_images[ind][:, yy * 2:yy * 2 + ps * 2, xx * 2:xx * 2 + ps * 2, :]

        input_patch = np.minimum(input_patch, 1.0)
        in_img = torch.from_numpy(input_patch).permute(0, 3, 1, 2).to(device)
        gt_img = torch.from_numpy(gt_patch).permute(0, 3, 1, 2).to(device)

        model.zero_grad()
        out_img = model(in_img)

        loss = reduce_mean(out_img, gt_img)
        loss.backward()

        opt.step()
        g_loss[ind] = loss.data

        print("%d %d Loss=%.3f Time=%.3f" % (epoch, cnt, np.mean(g_loss[np.where(g_loss)]), time.time() - st))

    if epoch % save_freq == 0:
        torch.save(model.state_dict(), model_dir + 'checkpoint_sony_e%04d.pth' % epoch)
