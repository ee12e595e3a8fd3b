"""The `devicelint` command: arguments -> config -> lint -> report -> exit code."""

from __future__ import annotations

import json
import os
import sys

import click

from devicelint import __version__, report
from devicelint import rules as registry

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class DefaultGroup(click.Group):
    """`devicelint PATHS` means `devicelint check PATHS`; `rules`, `explain`, `verify` are subcommands."""

    def parse_args(self, ctx, args):
        if not args or (args[0] not in self.commands and args[0] not in ("--version",)):
            args = ["check", *args]
        return super().parse_args(ctx, args)


def _codes(values) -> list:
    out = []
    for v in values or ():
        out.extend(c.strip().upper() for c in v.split(",") if c.strip())
    bad = registry.unknown_codes(out)
    if bad:
        raise click.BadParameter(f"unknown rule code {', '.join(bad)}")
    return out


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
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
@click.option("--diff", is_flag=True, help="Show the fixes as a unified diff; change nothing.")
@click.option("--force-exclude", is_flag=True, help="Apply excludes to files named on the command line too (for pre-commit).")
@click.option("--explain", "explain_code", metavar="CODE", help="Explain one rule and exit.")
def check(paths, select, extend_select, ignore, output_format, exit_zero, statistics, config_path, stdin_filename, jobs, no_cache, cache_dir, fix, diff, force_exclude, explain_code):
    """Lint PATHS (files or folders, default `.`; `-` reads stdin).

    Also: `devicelint rules`, `devicelint explain CODE`, `devicelint verify [--simulate] DIR`.
    """
    from devicelint import config as cfgmod
    from devicelint.files import discover, ignored_codes
    from devicelint.lint import lint_many

    if explain_code:
        _explain(explain_code, "text")
        return
    select_cli, extend_cli, ignore_cli = _codes(select), _codes(extend_select), _codes(ignore)
    paths = list(paths) or ["."]
    try:
        where = config_path or cfgmod.find_pyproject(next((p for p in paths if p != "-"), "."))
        cfg = cfgmod.load(where) if where else cfgmod.Config()
    except cfgmod.ConfigError as e:
        click.echo(f"devicelint: error: {e}", err=True)
        sys.exit(EXIT_ERROR)

    chosen = select_cli or cfg.select
    extend = list(cfg.extend_select) + extend_cli
    if extend:
        base = chosen if chosen else [r.code for r in registry.ALL_RULES if r.default]
        chosen = list(base) + extend
    ignored = list(cfg.ignore) + ignore_cli

    sources = {}
    tasks = []
    for given in paths:
        if given == "-":
            data = sys.stdin.buffer.read()
            tasks.append((stdin_filename, data))
            sources[stdin_filename] = data.decode("utf-8", "replace").splitlines()
        else:
            for path in discover([given], cfg.exclude, cfg.extend_exclude, cfg.root if cfg.path else None, force_exclude):
                tasks.append((path, None))
    if fix or diff:
        changed = _apply_fixes(tasks, chosen, ignored, cfg, write=fix and not diff)
        if diff:
            sys.exit(EXIT_FINDINGS if changed else EXIT_CLEAN)
    if no_cache:
        cache_dir = None
    elif cache_dir is None:
        from devicelint.cache import DEFAULT_DIR

        cache_dir = os.path.join(cfg.root if cfg.path else ".", DEFAULT_DIR)
    jobs_list = [
        (path, data, chosen, ignored + ignored_codes(path, cfg.per_file_ignores, cfg.root), cache_dir)
        for path, data in tasks
    ]
    try:
        findings, errors = lint_many(jobs_list, jobs)
    except KeyboardInterrupt:  # click would say "Aborted!" and exit 1
        click.echo("devicelint: interrupted", err=True)
        sys.exit(130)
    for path, message in errors:
        click.echo(f"devicelint: internal error while linting {path}: {message}", err=True)

    if statistics:
        click.echo(report.statistics(findings, output_format), nl=False)
    else:
        if output_format == "full":
            for f in findings:
                if f.path not in sources:
                    sources[f.path] = _read_lines(f.path)
        click.echo(report.RENDER[output_format](findings, sources), nl=False)
        if output_format in ("full", "concise"):
            click.echo(report.summary(findings), nl=False)
    if errors:
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if findings and not exit_zero else EXIT_CLEAN)


def _apply_fixes(tasks, chosen, ignored, cfg, write: bool) -> int:
    """Fix (or, without `write`, print the diff for) every file; returns how many changed."""
    import difflib

    from devicelint.engine import read_source
    from devicelint.files import ignored_codes
    from devicelint.fix import fix_source, write_atomically

    changed = 0
    for path, data in tasks:
        source = data if data is not None else read_source(path)[0]
        if source is None:
            continue
        new, count = fix_source(source, path, chosen, ignored + ignored_codes(path, cfg.per_file_ignores, cfg.root))
        if not count:
            continue
        changed += 1
        if write and data is None:
            write_atomically(path, new)
            click.echo(f"Fixed {count} finding{'s' if count > 1 else ''} in {path}", err=True)
        else:
            old_lines = source.decode("utf-8", "replace").splitlines(keepends=True)
            new_lines = new.decode("utf-8", "replace").splitlines(keepends=True)
            click.echo("".join(difflib.unified_diff(old_lines, new_lines, f"a/{path}", f"b/{path}")), nl=False)
    return changed


def _read_lines(path: str) -> list:
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return []


@cli.command("rules")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rules_cmd(output_format):
    """List every rule: code, name, default on/off, summary."""
    if output_format == "json":
        data = [{"code": r.code, "name": r.name, "default": r.default, "summary": r.summary()} for r in registry.ALL_RULES]
        click.echo(json.dumps(data, indent=2))
        return
    for r in registry.ALL_RULES:
        flag = "" if r.default else "  (off by default)"
        click.echo(f"{r.code}  {r.name:<28} {r.summary()}{flag}")


@cli.command("explain")
@click.argument("code")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def explain_cmd(code, output_format):
    """Explain one rule: what it flags, why, and what to write instead."""
    _explain(code, output_format)


def _explain(code: str, output_format: str) -> None:
    rule = registry.BY_CODE.get(code.strip().upper())
    if rule is None:
        raise click.BadParameter(f"unknown rule code {code!r}; see `devicelint rules`", param_hint="CODE")
    if output_format == "json":
        data = {"code": rule.code, "name": rule.name, "default": rule.default, "summary": rule.summary(), "explanation": rule.docs()}
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(f"# {rule.code} {rule.name}\n\n{rule.docs()}")


@cli.command("verify")
@click.argument("folder", type=click.Path(exists=True, file_okay=False), default="fixtures")
@click.option("--simulate", is_flag=True, help="Simulate CUDA on the CPU (results are labelled 'simulated').")
@click.option("--timeout", type=float, default=120.0, show_default=True, help="Seconds per script.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False), help="Write the JSON report here.")
def verify_cmd(folder, simulate, timeout, report_path):
    """Run the bad/fixed script pairs in FOLDER and confirm each finding at runtime."""
    try:
        import torch  # noqa: F401
    except ImportError:
        click.echo("devicelint verify needs PyTorch: pip install 'devicelint[runtime]'", err=True)
        sys.exit(EXIT_ERROR)
    from devicelint.runtime import verify

    if not simulate:
        import torch

        if not torch.cuda.is_available():
            click.echo("devicelint verify: no CUDA device here; use --simulate to run on the CPU", err=True)
            sys.exit(EXIT_ERROR)
    try:
        results = verify.verify_folder(folder, simulate=simulate, timeout=timeout)
    except verify.VerifyError as e:
        click.echo(f"devicelint verify: {e}", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(verify.format_table(results))
    if report_path:
        with open(report_path, "w") as f:
            json.dump(verify.results_to_report(results, simulate), f, indent=2)
    ok = all(getattr(r, "ok", False) for r in results)
    sys.exit(EXIT_CLEAN if ok and results else EXIT_FINDINGS)


def main() -> None:
    try:
        cli(prog_name="devicelint")
    except KeyboardInterrupt:
        click.echo("devicelint: interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
