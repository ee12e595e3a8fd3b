"""The `devicelint` command: arguments -> config -> lint -> report -> exit code.

click declares the command line (commands.py: the commands, options, help, usage errors);
checking.py does the default command's work. A plain lint (`devicelint [--no-cache]
[--output-format F] ... FILE...`, the editor's and pre-commit's case) skips click: importing it
and building the commands cost about a tenth of what parsing the file costs (issue 21, "One
file, fast"). `fast_options` takes only command lines that click would accept as they are and
hand to `check` unchanged; anything else (help, subcommands, stdin, a value click would refuse,
an unknown option) goes through click, for its own behaviour and messages.
"""

from __future__ import annotations

import errno
import os
import stat
import sys

from devicelint import checking
from devicelint.checking import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS  # noqa: F401  (cli.EXIT_*: the API of old)
from devicelint.stop import Stopped
from devicelint.stop import install as install_signal_handlers

# The group's commands (commands.py; tests/test_cli_fast.py keeps the two lists equal): a
# command line that starts with one is no plain lint.
COMMANDS = ("check", "clean", "rules", "explain", "verify", "server")
# Options of `check` a plain lint may use: flags, and options whose one value click checks
# only the way `_plain_value` does. The others (--config, --jobs, --watch, --explain, stdin...)
# go through click.
_FLAGS = {"--exit-zero": "exit_zero", "--statistics": "statistics", "--no-cache": "no_cache", "--fix": "fix",
          "--diff": "diff", "--unsafe-fixes": "unsafe_fixes", "--add-noqa": "add_noqa",
          "--force-exclude": "force_exclude"}
_CODE_LISTS = {"--select": "select", "--extend-select": "extend_select", "--ignore": "ignore"}
_VALUES = {"--output-format": "output_format", "--cache-dir": "cache_dir"}
# click's shell completion is asked for through this variable
_COMPLETE_VAR = "_DEVICELINT_COMPLETE"

# The click objects, for `from devicelint.cli import cli` and the like (module __getattr__).
_CLICK_NAMES = ("cli", "check", "clean_cmd", "rules_cmd", "explain_cmd", "verify_cmd", "server_cmd", "DefaultGroup")


def __getattr__(name: str):
    if name in _CLICK_NAMES:
        from devicelint import commands

        return getattr(commands, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def fast_options(args: list):
    """The options (checking.options) of a plain lint command line, or None when click must
    read it."""
    if not args or args[0] in COMMANDS or _COMPLETE_VAR in os.environ:
        return None
    if not args[0].startswith("-") and not os.path.lexists(args[0]):
        return None  # maybe a mistyped command: click says so
    given: dict = {}
    raw: dict = {}  # each code-list option's values, as given
    paths: list = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if not arg.startswith("-"):
            paths.append(arg)
            continue
        name, eq, value = arg.partition("=")
        if name in _FLAGS and not eq:
            given[_FLAGS[name]] = True
            continue
        if not eq and i < len(args):
            value = args[i]
            i += 1
        elif not eq:
            return None  # no value: click's error
        if not _plain_value(name, value, given, raw):
            return None
    if not all(_path_click_takes(p, file_okay=True) for p in paths):
        return None
    return checking.options(paths=tuple(paths), **given)


def _plain_value(name: str, value: str, given: dict, raw: dict) -> bool:
    """Record `name value` in `given` when click would take it unchanged."""
    if not value or value.startswith("-"):
        return False
    if name in _CODE_LISTS:
        key = _CODE_LISTS[name]
        raw.setdefault(key, []).append(value)
        listed, bad = checking.code_list(raw[key])
        if bad:
            return False
        given[key] = listed
        return True
    key = _VALUES.get(name)
    if key is None or key in given:  # unknown, or given twice
        return False
    if key == "output_format" and value not in checking.report.FORMATS:
        return False
    if key == "cache_dir" and not _path_click_takes(value, file_okay=False):
        return False
    given[key] = value
    return True


def _path_click_takes(path: str, file_okay: bool) -> bool:
    """Would click.Path(file_okay=...) (readable, need not exist) accept `path` as it is?"""
    try:
        st = os.stat(path)
    except OSError:
        return True
    if not file_okay and stat.S_ISREG(st.st_mode):
        return False
    return os.access(path, os.R_OK)


def main() -> None:
    install_signal_handlers()
    plain = fast_options(sys.argv[1:])
    try:
        if plain is not None:
            _run_plain(plain)
        else:
            from devicelint.commands import cli

            cli(prog_name="devicelint")
    except Stopped as e:  # every `finally` on the way has run: no temporary file is left
        checking.echo(f"devicelint: {e.message}", err=True)
        # Not sys.exit: the interpreter's exit hooks would wake a process pool whose workers
        # were just killed (concurrent.futures' atexit hook writes to a pipe that may already
        # be closed, and prints a traceback). Nothing is left to clean up at this point.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(e.exit_code)
    except KeyboardInterrupt:
        checking.echo("devicelint: interrupted", err=True)
        sys.exit(130)


def entry() -> None:
    """The entry of `python -m devicelint`: main(), then an
    exit without the interpreter's teardown. Freeing every module, class and table one by
    one at exit is about 3 % of a cold one-file lint's instructions (callgrind, issue 21 "One
    file, fast") and does nothing a process that ends needs: the report is flushed here
    first. mypy ends the same way. Where a pool's or a thread's exit hooks may still have
    work (a run with workers, the editor's server), the ordinary exit runs instead.
    main() itself is left as it is for callers that catch its SystemExit."""
    try:
        main()
        code = 0
    except SystemExit as e:
        code = e.code
    if not isinstance(code, int) or _exit_hooks_matter():
        sys.exit(code)  # None, a message to print, or hooks to run: the ordinary way
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        # a closed pipe (OSError) or a stream its user closed (ValueError: an editor client
        # that ends the language server): the ordinary exit, which skips closed streams
        sys.exit(code)
    os._exit(code)


def _exit_hooks_matter() -> bool:
    """Whether an atexit hook may still have work: a process pool's (joins its workers) or
    another thread's."""
    import threading

    return "concurrent.futures.process" in sys.modules or threading.active_count() > 1


def _run_plain(o) -> None:
    """checking.run, ended the way click's standalone mode ends a command."""
    try:
        checking.run(o)
    except (EOFError, KeyboardInterrupt):
        checking.echo("", err=True)  # closes the terminal's ^C
        checking.echo("Aborted!", err=True)
        sys.exit(1)
    except OSError as e:
        if e.errno != errno.EPIPE:
            raise
        # the reader went away (`devicelint x.py | head`): no traceback at exit either
        sys.stdout = _PacifyFlush(sys.stdout)
        sys.stderr = _PacifyFlush(sys.stderr)
        sys.exit(1)
    sys.exit(EXIT_CLEAN)


class _PacifyFlush:
    """A stream whose flush ignores a broken pipe (click's _PacifyFlushWrapper)."""

    def __init__(self, wrapped) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        try:
            self.wrapped.flush()
        except OSError as e:
            if e.errno != errno.EPIPE:
                raise

    def __getattr__(self, attr):
        return getattr(self.wrapped, attr)


if __name__ == "__main__":
    entry()
