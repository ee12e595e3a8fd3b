"""Runs ONE fixture script inside its own process and writes what happened as JSON.

    python -m devicelint.runtime.harness [--simulate] [--max-memory MB] SCRIPT --out RESULT.json

The script runs with runpy as ``__main__`` in a fresh temp cwd, in a child of this process
(which only waits: a script that kills its parent kills that guard, not the runner), with
its private memory capped at MB. Around it:

* real CUDA: a TorchDispatchMode counts ``aten._to_copy`` / ``aten.copy_`` calls that
  cross devices; a TorchFunctionMode counts host syncs and graph carries (below);
* ``--simulate``: the simulated device (sim.py) does both on logical devices;
* always: warnings are recorded (and still shown), the exception with the script's
  own traceback frames, memory sampled after every optimizer step and backward.

Every count is keyed by the script's own line that caused it (the innermost frame of
the script in the Python stack), which is what the runner cross-checks with the linter.

"Steps" are the boundaries a loop leaves behind: outermost ``nn.Module`` calls, optimizer
steps and ``backward()`` calls. Memory is sampled at each outermost call of a module
(per module) and after each optimizer step. "Graph carry" is how ``grows memory``
gets a line to blame: a line whose op extends autograd history that *the same line*
recorded in an earlier step (``total += loss``) chains every step's graph together.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import runpy
import signal
import sys
import tempfile
import traceback
import warnings
from collections import Counter

RESULT_VERSION = 1


class Recorder:
    """Collects counts per script line; shared by the real probes and the simulator."""

    def __init__(self, script: str):
        self.script = os.path.abspath(script)
        # "pageable": host-to-device copies whose source is not pinned (also counted in h2d)
        self.copies = {"h2d": Counter(), "d2h": Counter(), "d2d": Counter(), "pageable": Counter()}
        self.syncs: Counter = Counter()
        self.carry: Counter = Counter()
        self.warnings: dict[tuple, dict] = {}
        self.optimizer_steps = 0
        self.backward_calls = 0
        self.boundaries = 0
        self.memory_steps: list[int] = []
        self.memory_modules: dict[int, list[int]] = {}
        self._depth = 0
        self.muted = 0  # >0 while a counted sync (print, .item()) does its own internal copies
        self.memory_fn = None
        self._sync_funcs = None


    def line(self, frame=None) -> int:
        frame = frame or sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_filename == self.script:
                return frame.f_lineno
            frame = frame.f_back
        return 0

    def copy(self, kind: str, n: int = 1) -> None:
        if self.muted:
            return
        self.copies[kind][self.line()] += n
        if kind == "d2h":
            self.syncs[self.line()] += n

    # --- torch-function observations (called by the function modes) -------------
    def before(self, func, args):
        import torch

        if not torch.is_grad_enabled():
            return None  # nothing recorded now can extend a graph
        tags = [tag for tag in (_grad_tag(a) for a in args if isinstance(a, torch.Tensor)) if tag is not None]
        return tags or None

    def after(self, func, args, out, pre, device_of) -> None:
        import torch

        T = torch.Tensor
        if self._sync_funcs is None:
            self._sync_funcs = {
                T.item, T.tolist, T.__repr__, T.__format__, T.__bool__, T.__float__, T.__int__, T.__index__, T.cpu,
            }
        if func in self._sync_funcs or func is T.to:
            first = args[0] if args else None
            if isinstance(first, torch.Tensor) and device_of(first).type == "cuda":
                # .cpu()/.to("cpu") syncs are counted as d2h copies already (copy())
                if func in (T.cpu, T.to):
                    pass
                else:
                    self.syncs[self.line()] += 1
        if func is T.backward:
            self.backward_calls += 1
            self.boundaries += 1
        if isinstance(out, torch.Tensor) and torch.is_grad_enabled():
            fn = _grad_fn(out)
            if fn is not None:
                line = self.line()
                fn.metadata.setdefault("devicelint", (line, self.boundaries))
                if pre and any(tag_line == line and tag_step < self.boundaries for tag_line, tag_step in pre):
                    self.carry[line] += 1

    def on_optimizer_step(self, optimizer, args, kwargs) -> None:
        self.optimizer_steps += 1
        self.boundaries += 1
        self._sample(self.memory_steps)

    def on_forward_pre(self, module, args) -> None:
        if self._depth == 0:  # an outermost call: the script's loop, not a submodule
            self.boundaries += 1
            self._sample(self.memory_modules.setdefault(id(module), []))
        self._depth += 1

    def on_forward(self, module, args, output) -> None:
        self._depth = max(0, self._depth - 1)

    def memory_series(self) -> list[list[int]]:
        """After-optimizer-step samples and the most-sampled module's, each if long enough."""
        series = [self.memory_steps]
        if self.memory_modules:
            series.append(max(self.memory_modules.values(), key=len))
        return [s for s in series if len(s) >= 4]

    def _sample(self, samples: list[int]) -> None:
        if self.memory_fn is not None and len(samples) < 10_000:
            samples.append(int(self.memory_fn()))

    def warning(self, message, category, filename, lineno) -> None:
        where = lineno if os.path.abspath(filename) == self.script else self.line()
        key = (category.__name__, str(message), filename, lineno)
        entry = self.warnings.setdefault(
            key,
            {"category": category.__name__, "message": str(message), "filename": filename,
             "lineno": lineno, "line": where, "count": 0},
        )
        entry["count"] += 1


def _grad_fn(t):
    try:
        return t.grad_fn
    except RuntimeError:  # views made under no_grad and modified in place refuse to answer
        return None


def _grad_tag(t):
    fn = _grad_fn(t)
    return None if fn is None else fn.metadata.get("devicelint")


def _lines(counter: Counter) -> dict[str, int]:
    return {str(k): v for k, v in sorted(counter.items())}


def _real_modes(rec: Recorder):
    import torch
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode

    aten = torch.ops.aten

    class CopyCounter(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            packet = func.overloadpacket
            src = dst = None
            if packet is aten._to_copy and kwargs.get("device") is not None:
                src, dst = args[0].device, torch.device(kwargs["device"])
            elif packet is aten.copy_ and len(args) >= 2 and isinstance(args[1], torch.Tensor):
                src, dst = args[1].device, args[0].device
            if src is not None and src.type != dst.type:
                rec.copy("h2d" if src.type == "cpu" else "d2h" if dst.type == "cpu" else "d2d")
                source = args[0] if packet is aten._to_copy else args[1]
                if src.type == "cpu" and not source.is_pinned():
                    rec.copy("pageable")
            return func(*args, **kwargs)

    T = torch.Tensor
    # printing / .item() / .tolist() copy to the host internally: count them once, as a sync
    muting = {T.item, T.tolist, T.__repr__, T.__format__, T.__bool__, T.__float__, T.__int__, T.__index__}

    class Observer(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            pre = rec.before(func, args)
            mute = func in muting
            rec.muted += mute
            try:
                out = func(*args, **(kwargs or {}))
            finally:
                rec.muted -= mute
            rec.after(func, args, out, pre, lambda t: t.device)
            return out

    return [CopyCounter(), Observer()]


def device_info(simulate: bool) -> dict:
    import torch

    info = {
        "simulated": simulate,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "python": platform.python_version(),
        "device": None,
        "driver": None,
    }
    if simulate:
        from devicelint.runtime.sim import DEVICE_NAME

        info["device"] = DEVICE_NAME
    elif torch.cuda.is_available():
        info["device"] = torch.cuda.get_device_name(0)
        try:
            import subprocess

            out = subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                capture_output=True, text=True, timeout=20,
            )
            info["driver"] = out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else None
        except (OSError, subprocess.SubprocessError, IndexError):
            pass
    return info


def _exception_record(exc: BaseException, script: str) -> dict:
    frames = traceback.extract_tb(exc.__traceback__)
    mine = [{"line": f.lineno, "function": f.name} for f in frames if os.path.abspath(f.filename) == script]
    return {
        "type": type(exc).__name__,
        "qualname": f"{type(exc).__module__}.{type(exc).__qualname__}",
        "message": str(exc),
        "script_frames": mine,  # outermost first; the last one is the innermost
        "traceback": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-8000:],
    }


def _forward_hook(nn_module, hook):
    try:  # always_call keeps the depth right when a forward raises (torch >= 2.1)
        return nn_module.register_module_forward_hook(hook, always_call=True)
    except TypeError:
        return nn_module.register_module_forward_hook(hook)


def _run_main(script: str) -> None:
    """Run `script` as `__main__`. A notebook runs its code cells in order as one script
    (magics masked), compiled under the notebook's own path so that every line counted or
    blamed is a line of that joined source, the one the linter reports on."""
    if not script.endswith(".ipynb"):
        runpy.run_path(script, run_name="__main__")
        return
    import types

    from devicelint.notebook import script as notebook_script

    with open(script, "rb") as fh:
        code = compile(notebook_script(fh.read()), script, "exec", dont_inherit=True)
    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = __builtins__
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        exec(code, main.__dict__)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def run_script(script: str, simulate: bool, scratch: str | None = None) -> dict:
    """Run ``script`` in this process and return the result record (see module doc). Its
    working folder is made inside ``scratch`` (the runner's own temporary folder), so that a
    script killed on timeout leaves nothing behind once the runner cleans up."""
    import contextlib

    import torch

    script = os.path.abspath(script)
    rec = Recorder(script)
    result: dict = {"version": RESULT_VERSION, "script": script, **device_info(simulate)}
    stack = contextlib.ExitStack()
    old_cwd, old_argv, old_path0 = os.getcwd(), sys.argv[:], sys.path[0]
    old_show = warnings.showwarning
    exit_code, exc_record = 0, None
    with stack:
        workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix="devicelint-run-", dir=scratch))
        stack.enter_context(warnings.catch_warnings())
        warnings.simplefilter("always")  # count every occurrence, not only the first

        def show(message, category, filename, lineno, file=None, line=None):
            rec.warning(message, category, filename, lineno)
            old_show(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        from torch.optim.optimizer import register_optimizer_step_post_hook

        from torch.nn.modules import module as nn_module

        for handle in (
            register_optimizer_step_post_hook(rec.on_optimizer_step),
            nn_module.register_module_forward_pre_hook(rec.on_forward_pre),
            _forward_hook(nn_module, rec.on_forward),
        ):
            stack.callback(handle.remove)
        if simulate:
            from devicelint.runtime.sim import Simulator

            sim = stack.enter_context(Simulator(rec))
            rec.memory_fn = sim.live_bytes
        else:
            rec.memory_fn = torch.cuda.memory_allocated if torch.cuda.is_available() else None
            for mode in _real_modes(rec):
                stack.enter_context(mode)
        os.chdir(workdir)
        sys.argv = [script]
        sys.path[0] = os.path.dirname(script)
        try:
            _run_main(script)
        except SystemExit as exc:
            code = exc.code
            exit_code = code if isinstance(code, int) else (0 if code is None else 1)
        except BaseException as exc:  # noqa: BLE001 - the script's failure is the data
            exit_code = 1
            exc_record = _exception_record(exc, script)
        finally:
            os.chdir(old_cwd)
            sys.argv, sys.path[0] = old_argv, old_path0
            warnings.showwarning = old_show
    result.update(
        exit_code=exit_code,
        exception=exc_record,
        warnings=list(rec.warnings.values())[:500],
        copies={kind: _lines(c) for kind, c in rec.copies.items()},
        syncs=_lines(rec.syncs),
        carry=_lines(rec.carry),
        optimizer_steps=rec.optimizer_steps,
        backward_calls=rec.backward_calls,
        memory_series=[series[:2000] for series in rec.memory_series()],
    )
    return result


def _guard() -> None:
    """Fork: the script runs in the child (this function returns there); this process only
    waits for it and ends as it ended. A script that signals its parent
    (`os.kill(os.getppid(), ...)`) thus stops this guard, never devicelint's runner or its
    fork server, and the runner still sees a run that failed."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        return
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code < 0:  # end by the same signal, as the runner reports it (-9, -11, ...)
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code)


def _cap_memory(megabytes: int) -> None:
    """Limit the script's private writable memory (RLIMIT_DATA: the heap and anonymous
    mappings, what tensors on the host take), so that a runaway script fails its own run
    with PyTorch's "can't allocate memory" instead of taking the machine. Not RLIMIT_AS:
    the CUDA driver reserves far more address space than it uses."""
    if megabytes <= 0:
        return
    try:
        import resource

        limit = megabytes * 1024 * 1024
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    except (ImportError, ValueError, OSError):
        pass  # not on this platform: the run goes on uncapped


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devicelint.runtime.harness")
    parser.add_argument("--simulate", action="store_true")
    parser.add_argument("--out", required=True)
    parser.add_argument("--max-memory", type=int, default=0, help="MB of memory the script may use (0: no cap)")
    parser.add_argument("script")
    ns = parser.parse_args(argv)
    _guard()
    _cap_memory(ns.max_memory)
    result = run_script(ns.script, ns.simulate, scratch=os.path.dirname(os.path.abspath(ns.out)))
    tmp = ns.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=1, default=str)
    os.replace(tmp, ns.out)
    sys.stdout.flush()
    sys.stderr.flush()
    # skip interpreter teardown: a script's stray non-daemon threads must not hang us
    os._exit(0)


if __name__ == "__main__":
    main()
