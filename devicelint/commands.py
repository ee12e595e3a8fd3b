"""The `devicelint` command line as click declares it: the commands, their options, their help
and usage errors. The default command's work is checking.run; a plain `devicelint FILE`
reaches it without click (cli.main)."""

from __future__ import annotations

import json
import os
import re
import sys

import click

from devicelint import __version__, checking, codes, report
from devicelint.checking import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
from devicelint.stop import Stopped

# What a mistyped command looks like: a word, with no `.py`, no dot, no path separator.
_BARE_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


class DefaultGroup(click.Group):
    """`devicelint PATHS` means `devicelint check PATHS`; `rules`, `explain`, `verify`, `clean`,
    `server` are subcommands. `devicelint --help` is the group's own help: the commands, and the
    options of the default command."""

    def parse_args(self, ctx, args):
        if not args or (args[0] not in self.commands and args[0] not in ("--version", "--help", "-h")):
            if args:
                self._refuse_typo(ctx, args[0])
            args = ["check", *args]
        return super().parse_args(ctx, args)

    def _refuse_typo(self, ctx, first: str) -> None:
        """`devicelint explian DL001`: a first argument that is no file or folder and reads as
        a command (close to one, or a bare word without `.py` or a path separator) is a usage
        error, not a missing file. The known commands are this group's own: a command added
        to the group is known here too."""
        if first.startswith("-") or os.path.lexists(first):
            return
        import difflib

        close = difflib.get_close_matches(first, list(self.commands), n=1, cutoff=0.6)
        bare = _BARE_WORD.fullmatch(first) is not None
        if not close and not bare:
            return
        rule = codes.lookup(first) if bare else None  # `devicelint DL001`: the rule's docs were meant
        if rule is not None:
            hint = f" \N{EM DASH} to read about {rule.code} ({rule.name}): devicelint explain {rule.code}"
        elif close:
            hint = f" \N{EM DASH} did you mean '{close[0]}'?"
        else:
            hint = " (and no file or folder of that name)"
        click.echo(f"error: unrecognized subcommand '{first}'{hint}", err=True)
        ctx.exit(EXIT_ERROR)

    def format_usage(self, ctx, formatter):
        formatter.write_usage(ctx.command_path, "[OPTIONS] [PATHS]...")
        formatter.write_usage(ctx.command_path, "COMMAND [ARGS]...", prefix="       ")

    def format_options(self, ctx, formatter):
        check_cmd = self.commands["check"]
        with click.Context(check_cmd, info_name="check", parent=ctx) as check_ctx:
            rows = [r for p in check_cmd.get_params(check_ctx)
                    if isinstance(p, click.Option) and (r := p.get_help_record(check_ctx))]
        rows.append(("--version", "Show the version and exit."))
        self.format_commands(ctx, formatter)
        with formatter.section("Options (of `devicelint check`, the default command)"):
            formatter.write_dl(rows)


def _codes(values) -> list:
    out, bad = checking.code_list(values)
    if bad:
        raise click.BadParameter(f"unknown rule code {', '.join(bad)}")
    return out


@click.group("devicelint", cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="devicelint")
def cli():
    """devicelint: find PyTorch device bugs before they cost a GPU hour."""


@cli.command("check")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--select", multiple=True, help="Only these rule codes or prefixes (comma-separated; ALL for every rule).")
@click.option("--extend-select", multiple=True, help="Add these codes to the default (or configured) selection.")
@click.option("--ignore", multiple=True, help="Skip these rule codes or prefixes.")
@click.option("--output-format", type=click.Choice(report.FORMATS), default="full", show_default=True)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--statistics", is_flag=True, help="Print a count per rule instead of each finding.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="A pyproject.toml or TOML file to read settings from.")
@click.option("--stdin-filename", default="<stdin>", help="The name to report for `-` (stdin).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Processes to lint with (default: all cores).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the result cache.")
@click.option("--cache-dir", type=click.Path(file_okay=False), help="Where to keep the cache (default: .devicelint_cache).")
@click.option("--fix", is_flag=True, help="Apply the safe automatic fixes, then report what is left.")
@click.option("--diff", is_flag=True, help="Show the fixes as a unified diff; change nothing. A notebook's is one diff per changed cell, to read: not a patch `git apply` takes.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix/--diff: also apply fixes that may change behaviour.")
@click.option("--add-noqa", is_flag=True, help="Append `# noqa: DLnnn` to every line with a finding, then exit.")
@click.option("--write-baseline", "write_baseline", type=click.Path(dir_okay=False), help="Record the current findings in FILE (JSON), then exit.")
@click.option("--baseline", "baseline_path", type=click.Path(dir_okay=False), help="Report only findings not recorded in FILE.")
@click.option("--force-exclude", is_flag=True, help="Apply excludes to files named on the command line too (for pre-commit).")
@click.option("--explain", "explain_code", metavar="CODE", help="Explain one rule (a code or a name) and exit.")
@click.option("--watch", is_flag=True, help="Lint again whenever a file changes (needs the lsp extra); Ctrl-C stops.")
def check(paths, select, extend_select, ignore, explain_code, watch, **rest):
    """Lint PATHS (files or folders, default `.`; `-` reads stdin).

    Also: `devicelint rules`, `devicelint explain CODE`, `devicelint verify [--simulate] DIR`,
    `devicelint clean`, `devicelint server` (the language server for editors).
    """
    if explain_code:
        _explain(explain_code, "text", "'--explain'")
        return
    if watch:
        _watch(click.get_current_context(), list(paths) or ["."], rest["add_noqa"] or rest["write_baseline"])
    checking.run(checking.options(paths=paths, select=_codes(select), extend_select=_codes(extend_select),
                                  ignore=_codes(ignore), **rest))


def _watch(ctx, paths: list, adopting) -> None:
    """`--watch`: lint, then lint again each time a Python file or notebook under `paths`
    changes (the result cache makes the files that did not change cost a lookup), clearing
    the screen first. Never returns: Ctrl-C exits 130 without a word."""
    if "-" in paths or adopting:
        click.echo("devicelint: error: --watch lints files; it cannot read stdin or be combined with "
                   "--add-noqa or --write-baseline", err=True)
        sys.exit(EXIT_ERROR)
    try:
        import watchfiles
    except ImportError:
        click.echo("error: devicelint --watch needs the lsp extra: pip install 'devicelint[lsp]'", err=True)
        sys.exit(EXIT_ERROR)
    import time

    params = dict(ctx.params, watch=False)

    def once() -> None:
        click.clear()  # only on a terminal
        try:
            ctx.invoke(check, **params)
        except SystemExit as e:
            if e.code == 130:
                raise KeyboardInterrupt from None
        click.echo(f"[{time.strftime('%H:%M:%S')}] watching {', '.join(paths)} for changes (Ctrl-C to stop)", err=True)

    only_sources = watchfiles.PythonFilter(extra_extensions=(".ipynb",))
    # yield_on_timeout: the first (empty) yield says the watcher is running, so that the
    # first lint starts only when no later change can be missed
    events = watchfiles.watch(*paths, watch_filter=only_sources, debounce=300, rust_timeout=200,
                              yield_on_timeout=True, raise_interrupt=True)
    try:
        next(events)
        once()
        for changes in events:
            if changes:
                once()
    except KeyboardInterrupt:
        sys.exit(130)
    except Stopped as e:  # Ctrl-C or SIGTERM, through devicelint's own handler: no word either
        sys.exit(e.exit_code)
    sys.exit(EXIT_CLEAN)  # the watched paths went away


@cli.command("clean")
@click.argument("path", type=click.Path(), default=".")
@click.option("--cache-dir", type=click.Path(file_okay=False), help="The cache to remove (default: .devicelint_cache beside the nearest pyproject.toml).")
def clean_cmd(path, cache_dir):
    """Remove the result cache."""
    from devicelint import cache
    from devicelint import config as cfgmod

    if cache_dir is None:
        where = cfgmod.find_pyproject(path)
        root = os.path.dirname(os.path.abspath(where)) if where else path
        cache_dir = os.path.join(root, cache.DEFAULT_DIR)
    try:
        removed = cache.clean(cache_dir)
    except (ValueError, OSError) as e:
        click.echo(f"devicelint clean: {e}", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(f"Removed {cache_dir}" if removed else f"No cache at {cache_dir}")


@cli.command("rules")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rules_cmd(output_format):
    """List every rule: code, fixable ([*]: `--fix` can repair it), name, summary, default on/off,
    and for fixable rules whether the fix is safe or unsafe (`--unsafe-fixes`)."""
    from devicelint import rules as registry

    if output_format == "json":
        data = [{"code": r.code, "name": r.name, "default": r.default, "fixable": r.fixable,
                 "fix_applicability": list(r.fix_applicability) if r.fixable else [], "summary": r.summary()}
                for r in registry.ALL_RULES]
        click.echo(json.dumps(data, indent=2))
        return
    for r in registry.ALL_RULES:
        flag = "" if r.default else "  (off by default)"
        if r.fixable:
            flag += f"  (fix: {', '.join(r.fix_applicability)})"
        click.echo(f"{r.code} {'[*]' if r.fixable else '   '} {r.name:<28} {r.summary()}{flag}")


@cli.command("explain")
@click.argument("code", metavar="CODE_OR_NAME")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def explain_cmd(code, output_format):
    """Explain one rule (`DL001` or `model-not-moved`): what it flags, why, and what to write instead."""
    _explain(code, output_format)


def _explain(code: str, output_format: str, param_hint: str = "CODE_OR_NAME") -> None:
    from devicelint import rules as registry

    entry = codes.lookup(code)
    if entry is None:
        close = codes.close_matches(code)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise click.BadParameter(f"unknown rule code or name {code!r}{hint} (see `devicelint rules`)", param_hint=param_hint)
    rule = registry.load(entry.code)
    if output_format == "json":
        data = {"code": rule.code, "name": rule.name, "default": rule.default, "fixable": rule.fixable,
                "summary": rule.summary(), "explanation": rule.docs()}
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(f"# {rule.code} {rule.name}\n\n{rule.docs()}")


@cli.command("verify")
@click.argument("folder", type=click.Path(exists=True, file_okay=False), default="fixtures")
@click.option("--simulate", is_flag=True, help="Simulate CUDA on the CPU (results are labelled 'simulated').")
@click.option("--timeout", type=float, default=120.0, show_default=True, help="Seconds per script.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False), help="Write the JSON report here.")
@click.option("--max-memory", "max_memory", type=click.IntRange(min=0), default=None, metavar="MB",
              help="Memory cap per script in MB; 0 for none (default: $DEVICELINT_SCRIPT_MEMORY_MB or half the machine's).")
def verify_cmd(folder, simulate, timeout, report_path, max_memory):
    """Run the bad/fixed script pairs in FOLDER and confirm each finding at runtime."""
    try:
        import torch  # noqa: F401
    except ImportError:
        click.echo("devicelint verify needs PyTorch: pip install -e '.[runtime]' -c constraints.txt from a devicelint checkout (devicelint is not on PyPI)", err=True)
        sys.exit(EXIT_ERROR)
    from devicelint.runtime import verify

    if not simulate:
        import torch

        if not torch.cuda.is_available():
            click.echo("devicelint verify: no CUDA device here; use --simulate to run on the CPU", err=True)
            sys.exit(EXIT_ERROR)
    try:
        results = verify.verify_folder(folder, simulate=simulate, timeout=timeout, memory_mb=max_memory)
    except verify.VerifyError as e:
        click.echo(f"devicelint verify: {e}", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(verify.format_table(results))
    if report_path:
        from devicelint import atomic

        try:
            atomic.write(report_path, json.dumps(verify.results_to_report(results, simulate), indent=2).encode("utf-8"))
        except OSError as e:  # the table is out already: say why the report is not
            click.echo(f"devicelint verify: error: cannot write the report {report_path}: {e.strerror or e}", err=True)
            sys.exit(EXIT_ERROR)
    ok = all(getattr(r, "ok", False) for r in results)
    sys.exit(EXIT_CLEAN if ok and results else EXIT_FINDINGS)


@cli.command("server")
def server_cmd():
    """Run the language server (LSP over stdio) for editors: diagnostics as you type, fixes,
    rule docs. Needs the lsp extra."""
    import importlib.util

    if any(importlib.util.find_spec(m) is None for m in ("pygls", "lsprotocol")):
        click.echo("error: devicelint server needs the lsp extra: pip install 'devicelint[lsp]'", err=True)
        sys.exit(EXIT_ERROR)
    from devicelint.lsp.server import serve

    serve()
