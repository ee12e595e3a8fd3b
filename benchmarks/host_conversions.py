"""Which library calls fail when handed a CUDA tensor: they convert it to a NumPy array.

    MPLBACKEND=Agg python benchmarks/host_conversions.py [--out FILE.json]

DL003 flags `.numpy()`, `np.array(t)` and the library calls that convert their inputs the
same way. Whether a call converts is not obvious (`np.mean(t)` calls `t.mean()` and works;
`np.concatenate` converts and fails), so the table in devicelint/knowledge/consumers.py follows what
a GPU answered here: `benchmarks/host_conversions_h200.json`. Needs a CUDA device, numpy,
scikit-learn, matplotlib, pandas and Pillow; a probe whose library is missing says so.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

# name -> statement; `d` a 1-d float device tensor, `d2` 2-d, `d0` 0-dim, `lab` 1-d longs,
# `img` a 3 x 8 x 8 image, all on the device
PROBES = {
    "np.array": "np.array(d)",
    "np.asarray": "np.asarray(d)",
    "np.array of a list of 0-dim tensors": "np.array([d0, d0])",
    "np.mean": "np.mean(d)",
    "np.mean of a list of 0-dim tensors": "np.mean([d0, d0])",
    "np.sum": "np.sum(d)",
    "np.max": "np.max(d)",
    "np.argmax": "np.argmax(d)",
    "np.std": "np.std(d)",
    "np.round": "np.round(d)",
    "np.exp (a ufunc)": "np.exp(d)",
    "np.isnan (a ufunc)": "np.isnan(d)",
    "np.where": "np.where(d > 0)",
    "np.concatenate": "np.concatenate([d, d])",
    "np.stack": "np.stack([d, d])",
    "np.vstack": "np.vstack([d, d])",
    "np.save": "np.save(tmp + '/a.npy', d)",
    "np.savetxt": "np.savetxt(tmp + '/a.txt', d)",
    "np.histogram": "np.histogram(d)",
    "np.unique": "np.unique(lab)",
    "np.percentile": "np.percentile(d, 50)",
    "np.corrcoef": "np.corrcoef(d, d)",
    "sklearn accuracy_score": "sklearn.metrics.accuracy_score(lab, lab)",
    "sklearn f1_score": "sklearn.metrics.f1_score(lab, lab, average='macro')",
    "sklearn confusion_matrix": "sklearn.metrics.confusion_matrix(lab, lab)",
    "sklearn roc_auc_score": "sklearn.metrics.roc_auc_score((lab > 1).long(), d)",
    "sklearn mean_squared_error": "sklearn.metrics.mean_squared_error(d, d)",
    "plt.plot": "plt.plot(d)",
    "plt.imshow": "plt.imshow(img.permute(1, 2, 0))",
    "plt.hist": "plt.hist(d)",
    "plt.scatter": "plt.scatter(d, d)",
    "PIL Image.fromarray": "PIL.Image.fromarray(img.permute(1, 2, 0).byte())",
    "pandas DataFrame": "pd.DataFrame(d2)",
    "pandas Series": "pd.Series(d)",
    "torchvision save_image": "torchvision.utils.save_image(img, tmp + '/a.png')",
    "cv2.imwrite": "cv2.imwrite(tmp + '/a.png', img.permute(1, 2, 0).byte())",
    "float() of a 0-dim tensor": "float(d0)",
    ".tolist()": "d.tolist()",
    "list() of a tensor": "list(d)",
    "tensorboard add_scalar of a 0-dim tensor": "SummaryWriter(tmp).add_scalar('loss', d0, 0)",
}


def outcomes() -> dict:
    import importlib

    import torch

    modules = {}
    for name, spec in (("np", "numpy"), ("sklearn", "sklearn.metrics"), ("plt", "matplotlib.pyplot"),
                       ("PIL", "PIL.Image"), ("pd", "pandas"), ("torchvision", "torchvision.utils"), ("cv2", "cv2")):
        try:
            importlib.import_module(spec)
            modules[name] = importlib.import_module(spec.split(".")[0]) if name != "plt" else importlib.import_module(spec)
        except ImportError:
            modules[name] = None
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        SummaryWriter = None
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, stmt in PROBES.items():
            dev = "cuda"
            scope = dict(modules, torch=torch, tmp=tmp, SummaryWriter=SummaryWriter,
                         d=torch.rand(6, device=dev), d2=torch.rand(3, 2, device=dev), d0=torch.rand((), device=dev),
                         lab=torch.tensor([0, 1, 2, 1, 0, 2], device=dev), img=torch.rand(3, 8, 8, device=dev))
            try:
                exec(stmt, scope)
                results[name] = "ok"
            except Exception as exc:  # noqa: BLE001 - the failure is the answer
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                results[name] = f"{type(exc).__name__}: {first[:200]}"
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out")
    ns = parser.parse_args(argv)
    import torch

    if not torch.cuda.is_available():
        raise SystemExit("needs a CUDA device")
    results = outcomes()
    for name, outcome in results.items():
        print(f"{'ok   ' if outcome == 'ok' else 'FAILS'}  {name}" + ("" if outcome == "ok" else f"  ({outcome[:100]})"))
    device = torch.cuda.get_device_name(0)
    print(f"{sum(o != 'ok' for o in results.values())} of {len(results)} fail; {device}, torch {torch.__version__}")
    if ns.out:
        Path(ns.out).write_text(json.dumps({"device": device, "torch": torch.__version__, "outcomes": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
