"""The pure-Python WSGI lane answers what the parts-first lane answers, or None.

The oracle is the composition the lane replaces, ``py_head_plan(lane,
*py_environ_parts(environ), bodiless)``: for every environ ``py_wsgi_plan`` gives
the same plan, or None (the full check) only where a header value is no str or
holds a code point over U+00FF (PEP 3333 strings hold one byte per code point).
Generated environs cover odd keys, names repeated under two keys, CGI keys empty or
not, and values with CR, LF, NUL, controls, DEL, UTF-8 (valid or not), commas and
backslashes; the rows below pin the rules to RFC 9110 §5.1/§5.5, RFC 9112
§3.2/§6.3, RFC 3875 §4.1.2-4.1.3 and PEP 3333. The middleware then runs the lane
even where the C accelerator is loaded (``_PARTS_FIRST`` off).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from utf8guard.middleware import GuardConfig, Utf8GuardWSGIMiddleware
from utf8guard.middleware import wsgi as wsgi_module
from utf8guard.middleware.adapter._wsgi_environ import py_environ_parts
from utf8guard.middleware.engine._spool import REPLAY_BYTES
from utf8guard.middleware.head import _seen
from utf8guard.middleware.head._clean_fields import _seen_names, name_facts
from utf8guard.middleware.head._fast import NO_BODY, Lane, Plan, lane_for, py_head_plan
from utf8guard.middleware.head._wsgi_lane import _seen_plans, py_wsgi_plan

from .attack_table import ROWS, Row
from .test_adapters import CONFIGS
from .test_fast import _environ, _lane_off, run_wsgi
from .test_wsgi import make_environ

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIEnvironment


def _lane(config: GuardConfig) -> Lane:
    """The WSGI adapter's lane of ``config``, having met two Content-Type values
    (JSON: an int plan; not JSON: a tuple plan)."""
    lane = lane_for(config, REPLAY_BYTES)
    lane.kinds.update({b"application/json": True, b"text/plain": False})
    return lane


LANES: dict[str, Lane] = {
    "default": _lane(GuardConfig()),
    "lookalikes-allowed": _lane(GuardConfig(allow_lookalike_separators=True)),
    "report": _lane(GuardConfig(mode="report")),
    "tiny-body": _lane(GuardConfig(max_body_size=4)),
}


class _Str(str):
    """A str subclass: PEP 3333 asks for str itself."""

    __slots__ = ()


def composed(lane: Lane, environ: WSGIEnvironment, bodiless: bool) -> Plan:
    """The oracle: the parts first, then the plan of them."""
    return py_head_plan(lane, *py_environ_parts(environ), bodiless)


def _is_header_key(key: object) -> bool:
    return isinstance(key, str) and (
        key[:5] == "HTTP_" or key in ("CONTENT_TYPE", "CONTENT_LENGTH")
    )


def _all_latin1_str(environ: WSGIEnvironment) -> bool:
    """Every header value a str (exactly) of code points up to U+00FF."""
    values = [v for k, v in environ.items() if _is_header_key(k)]
    return all(type(v) is str and max(v, default="\0") <= "\xff" for v in values)


def assert_agrees(lane: Lane, environ: WSGIEnvironment, bodiless: bool) -> Plan:
    expected = composed(lane, environ, bodiless)
    # Twice: the first call may build what the second finds remembered.
    for _ in range(2):
        found = py_wsgi_plan(lane, environ, bodiless)
        if _all_latin1_str(environ):
            assert found == expected
        else:
            assert found is None
    return expected


# Generated environs.

#: Keys a server sets (twice as likely), then odd ones: a name repeated under
#: another key, a name that is no token or lower-cases to one, codings.
_USUAL_KEYS = st.sampled_from([
    "HTTP_HOST", "HTTP_COOKIE", "HTTP_X_A", "HTTP_ACCEPT", "CONTENT_TYPE",
    "CONTENT_LENGTH", "REQUEST_METHOD", "wsgi.input", "SERVER_PROTOCOL",
])  # fmt: skip
_KEYS = st.one_of(_USUAL_KEYS, _USUAL_KEYS, st.sampled_from([
    "HTTP_host", "HTTP_X-A", "HTTP_X__A", "HTTP_CONTENT_TYPE", "HTTP_CONTENT_LENGTH",
    "HTTP_TRANSFER_ENCODING", "HTTP_CONTENT_ENCODING", "HTTP_", "HTTP_A B",
    "HTTP_A:B", "HTTP_\u212a", "HTTP_\xc9", "HTTP_\u20ac", "HTTP_A\nB", "http_x",
]))  # fmt: skip
_TEXT = st.text(
    st.sampled_from(
        "aZ09 ;=/-.,\\\t\r\n\x00\x01\x1f\x7f\x80\x9f\xa0\xc3\xa9\xe2\x82\xac"
        "\xed\xa0\x80\xef\xbf\xbe\xf0\x9f\x98\x80\xc0\xaf\xff\u20ac\ud800"
    ),
    max_size=12,
)
#: Clean values (printable ASCII, UTF-8 as Latin-1), then anything else.
_VALUES = st.one_of(
    st.text(st.sampled_from("aZ09 ;=/-.\xc3\xa9"), max_size=8),
    st.sampled_from(["", "5", "0", "+5", " 12 ", "1,1", "application/json",
                     "text/plain", "a=1; b=2", "chunked", "gzip", "localhost"]),
    _TEXT,
    st.sampled_from([None, 5, b"5", ["x"]]),
    _TEXT.map(_Str),
)  # fmt: skip
_TARGETS = st.one_of(
    st.sampled_from([("/a", "/a", ""), ("/caf%C3%A9", "/caf\xc3\xa9", "q=caf%C3%A9")]),
    st.sampled_from([("/a", "/b", ""), ("/%2e%2e/x", "/../x", ""),
                     ("http://h/p?x", "/p", "x"), ("/a", "/a", "%FF"), ("", "/a", "")]),
)  # fmt: skip


@st.composite
def environs(draw: st.DrawFn) -> WSGIEnvironment:
    raw, path_info, query = draw(_TARGETS)
    environ: WSGIEnvironment = {
        draw(st.sampled_from(["RAW_URI", "REQUEST_URI"])): raw,
        "SCRIPT_NAME": "",
        "PATH_INFO": path_info,
        "QUERY_STRING": query,
    }
    for key in draw(st.lists(_KEYS, max_size=6)):
        environ[key] = draw(_VALUES)
    # Mostly clean values under the usual keys: the lane's answer is then a plan.
    if draw(st.booleans()):
        environ.update({"HTTP_HOST": "h", "HTTP_ACCEPT": "*/*"})
    return environ


@settings(max_examples=1000, deadline=None)
@given(environs(), st.sampled_from(list(LANES.values())), st.booleans())
def test_generated_environs_agree(
    environ: WSGIEnvironment, lane: Lane, bodiless: bool
) -> None:
    assert_agrees(lane, environ, bodiless)


@settings(max_examples=200, deadline=None)
@given(environs(), st.data())
def test_same_keys_new_values_agree(
    environ: WSGIEnvironment, data: st.DataObject
) -> None:
    """What is remembered of the keys never carries one request's values over."""
    lane = LANES["default"]
    assert_agrees(lane, environ, True)
    again = {key: data.draw(_VALUES) if _is_header_key(key) else value
             for key, value in environ.items()}  # fmt: skip
    assert_agrees(lane, again, True)


# Rows: (id, extra environ keys (None deletes), bodiless, plan, source).

_ROWS = [
    ("clean-get", {}, True, NO_BODY, "RFC 9112 §6.3 item 7: no length, no body"),
    ("clean-get-maybe-body", {}, False, None, "RFC 9112 §6.3: the full check's"),
    ("name-not-token", {"HTTP_A(B": "x"}, True, None, "RFC 9110 §5.1: 1*tchar"),
    ("name-with-space", {"HTTP_A B": "x"}, True, None, "RFC 9110 §5.1"),
    ("name-kelvin-lowers-to-k", {"HTTP_\u212a": "x"}, True, NO_BODY,
     "str.lower: the server's key, read as _wsgi_environ reads it"),
    ("value-cr", {"HTTP_X": "a\rb"}, True, None, "RFC 9110 §5.5: no CR"),
    ("value-lf", {"HTTP_X": "a\nb"}, True, None, "RFC 9110 §5.5: no LF"),
    ("value-nul", {"HTTP_X": "a\0b"}, True, None, "RFC 9110 §5.5: no NUL"),
    ("value-del", {"HTTP_X": "a\x7fb"}, True, None, "cookie policy: controls"),
    ("value-utf8", {"HTTP_X": "caf\xc3\xa9"}, True, NO_BODY, "RFC 3629: valid"),
    ("value-obs-text", {"HTTP_X": "caf\xe9"}, True, None, "RFC 3629: invalid"),
    ("value-surrogate", {"HTTP_X": "\xed\xa0\x80"}, True, None, "RFC 3629 §3"),
    ("host-comma", {"HTTP_HOST": "a,b"}, True, None, "RFC 9112 §3.2: one Host"),
    ("host-twice", {"HTTP_host": "a"}, True, None, "RFC 9112 §3.2: one Host"),
    ("cookie-backslash", {"HTTP_COOKIE": "a=\\x"}, True, None, "RFC 6265 §4.1.1"),
    ("cookie-tab", {"HTTP_COOKIE": "a=\tb"}, True, None, "RFC 6265 §4.1.1"),
    ("cookie-clean", {"HTTP_COOKIE": "a=1; b=2"}, True, NO_BODY, "RFC 6265 §4.1.1"),
    ("transfer-encoding", {"HTTP_TRANSFER_ENCODING": "chunked"}, True, None,
     "RFC 9112 §6.3 item 3"),
    ("content-encoding", {"HTTP_CONTENT_ENCODING": "gzip"}, True, None,
     "RFC 9110 §8.4"),
    ("length", {"CONTENT_LENGTH": "3"}, False, (3, None), "RFC 9110 §8.6"),
    ("length-json", {"CONTENT_LENGTH": "3", "CONTENT_TYPE": "application/json"},
     False, 3, "RFC 8259 §11: a type met before as JSON"),
    ("length-plus", {"CONTENT_LENGTH": "+3"}, False, None, "RFC 9110 §8.6: 1*DIGIT"),
    ("length-twice", {"CONTENT_LENGTH": "3", "HTTP_CONTENT_LENGTH": "3"}, False,
     None, "RFC 9112 §6.3 item 5"),
    ("type-twice", {"CONTENT_TYPE": "a/b", "HTTP_CONTENT_TYPE": "a/b"}, True, None,
     "RFC 9110 §5.3: a once-only field"),
    ("cgi-empty-type", {"CONTENT_TYPE": ""}, True, NO_BODY,
     "RFC 3875 §4.1.3: empty means none"),
    ("cgi-empty-length", {"CONTENT_LENGTH": "", "CONTENT_TYPE": ""}, True, NO_BODY,
     "RFC 3875 §4.1.2: empty means none"),
    ("cgi-empty-beside-http", {"CONTENT_TYPE": "", "HTTP_CONTENT_TYPE": "a/b"},
     True, None, "RFC 3875 §4.1.3; a type and no length: the full check"),
    ("http-empty-value", {"HTTP_X": ""}, True, NO_BODY, "RFC 9110 §5.5: empty ok"),
    ("not-str", {"HTTP_X": 5}, True, None, "PEP 3333: str only (the full check)"),
    ("over-latin1", {"HTTP_X": "\u20ac"}, True, None, "PEP 3333 (the full check)"),
    ("no-header-keys", {"HTTP_HOST": None}, True, NO_BODY, "RFC 9112 §3.2"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("extra", "bodiless", "plan"),
    [row[1:4] for row in _ROWS],
    ids=[row[0] for row in _ROWS],
)
def test_rows(extra: dict[str, object], bodiless: bool, plan: Plan) -> None:
    base: dict[str, object] = {"RAW_URI": "/a", "HTTP_HOST": "h"}
    environ = make_environ("/a", b"", "", **(base | extra))
    lane = LANES["default"]
    assert py_wsgi_plan(lane, environ, bodiless) == plan
    assert_agrees(lane, environ, bodiless)


def test_one_header_key() -> None:
    environ = {"RAW_URI": "/a", "PATH_INFO": "/a", "HTTP_HOST": "h"}
    assert assert_agrees(LANES["default"], environ, True) == NO_BODY


def test_odd_keys_raise_as_the_parts_do() -> None:
    """PEP 3333 keys are str; a key that cannot be sliced fails the same way."""
    environ: dict[object, object] = {"RAW_URI": "/a", "PATH_INFO": "/a", 5: "x"}
    with pytest.raises(TypeError):
        composed(LANES["default"], environ, True)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        py_wsgi_plan(LANES["default"], environ, True)  # type: ignore[arg-type]


def test_memories_stay_bounded() -> None:
    """Clients choose the header names: what is remembered of them stays bounded."""
    lane = LANES["default"]
    for n in range(300):
        environ = {"RAW_URI": "/a", "PATH_INFO": "/a", f"HTTP_X_{n}": "v"}
        assert py_wsgi_plan(lane, environ, True) == NO_BODY
    long_keys = {f"HTTP_{'Y' * 5000}": "v", "RAW_URI": "/a", "PATH_INFO": "/a"}
    assert assert_agrees(lane, long_keys, True) == NO_BODY
    for seen in (_seen_plans, _seen_names):
        assert len(seen) <= _seen.MAX_SEEN_SHAPES
    assert all(sum(map(len, keys)) <= _seen.MAX_SEEN_CHARS for keys in _seen_plans)
    assert all(len(joined) <= _seen.MAX_SEEN_CHARS for joined in _seen_names)


def test_name_facts_of_no_names() -> None:
    assert name_facts([]) == (0, (None, None, None, None))


# The middleware on the pure lane, C accelerator loaded or not.


@pytest.fixture
def lane_from_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wsgi_module, "_PARTS_FIRST", False)


@pytest.mark.usefixtures("lane_from_environ")
@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
@pytest.mark.parametrize("row", ROWS, ids=[row[0] for row in ROWS])
def test_table_pure_wsgi_lane_agrees(
    row: Row, config: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every attack-table row gets the full check's answer through the pure lane."""
    fast = run_wsgi(_environ(row), config)
    assert run_wsgi(_environ(row), config, warm=True) == fast
    _lane_off(monkeypatch)
    assert fast == run_wsgi(_environ(row), config)


@pytest.mark.usefixtures("lane_from_environ")
def test_pure_lane_exclusion() -> None:
    """``exclude_paths`` reads the app path from the environ when no parts exist."""
    seen: list[str] = []

    def app(environ: WSGIEnvironment, start_response: object) -> list[bytes]:
        seen.append(environ["PATH_INFO"])
        return []

    statuses: list[str] = []
    guard = Utf8GuardWSGIMiddleware(app, exclude_paths=["/hooks"])
    for path in ("/hooks/x", "/api"):
        environ = make_environ(path, b"", "", RAW_URI=path, HTTP_X="\xff")
        list(guard(environ, lambda status, *_: statuses.append(status)))  # type: ignore[arg-type]
    # The excluded path reaches the app unchecked; the other one is refused.
    assert seen == ["/hooks/x"]
    assert statuses == ["400 Bad Request"]
