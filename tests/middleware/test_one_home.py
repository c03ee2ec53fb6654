"""The WSGI translation and the body route's grammar live in Python only.

``_wsgi_environ.ENVIRON_KEYS``, ``header_field`` (PEP 3333, CGI/1.1 RFC 3875 §4.1)
and ``target_path`` (RFC 9112 §3.2; the C twin reads only an origin-form without a
fragment itself), ``_engine``'s Content-Length grammar (RFC 9110 §8.6: ``OWS``,
``DIGIT``, ``LENGTH_DIGITS``) and ``_json.JSON_OPENS`` (RFC 8259 §2) are read by the C
accelerator at its first call, not restated there. So altering one of them (in a
fresh interpreter, before the first request) must change what both builds answer:
each case below gives one answer with the tables as shipped and another with the
table altered, with the accelerator and under ``UTF8GUARD_PURE_PYTHON=1``.
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
from utf8guard.middleware.adapter import _wsgi_environ as E
from utf8guard.middleware.body import _json
from utf8guard.middleware.engine import _engine
E.ENVIRON_KEYS = E.ENVIRON_KEYS._replace(raw_target="X_RAW")
E._CGI_HEADERS = E._CGI_HEADERS | {"REMOTE_USER"}
E._HEADER_PREFIX = "H_"
E._ABSOLUTE_FORM = E.re.compile(rb"x://")
_engine.OWS = b" "
_engine.DIGIT = b"012345689"
_engine.LENGTH_DIGITS = 2
_json.JSON_OPENS = (b"{",)
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
    return [[n.decode(), v.decode()] for n, v in environ_parts(environ)[3]]

target = {"RAW_URI": "/a", "X_RAW": "/a%2Fb", "PATH_INFO": "/a"}
print(json.dumps({
    "implementation": IMPLEMENTATION,
    "raw_target": [environ_parts(target)[0].decode(), status(target)],
    "cgi_headers": [headers({"REMOTE_USER": "u"}), headers({"REMOTE_USER": ""})],
    "header_prefix": headers({"H_X": "1", "HTTP_Y": "2"}),
    "absolute_form": environ_parts({"REQUEST_URI": "http://h/p?q"})[0].decode(),
    "ows": length(b"\\t3"),
    "digit": [length(b"17"), length(b"18")],
    "length_digits": [length(b"12"), length(b"123")],
    "json_opens": [
        whole_plain_json(lane, {"type": "http.request", "body": b"[1]"}, 3),
        whole_plain_json(lane, {"type": "http.request", "body": b"{}"}, 2),
    ],
}))
"""
#: (case, its answer as shipped, with the tables altered).
EXPECTED: Final = [
    ("raw_target", ["/a", "200"], ["/a%2Fb", "400"]),
    ("cgi_headers", [[], []], [[["remote-user", "u"]], []]),
    ("header_prefix", [["y", "2"]], [["x", "1"]]),
    ("absolute_form", "/p", "http://h/p"),
    ("ows", 3, None),
    ("digit", [17, 18], [None, 18]),
    ("length_digits", [12, 123], [12, None]),
    ("json_opens", [True, True], [False, True]),
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
from utf8guard import _speedups
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.head._fast import lane_for
{alter}
lane = lane_for(GuardConfig())
_speedups.environ_parts({{"HTTP_A": "1"}})
_speedups.head_plan(lane, b"/", b"/", b"", [(b"content-length", b"1")], False)
"""


@pytest.mark.skipif("c" not in BUILDS, reason="the C accelerator is not built")
@pytest.mark.parametrize(
    ("alter", "error"),
    [
        ("E.ENVIRON_KEYS = None", "ENVIRON_KEYS must be an EnvironKeys of str"),
        ("E.ENVIRON_KEYS = E.ENVIRON_KEYS._replace(query=b'Q')", "EnvironKeys of str"),
        ("E.header_field = lambda key: (key, False)", "a HeaderField or None"),
        ("E.header_field = lambda key: 1 / 0", "ZeroDivisionError"),
        ("del E.header_field", "AttributeError"),
        ("del E.target_path", "AttributeError"),
        ("_engine.OWS = ' '", "_engine.OWS must be bytes"),
        ("_engine.DIGIT = [48]", "_engine.DIGIT must be bytes"),
        ("_json.JSON_OPENS = b'{['", "JSON_OPENS must be a tuple of single bytes"),
        ("_json.JSON_OPENS = (b'{[',)", "JSON_OPENS must be a tuple of single bytes"),
        ("_engine.LENGTH_DIGITS = 19", "LENGTH_DIGITS must be an int from 1 to 18"),
        ("_engine.LENGTH_DIGITS = 2**70", "LENGTH_DIGITS must be an int from 1 to 18"),
        ("_engine.MAX_CONTENT_LENGTH = 2**64", "MAX_CONTENT_LENGTH a 63-bit int"),
        ("del _engine.LENGTH_DIGITS", "AttributeError"),
        ("del _engine.OWS", "AttributeError"),
    ],
)
def test_the_c_build_refuses_a_table_it_cannot_read(alter: str, error: str) -> None:
    """The C twin reads the tables at its first call (a fresh interpreter here) and
    fails closed: an exception, not a translation with keys or rules missing."""
    result = subprocess.run(  # noqa: S603 - our own interpreter, fixed code
        [sys.executable, "-c", _BAD_TABLE.format(alter=alter)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert error in result.stderr
