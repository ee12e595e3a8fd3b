# source: https://github.com/pytorch/ignite/pull/835
# seen: 2026-11-26
# style: library module (ignite/engine/__init__.py as the PR changed it): _prepare_batch, create_supervised_trainer / create_supervised_evaluator building Engine process functions that move the model, prepare the batch and step the optimizer
# expect: DL004 at 31, 53
# why: the PR moved `model.to(device)` into the process functions, so the model is moved again at every iteration; the review measured 1000 iterations at 2.02 s with the move against 9.9 ms without ("not a No-Op"), and the move went back to creation time
import torch

from ignite.engine.engine import Engine, State, Events
from ignite.utils import convert_tensor


def _prepare_batch(batch, device=None, non_blocking=False):
    """Prepare batch for training: pass to a device with options."""
    x, y = batch
    return (convert_tensor(x, device=device, non_blocking=non_blocking),
            convert_tensor(y, device=device, non_blocking=non_blocking))


def create_supervised_trainer(model, optimizer, loss_fn,
                              device=None, non_blocking=False,
                              prepare_batch=_prepare_batch,
                              output_transform=lambda x, y, y_pred, loss: loss.item()):
    """Factory function for creating a trainer for supervised models.

    Note: `engine.state.output` for this engine is defined by `output_transform` parameter and is the loss
    of the processed batch by default. The model is moved to `device` at every iteration.
    """

    def _update(engine, batch):
        if device:
            model.to(device)
        model.train()
        optimizer.zero_grad()
        x, y = prepare_batch(batch, device=device, non_blocking=non_blocking)
        y_pred = model(x)
        loss = loss_fn(y_pred, y)
        loss.backward()
        optimizer.step()
        return output_transform(x, y, y_pred, loss)

    return Engine(_update)


def create_supervised_evaluator(model, metrics=None,
                                device=None, non_blocking=False,
                                prepare_batch=_prepare_batch,
                                output_transform=lambda x, y, y_pred: (y_pred, y,)):
    """Factory function for creating an evaluator for supervised models."""
    metrics = metrics or {}

    def _inference(engine, batch):
        if device:
            model.to(device)
        model.eval()
        with torch.no_grad():
            x, y = prepare_batch(batch, device=device, non_blocking=non_blocking)
            y_pred = model(x)
            return output_transform(x, y, y_pred)

    engine = Engine(_inference)

    for name, metric in metrics.items():
        metric.attach(engine, name)

    return engine
