# source: https://github.com/motefly/DeepGBM/issues/4
# seen: 2026-11-26
# style: helper module (experiments/helper.py), evaluation function called with a model on CUDA
# expect: DL003 at 34
# why: the CUDA outputs collected in y_preds go into np.concatenate
import math

import numpy as np
import torch


def EvalTestset(test_x, test_y, model, test_batch_size, test_x_opt=None):
    test_len = test_x.shape[0]
    test_num_batch = math.ceil(test_len / test_batch_size)
    sum_loss = 0.0
    y_preds = []
    model.eval()
    with torch.no_grad():
        for jdx in range(test_num_batch):
            tst_st = jdx * test_batch_size
            tst_ed = min(test_len, tst_st + test_batch_size)
            inputs = torch.from_numpy(test_x[tst_st:tst_ed].astype(np.float32)).to(device)
            if test_x_opt is not None:
                inputs_opt = torch.from_numpy(test_x_opt[tst_st:tst_ed].astype(np.float32)).to(device)
                outputs = model(inputs, inputs_opt)
            else:
                outputs = model(inputs)
            targets = torch.from_numpy(test_y[tst_st:tst_ed]).to(device)
            if isinstance(outputs, tuple):
                outputs = outputs[0]
            y_preds.append(outputs)
            loss_tst = model.true_loss(outputs, targets).item()
            sum_loss += (tst_ed - tst_st) * loss_tst
    return sum_loss / test_len, np.concatenate(y_preds, 0)


def TrainWithLog(args, plot_title, train_x, train_y, test_x, test_y, model, opt,
                 epoch, batch_size, n_output, key=""):
    if isinstance(test_x, tuple):
        test_x, test_x_opt = test_x
        train_x, train_x_opt = train_x
    else:
        test_x_opt = None
        train_x_opt = None
    train_len = train_x.shape[0]
    num_iterations = math.ceil(train_len / batch_size)
    for epoch_idx in range(epoch):
        model.train()
        for local_iter in range(num_iterations):
            st = local_iter * batch_size
            ed = min(train_len, st + batch_size)
            inputs = torch.from_numpy(train_x[st:ed].astype(np.float32)).to(device)
            targets = torch.from_numpy(train_y[st:ed]).to(device)
            opt.zero_grad()
            outputs = model(inputs)
            loss = model.true_loss(outputs, targets)
            loss.backward()
            opt.step()
        test_loss, pred_y = EvalTestset(test_x, test_y, model, args.test_batch_size, test_x_opt)
        print(plot_title, key, epoch_idx, test_loss)
    return pred_y


device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
