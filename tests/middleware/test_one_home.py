"""The WSGI translation and the body route's grammar live in Python only.

``_wsgi_environ.ENVIRON_KEYS``, ``header_field`` and ``ABSENT_CGI_VALUE`` (PEP 3333,
CGI/1.1 RFC 3875 §4.1), ``target_path`` and ``TARGET_DELIMITERS`` (RFC 9112 §3.2, RFC
3986 §3; the C twin splits only an origin-form without a fragment itself), ``_engine``'s
Content-Length grammar (RFC 9110 §8.6: ``OWS``, ``DIGIT``, ``LENGTH_DIGITS``) and
``_json.JSON_OPENS``, ``JSON_WIDE_SECOND`` and ``JSON_ESCAPE`` (RFC 8259 §2 and §7, RFC
4627 §3) are read by the C accelerator at its first call, not restated there. So
altering one of them (in a fresh interpreter, before the first request) must change what
both builds answer: each case below gives one answer with the tables as shipped and
another with the table altered, with the accelerator and under
``UTF8GUARD_PURE_PYTHON=1``. Which types C reads itself is its plumbing, not a rule: it
hands any other (a ``str`` subclass) back to the Python translation, so such a value
means what Python makes of it in both builds (the ``str_subclass`` case).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import lru_cache
from typing import Final

import pytest

from utf8guard._accel import PURE_PYTHON_ENV

BUILDS: list[str] = ["pure"]
try:
    from utf8guard import _speedups  # noqa: F401 - only whether it is built
except ImportError:  # pragma: no cover - the accelerator is optional
    pass
else:
    BUILDS.insert(0, "c")

#: The alterations, each of one table, made before anything reads them.
_ALTER: Final = """\
import re
from utf8guard.middleware.adapter import _wsgi_environ as E
from utf8guard.middleware.body import _json
from utf8guard.middleware.engine import _engine
E.ENVIRON_KEYS = E.ENVIRON_KEYS._replace(raw_target="X_RAW")
E._CGI_HEADERS = E._CGI_HEADERS | {"REMOTE_USER"}
E._HEADER_PREFIX = "H_"
E._ABSOLUTE_FORM = re.compile(rb"x://")
E.ABSENT_CGI_VALUE = "\\x7f"
E.TARGET_DELIMITERS = E.TARGET_DELIMITERS._replace(query=ord(";"), fragment=ord("!"))
_engine.OWS = b" "
_engine.DIGIT = b"012345689"
_engine.LENGTH_DIGITS = 2
_json.JSON_OPENS = (b"{",)
_json.JSON_WIDE_SECOND = b"1"
_json.JSON_ESCAPE = ord("~")
"""
#: Each case's answer, printed as JSON.
_CASES: Final = """\
import io, json
from utf8guard._accel import IMPLEMENTATION
from utf8guard.middleware import Utf8GuardWSGIMiddleware
from utf8guard.middleware.adapter._wsgi_environ import environ_parts
from utf8guard.middleware.head._fast import head_plan, lane_for
from utf8guard.middleware.head._fast import whole_plain_json
from utf8guard.middleware import GuardConfig

def app(environ, start_response):
    start_response("200 OK", [])
    return [b"ok"]

def status(environ):
    seen = []
    base = {"REQUEST_METHOD": "GET", "wsgi.input": io.BytesIO(b"")}
    list(Utf8GuardWSGIMiddleware(app)(base | environ, lambda s, h: seen.append(s)))
    return seen[0][:3]

lane = lane_for(GuardConfig())
def length(value):
    plan = head_plan(lane, b"/", b"/", b"", [(b"content-length", value)], False)
    return plan if plan is None else plan[0]

def headers(environ):
    return [[n.decode(), v.decode("latin-1")] for n, v in environ_parts(environ)[3]]

def path(environ):
    return environ_parts(environ)[0].decode("latin-1")

class Odd(str):
    # A str whose encode differs from its code points: what Python makes of it rules.
    def encode(self, *args, **kwargs):
        return b"\\xc0" + str.encode(self, *args, **kwargs)

target = {"RAW_URI": "/a", "X_RAW": "/a%2Fb", "PATH_INFO": "/a"}
print(json.dumps({
    "implementation": IMPLEMENTATION,
    "raw_target": [environ_parts(target)[0].decode(), status(target)],
    "cgi_headers": [headers({"REMOTE_USER": "u"}), headers({"REMOTE_USER": ""})],
    "header_prefix": headers({"H_X": "1", "HTTP_Y": "2"}),
    "absolute_form": environ_parts({"REQUEST_URI": "http://h/p?q"})[0].decode(),
    "absent_cgi_value": [
        headers({"CONTENT_TYPE": "\\x7f", "CONTENT_LENGTH": ""}),
        status({"CONTENT_TYPE": "\\x7f"}),
    ],
    "target_delimiters": [
        path({"REQUEST_URI": "/a;b?c"}),
        path({"REQUEST_URI": "/a!b?c#d"}),
        status({"REQUEST_URI": "/a;%2F", "PATH_INFO": "/a;/"}),
    ],
    "str_subclass": [
        headers({"H_X": Odd("x"), "HTTP_Y": Odd("y")}),
        path({"REQUEST_URI": Odd("/a;q")}),
        status({"H_Y": Odd("y"), "HTTP_Y": Odd("y")}),
    ],
    "ows": length(b"\\t3"),
    "digit": [length(b"17"), length(b"18")],
    "length_digits": [length(b"12"), length(b"123")],
    "json_opens": [
        whole_plain_json(lane, {"type": "http.request", "body": b"[1]"}, 3),
        whole_plain_json(lane, {"type": "http.request", "body": b"{}"}, 2),
    ],
    "json_wide_second": [
        whole_plain_json(lane, {"type": "http.request", "body": b"{1"}, 2),
        whole_plain_json(lane, {"type": "http.request", "body": b"{2"}, 2),
    ],
    "json_escape": [
        whole_plain_json(lane, {"type": "http.request", "body": b'{"\\\\n":1}'}, 8),
        whole_plain_json(lane, {"type": "http.request", "body": b'{"~":1}'}, 7),
    ],
}))
"""
#: (case, its answer as shipped, with the tables altered).
EXPECTED: Final = [
    ("raw_target", ["/a", "200"], ["/a%2Fb", "400"]),
    # Altered together: "" no longer means absent (ABSENT_CGI_VALUE), "?" no longer
    # starts a query (TARGET_DELIMITERS).
    ("cgi_headers", [[], []], [[["remote-user", "u"]], [["remote-user", ""]]]),
    ("header_prefix", [["y", "2"]], [["x", "1"]]),
    ("absolute_form", "/p", "http://h/p?q"),
    (
        "absent_cgi_value",
        [[["content-type", "\x7f"]], "400"],
        [[["content-length", ""]], "200"],
    ),
    ("target_delimiters", ["/a;b", "/a!b#d", "400"], ["/a", "/a!b?c#d", "200"]),
    (
        "str_subclass",
        [[["y", "\xc0y"]], "\xc0/a;q", "400"],
        [[["x", "\xc0x"]], "\xc0/a", "400"],
    ),
    ("ows", 3, None),
    ("digit", [17, 18], [None, 18]),
    ("length_digits", [12, 123], [12, None]),
    ("json_opens", [True, True], [False, True]),
    ("json_wide_second", [True, True], [False, True]),
    # Shipped, a backslash is an escape to weigh (not plain) and "~" is text.
    ("json_escape", [False, True], [True, False]),
]


@lru_cache(maxsize=4)
def _answers(build: str, altered: bool) -> dict[str, object]:
    env = dict(os.environ)
    env[PURE_PYTHON_ENV] = "1" if build == "pure" else "0"
    code = (_ALTER if altered else "") + _CASES
    result = subprocess.run(  # noqa: S603 - our own interpreter, fixed code
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    answers: dict[str, object] = json.loads(result.stdout)
    assert answers["implementation"] == ("python" if build == "pure" else "c")
    return answers


@pytest.mark.parametrize("build", BUILDS)
@pytest.mark.parametrize(("case", "shipped", "altered"), EXPECTED)
def test_altering_the_home_changes_both_builds(
    build: str, case: str, shipped: object, altered: object
) -> None:
    assert _answers(build, altered=False)[case] == shipped
    assert _answers(build, altered=True)[case] == altered


_BAD_TABLE: Final = """\
from utf8guard.middleware.adapter import _wsgi_environ as E
from utf8guard.middleware.body import _json
from utf8guard.middleware.engine import _engine
from utf8guard.middleware.head import _abnf, _clean
from utf8guard import _pathrules, _speedups
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.head._fast import lane_for
{alter}
lane = lane_for(GuardConfig())
_speedups.environ_parts({{"HTTP_A": "1"}})
_speedups.head_plan(lane, b"/caf%C3%A9", None, b"", [(b"content-length", b"1")], False)
_speedups.whole_plain_json(lane, {{"type": "http.request", "body": b"[1]"}}, 3)
"""
#: The loader's refusal: one RuntimeError naming the tables, from its cause.
_REFUSED: Final = "RuntimeError: utf8guard._speedups cannot read "


def _run_altered(alter: str) -> subprocess.CompletedProcess[str]:
    """_BAD_TABLE with ``alter`` applied, in a fresh interpreter."""
    return subprocess.run(  # noqa: S603 - our own interpreter, fixed code
        [sys.executable, "-c", _BAD_TABLE.format(alter=alter)],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.skipif("c" not in BUILDS, reason="the C accelerator is not built")
@pytest.mark.parametrize(
    ("alter", "error"),
    [
        ("E.ENVIRON_KEYS = None", "ENVIRON_KEYS must be an EnvironKeys of str"),
        ("E.ENVIRON_KEYS = E.ENVIRON_KEYS._replace(query=b'Q')", "EnvironKeys of str"),
        ("E.TARGET_DELIMITERS = (47, 63)", "a TargetDelimiters of bytes as int"),
        ("E.TARGET_DELIMITERS = (47, 63, 256)", "a TargetDelimiters of bytes as int"),
        ("E.TARGET_DELIMITERS = (47, 63, 2**70)", "a TargetDelimiters of bytes as int"),
        ("E.TARGET_DELIMITERS = (47, 63, b'#')", "a TargetDelimiters of bytes as int"),
        ("del E.TARGET_DELIMITERS", "AttributeError"),
        ("del E.header_field", "AttributeError"),
        ("del E.target_path", "AttributeError"),
        ("_engine.OWS = ' '", "OWS must be bytes"),
        ("_engine.DIGIT = [48]", "DIGIT must be bytes"),
        ("_engine.DIGIT = b'0123456789a'", "DIGIT must hold decimal digits only"),
        ("_json.JSON_OPENS = b'{['", "JSON_OPENS must be a tuple of single bytes"),
        ("_json.JSON_OPENS = (b'{[',)", "JSON_OPENS must be a tuple of single bytes"),
        ("_json.JSON_WIDE_SECOND = b''", "JSON_WIDE_SECOND must be one byte"),
        ("_json.JSON_WIDE_SECOND = 0", "JSON_WIDE_SECOND must be one byte"),
        ("del _json.JSON_WIDE_SECOND", "AttributeError"),
        ("_json.JSON_ESCAPE = b'\\\\'", "JSON_ESCAPE must be a byte as int"),
        ("_json.JSON_ESCAPE = 256", "JSON_ESCAPE must be a byte as int"),
        ("_json.JSON_ESCAPE = 2**70", "JSON_ESCAPE must be a byte as int"),
        ("del _json.JSON_ESCAPE", "AttributeError"),
        ("_engine.LENGTH_DIGITS = 19", "LENGTH_DIGITS must be an int from 1 to 18"),
        ("_engine.LENGTH_DIGITS = 2**70", "LENGTH_DIGITS must be an int from 1 to 18"),
        ("_engine.MAX_CONTENT_LENGTH = 2**64", "MAX_CONTENT_LENGTH a 63-bit int"),
        ("del _engine.LENGTH_DIGITS", "AttributeError"),
        ("del _engine.OWS", "AttributeError"),
        ("_abnf.TCHAR = list(_abnf.TCHAR)", "TCHAR must be bytes"),
        ("del _clean.TRIGGERS", "AttributeError"),
        (
            "_pathrules.LOOKALIKE_SEPARATORS = _pathrules.LOOKALIKE_SEPARATORS[::-1]",
            "sorted, disjoint (lo, hi) code point ranges",
        ),
        (
            "_pathrules.LOOKALIKE_SEPARATORS = ((0x2215, 0x2215), (0x2200, 0x2300))",
            "sorted, disjoint (lo, hi) code point ranges",
        ),
        (
            "_pathrules.LOOKALIKE_SEPARATORS = ((-1, 0x2215),)",
            "sorted, disjoint (lo, hi) code point ranges",
        ),
        (
            "_pathrules.LOOKALIKE_SEPARATORS = ((0x2215, 0x110000),)",
            "sorted, disjoint (lo, hi) code point ranges",
        ),
        ("_pathrules.LOOKALIKE_SEPARATORS = None", "it must be a sequence"),
    ],
)
def test_the_c_build_refuses_a_table_it_cannot_read(alter: str, error: str) -> None:
    """The C twin reads the tables at its first call (a fresh interpreter here) and
    fails closed: a RuntimeError naming the table, caused by what it could not read,
    not a crash, a SystemError, or a translation with keys or rules missing."""
    result = _run_altered(alter)
    assert result.returncode == 1, result.stderr
    last = result.stderr.splitlines()[-1]
    assert last.startswith(_REFUSED), result.stderr
    assert error in result.stderr
    assert "SystemError" not in result.stderr


@pytest.mark.skipif("c" not in BUILDS, reason="the C accelerator is not built")
@pytest.mark.parametrize(
    ("alter", "error"),
    [
        ("E.header_field = lambda key: (key, False)", "a HeaderField or None"),
        ("E.header_field = lambda key: (b'a', False)", "a HeaderField or None"),
        ("E.header_field = lambda key: 1 / 0", "ZeroDivisionError"),
    ],
)
def test_the_c_build_refuses_a_field_it_cannot_read(alter: str, error: str) -> None:
    """header_field is asked per key, not loaded: what it raises, or a TypeError for
    an answer that is no HeaderField, reaches the caller as it is."""
    result = _run_altered(alter)
    assert result.returncode == 1, result.stderr
    assert error in result.stderr.splitlines()[-1]
    assert "SystemError" not in result.stderr


_RELOAD: Final = """\
from utf8guard.middleware.adapter import _wsgi_environ as E
from utf8guard.middleware.body import _json
from utf8guard.middleware.engine import _engine
from utf8guard.middleware.head import _abnf
from utf8guard import _pathrules, _speedups
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.head._fast import lane_for
import sys
lane = lane_for(GuardConfig())
length = [(b"content-length", b"7")]
json = {"type": "http.request", "body": b"[1]"}
calls = [
    lambda: _speedups.environ_parts({"RAW_URI": "/a?b", "HTTP_A": "1"}),
    lambda: _speedups.head_plan(lane, b"/a", b"/a", b"", [(b"a", b"1")], True),
    lambda: _speedups.head_plan(lane, b"/", b"/", b"", length, False),
    lambda: _speedups.head_plan(lane, b"/%E2%88%95", None, b"", [], True),
    lambda: _speedups.whole_plain_json(lane, json, 3),
]
tables = [
    (E, "TARGET_DELIMITERS"), (_abnf, "TCHAR"), (_engine, "DIGIT"),
    (_pathrules, "LOOKALIKE_SEPARATORS"), (_json, "JSON_WIDE_SECOND"),
]
answers = []
for call, (module, name) in zip(calls, tables):
    shipped = getattr(module, name)
    setattr(module, name, None)
    try:
        call()
    except RuntimeError:
        pass
    else:
        raise SystemExit(f"{name} = None was not refused")
    assert sys.exc_info() == (None, None, None)
    setattr(module, name, shipped)
    answers.append(repr(call()))
print("|".join(answers))
"""


@pytest.mark.skipif("c" not in BUILDS, reason="the C accelerator is not built")
def test_a_table_refused_once_is_read_again() -> None:
    """A failed load keeps nothing: the next call reads the table again, and once it
    can be read, answers as the table says, with no exception left set."""
    result = subprocess.run(  # noqa: S603 - our own interpreter, fixed code
        [sys.executable, "-c", _RELOAD],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    # environ_parts splits at "?"; a token name is clean; Content-Length 7 has a
    # body of 7; "/%E2%88%95" (U+2215 DIVISION SLASH) is a look-alike; "[1]" is JSON.
    assert result.stdout.strip().split("|") == [
        "(b'/a', b'', b'', [(b'a', b'1')])",
        "-1",
        "(7, None)",
        "None",
        "True",
    ]
