"""The lane's table (``_clean.TRIGGERS``) against the rules that declare it.

Each head rule the lane does not share with the full check declares a
:class:`Trigger` next to its exact check: the needles the lane looks for, and
vectors the rule refuses. Here every vector must hold a needle and be refused, and
a property test splices the rules' own vectors (the triggers', and the shared
rules': ill-formed UTF-8 and policy code points from ``tests/vectors.py``,
non-token names, and lines of the once-only and declined fields the table names)
into clean heads: whenever ``inspect_head`` finds anything, the lane must not call
the head clean, with the C scan and the Python one alike.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Final

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from utf8guard import IDENTIFIER, Policy
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.head import _clean
from utf8guard.middleware.head._abnf import TCHAR
from utf8guard.middleware.head._clean import TRIGGERS, is_clean_head, py_scan_head
from utf8guard.middleware.head._percent import strict_unquote
from utf8guard.middleware.head._request import RequestHead, inspect_head
from utf8guard.middleware.head._trigger import (
    Trigger,
    gate_of,
    pattern_of,
    second_marks_of,
)

from ..vectors import INVALID, POLICY

SCANS: list[Callable[..., object]] = [py_scan_head]
try:
    from utf8guard import _speedups
except ImportError:  # pragma: no cover - the accelerator is optional
    pass
else:
    SCANS.append(_speedups.scan_head)

CONFIGS: Final = [
    GuardConfig(),
    GuardConfig(allow_encoded_separators=True),
    GuardConfig(policy=IDENTIFIER),
    GuardConfig(policy=Policy(allow_bidi_controls=False), skip_headers=["cookie"]),
]
HEADERS: Final = (
    (b"host", b"example.org"),
    (b"user-agent", b"Mozilla/5.0 (X11; Linux x86_64)"),
    (b"accept-language", b"de-CH,de;q=0.9"),
    (b"cookie", b"session=abc123; theme=dark"),
)


def _head(
    raw_path: bytes, query: bytes, headers: tuple[tuple[bytes, bytes], ...]
) -> RequestHead:
    return RequestHead(path="/", raw_path=raw_path, query_string=query, headers=headers)


def _refused(head: RequestHead, config: GuardConfig) -> bool:
    return next(inspect_head(head, config), None) is not None


# -- each declaration -------------------------------------------------------------

#: (where, trigger, the component its needles are looked for in, given a vector).
DECLARED: Final[list[tuple[str, Trigger, Callable[[bytes], bytes]]]] = [
    ("raw_path", TRIGGERS.raw_path, lambda raw: b"/" + raw.lower()),
    ("decoded_path", TRIGGERS.decoded_path, lambda raw: strict_unquote(raw) or b""),
    (
        "decoded_query",
        TRIGGERS.decoded_query,
        lambda raw: strict_unquote(raw.replace(b"+", b" ")) or b"",
    ),
    ("values", TRIGGERS.values, bytes),
    *((name.decode(), trigger, bytes) for name, trigger in TRIGGERS.fields),
]
IDS: Final = [where for where, _, _ in DECLARED]


@pytest.mark.parametrize(("where", "trigger", "probe"), DECLARED, ids=IDS)
def test_every_vector_holds_a_needle(
    where: str, trigger: Trigger, probe: Callable[[bytes], bytes]
) -> None:
    """A rule with vectors and no trigger for them fails here (its refusals would
    pass the lane)."""
    assert trigger.vectors, f"{where}: a trigger names the refusals it stands for"
    for vector in trigger.vectors:
        assert any(needle in probe(vector) for needle in trigger.needles), vector


def _placed(where: str, vector: bytes) -> RequestHead:
    """A clean head with ``vector`` as its path or query, or as the value of its
    field (any field's: User-Agent's)."""
    if where in ("raw_path", "decoded_path"):
        return _head(vector, b"", HEADERS)
    if where == "decoded_query":
        return _head(b"/", vector, HEADERS)
    name = b"user-agent" if where == "values" else where.encode()
    headers = tuple(pair for pair in HEADERS if pair[0] != name)
    return _head(b"/", b"", (*headers, (name, vector)))


@pytest.mark.parametrize(("where", "trigger", "probe"), DECLARED, ids=IDS)
def test_every_vector_is_refused(
    where: str, trigger: Trigger, probe: Callable[[bytes], bytes]
) -> None:
    for vector in trigger.vectors:
        assert _refused(_placed(where, vector), GuardConfig()), vector


@pytest.mark.parametrize("scan", SCANS, ids=lambda scan: scan.__module__)
@pytest.mark.parametrize(("where", "trigger", "probe"), DECLARED, ids=IDS)
def test_no_vector_is_clean_to_the_lane(
    monkeypatch: pytest.MonkeyPatch,
    scan: Callable[..., object],
    where: str,
    trigger: Trigger,
    probe: Callable[[bytes], bytes],
) -> None:
    monkeypatch.setattr(_clean, "scan_head", scan)
    for vector in trigger.vectors:
        assert not is_clean_head(_placed(where, vector), GuardConfig()), vector


_NEEDLE_BYTES: Final = st.binary(min_size=1, max_size=3).map(
    lambda n: n.translate(bytes.maketrans(b"ABCDEFGH", b"/%.abcdA"))
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_NEEDLE_BYTES, max_size=4).map(tuple),
    st.binary(max_size=12).map(
        lambda v: v.translate(bytes.maketrans(b"ABCDEFGH", b"/%.abcdA"))
    ),
)
def test_a_search_finds_what_in_finds(needles: tuple[bytes, ...], value: bytes) -> None:
    """The compiled search and gate against ``any(needle in value ...)`` (bytes
    drawn from a small alphabet, so needles do occur)."""
    expected = any(needle in value for needle in needles)
    assert bool(pattern_of(needles).search(value)) is expected
    marks, pattern, byte = gate_of(needles)
    assert (0 in value.translate(marks) and bool(pattern.search(value))) is expected
    if byte is not None:
        assert (byte in value) is expected
    assert (byte is not None) is (len(needles) == 1 and len(needles[0]) == 1)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_NEEDLE_BYTES.map(bytes.lower), max_size=4).map(tuple),
    st.binary(max_size=12).map(
        lambda v: v.translate(bytes.maketrans(b"ABCDEFGH", b"/%.ABCDa"))
    ),
)
def test_a_second_byte_gate_passes_every_match(
    needles: tuple[bytes, ...], value: bytes
) -> None:
    """Whenever "/" + ``value`` in lower case holds a (lower-case) needle, as the
    raw path is searched, ``second_marks_of``'s gate lets ``value`` through."""
    slashed = b"/" + value
    if any(needle in slashed.lower() for needle in needles):
        assert 0 in slashed.translate(second_marks_of(needles))


def test_the_raw_path_gate_is_the_needles_second_bytes() -> None:
    """A path holding no needle's second byte is not searched; each needle's second
    byte, in either case, makes the search run (the bytes come from the table)."""
    marks = _clean._RAW_PATH_MARKS
    assert 0 not in b"/api/caf%C3%A9/items".translate(marks)
    for needle in TRIGGERS.raw_path.needles:
        second = needle[1:2]
        assert 0 in (b"/a" + second.upper()).translate(marks), needle
        assert 0 in (b"/a" + second).translate(marks), needle


def test_fields_are_once_only() -> None:
    """The lane looks in the one value of a field it holds at most once."""
    assert {name for name, _ in TRIGGERS.fields} <= set(TRIGGERS.once)


# -- the property -----------------------------------------------------------------


def _escaped(data: bytes) -> bytes:
    return b"".join(b"%%%02X" % byte for byte in data)


_BAD_TEXT: Final = [case[1] for case in INVALID] + [case[1] for case in POLICY]
#: Splices by where they go; each place draws its declared vectors as often as the
#: shared rules' ones (the declared ones are few: drawn uniformly, a rule's would be
#: rare).
_PATH_SPLICES: Final = st.one_of(
    st.sampled_from(TRIGGERS.raw_path.vectors + TRIGGERS.decoded_path.vectors),
    st.sampled_from(
        [_escaped(data) for data in _BAD_TEXT]
        + _BAD_TEXT
        + [b"%", b"%4", b"%g1", b"%u002f", b"%EF%BC%8F", b"%E2%88%95"]
    ),
)
_QUERY_SPLICES: Final = st.one_of(
    st.sampled_from(TRIGGERS.decoded_query.vectors),
    st.sampled_from(
        [_escaped(data) for data in _BAD_TEXT] + _BAD_TEXT + [b"%", b"%zz"]
    ),
)
_VALUE_SPLICES: Final = st.one_of(
    st.sampled_from(TRIGGERS.values.vectors), st.sampled_from(_BAD_TEXT)
)
_FIELD_SPLICES: Final = {
    name: st.one_of(st.sampled_from(trigger.vectors), _VALUE_SPLICES)
    for name, trigger in TRIGGERS.fields
}
_NOT_TCHAR: Final = st.sampled_from(
    [bytes([byte]) for byte in range(256) if byte not in TCHAR]
)
#: A value each once-only or declined field may hold.
_LINE_VALUES: Final = {
    b"host": b"other.example",
    b"cookie": b"a=b",
    b"content-length": b"0",
    b"content-type": b"text/plain",
    b"transfer-encoding": b"chunked",
    b"content-encoding": b"gzip",
}
#: Lines the lane leaves to the full check: a second once-only field, a coding
#: (the names from the table, in any case).
_EXTRA_LINES: Final = st.tuples(
    st.sampled_from(TRIGGERS.once + TRIGGERS.declined), st.booleans()
).map(lambda line: (line[0].title() if line[1] else line[0], _LINE_VALUES[line[0]]))
_PLACES: Final = st.sampled_from(["path", "query", "value", "field", "name", "line"])


def _splice(base: bytes, at: int, piece: bytes) -> bytes:
    at %= len(base) + 1
    return base[:at] + piece + base[at:]


def _spliced_field(
    draw: st.DrawFn, headers: list[tuple[bytes, bytes]], at: int
) -> None:
    """A vector in the value of a field the table names (added if missing)."""
    name = draw(st.sampled_from(list(_FIELD_SPLICES)))
    found = [i for i, pair in enumerate(headers) if pair[0].lower() == name]
    if not found:
        headers.append((name, b"a"))
        found = [len(headers) - 1]
    value = _splice(headers[found[0]][1], at, draw(_FIELD_SPLICES[name]))
    headers[found[0]] = (headers[found[0]][0], value)


@st.composite
def spliced_heads(draw: st.DrawFn) -> RequestHead:
    """A clean head with one to three of the rules' vectors spliced in."""
    path = draw(st.sampled_from([b"/", b"/api/caf%C3%A9/items", b"/a.b/c-d_e~f"]))
    query = draw(st.sampled_from([b"", b"page=2&q=caf%C3%A9+x", b"a=1&b"]))
    headers = list(HEADERS)
    for _ in range(draw(st.integers(1, 3))):
        where = draw(_PLACES)
        at = draw(st.integers(0, 64))
        if where == "path":
            path = _splice(path, at, draw(_PATH_SPLICES))
        elif where == "query":
            query = _splice(query, at, draw(_QUERY_SPLICES))
        elif where == "line":
            headers.insert(at % (len(headers) + 1), draw(_EXTRA_LINES))
        elif where == "field":
            _spliced_field(draw, headers, at)
        else:
            index = at % len(headers)
            name, value = headers[index]
            if where == "name":
                name = _splice(name, at, draw(_NOT_TCHAR))
            else:
                value = _splice(value, at, draw(_VALUE_SPLICES))
            headers[index] = (name, value)
    return _head(path, query, tuple(headers))


@pytest.mark.parametrize("scan", SCANS, ids=lambda scan: scan.__module__)
@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(spliced_heads(), st.sampled_from(CONFIGS))
def test_the_lane_never_calls_a_refused_head_clean(
    monkeypatch: pytest.MonkeyPatch,
    scan: Callable[..., object],
    head: RequestHead,
    config: GuardConfig,
) -> None:
    monkeypatch.setattr(_clean, "scan_head", scan)
    if _refused(head, config):
        assert not is_clean_head(head, config)


@pytest.mark.parametrize("scan", SCANS, ids=lambda scan: scan.__module__)
def test_clean_heads_stay_clean(
    monkeypatch: pytest.MonkeyPatch, scan: Callable[..., object]
) -> None:
    """The bases the property splices into are clean, and the lane says so."""
    monkeypatch.setattr(_clean, "scan_head", scan)
    for path in (b"/", b"/api/caf%C3%A9/items", b"/a.b/c-d_e~f"):
        head = _head(path, b"page=2&q=caf%C3%A9+x", HEADERS)
        assert not _refused(head, GuardConfig())
        assert is_clean_head(head, GuardConfig())


_SETUP: Final = """\
from utf8guard import STRICT, _speedups
from utf8guard.middleware.head import _clean
from utf8guard.middleware.head._clean import TRIGGERS
from utf8guard.middleware.head._trigger import Trigger
_clean.TRIGGERS = {table}
_speedups.scan_head(b"/", None, b"", [], STRICT, STRICT, STRICT, True)
"""


@pytest.mark.skipif(len(SCANS) == 1, reason="the C lane is not built")
@pytest.mark.parametrize(
    ("table", "error"),
    [
        ("None", "TypeError: _clean.TRIGGERS must be a Triggers"),
        ("TRIGGERS._replace(raw_path=Trigger([b'x'], ()))", "needles must be a tuple"),
        ("TRIGGERS._replace(decoded_path=(b'%',))", "needles must be a tuple"),
        ("TRIGGERS._replace(raw_path=Trigger((b'',), ()))", "non-empty bytes"),
        (
            "TRIGGERS._replace(fields=((b'accept', TRIGGERS.raw_path),))",
            "ValueError: _clean.TRIGGERS: a field must be a once-only name",
        ),
        ("TRIGGERS._replace(fields=((b'host',),))", "a once-only name"),
        ("TRIGGERS._replace(once=TRIGGERS.once[:3])", "tuples of names"),
        ("TRIGGERS._replace(declined=[b'te'])", "tuples of names"),
        ("TRIGGERS._replace(declined=(b'te',) * 9)", "tuples of names"),
        ("TRIGGERS._replace(declined=(b'',))", "a field name must be non-empty bytes"),
        ("TRIGGERS._replace(values=(b'x',))", "needles must be a tuple"),
    ],
)
def test_the_c_lane_refuses_a_table_it_cannot_read(table: str, error: str) -> None:
    """The C lane reads the table at its first call (a fresh interpreter here), and
    fails closed: an exception, not a lane with rules missing."""
    code = _SETUP.format(table=table)
    result = subprocess.run(  # noqa: S603 - our own interpreter, fixed code
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 1
    assert error in result.stderr


def test_query_needles_without_an_escape_are_looked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A query needle that needs no "%" is looked for in every query, decoded."""
    marks, pattern, byte = gate_of((b"%", b"a b"))
    monkeypatch.setattr(_clean, "_QUERY_MARKS", marks)
    monkeypatch.setattr(_clean, "_QUERY_PATTERN", pattern)
    monkeypatch.setattr(_clean, "_QUERY_BYTE", byte)
    monkeypatch.setattr(_clean, "_QUERY_PLAIN_NEEDLE", True)
    assert not _clean._is_clean_query(b"q=a+b", IDENTIFIER)
    assert _clean._is_clean_query(b"q=ab", IDENTIFIER)


_C_SETUP: Final = """\
from utf8guard import STRICT, _speedups
from utf8guard.middleware.head import _clean
from utf8guard.middleware.head._trigger import Trigger
t = _clean.TRIGGERS
_clean.TRIGGERS = t._replace(
    decoded_query=Trigger(t.decoded_query.needles + (b"a b",), ()),
    values=Trigger(t.values.needles + (b"evil",), ()),
)
scan = lambda query, value: _speedups.scan_head(
    b"/", None, query, [(b"x", value)], STRICT, STRICT, STRICT, True
) is not None
assert scan(b"q=ab", b"good") and scan(b"q=a%20c", b"ok")
assert not scan(b"q=a+b", b"good") and not scan(b"q=ab", b"an evil one")
"""


@pytest.mark.skipif(len(SCANS) == 1, reason="the C lane is not built")
def test_the_c_lane_reads_any_query_and_value_needle() -> None:
    """Needles without "%" in the query, and printable ones in values, are looked
    for by the C lane too (a fresh interpreter: it reads the table once)."""
    result = subprocess.run(  # noqa: S603 - our own interpreter, fixed code
        [sys.executable, "-c", _C_SETUP], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


def test_longer_decoded_path_needles_are_looked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lane's search of the decoded path takes any needle a rule declares, not
    only the single bytes declared today."""
    marks, pattern, _ = gate_of((b"ab", "\u00e9".encode()))
    monkeypatch.setattr(_clean, "_DECODED_PATH_MARKS", marks)
    monkeypatch.setattr(_clean, "_DECODED_PATH_PATTERN", pattern)
    policy = GuardConfig().effective_path_policy
    assert not _clean._is_clean_path(b"/xaby", None, policy, True)
    assert not _clean._is_clean_path(b"/x%C3%A9y", None, policy, True)
    assert _clean._is_clean_path(b"/xay", None, policy, True)


def test_a_pattern_takes_every_byte_literally() -> None:
    """``pattern_of`` escapes each byte itself (no ``re.escape``): every byte, the
    regular expression syntax and NUL among them, is found exactly where it is."""
    for byte in range(256):
        needle = bytes([byte])
        pattern = pattern_of((needle, needle + b"*"))
        assert pattern.search(b"x" + needle) is not None
        assert pattern.search(bytes(range(256)).replace(needle, b"")) is None
