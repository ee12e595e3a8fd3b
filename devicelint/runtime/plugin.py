"""pytest plugin (``pytest11`` entry point): ``--cuda``, ``--simulate-cuda``, ``--cuda-report``.

A test module opts in by asking for the ``devicelint_case`` fixture; the plugin
parametrizes it over every fixture script (bad and fixed) under ``fixtures/``::

    def test_fixture_runtime(devicelint_case):
        result = devicelint_case.result()
        assert result.ok, devicelint_case.explain()

Without a flag those tests are skipped with the reason. ``--cuda`` without a usable
GPU is a usage error (pytest exits non-zero), never a silent skip. This module is
loaded in every pytest run of the environment, so it imports nothing heavy.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SKIP_REASON = (
    "runtime fixture checks run only with --cuda (real GPU) or --simulate-cuda "
    "(simulated device on the CPU build of torch)"
)


def pytest_addoption(parser):
    group = parser.getgroup("devicelint", "devicelint runtime checker")
    group.addoption("--cuda", action="store_true", default=False,
                    help="run every fixture script on the real GPU and check its runtime outcome")
    group.addoption("--simulate-cuda", action="store_true", default=False,
                    help="run the fixture scripts on devicelint's simulated CUDA device (CPU only)")
    group.addoption("--cuda-report", metavar="PATH", default=None,
                    help="write the runtime verdicts as JSON to PATH")
    group.addoption("--cuda-timeout", type=float, default=120.0, metavar="SECONDS",
                    help="per-script timeout for the runtime checks (default 120)")
    group.addoption("--devicelint-fixtures", metavar="DIR", default=None,
                    help="folder of <CODE>-<name>/ fixture pairs (default: <rootdir>/fixtures)")
    group.addoption("--no-step-times", action="store_true", default=False,
                    help="with --cuda: skip timing the waste pairs' steps (bad vs fixed ms/step)")
    group.addoption("--devicelint-jobs", type=int, default=None, metavar="N",
                    help="fixture pairs run in parallel (default: up to 4 simulated, 1 on CUDA)")


class _State:
    def __init__(self, config):
        self.config = config
        cuda, simulate = config.getoption("cuda"), config.getoption("simulate_cuda")
        self.mode = "cuda" if cuda else "simulated" if simulate else None
        option = config.getoption("devicelint_fixtures")
        self.fixtures = Path(option) if option else Path(config.rootpath) / "fixtures"
        self.runner = None
        self._pairs = None
        self.selected = None  # pairs of the collected (not deselected) tests

    @property
    def pairs(self):
        if self._pairs is None:
            from devicelint.runtime.fixture import discover_pairs

            self._pairs = discover_pairs(self.fixtures)
        return self._pairs

    def get_runner(self):
        if self.runner is None:
            from devicelint.runtime.runner import PairRunner

            self.runner = PairRunner(self.mode == "simulated", self.config.getoption("cuda_timeout"),
                                     self.config.getoption("devicelint_jobs"))
            self.runner.prefetch(self.selected if self.selected is not None else self.pairs)
        return self.runner


_KEY = pytest.StashKey[_State]()


def _state(config) -> _State:
    return config.stash[_KEY]


def pytest_configure(config):
    cuda, simulate = config.getoption("cuda"), config.getoption("simulate_cuda")
    if cuda and simulate:
        raise pytest.UsageError("--cuda and --simulate-cuda exclude each other: pick the real GPU or the simulation")
    if cuda or simulate:
        from devicelint.runtime.verify import VerifyError, check_runtime

        try:
            check_runtime(simulate=simulate)
        except VerifyError as exc:
            flag = "--simulate-cuda" if simulate else "--cuda"
            raise pytest.UsageError(f"{flag}: {exc}") from None
    config.stash[_KEY] = _State(config)


def pytest_report_header(config):
    mode = _state(config).mode
    if mode == "simulated":
        return "devicelint runtime: SIMULATED CUDA device on the CPU (not real CUDA)"
    if mode == "cuda":
        return "devicelint runtime: real CUDA"
    return None


def pytest_generate_tests(metafunc):
    if "devicelint_case" not in metafunc.fixturenames:
        return
    state = _state(metafunc.config)
    label = state.mode or "runtime"
    params, ids = [], []
    for pair in state.pairs:
        params.append((pair, "bad"))
        ids.append(f"{pair.name}-{label}")
        if pair.fixed is not None:
            params.append((pair, "fixed"))
            ids.append(f"{pair.fixed_name}-{label}")
    metafunc.parametrize("devicelint_case", params, ids=ids, indirect=True)


def pytest_collection_finish(session):
    state = _state(session.config)
    if state.mode is None:
        return
    selected = []
    for item in session.items:
        callspec = getattr(item, "callspec", None)
        case = callspec.params.get("devicelint_case") if callspec else None
        # an empty parametrization leaves pytest's NOTSET marker here: no pair to run
        if isinstance(case, tuple) and case[0] not in selected:
            selected.append(case[0])
    state.selected = selected
    if selected:
        # Start the scripts now: they run in their own processes while the rest of the
        # suite (the lint tests) runs here, so the two overlap on the machine's cores.
        state.get_runner()


class Case:
    """One fixture script under test; ``result()`` runs its pair (once, cached)."""

    def __init__(self, state: _State, pair, role: str):
        self.state, self.pair, self.role = state, pair, role

    def result(self):
        bad, fixed = self.state.get_runner().results(self.pair)
        return bad if self.role == "bad" else fixed

    def explain(self) -> str:
        r = self.result()
        head = f"[{'simulated' if r.simulated else 'cuda'}] {r.fixture}: {r.verdict}"
        body = [f"  expected: {r.expected}", f"  observed: {r.observed}"]
        if r.line is not None:
            body.append(f"  blamed line: {r.line}")
        if r.detail:
            body.append("  " + r.detail.strip().replace("\n", "\n  "))
        return "\n".join([head, *body])


@pytest.fixture
def devicelint_case(request):
    state = _state(request.config)
    if state.mode is None:
        pytest.skip(SKIP_REASON)
    pair, role = request.param
    return Case(state, pair, role)


def pytest_sessionfinish(session, exitstatus):
    # On a real GPU, time what each waste costs once every script has run, so no other
    # GPU work runs beside the timings.
    state = _state(session.config)
    if state.runner is None or state.mode != "cuda" or session.config.getoption("no_step_times"):
        return
    from devicelint.runtime.steptime import measure_costs

    measure_costs(state.selected or [], state.runner.all_results())


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    state = _state(config)
    if state.runner is None:
        return
    from devicelint.runtime.verify import format_table

    results = state.runner.all_results()
    if results:
        terminalreporter.write_sep("=", "devicelint runtime verdicts")
        terminalreporter.write_line(format_table(results))


def pytest_unconfigure(config):
    state = config.stash.get(_KEY, None)
    if state is None or state.runner is None:
        return
    state.runner.close()
    path = config.getoption("cuda_report")
    if path:
        from devicelint.runtime.verify import results_to_report

        report = results_to_report(state.runner.all_results(), state.mode == "simulated", state.runner.env)
        from devicelint import atomic

        Path(path).parent.mkdir(parents=True, exist_ok=True)
        atomic.write(path, (json.dumps(report, indent=2) + "\n").encode("utf-8"))
