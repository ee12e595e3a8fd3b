"""The `devicelint` command: arguments -> config -> lint -> report -> exit code."""

from __future__ import annotations

import json
import os
import re
import stat
import sys

import click

from devicelint import __version__, codes, report
from devicelint.lines import split_lines
from devicelint.stop import Stopped
from devicelint.stop import install as install_signal_handlers
from devicelint.term import Progress, use_color

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
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
    out = []
    for v in values or ():
        out.extend(c.strip().upper() for c in v.split(",") if c.strip())
    bad = codes.unknown_codes(out)
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
def check(paths, select, extend_select, ignore, output_format, exit_zero, statistics, config_path, stdin_filename, jobs, no_cache, cache_dir, fix, diff, unsafe_fixes, add_noqa, write_baseline, baseline_path, force_exclude, explain_code, watch):
    """Lint PATHS (files or folders, default `.`; `-` reads stdin).

    Also: `devicelint rules`, `devicelint explain CODE`, `devicelint verify [--simulate] DIR`,
    `devicelint clean`, `devicelint server` (the language server for editors).
    """
    from devicelint import config as cfgmod
    from devicelint.files import discover, ignored_codes
    from devicelint.lint import lint_many

    if explain_code:
        _explain(explain_code, "text", "'--explain'")
        return
    if watch:
        _watch(click.get_current_context(), list(paths) or ["."], add_noqa or write_baseline)
    select_cli, extend_cli, ignore_cli = _codes(select), _codes(extend_select), _codes(ignore)
    paths = list(paths) or ["."]
    try:
        where = config_path or cfgmod.find_pyproject(next((p for p in paths if p != "-"), "."))
        cfg = cfgmod.load(where) if where else cfgmod.Config()
    except cfgmod.ConfigError as e:
        click.echo(f"devicelint: error: {e}", err=True)
        sys.exit(EXIT_ERROR)

    chosen, ignored = cfgmod.selection(cfg, select_cli, extend_cli, ignore_cli)

    sources = {}
    tasks = []
    for given in paths:
        if given == "-":
            data = sys.stdin.buffer.read()
            tasks.append((stdin_filename, data))
            sources[stdin_filename] = split_lines(data.decode("utf-8", "replace"))
        else:
            for path in discover([given], cfg.exclude, cfg.extend_exclude, cfg.root if cfg.path else None, force_exclude, cfg.extend_include):
                tasks.append((path, None))
    if not tasks:
        click.echo(_warning("No Python files found under the given path(s)"), err=True)
    fixed = None
    if fix or diff:
        changed, fixed, tasks = _apply_fixes(tasks, chosen, ignored, cfg, write=fix and not diff, unsafe=unsafe_fixes,
                                             jobs=jobs, given=paths)
        if diff:
            sys.exit(EXIT_FINDINGS if changed else EXIT_CLEAN)
        sources.update((path, split_lines(data.decode("utf-8", "replace"))) for path, data in tasks if data is not None)
    if no_cache:
        cache_dir = None
    elif cache_dir is None:
        from devicelint.cache import DEFAULT_DIR

        cache_dir = os.path.join(cfg.root if cfg.path else ".", DEFAULT_DIR)
    jobs_list = [
        (path, data, chosen, ignored + ignored_codes(path, cfg.per_file_ignores, cfg.root), cache_dir)
        for path, data in tasks
    ]
    progress = Progress(len(jobs_list))
    try:
        findings, errors = lint_many(jobs_list, jobs, progress.advance)
    except KeyboardInterrupt:  # click would say "Aborted!" and exit 1
        progress.close()
        click.echo("devicelint: interrupted", err=True)
        sys.exit(130)
    except Stopped:  # main() says so, once the progress line is gone
        progress.close()
        raise
    progress.close()
    for path, message in errors:
        click.echo(f"devicelint: internal error while linting {path}: {message}", err=True)
    if cache_dir is not None:
        from devicelint.cache import prune

        prune(cache_dir)
    stale = None
    if baseline_path and not write_baseline:  # with --add-noqa: silence only what is new
        findings, stale = _baseline(baseline_path, findings, tasks)
    if add_noqa or write_baseline:
        _adopt(findings, tasks, errors, add_noqa, write_baseline)

    # Like `ruff check --fix -`: the fixed source went to stdout, so what is left goes to stderr.
    to_err = fix and not diff and "-" in paths
    color = use_color(sys.stderr if to_err else sys.stdout)
    if statistics:
        text = report.statistics(findings, output_format, color=color)
    else:
        if output_format == "full":
            for f in findings:
                if f.path not in sources:
                    sources[f.path] = _read_lines(f.path)
        if output_format in ("full", "concise"):
            text = report.RENDER[output_format](findings, sources, color=color) + report.summary(findings, fixed, color, unsafe_fixes)
        else:
            text = report.RENDER[output_format](findings, sources)
    click.echo(text, nl=False, err=to_err, color=color)
    if statistics and stale:
        click.echo(f"{stale} stale baseline entr{'y' if stale == 1 else 'ies'}: fixed or changed since the baseline was "
                   "written (rewrite it with --write-baseline)", err=output_format == "json" or to_err)
    if errors:
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if findings and not exit_zero else EXIT_CLEAN)


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


def _adopt(findings, tasks, errors, add_noqa: bool, write_baseline) -> None:
    """`--add-noqa` / `--write-baseline FILE`: record the findings, then exit."""
    if add_noqa:
        from devicelint.noqa import add_noqa_to_files

        if any(data is not None for _path, data in tasks):
            click.echo("devicelint: error: --add-noqa edits files; it cannot read stdin", err=True)
            sys.exit(EXIT_ERROR)
        unsilenced: list = []
        added, refused = add_noqa_to_files(findings, unsilenced)
        for f, why in unsilenced:  # never left silently: CI would stay red with no word why
            cell = f"cell {f.cell}:" if f.cell is not None else ""
            click.echo(f"{f.path}:{cell}{f.line}:{f.column}: {f.code} [{f.name}] not silenced: {why}", err=True)
        for path, e in refused:
            click.echo(_not_written(path, e, "not silenced"), err=True)
        click.echo(f"Added {added} noqa directive{'' if added == 1 else 's'}.", err=True)
        if refused:
            sys.exit(EXIT_ERROR)
    else:
        from devicelint import baseline

        try:
            n = baseline.write(write_baseline, findings, {p: d for p, d in tasks if d is not None})
        except baseline.BaselineError as e:
            click.echo(f"devicelint: error: {e}", err=True)
            sys.exit(EXIT_ERROR)
        click.echo(f"Wrote {n} finding{'' if n == 1 else 's'} to the baseline {write_baseline}.", err=True)
    sys.exit(EXIT_ERROR if errors else EXIT_CLEAN)


def _baseline(path, findings, tasks):
    """(findings not in the baseline, stale baseline entries)."""
    from devicelint import baseline

    try:
        return baseline.apply(path, findings, [p for p, _d in tasks], {p: d for p, d in tasks if d is not None})
    except baseline.BaselineError as e:
        click.echo(f"devicelint: error: {e}", err=True)
        sys.exit(EXIT_ERROR)


def _warning(text: str) -> str:
    return click.style("warning", fg="yellow", bold=True) + f": {text}" if use_color(sys.stderr) else f"warning: {text}"


def _apply_fixes(tasks, chosen, ignored, cfg, write: bool, unsafe: bool = False, jobs=None, given=()):
    """Fix (or, without `write`, print the diff for) every file. Returns (files changed,
    fixes applied, the tasks to lint next: stdin's replaced by its fixed source). When
    writing, stdin's fixed source (or the source itself, when nothing applies) is printed
    on stdout, as `ruff check --fix -` does for editors. A file that cannot be written, or
    that changed while we worked, or a link out of the `given` paths, is one DL000 line on
    stderr and the run goes on."""
    from devicelint.files import ignored_codes
    from devicelint.fix import Changed, fix_source, unified_diff, write_fixed
    from devicelint.lint import fix_many

    # the files' fixes are worked out in parallel (read, fixed, verified to parse), then
    # written one by one in the order of `tasks`: the output does not depend on --jobs
    reals, seen = {}, set()
    outside = _links_outside(tasks, given)
    for path, data in tasks:
        real = os.path.realpath(path) if data is None else None  # a symlink: fix its target, keep the link
        if real is not None and real not in seen and path not in outside:
            seen.add(real)
            reals[path] = real
    worked = fix_many([(reals[p], chosen, ignored + ignored_codes(p, cfg.per_file_ignores, cfg.root), unsafe)
                       for p in reals], jobs)
    results = dict(zip(reals, worked))
    changed = applied = 0
    after = []
    for path, data in tasks:
        after.append((path, data))
        if data is None:
            if path in outside:  # still linted: its findings are reported, not fixed
                click.echo(f"{path}:1:1: DL000 [symlink-outside] not fixed: a link to {outside[path]}, outside the "
                           "paths given", err=True)
            if path not in reals:
                continue
            _real, outcome, error = results[path]
            if outcome is None:
                if error is not None:  # the lint that follows may pass: only fixing failed
                    click.echo(f"devicelint: internal error while fixing {path}: {error}", err=True)
                continue  # unreadable: the lint run that follows says so
            source, before, new, count, refused = outcome
        else:
            source, before, refused = data, None, []
            new, count = fix_source(source, path, chosen, ignored + ignored_codes(path, cfg.per_file_ignores, cfg.root), unsafe,
                                    refused)
        for line in refused:  # a chosen fix that cannot be applied is said, never dropped
            click.echo(f"{path}:{line}", err=True)
        if data is not None:
            after[-1] = (path, new)
            if write:
                click.echo(new, nl=False)  # bytes: written as they are
        if not count:
            continue
        if write and data is None:
            try:
                write_fixed(path, source, new, before)
            except (Changed, OSError) as e:
                click.echo(_not_written(path, e, "not fixed"), err=True)
                continue
            click.echo(f"Fixed {count} finding{'s' if count > 1 else ''} in {path}", err=True)
        elif not write:
            if path.lower().endswith(".ipynb"):  # the cells' code, not the JSON
                from devicelint.notebook import diff as notebook_diff

                click.echo(notebook_diff(source, new, path), nl=False)
            else:
                click.echo(unified_diff(source, new, path), nl=False)
        changed += 1
        applied += count
    return changed, applied, after


def _links_outside(tasks, given) -> dict:
    """{path: its target} for the files a folder walk reached through a symbolic link that
    leads out of every folder given: as Black does, `--fix` writes only inside the tree the
    user named (a link to a shared or system file must not rewrite it). A file named on
    the command line is the user's own choice, link or not."""
    named = {os.path.normpath(g) for g in given if g != "-"}
    folders = [os.path.realpath(g) for g in given if g != "-" and os.path.isdir(g)]
    out = {}
    for path, data in tasks:
        if data is not None or os.path.normpath(path) in named:
            continue
        real = os.path.realpath(path)
        if not any(os.path.commonpath([real, folder]) == folder for folder in folders):
            out[path] = real
    return out


def _not_written(path: str, e: Exception, what: str) -> str:
    """The DL000 line for a file that `--fix` or `--add-noqa` could not write back."""
    from devicelint.fix import Changed

    if isinstance(e, Changed):
        return f"{path}:1:1: DL000 [file-changed] {what}: the file changed while devicelint ran"
    reason = getattr(e, "strerror", None) or str(e)
    return f"{path}:1:1: DL000 [unwritable-file] {what}: {reason.lower()}"


def _read_lines(path: str) -> list:
    try:
        with open(path, "rb") as f:
            return split_lines(f.read().decode("utf-8", "replace"))
    except OSError:
        return []


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


def main() -> None:
    install_signal_handlers()
    try:
        cli(prog_name="devicelint")
    except Stopped as e:  # every `finally` on the way has run: no temporary file is left
        click.echo(f"devicelint: {e.message}", err=True)
        # Not sys.exit: the interpreter's exit hooks would wake a process pool whose workers
        # were just killed (concurrent.futures' atexit hook writes to a pipe that may already
        # be closed, and prints a traceback). Nothing is left to clean up at this point.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(e.exit_code)
    except KeyboardInterrupt:
        click.echo("devicelint: interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
