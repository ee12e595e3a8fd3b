"""The default command's work, without click: options -> config -> files -> lint -> report ->
exit code. `devicelint FILE` runs it straight from cli.main when its arguments are plain
(cli.fast_options); every other command line goes through click (commands.py), whose `check`
command ends here too. Nothing here imports click unless click is in use already."""

from __future__ import annotations

import os
import re
import sys
from types import SimpleNamespace

from devicelint import codes, report
from devicelint.lines import split_lines
from devicelint.stop import Stopped
from devicelint.term import Progress, use_color

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

# The default command's options and their defaults, as click hands them to `check`
# (tests/test_cli_fast.py holds commands.py's declarations to these).
DEFAULTS = {
    "paths": (), "select": (), "extend_select": (), "ignore": (), "output_format": "full",
    "exit_zero": False, "statistics": False, "config_path": None, "stdin_filename": "<stdin>", "jobs": None,
    "no_cache": False, "cache_dir": None, "fix": False, "diff": False, "unsafe_fixes": False, "add_noqa": False,
    "write_baseline": None, "baseline_path": None, "force_exclude": False, "explain_code": None, "watch": False,
}


def options(**given) -> SimpleNamespace:
    return SimpleNamespace(**{**DEFAULTS, **given})


def code_list(values) -> tuple:
    """(the codes `--select A,B --select C` name, upper-cased, the unknown ones among them)."""
    out = []
    for v in values or ():
        out.extend(c.strip().upper() for c in v.split(",") if c.strip())
    return out, codes.unknown_codes(out)


# ------------------------------------------------------------------ output

# click.echo's: ANSI control sequences dropped when the stream is no terminal
_ANSI = re.compile(r"\033\[[0-?]*[ -/]*[@-~]")


def echo(message, nl: bool = True, err: bool = False, color=None) -> None:
    """click.echo, without importing click where the plain run needs none of it: the same
    text, to the same stream, flushed, with ANSI codes dropped under the same conditions.
    Under click (a command line click parsed, CliRunner), or for what only click handles
    (bytes, a stream that says it is ASCII), click.echo itself."""
    click = sys.modules.get("click")
    stream = sys.stderr if err else sys.stdout
    if click is None and (not isinstance(message, str) or _ascii(stream)):
        import click
    if click is not None:
        click.echo(message, nl=nl, err=err, color=color)
        return
    if stream is None:
        return
    out = message + "\n" if nl else message
    if out and "\033" in out and _strip_ansi(stream, color):
        out = _ANSI.sub("", out)
    if out:
        stream.write(out)
    stream.flush()


def _ascii(stream) -> bool:
    """click re-wraps a stream whose encoding is ASCII (a misconfigured locale) as UTF-8."""
    encoding = getattr(stream, "encoding", None) or "ascii"
    import codecs

    try:
        return codecs.lookup(encoding).name == "ascii"
    except LookupError:
        return False


def _strip_ansi(stream, color) -> bool:
    if color is not None:
        return not color
    if hasattr(stream, "color"):  # click's pager writer strips by itself
        return False
    try:
        tty = stream.isatty()
    except Exception:
        tty = False
    return not tty and not type(stream).__module__.startswith("ipykernel.")


def _warning(text: str) -> str:
    if not use_color(sys.stderr):
        return f"warning: {text}"
    import click

    return click.style("warning", fg="yellow", bold=True) + f": {text}"


# ------------------------------------------------------------------ the run


def run(o: SimpleNamespace) -> None:
    """Lint `o.paths` with the options `o` (DEFAULTS' names; select, extend_select and ignore
    already checked code lists), print the report, exit with the exit code. Never returns."""
    paths = list(o.paths) or ["."]
    cfg = _config(o.config_path, paths)
    from devicelint import config as cfgmod

    chosen, ignored = cfgmod.selection(cfg, o.select, o.extend_select, o.ignore)
    tasks, sources = _tasks(paths, cfg, o)
    if not tasks:
        echo(_warning("No Python files found under the given path(s)"), err=True)
    fixed = None
    if o.fix or o.diff:
        fixed, tasks = _fix_first(tasks, sources, chosen, ignored, cfg, o, paths)
    cache_dir = _cache_dir(o, cfg)
    findings, errors = _lint(tasks, chosen, ignored, cfg, cache_dir, o.jobs)
    stale = None
    if o.baseline_path and not o.write_baseline:  # with --add-noqa: silence only what is new
        findings, stale = _baseline(o.baseline_path, findings, tasks)
    if o.add_noqa or o.write_baseline:
        _adopt(findings, tasks, errors, o.add_noqa, o.write_baseline)
    _report(findings, sources, fixed, stale, o, paths)
    if errors:
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if findings and not o.exit_zero else EXIT_CLEAN)


def _config(config_path, paths: list):
    from devicelint import config as cfgmod

    try:
        where = config_path or cfgmod.find_pyproject(next((p for p in paths if p != "-"), "."))
        return cfgmod.load(where) if where else cfgmod.Config()
    except cfgmod.ConfigError as e:
        echo(f"devicelint: error: {e}", err=True)
        sys.exit(EXIT_ERROR)


def _tasks(paths: list, cfg, o) -> tuple:
    """([(path, bytes read from stdin or None)], {stdin's name: its lines})."""
    from devicelint.files import discover

    sources = {}
    tasks = []
    for given in paths:
        if given == "-":
            data = sys.stdin.buffer.read()
            tasks.append((o.stdin_filename, data))
            sources[o.stdin_filename] = split_lines(data.decode("utf-8", "replace"))
        else:
            for path in discover([given], cfg.exclude, cfg.extend_exclude, cfg.root if cfg.path else None,
                                 o.force_exclude, cfg.extend_include):
                tasks.append((path, None))
    return tasks, sources


def _fix_first(tasks, sources, chosen, ignored, cfg, o, paths) -> tuple:
    """`--fix` / `--diff`: (fixes applied, the tasks to lint next); `--diff` exits here."""
    changed, fixed, tasks = _apply_fixes(tasks, chosen, ignored, cfg, write=o.fix and not o.diff,
                                         unsafe=o.unsafe_fixes, jobs=o.jobs, given=paths)
    if o.diff:
        if not changed:  # an empty patch on stdout alone reads like a tool that did nothing
            hint = "" if o.unsafe_fixes else " (fixes marked [-] show with --diff --unsafe-fixes)"
            echo(f"No fixes would be applied{hint}.", err=True)
        sys.exit(EXIT_FINDINGS if changed else EXIT_CLEAN)
    sources.update((path, split_lines(data.decode("utf-8", "replace"))) for path, data in tasks if data is not None)
    return fixed, tasks


def _cache_dir(o, cfg):
    if o.no_cache:
        return None
    if o.cache_dir is not None:
        return o.cache_dir
    from devicelint.cache import DEFAULT_DIR

    return os.path.join(cfg.root if cfg.path else ".", DEFAULT_DIR)


def _lint(tasks, chosen, ignored, cfg, cache_dir, jobs) -> tuple:
    """(findings, internal errors) of every task, with the progress line; the errors said."""
    from devicelint.files import ignored_codes
    from devicelint.lint import lint_many

    jobs_list = [
        (path, data, chosen, ignored + ignored_codes(path, cfg.per_file_ignores, cfg.root), cache_dir)
        for path, data in tasks
    ]
    progress = Progress(len(jobs_list))
    try:
        findings, errors = lint_many(jobs_list, jobs, progress.advance)
    except KeyboardInterrupt:  # click would say "Aborted!" and exit 1
        progress.close()
        echo("devicelint: interrupted", err=True)
        sys.exit(130)
    except Stopped:  # main() says so, once the progress line is gone
        progress.close()
        raise
    progress.close()
    for path, message in errors:
        echo(f"devicelint: internal error while linting {path}: {message}", err=True)
    if cache_dir is not None:
        from devicelint.cache import prune

        prune(cache_dir)
    return findings, errors


def _report(findings, sources, fixed, stale, o, paths) -> None:
    # Like `ruff check --fix -`: the fixed source went to stdout, so what is left goes to stderr.
    to_err = o.fix and not o.diff and "-" in paths
    color = use_color(sys.stderr if to_err else sys.stdout)
    if o.statistics:
        text = report.statistics(findings, o.output_format, color=color)
    elif o.output_format in ("full", "concise"):
        if o.output_format == "full":
            for f in findings:
                if f.path not in sources:
                    sources[f.path] = _read_lines(f.path)
        text = report.RENDER[o.output_format](findings, sources, color=color) + report.summary(
            findings, fixed, color, o.unsafe_fixes)
    else:
        text = report.RENDER[o.output_format](findings, sources)
    echo(text, nl=False, err=to_err, color=color)
    if o.statistics and stale:
        echo(f"{stale} stale baseline entr{'y' if stale == 1 else 'ies'}: fixed or changed since the baseline was "
             "written (rewrite it with --write-baseline)", err=o.output_format == "json" or to_err)


def _adopt(findings, tasks, errors, add_noqa: bool, write_baseline) -> None:
    """`--add-noqa` / `--write-baseline FILE`: record the findings, then exit."""
    if add_noqa:
        _add_noqa(findings, tasks)
    else:
        from devicelint import baseline

        try:
            n = baseline.write(write_baseline, findings, {p: d for p, d in tasks if d is not None})
        except baseline.BaselineError as e:
            echo(f"devicelint: error: {e}", err=True)
            sys.exit(EXIT_ERROR)
        echo(f"Wrote {n} finding{'' if n == 1 else 's'} to the baseline {write_baseline}.", err=True)
    sys.exit(EXIT_ERROR if errors else EXIT_CLEAN)


def _add_noqa(findings, tasks) -> None:
    from devicelint.noqa import add_noqa_to_files

    if any(data is not None for _path, data in tasks):
        echo("devicelint: error: --add-noqa edits files; it cannot read stdin", err=True)
        sys.exit(EXIT_ERROR)
    unsilenced: list = []
    added, refused = add_noqa_to_files(findings, unsilenced)
    for f, why in unsilenced:  # never left silently: CI would stay red with no word why
        cell = f"cell {f.cell}:" if f.cell is not None else ""
        echo(f"{f.path}:{cell}{f.line}:{f.column}: {f.code} [{f.name}] not silenced: {why}", err=True)
    for path, e in refused:
        echo(_not_written(path, e, "not silenced"), err=True)
    unreadable = sum(f.code == "DL000" for f in findings)
    if unreadable:  # no directive can silence a file that does not parse: say so, once
        echo(f"{unreadable} DL000 finding{'' if unreadable == 1 else 's'} not silenced: a file that cannot be read or "
             f"parsed cannot be silenced by noqa (run devicelint without --add-noqa to see "
             f"{'it' if unreadable == 1 else 'them'})", err=True)
    echo(f"Added {added} noqa directive{'' if added == 1 else 's'}.", err=True)
    if refused:
        sys.exit(EXIT_ERROR)


def _baseline(path, findings, tasks):
    """(findings not in the baseline, stale baseline entries)."""
    from devicelint import baseline

    try:
        return baseline.apply(path, findings, [p for p, _d in tasks], {p: d for p, d in tasks if d is not None})
    except baseline.BaselineError as e:
        echo(f"devicelint: error: {e}", err=True)
        sys.exit(EXIT_ERROR)


# ------------------------------------------------------------------ --fix and --diff


def _apply_fixes(tasks, chosen, ignored, cfg, write: bool, unsafe: bool = False, jobs=None, given=()):
    """Fix (or, without `write`, print the diff for) every file. Returns (files changed,
    fixes applied, the tasks to lint next: stdin's replaced by its fixed source). When
    writing, stdin's fixed source (or the source itself, when nothing applies) is printed
    on stdout, as `ruff check --fix -` does for editors. A file that cannot be written, or
    that changed while we worked, or a link out of the `given` paths, is one DL000 line on
    stderr and the run goes on."""
    from devicelint.files import ignored_codes
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
            outcome = _fixed_file(path, outside, reals, results)
            if outcome is None:
                continue
            source, before, new, count, refused = outcome
        else:
            from devicelint.fix import fix_source

            source, before, refused = data, None, []
            new, count = fix_source(source, path, chosen, ignored + ignored_codes(path, cfg.per_file_ignores, cfg.root),
                                    unsafe, refused)
        for line in refused:  # a chosen fix that cannot be applied is said, never dropped
            echo(f"{path}:{line}", err=True)
        if data is not None:
            after[-1] = (path, new)
            if write:
                echo(new, nl=False)  # bytes: written as they are
        if count and _apply_one(path, data, source, before, new, count, write):
            changed += 1
            applied += count
    return changed, applied, after


def _fixed_file(path, outside, reals, results):
    """What fixing the file at `path` gave ((source, stat, new, count, refused)), or None when
    there is nothing to write (a link out of the given paths, unreadable, an internal error:
    each said here, or by the lint run that follows)."""
    if path in outside:  # still linted: its findings are reported, not fixed
        echo(f"{path}:1:1: DL000 [symlink-outside] not fixed: a link to {outside[path]}, outside the "
             "paths given", err=True)
    if path not in reals:
        return None
    _real, outcome, error = results[path]
    if outcome is None and error is not None:  # the lint that follows may pass: only fixing failed
        echo(f"devicelint: internal error while fixing {path}: {error}", err=True)
    return outcome


def _apply_one(path, data, source, before, new, count, write: bool) -> bool:
    """Write the fixed file (or print its diff); False when it could not be written."""
    if write and data is None:
        from devicelint.fix import Changed, write_fixed

        try:
            write_fixed(path, source, new, before)
        except (Changed, OSError) as e:
            echo(_not_written(path, e, "not fixed"), err=True)
            return False
        echo(f"Fixed {count} finding{'s' if count > 1 else ''} in {path}", err=True)
    elif not write:
        if path.lower().endswith(".ipynb"):  # the cells' code, not the JSON
            from devicelint.notebook import diff as notebook_diff

            echo(notebook_diff(source, new, path), nl=False)
        else:
            from devicelint.fix import unified_diff

            echo(unified_diff(source, new, path), nl=False)
    return True


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
