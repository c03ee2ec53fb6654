"""The filename table of docs/paths.md: utf8guard, Werkzeug and pathvalidate.

``python -m bench.compare_paths`` prints the table; ``--write docs/paths.md`` replaces
the block between the markers in that file. Deterministic and offline;
``tests/test_compare_paths.py`` checks that docs/paths.md holds exactly this output.

Each tool gets the same ``str`` (undecodable bytes as ``os.listdir`` returns them,
with ``surrogateescape``). A legitimate name is *kept* when the output is the name
itself, in NFC. An attack is *stopped* when the tool refuses it or its output no
longer has the property that made it dangerous (judged with utf8guard's rule for
that one property, on the whole output as a single name).
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Callable, Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Final

from pathvalidate import sanitize_filename
from werkzeug.utils import secure_filename

from utf8guard import IDENTIFIER
from utf8guard._pathrules import PathKind, char_violations, name_violations
from utf8guard._tree import display
from utf8guard.paths import UnsafePathError, safe_filename

BEGIN: Final = (
    "<!-- paths-table:begin (python -m bench.compare_paths --write docs/paths.md) -->"
)
END: Final = "<!-- paths-table:end -->"

K = PathKind
# (what it is, name, None for a legitimate name or the kinds that make it dangerous)
Row = tuple[str, str, frozenset[PathKind] | None]


def _attack(*kinds: PathKind) -> frozenset[PathKind]:
    return frozenset(kinds)


ROWS: Final[tuple[Row, ...]] = (
    ("German ß", "Straße.txt", None),
    ("French accents", "Résumé café.pdf", None),
    ("Vietnamese", "Tiếng Việt.txt", None),
    ("NFD from macOS", "nai\u0308ve.txt", None),
    ("Chinese", "北京市地图.png", None),
    ("Japanese, fullwidth colon", "会議：議事録.docx", None),  # noqa: RUF001
    ("Korean", "보고서 2024.hwp", None),
    ("Russian", "Отчёт.xlsx", None),
    ("Greek", "Ελληνικά.txt", None),
    ("Arabic", "تقرير.pdf", None),
    ("Hebrew", "מסמך.txt", None),
    ("Hindi", "हिन्दी.txt", None),
    ("Devanagari ZWJ after virama", "क्\u200dष.txt", None),
    ("Persian ZWNJ", "می\u200cخواهم.txt", None),  # noqa: RUF001
    ("emoji ZWJ sequence", "👨\u200d👩\u200d👧.png", None),
    ("emoji VS16", "❤\ufe0f.txt", None),
    ("Catalan middle dot", "col·lecció.txt", None),
    ("dotfile", ".bashrc", None),
    ("double extension", "archive.tar.gz", None),
    ("spaces, parentheses", "my file (1).txt", None),
    ("not a device name", "CONSOLE.txt", None),
    ("traversal", "../../etc/passwd", _attack(K.SEPARATOR, K.DOT_NAME)),
    ("Windows traversal", "..\\..\\win.ini", _attack(K.SEPARATOR, K.DOT_NAME)),
    ("absolute path", "/etc/passwd", _attack(K.SEPARATOR)),
    ("dot-dot", "..", _attack(K.DOT_NAME)),
    ("dot", ".", _attack(K.DOT_NAME)),
    ("fullwidth ../", "\uff0e\uff0e\uff0fetc", _attack(K.LOOKALIKE)),
    ("division slash", "etc\u2215passwd", _attack(K.LOOKALIKE)),
    ("two dot leader", "\u2025", _attack(K.LOOKALIKE)),
    ("RTL override", "invoice\u202etxt.exe", _attack(K.BIDI_CONTROL)),
    ("bidi isolate", "a\u2066b.txt", _attack(K.BIDI_CONTROL)),
    ("NUL truncation", "shell.php\x00.jpg", _attack(K.NUL, K.CONTROL)),
    ("newline", "a\nb.txt", _attack(K.CONTROL)),
    ("line separator", "a\u2028b.txt", _attack(K.CONTROL)),
    ("terminal escape", "\x1b[2Jx.txt", _attack(K.CONTROL)),
    ("zero-width space", "invoice\u200b.pdf", _attack(K.DEFAULT_IGNORABLE)),
    ("Hangul filler", "\u3164.txt", _attack(K.DEFAULT_IGNORABLE)),
    ("soft hyphen", "pay\u00adpal.exe", _attack(K.DEFAULT_IGNORABLE)),
    ("tag character", "a\U000e0041.txt", _attack(K.DEFAULT_IGNORABLE)),
    ("ZWJ between Latin", "pay\u200dpal.exe", _attack(K.DEFAULT_IGNORABLE)),
    ("undecodable byte", "caf\udce9.txt", _attack(K.SURROGATE)),
    ("noncharacter", "a\ufdd0.txt", _attack(K.NONCHARACTER)),
    ("device name", "CON", _attack(K.RESERVED_NAME)),
    ("device + extension", "nul.txt", _attack(K.RESERVED_NAME)),
    ("device + two extensions", "COM1.tar.gz", _attack(K.RESERVED_NAME)),
    ("superscript device", "LPT\u00b9.txt", _attack(K.RESERVED_NAME)),
    ("trailing dot", "report.txt.", _attack(K.TRAILING_DOT_OR_SPACE)),
    ("trailing space", "report.txt ", _attack(K.TRAILING_DOT_OR_SPACE)),
    ("NTFS stream", "a.txt:hidden", _attack(K.RESERVED_CHARACTER)),
    ("300 bytes", "a" * 296 + ".txt", _attack(K.TOO_LONG)),
    ("256 UTF-8 bytes", "é" * 128, _attack(K.TOO_LONG)),
)

Tool = Callable[[str], str]


def _utf8guard(name: str) -> str:
    return safe_filename(name, replacement="_")


TOOLS: Final[tuple[tuple[str, Tool], ...]] = (
    ("utf8guard", _utf8guard),
    ("werkzeug", secure_filename),
    ("pathvalidate", sanitize_filename),
)


def _kinds(output: str) -> set[PathKind]:
    """Every rule the output breaks, read as one name on the universal platform."""
    found = {kind for kind, _ in char_violations(output, IDENTIFIER, "universal")}
    found |= {kind for kind, _, _ in name_violations(output, "universal", 255)}
    return found


def _shown(text: str) -> str:
    """A Markdown table cell: escaped, quoted so edge spaces show, pipes escaped."""
    escaped = display(text.encode("utf-8", "surrogateescape"))
    if len(escaped) > 24:
        escaped = escaped[:12] + "…" + escaped[-8:]
    return '`"' + escaped.replace("|", "\\|") + '"`'


def _cell(
    tool: Tool, name: str, danger: frozenset[PathKind] | None
) -> tuple[str, bool]:
    """The cell text and whether the tool did the right thing."""
    try:
        output = tool(name)
    except (UnsafePathError, ValueError) as exc:  # UnicodeError is a ValueError
        good = danger is not None
        text = f"refused ({getattr(exc, 'kind', type(exc).__name__)})"
    else:
        if danger is None:
            good = output == unicodedata.normalize("NFC", name)
        else:
            good = not (_kinds(output) & danger)
        text = _shown(output)
    return f"{'✅' if good else '❌'} {text}", good


def table() -> str:
    """The whole Markdown block, markers included."""
    names = [name for name, _ in TOOLS]
    versions = ", ".join(f"{n} {version(n)}" for n in names[1:])
    lines = [
        BEGIN,
        f"Generated with {versions}. ✅ = legitimate name kept / attack stopped.",
        "",
        "| case | input | " + " | ".join(names) + " |",
        "| --- | --- | " + " | ".join("---" for _ in names) + " |",
    ]
    score = dict.fromkeys(names, 0)
    for label, name, danger in ROWS:
        cells = []
        for tool_name, tool in TOOLS:
            text, good = _cell(tool, name, danger)
            score[tool_name] += good
            cells.append(text)
        kind = "legitimate" if danger is None else "attack"
        lines.append(
            f"| {label} ({kind}) | {_shown(name)} | " + " | ".join(cells) + " |"
        )
    total = " | ".join(f"**{score[n]} / {len(ROWS)}**" for n in names)
    lines += [f"| **right** | | {total} |", END]
    return "\n".join(lines) + "\n"


def replace_block(text: str, block: str) -> str:
    """``text`` with the marked block replaced by ``block``."""
    start, end = text.index(BEGIN), text.index(END) + len(END) + 1
    return text[:start] + block + text[end:]


def main(argv: Sequence[str]) -> int:
    if len(argv) == 2 and argv[0] == "--write":
        readme = Path(argv[1])
        readme.write_text(replace_block(readme.read_text("utf-8"), table()), "utf-8")
        return 0
    sys.stdout.write(table())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
