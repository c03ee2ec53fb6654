"""The ``utf8guard`` command: argument parsing and dispatch, nothing else.

``utf8guard check [-r [--no-ignore]] [--json] [--all] [policy flags] [PATH...]``
reports the first violation of each file (every violation with ``--all``); ``-r``
walks directories. ``utf8guard repair [policy flags] [-f ENC] [IN...] [-o OUT
[--force] | --in-place]`` writes each input with one U+FFFD per violation.
``utf8guard scan DIR...`` reports unsafe file names in trees. ``-`` as a path means
standard input, the default when no path is given (as iconv, uconv and ftfy read).

The commands live in ``_cli_check``, ``_cli_repair`` and ``_tree``; what they print
in ``_cli_output``.

Exit status: 0 every file valid (``check``) or nothing to repair (``repair``); 1 some
violation found (``check``) or repaired (``repair``); 2 bad usage or an I/O error,
which wins over 1 (``check`` still checks the other files); 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import sys

from . import IDENTIFIER, KERNEL, STRICT, WELL_FORMED, Policy, __version__
from ._cli_check import run_check
from ._cli_output import EXIT_ERROR, EXIT_INTERRUPTED, error
from ._cli_repair import Target, run_repair, usage_problem
from ._cli_stdio import (
    OutputError,
    flush_out,
    out,
    silence_stdout,
    stand_in_closed,
)
from ._policy import FLAGS
from ._tree import add_scan_parser

# typing costs a command 15M instructions, an eighth of its start-up (issue 28);
# only mypy needs it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Final, NoReturn

    from _typeshed import SupportsWrite

__all__ = ["main"]

PRESETS: Final = {
    "strict": STRICT,
    "well-formed": WELL_FORMED,
    "identifier": IDENTIFIER,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); return the exit status.

    Errors are one line on stderr and status 2, never a traceback.
    """
    stand_in_closed()
    try:
        status = _run(argv)
        flush_out()  # a write error must not wait for Python's exit, unreported
    except BrokenPipeError:  # e.g. `utf8guard check --all big.txt | head`
        # Python flushes stdout again at exit; send that to /dev/null, not a traceback.
        silence_stdout()
        return EXIT_ERROR
    except OutputError as exc:  # e.g. `utf8guard check big.txt > /dev/full`
        error(f"standard output: {exc}")
        silence_stdout()
        return EXIT_ERROR
    except KeyboardInterrupt:  # Ctrl-C on a large input: a line, not a traceback
        error("interrupted")
        return EXIT_INTERRUPTED
    return status


def _run(argv: Sequence[str] | None) -> int:
    try:
        args = _build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse printed --help, --version or a usage error
        return int(exc.code or 0)
    return int(args.handler(args))


def _check(args: argparse.Namespace) -> int:
    if args.no_ignore and not args.recursive:  # as repair's --force without -o
        error("check: --no-ignore goes with -r (git's ignores apply to a tree walk)")
        return EXIT_ERROR
    return run_check(
        args.paths,
        _policy_from(args),
        as_json=args.json,
        every=args.all,
        recursive=args.recursive,
        use_git=not args.no_ignore,
    )


def _repair(args: argparse.Namespace) -> int:
    target = Target(args.output or "-", in_place=args.in_place, force=args.force)
    if problem := usage_problem(args.inputs, target, args.encoding):
        error(f"repair: {problem}")
        return EXIT_ERROR
    return run_repair(args.inputs, target, _policy_from(args), args.encoding)


#: HelpFormatter's sizes, read when help is formatted (see _HelpFormatter).
_SIZES: Final = ("_width", "_max_help_position")


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, sized to the terminal when help is formatted.

    ``add_argument`` builds a formatter for every argument to check its metavar, and
    argparse's sizes it then, importing ``shutil`` (with ``fnmatch``, ``bz2`` and
    ``lzma``: 7 M instructions of every command, issue 28) for the terminal's width,
    which only help and ``--version`` read.
    """

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        # Any width will do here: the sizes it gives are dropped for argparse's own.
        super().__init__(prog, indent_increment, max_help_position, width=80)
        self._asked = (indent_increment, max_help_position, width)
        for name in _SIZES:
            delattr(self, name)

    def __getattr__(self, name: str) -> object:
        if name not in _SIZES:
            raise AttributeError(name)
        # Sized as argparse sizes a formatter of these arguments, on this Python.
        sized = argparse.HelpFormatter(self._prog, *self._asked)
        for size in _SIZES:
            setattr(self, size, getattr(sized, size))
        return getattr(self, name)


class _Parser(argparse.ArgumentParser):
    """argparse's parser with one-line errors; it and each command's parser (built
    by ``add_parser`` through this class) format help with :class:`_HelpFormatter`."""

    def __init__(self, **options: Any) -> None:
        super().__init__(formatter_class=_HelpFormatter, **options)

    def error(self, message: str) -> NoReturn:
        """One line, not the usage block: ``utf8guard check: error: ...``."""
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message} (see --help)\n")

    def _print_message(
        self, message: str, file: SupportsWrite[str] | None = None
    ) -> None:
        """Help and ``--version`` through :func:`out`: argparse would ignore a
        write error and exit 0 having printed nothing."""
        if file is sys.stdout:
            out(message)
        else:  # usage errors, to stderr
            super()._print_message(message, file)


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="utf8guard",
        description="Strict UTF-8 validation: name each violation and its byte span.",
        epilog="exit status: 0 valid or nothing to repair, 1 violations found or "
        "repaired, 2 usage or I/O error",
    )
    # Which core and kernel are active, so that a failed accelerator build or a
    # portable-only one is visible.
    accelerator = (
        "pure Python" if KERNEL == "python" else f"C accelerator, {KERNEL} kernel"
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {__version__} ({accelerator})",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_check_parser(commands)
    _add_repair_parser(commands)
    add_scan_parser(commands)
    return parser


def _add_check_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    check = commands.add_parser("check", help="report violations, exit 1 if any")
    check.add_argument(
        "paths",
        nargs="*",
        default=["-"],
        metavar="PATH",
        help="file, directory with -r, - for stdin (the default)",
    )
    check.add_argument(
        "-r",
        "--recursive",
        action="store_true",
        help="check the files below each directory (inside git: not those git "
        "ignores, which are counted), skip binary files, end with a summary line; "
        "a tree with files but none checked is an error",
    )
    check.add_argument(
        "--no-ignore",
        action="store_true",
        help="with -r: check the files git ignores too (as ripgrep's --no-ignore)",
    )
    check.add_argument("--json", action="store_true", help="one JSON object per line")
    check.add_argument(
        "--all", action="store_true", help="every violation, not only the first"
    )
    _add_policy_flags(check)
    check.set_defaults(handler=_check)


def _add_repair_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    repair = commands.add_parser(
        "repair", help="replace each violation with U+FFFD (stdout by default)"
    )
    repair.add_argument(
        "inputs",
        nargs="*",
        default=["-"],
        metavar="IN",
        help="file, or - for stdin (the default)",
    )
    target = repair.add_mutually_exclusive_group()
    target.add_argument(
        "-o", "--output", metavar="OUT", help="output file (- for stdout, the default)"
    )
    target.add_argument(
        "--in-place", action="store_true", help="atomically rewrite each IN"
    )
    repair.add_argument(
        "--force", action="store_true", help="with -o: replace OUT if it exists"
    )
    repair.add_argument(
        "-f",
        "--from",
        dest="encoding",
        metavar="ENC",
        help="re-read the ill-formed stretches as ENC (a single-byte encoding such "
        "as cp1252, latin-1, koi8-r, or cesu-8) instead of replacing them; any other "
        "Python codec (utf-16, shift_jis, big5, ...) converts the whole input, "
        "strictly, as iconv -f",
    )
    _add_policy_flags(repair)
    repair.set_defaults(handler=_repair)


def _add_policy_flags(parser: argparse.ArgumentParser) -> None:
    """``--policy PRESET``, then ``--allow-X``/``--refuse-X`` per Policy field."""
    group = parser.add_argument_group("policy (a preset, then per-class changes)")
    group.add_argument(
        "--policy", choices=PRESETS, default="strict", help="preset (default strict)"
    )
    for flag in FLAGS:
        words = flag.removeprefix("allow_").replace("_", "-")
        pair = group.add_mutually_exclusive_group()
        for verb, value in (("allow", True), ("refuse", False)):
            pair.add_argument(
                f"--{verb}-{words}",
                dest=flag,
                action="store_const",
                const=value,
                default=None,
                help=f"{verb} {words.replace('-', ' ')}",
            )


def _policy_from(args: argparse.Namespace) -> Policy:
    changes = {
        flag: getattr(args, flag) for flag in FLAGS if getattr(args, flag) is not None
    }
    return PRESETS[args.policy].replace(**changes)
