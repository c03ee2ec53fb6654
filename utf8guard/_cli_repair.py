"""``utf8guard repair``: write inputs with each violation replaced, never clobbering.

Output goes to stdout, to ``-o OUT`` (refused if OUT exists, unless ``--force``),
or back over each input with ``--in-place``; files are written atomically
(:mod:`utf8guard._cli_atomic`). With ``--from ENC`` the ill-formed stretches are
re-read in ENC instead of replaced, or for an encoding whose bytes do not decode
alone (UTF-16, Shift_JIS) the whole input is converted from ENC
(:mod:`utf8guard._cli_encoding`).
"""

from __future__ import annotations

import os
import stat

from ._cli_encoding import ConversionError, Tally, encoding_problem, repaired
from ._cli_input import Progress, open_input, read_chunks
from ._cli_output import EXIT_ERROR, EXIT_FOUND, EXIT_OK, display, error
from ._cli_stdio import flush_out, out
from ._record import Record

# Only mypy needs these (issue 28: a command's start-up).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ._policy import Policy

__all__ = ["Target", "run_repair", "usage_problem"]


class Target(Record):
    """Where ``repair`` writes: ``output`` (``-`` is stdout) or each input itself."""

    output: str
    in_place: bool = False
    force: bool = False


def usage_problem(
    inputs: Sequence[str], target: Target, encoding: str | None
) -> str | None:
    """Refuse, before reading anything, a repair that could clobber its inputs."""
    if encoding is not None and (problem := encoding_problem(encoding)):
        return problem
    if target.force and (target.in_place or target.output == "-"):
        return "--force goes with -o OUT (a file)"
    if target.in_place:
        return "--in-place needs files, not - (stdin)" if "-" in inputs else None
    if len(inputs) > 1:
        return "several inputs need --in-place (or one call per input)"
    if target.output == "-":
        return None
    if inputs[0] != "-" and _is_same_file(inputs[0], target.output):
        return "-o names IN itself: use --in-place to rewrite IN"
    if os.path.lexists(target.output) and not target.force:
        return f"{display(target.output)} exists: add --force to replace it"
    if _is_special(target.output):  # e.g. -o /dev/stdout: its node must stay
        return (
            f"{display(target.output)} is not a regular file: "
            "write to it with -o - and a redirection"
        )
    return None


def _is_special(path: str) -> bool:
    """True for a FIFO, socket or device (after symlinks): no file to replace."""
    try:
        mode = os.stat(path).st_mode
    except OSError:  # missing, or not reachable: the write will say why
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _is_same_file(first: str, second: str) -> bool:
    if os.path.realpath(first) == os.path.realpath(second):
        return True
    try:
        return os.path.samefile(first, second)  # hard links
    except OSError:  # one of them does not exist (yet)
        return False


def run_repair(
    inputs: Sequence[str], target: Target, policy: Policy, encoding: str | None
) -> int:
    """Repair each input (checked by :func:`usage_problem` first); exit status."""
    status = EXIT_OK
    for source in inputs:
        status = max(status, _repair_one(source, target, policy, encoding))
    return status


def _repair_one(
    source: str, target: Target, policy: Policy, encoding: str | None
) -> int:
    tally = Tally()
    if target.in_place and _is_special(source):
        error(f"{display(source)}: not a regular file (--in-place rewrites files)")
        return EXIT_ERROR
    try:
        with open_input(source) as stream, Progress(stream, source) as progress:
            parts = repaired(read_chunks(stream, progress), policy, encoding, tally)
            if target.output == "-" and not target.in_place:
                for part in parts:
                    out(part)
                flush_out()
                return _reported(source, tally, encoding)
            # Only a file output needs tempfile (with random: 18M instructions).
            from ._cli_atomic import AtomicFile

            name = source if target.in_place else target.output
            overwrite = target.in_place or target.force
            with AtomicFile(os.path.realpath(name), name, overwrite=overwrite) as file:
                for part in parts:
                    file.write(part)
                # In place, a valid file is left alone: its mtime and links survive.
                if tally.replaced or tally.recoded or not target.in_place:
                    file.commit()
    except BrokenPipeError:
        raise
    except OSError as exc:
        name = exc.filename if isinstance(exc.filename, str) else source
        error(f"{display(name)}: {exc.strerror or exc}")
        return EXIT_ERROR
    except ConversionError as exc:  # no file written; stdout stops there, as iconv
        error(f"{display(source)}: {exc}")
        return EXIT_ERROR
    return _reported(source, tally, encoding)


def _reported(source: str, tally: Tally, encoding: str | None) -> int:
    """Say what was changed, on stderr; the exit status for it."""
    done = []
    if tally.converted:
        done.append(f"converted from {encoding}")
    if tally.recoded:
        done.append(f"re-read {tally.recoded} stretch(es) as {encoding}")
    if tally.replaced:
        done.append(f"replaced {tally.replaced} violation(s) with U+FFFD")
    if done:
        error(f"{display(source)}: {', '.join(done)}")
    return EXIT_FOUND if done else EXIT_OK
