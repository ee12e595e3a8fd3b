# source: https://github.com/psywaves/EVCF/issues/1
# seen: 2026-11-26
# style: two-file project: main.py (argparse, args.device, model moved, training loop) and evaluation.py: an evaluate(args, model, data_tr, data_te, ...) function over sparse user-item matrices, batches densified and moved to args.device, NDCG / Recall helpers in NumPy
# expect: DL003 at 65
# why: recon_batch comes from the model on args.device (cuda); `pred_val = np.array(pred_val)` converts the CUDA tensor ("can't convert cuda:0 device type tensor to numpy")
import bottleneck as bn
import numpy as np
import torch


def naive_sparse2tensor(data):
    return torch.FloatTensor(data.toarray())


def NDCG_binary_at_k_batch(X_pred, heldout_batch, k=100):
    batch_users = X_pred.shape[0]
    idx_topk_part = bn.argpartition(-X_pred, k, axis=1)
    topk_part = X_pred[np.arange(batch_users)[:, np.newaxis], idx_topk_part[:, :k]]
    idx_part = np.argsort(-topk_part, axis=1)
    idx_topk = idx_topk_part[np.arange(batch_users)[:, np.newaxis], idx_part]
    tp = 1. / np.log2(np.arange(2, k + 2))
    DCG = (heldout_batch[np.arange(batch_users)[:, np.newaxis], idx_topk].toarray() * tp).sum(axis=1)
    IDCG = np.array([(tp[:min(n, k)]).sum() for n in heldout_batch.getnnz(axis=1)])
    return DCG / IDCG


def Recall_at_k_batch(X_pred, heldout_batch, k=100):
    batch_users = X_pred.shape[0]
    idx = bn.argpartition(-X_pred, k, axis=1)
    X_pred_binary = np.zeros_like(X_pred, dtype=bool)
    X_pred_binary[np.arange(batch_users)[:, np.newaxis], idx[:, :k]] = True
    X_true_binary = (heldout_batch > 0).toarray()
    tmp = (np.logical_and(X_true_binary, X_pred_binary).sum(axis=1)).astype(np.float32)
    return tmp / np.minimum(k, X_true_binary.sum(axis=1))


def evaluate(args, model, criterion, data_tr, data_te, total_anneal_steps=200000, anneal_cap=0.2, update_count=0):
    model.eval()
    total_loss = 0.0
    e_idxlist = list(range(data_tr.shape[0]))
    e_N = data_tr.shape[0]
    n100_list, r20_list, r50_list = [], [], []

    with torch.no_grad():
        for start_idx in range(0, e_N, args.batch_size):
            end_idx = min(start_idx + args.batch_size, e_N)
            data = data_tr[e_idxlist[start_idx:end_idx]]
            heldout_data = data_te[e_idxlist[start_idx:end_idx]]

            data_tensor = naive_sparse2tensor(data).to(args.device)

            if total_anneal_steps > 0:
                anneal = min(anneal_cap, 1. * update_count / total_anneal_steps)
            else:
                anneal = anneal_cap

            recon_batch, mu, logvar = model(data_tensor)
            loss = criterion(recon_batch, data_tensor, mu, logvar, anneal)
            total_loss += loss.item()

            # Exclude examples from training set
            recon_batch[data.nonzero()] = -np.inf
            pred_val = recon_batch
            # should be removed if not necessary
            pred_val = np.array(pred_val)

            n100 = NDCG_binary_at_k_batch(pred_val, heldout_data, 100)
            r20 = Recall_at_k_batch(pred_val, heldout_data, 20)
            r50 = Recall_at_k_batch(pred_val, heldout_data, 50)
            n100_list.append(n100)
            r20_list.append(r20)
            r50_list.append(r50)

    total_loss /= len(range(0, e_N, args.batch_size))
    n100_list = np.concatenate(n100_list)
    r20_list = np.concatenate(r20_list)
    r50_list = np.concatenate(r50_list)
    return total_loss, np.mean(n100_list), np.mean(r20_list), np.mean(r50_list)
