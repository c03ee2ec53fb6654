"""The fastlane harness: its input layout, its fallback rule, and planted bugs it finds.

The seeds replay in ``test_fuzz_corpus.py``; here each planted bug breaks one C
function (patched on the extension module for one test) the way a slip in its
C source would, and the harness must fail on the seeds with a message naming it.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

import pytest

from fuzz import fuzz_fastlane
from fuzz.fuzz_fastlane import Bytes, ListOf, left_to_python, parse
from fuzz.run import SEEDS
from utf8guard import _scan
from utf8guard.middleware.head import _clean
from utf8guard.middleware.head._percent import py_strict_unquote

speedups = pytest.importorskip("utf8guard._speedups")

SEED_FILES = sorted((SEEDS / "fastlane").iterdir())
SEP = b"\xfe\xfe"


def test_layout() -> None:
    # byte 0: config 1, app path 1 (decoded), a tuple; byte 1: CGI keys
    data = b"\x49\x08" + SEP.join([b"/%41", b"q", b"\x0aa/b", b"\x1fX-Y:v", b"\xa0h"])
    case = parse(data)
    raw, app, query, headers, *policies, lookalike = case.args
    assert (raw, app, query) == (b"/%41", b"/A", b"q")
    assert headers == ((b"content-type", b"a/b"), (b"X-Y", b"v"), (b"host", b"h"))
    assert type(headers[2][0]) is Bytes
    assert tuple(policies) == fuzz_fastlane.CONFIGS[1]
    assert lookalike is (len(data) % 3 > 0)
    assert case.environ == {
        "RAW_URI": "/%41?q",
        "SCRIPT_NAME": "/",
        "PATH_INFO": "A",
        "QUERY_STRING": "q",
        "CONTENT_TYPE": "a/b",
        "HTTP_X_Y": "v",
        "HTTP_HOST": "h",
    }


def test_short_inputs() -> None:
    for data in (b"", b"\xff", b"\xff\xff", b"\x80\x00" + SEP * 3):
        fuzz_fastlane.check(data)
    assert type(parse(b"\x80\x00").args[3]) is ListOf


@pytest.mark.parametrize(
    ("environ", "python"),
    [
        ({"HTTP_A": "x", "RAW_URI": "/\xff"}, False),
        ({"HTTP_A": "\u20ac"}, True),
        ({"CONTENT_TYPE": "\u20ac"}, True),
        ({"X_OTHER": "\u20ac"}, False),
        ({"RAW_URI": "/", "REQUEST_URI": "\u20ac"}, False),
        ({"RAW_URI": "", "REQUEST_URI": "\u20ac"}, True),
        ({"PATH_INFO": "\u20ac"}, True),
        ({1: "x"}, True),
        ({fuzz_fastlane.StrKey("HTTP_A"): "x"}, True),
        ({"HTTP_\xc4": "x"}, True),
        (OrderedDict(HTTP_A="x"), True),
    ],
    ids=repr,
)
def test_left_to_python(environ: dict[object, object], python: bool) -> None:
    assert left_to_python(environ) is python
    assert (speedups.environ_parts(environ) is None) is python


def _helpers() -> list[object]:
    """What py_scan_head calls: its two module globals and the scan's C seam."""
    names = ("strict_unquote", "is_valid")
    return [*(getattr(_clean, name) for name in names), _scan._compiled]


def test_python_twins_swap_and_restore() -> None:
    before = _helpers()
    with fuzz_fastlane.python_twins():
        assert _helpers() == [py_strict_unquote, _scan.python_is_valid, None]
    assert _helpers() == before


# Planted bugs: (C function, what the harness must report, broken replacement).
_REAL_SCAN = speedups.scan_head
_REAL_UNQUOTE = speedups.strict_unquote
_REAL_PARTS = speedups.environ_parts


def _second_host_ignored(*args: object) -> object:
    """A second Host line is not counted (RFC 9112 §3.2: one Host)."""
    raw, app, query, headers, *policies = args
    if type(headers) is list and all(type(p) is tuple for p in headers):
        hosts = [i for i, p in enumerate(headers) if p[0] in (b"Host", b"HOST")]
        headers = [p for i, p in enumerate(headers) if i not in hosts[1:]]
    return _REAL_SCAN(raw, app, query, headers, *policies)


def _lowercase_hex_refused(raw: bytes) -> object:
    """hex_value forgets a-f: "%2e" is malformed."""
    return None if re.search(rb"%[0-9A-Fa-f]?[a-f]", raw) else _REAL_UNQUOTE(raw)


def _cgi_headers_dropped(environ: object) -> object:
    """CONTENT_TYPE and CONTENT_LENGTH are not read as headers (RFC 3875 §4.1.3)."""
    parts = _REAL_PARTS(environ)
    if parts is None:
        return None
    cgi = (b"content-type", b"content-length")
    return (*parts[:3], [pair for pair in parts[3] if pair[0] not in cgi])


PLANTED: dict[str, tuple[str, str, Callable[..., object]]] = {
    "scan-head-lookalike-ignored": (
        "scan_head",
        "scan_head != py",
        # U+FF0F FULLWIDTH SOLIDUS passes as if allow_lookalike_separators were set.
        lambda *args: _REAL_SCAN(*args[:7], False),
    ),
    "scan-head-second-host": ("scan_head", "scan_head != py", _second_host_ignored),
    "strict-unquote-lowercase-hex": (
        "strict_unquote",
        "strict_unquote != py",
        _lowercase_hex_refused,
    ),
    "environ-parts-gives-up": (
        "environ_parts",
        "environ_parts gave up",
        lambda environ: None,
    ),
    "environ-parts-drops-cgi": (
        "environ_parts",
        "environ_parts != py",
        _cgi_headers_dropped,
    ),
}


def seed_failures(check: Callable[[bytes], None], seeds: list[Path]) -> list[str]:
    """The assertion messages ``check`` raises on each of ``seeds``."""
    failures = []
    for path in seeds:
        try:
            check(path.read_bytes())
        except AssertionError as exc:
            failures.append(str(exc))
    return failures


@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_harness_catches_planted_bug(bug: str, monkeypatch: pytest.MonkeyPatch) -> None:
    function, expected, broken = PLANTED[bug]
    monkeypatch.setattr(speedups, function, broken)
    failures = seed_failures(fuzz_fastlane.check, SEED_FILES)
    assert failures, f"every seed passed with {bug} planted"
    assert any(expected in message for message in failures), failures[0]
    assert all("input (" in message for message in failures)
