"""Keystroke-to-diagnostics latency of `devicelint server`, measured as an editor sees it.

Starts `python -m devicelint server` and drives it over stdio with a minimal JSON-RPC client
(the standard library only; the server needs the lsp extra). In a temporary project folder:

- `small`: a 50-line training script (argparse, a model from `models.py`, a loop); each
  keystroke is a `didChange` (a trailing comment that counts the keystrokes: each text new to
  the server, a real lint, never a text it has linted or summarised before), timed until the
  `publishDiagnostics` of that document version arrives. The server waits a moment after the
  last change before linting (its debounce, `devicelint.lsp.server.DEBOUNCE`): that wait is
  part of every figure.
- `large`: the same for a 1,000-line training script, made by concatenating the fixture
  scripts (realistic training and evaluation code, one after the other).
- `large, in a function`: the same script, the keystroke a change of a number in a
  statement of its first training function: code that changes, in the middle of the file,
  each keystroke a text the server has not seen (`large` changes only a trailing comment).
- `code actions`: what an editor asks at each move of the cursor in the 1,000-line script:
  `textDocument/codeAction` with no `only` for the range of one diagnostic (cycling through
  them), timed until the answer arrives; no debounce in it.
- `small beside large`: a keystroke in the 1,000-line script, then at once one in the small
  script, timed until the small script's diagnostics arrive: whether a slow file holds up
  another file's diagnostics.
- `cross-file`: with the script and `models.py` open, `models.py` is edited so that its
  class places itself on the device (or no longer does); timed until the script's new
  diagnostics (DL001 gone, or back) arrive, the script itself untouched.

Prints a table of the medians (and min/max) over `--rounds` keystrokes; `--json FILE` writes
them. Nothing is written into the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from lsp_project import MODELS, PLACED, UNMOVED, large_script  # noqa: E402  the end-to-end tests' realistic project


class Client:
    """Just enough of an LSP client: framed JSON-RPC over the server's stdin/stdout. Every wait
    for the server is bounded by `timeout` seconds (TimeoutError): a server that stops
    answering fails the test or the benchmark that drives it instead of hanging it."""

    def __init__(self, cmd: list, cwd: str, timeout: float = 120) -> None:
        env = {**os.environ, "XDG_CACHE_HOME": os.path.join(cwd, ".xdg-cache")}
        self.proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.next_id = 0
        self.timeout = timeout
        # a thread reads the server's messages as they come: a wait for the next one can time out
        self._messages: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, name="lsp-client-reader", daemon=True).start()

    def send(self, obj: dict) -> None:
        body = json.dumps(obj).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            msg = self.read()
            if msg.get("id") == self.next_id and "method" not in msg:
                return msg.get("result")

    def read(self) -> dict:
        """The server's next message."""
        try:
            msg = self._messages.get(timeout=self.timeout)
        except queue.Empty:
            raise TimeoutError(f"no message from the server within {self.timeout} s") from None
        if isinstance(msg, Exception):
            self._messages.put(msg)  # every later read fails the same way
            raise msg
        return msg

    def _pump(self) -> None:
        try:
            while True:
                self._messages.put(self._read_one())
        except Exception as e:  # the server closed its output: said to the reader
            self._messages.put(e)

    def _read_one(self) -> dict:
        length = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the server closed its output")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return json.loads(self.proc.stdout.read(length))

    def diagnostics(self, uri: str, version=None) -> list:
        """Wait for the next publishDiagnostics of `uri` (of `version`, when given)."""
        while True:
            msg = self.read()
            if msg.get("method") == "textDocument/publishDiagnostics":
                p = msg["params"]
                if p["uri"] == uri and (version is None or p.get("version") == version):
                    return p["diagnostics"]

    def cpu(self) -> float | None:
        """The server's CPU seconds so far (Linux /proc), or None: on a busy machine the wall
        time also counts the waits for a core, the CPU time does not."""
        try:
            with open(f"/proc/{self.proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


# what VS Code says of its code actions: it fills in an action's edit by codeAction/resolve
CAPS = {"textDocument": {"codeAction": {"dataSupport": True, "resolveSupport": {"properties": ["edit"]}}}}


def in_function(text: str):
    """The text after the in-function keystroke of document version `v`: a statement in the
    first training function whose number changes at each keystroke (code, not a comment),
    each text new to the server, as typing makes them (a text seen before finds its
    summary in the server's memory)."""
    anchor = "    model.train()\n"
    return lambda version: text.replace(anchor, f"{anchor}    log_every = {version}\n", 1)


def commented(text: str, version: int) -> str:
    """The text with a trailing comment that differs at each version: every keystroke a text
    the server has not linted (nor summarised) before."""
    return text + f"# last step {version}\n"


def keystrokes(client: Client, uri: str, text: str, rounds: int, first: int = 2, text_of=None) -> list:
    """Seconds from each didChange to the diagnostics of that version. The keystroke changes
    a trailing comment (a new text each time), or makes `text_of(version)` when given."""
    times = []
    for version in range(first, rounds + first):
        new = text_of(version) if text_of else commented(text, version)
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": new}]})
        start, cpu = time.perf_counter(), client.cpu()
        client.diagnostics(uri, version)
        times.append((time.perf_counter() - start, _spent(client, cpu)))
    return times


def _spent(client: Client, before):
    after = client.cpu()
    return after - before if before is not None and after is not None else None


def beside(client: Client, big: str, big_text: str, small: str, small_text: str, rounds: int) -> list:
    """Seconds from a keystroke in `small`, sent right after one in `big`, to `small`'s
    diagnostics (each round also waits for `big`'s, so that no lint is left over)."""
    times = []
    for version in range(100, rounds + 100):  # versions above the keystroke cases'
        for uri, text in ((big, big_text), (small, small_text)):
            new = commented(text, version)
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": new}]})
        start, cpu = time.perf_counter(), client.cpu()
        waiting = {big, small}
        while waiting:
            msg = client.read()
            p = msg.get("params") or {}
            if msg.get("method") == "textDocument/publishDiagnostics" and p.get("version") == version:
                waiting.discard(p["uri"])
                if p["uri"] == small:
                    times.append((time.perf_counter() - start, _spent(client, cpu)))
    return times


def cross_file(client: Client, train_uri: str, models_uri: str, rounds: int) -> list:
    times = []
    for version in range(2, rounds + 2):
        placed = version % 2 == 0
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": models_uri, "version": version},
            "contentChanges": [{"text": PLACED if placed else MODELS}]})
        start, cpu = time.perf_counter(), client.cpu()
        while True:
            codes = {d["code"] for d in client.diagnostics(train_uri)}
            if ("DL001" in codes) != placed:
                break
        times.append((time.perf_counter() - start, _spent(client, cpu)))
    return times


def code_actions(client: Client, uri: str, diagnostics: list, rounds: int) -> list:
    """Seconds for each codeAction request of every kind at one diagnostic's range."""
    times = []
    for i in range(rounds):
        diag = diagnostics[i % len(diagnostics)]
        start, cpu = time.perf_counter(), client.cpu()
        client.request("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": diag["range"], "context": {"diagnostics": [diag]}})
        times.append((time.perf_counter() - start, _spent(client, cpu)))
    return times


def open_doc(client: Client, path: Path, text: str) -> tuple[str, list]:
    """(the document's uri, its first diagnostics)."""
    uri = path.resolve().as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
    return uri, client.diagnostics(uri, 1)


def summary(times: list) -> dict:
    ms = [wall * 1000 for wall, _cpu in times]
    out = {"median_ms": round(statistics.median(ms), 1), "min_ms": round(min(ms), 1), "max_ms": round(max(ms), 1),
           "n": len(ms)}
    cpu = [c * 1000 for _wall, c in times if c is not None]
    if cpu:
        out["median_cpu_ms"] = round(statistics.median(cpu), 1)
    return out


def debounce_ms() -> float:
    from devicelint.lsp.server import DEBOUNCE  # the server's own figure (needs the lsp extra, as the server does)

    return DEBOUNCE * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="keystrokes per case (default 15)")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    with tempfile.TemporaryDirectory(prefix="devicelint-lsp-bench-") as tmp:
        folder = Path(tmp)
        (folder / "pyproject.toml").write_text('[project]\nname = "bench"\n\n[tool.devicelint]\n')
        (folder / "models.py").write_text(MODELS)
        (folder / "train.py").write_text(UNMOVED)
        large = large_script()
        (folder / "large_train.py").write_text(large)
        client = Client([sys.executable, "-m", "devicelint", "server"], tmp)
        try:
            client.request("initialize", {"processId": os.getpid(), "rootUri": folder.as_uri(), "capabilities": CAPS})
            client.notify("initialized", {})
            train, _ = open_doc(client, folder / "train.py", UNMOVED)
            results = {"small": summary(keystrokes(client, train, UNMOVED, args.rounds))}
            big, found = open_doc(client, folder / "large_train.py", large)
            results["large"] = summary(keystrokes(client, big, large, args.rounds))
            results["code actions"] = summary(code_actions(client, big, found, args.rounds))
            # after the code actions, which ask about the ranges of the text before it
            results["large, in a function"] = summary(
                keystrokes(client, big, large, args.rounds, args.rounds + 2, in_function(large)))
            results["small beside large"] = summary(beside(client, big, large, train, UNMOVED, args.rounds))
            models, _ = open_doc(client, folder / "models.py", MODELS)
            results["cross-file"] = summary(cross_file(client, train, models, args.rounds))
        finally:
            client.close()
    lines = {"small": UNMOVED.count("\n") + 1, "large": large.count("\n") + 1, "code actions": large.count("\n") + 1,
             "large, in a function": large.count("\n") + 1,
             "small beside large": UNMOVED.count("\n") + 1, "cross-file": MODELS.count("\n") + 1}
    print(f"devicelint server latency, {os.cpu_count()} cores, Python {platform.python_version()} "
          f"(includes the server's {debounce_ms():.0f} ms debounce)")
    print(f"load average before: {load[0]:.1f}, after: {os.getloadavg()[0]:.1f}" if load else "")
    print(f"{'case':<20} {'lines':>6} {'median':>9} {'min':>9} {'max':>9} {'server CPU':>11}")
    for case, r in results.items():
        cpu = f"{r['median_cpu_ms']:>9.0f}ms" if "median_cpu_ms" in r else f"{'-':>11}"
        print(f"{case:<20} {lines[case]:>6} {r['median_ms']:>7.0f}ms {r['min_ms']:>7.0f}ms {r['max_ms']:>7.0f}ms {cpu}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cases": results, "lines": lines, "debounce_ms": debounce_ms()}, f, indent=2)


if __name__ == "__main__":
    main()
