# source: https://github.com/microsoft/MSMARCO-Question-Answering/pull/6
# seen: 2026-11-27
# style: research baseline (Baseline/scripts at 26045f6): train.py with argparse (--cuda defaulting to torch.cuda.is_available()), a yaml config, a BiDAF model built or reloaded from an h5py checkpoint and moved with model.cuda(), an epoch loop that calls checkpointing.checkpoint(...) after every epoch; checkpointing.py writes vocabularies and every state_dict() tensor into the h5py file
# expect: DL003 at checkpointing.py:38, checkpointing.py:40
# also-ok: DL009 at train.py:34
# also-ok: DL007 at train.py:50, train.py:139, train.py:210
# why: train.py moves the model to the GPU (model.cuda() when --cuda), and after the first epoch checkpoint() -> save_model() passes each model.state_dict() value, a CUDA tensor, to h5py's create_dataset(data=params), which converts it with NumPy -> "TypeError: can't convert CUDA tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first." (issue #3); the PR iterates model.cpu().state_dict() instead
"""
Modules for checkpointing functions.
"""
import h5py
import os.path

import torch
import numpy as np


def save_vocab(checkpoint, path, id_to_symb):
    """
    Save a vocab, that is id to symbol mapping, into a hp5y file.
    Used for checkpoints and such.
    """
    vocab = np.array([
        id_to_symb[ind] for ind in range(len(id_to_symb))])
    vocab = vocab.astype(h5py.special_dtype(vlen=str))
    if path in checkpoint:
        del checkpoint[path]

    checkpoint.create_dataset(path, data=vocab, compression='gzip')
    return


def save_params(destination, path, params):
    """
    Save a parameter tensor.
    """
    if path not in destination:
        destination.create_dataset(path, data=params, compression='gzip')
    else:
        destination[path][...] = params
    return


def save_model(model, destination):
    """
    Save a model into destination.
    """
    if 'model' not in destination:
        destination.create_group('model')

    for name, value in model.state_dict().items():
        save_params(destination, 'model/'+name, value)
    return


def save_epoch(epoch, destination):
    if 'training' not in destination:
        destination.create_dataset('training/epoch', data=epoch)
    else:
        destination['training/epoch'][()] = epoch
    return


def checkpoint(model, epoch, optimizer, dest, exp_folder):
    """
    Checkpoint the current state of training.
    """
    save_model(model, dest)
    save_epoch(epoch, dest)
    torch.save(optimizer.state_dict(),
               os.path.join(exp_folder, 'checkpoint.opt'))
    return
