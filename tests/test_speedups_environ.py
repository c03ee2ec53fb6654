"""The compiled environ_parts gives exactly the Python translation's parts.

``utf8guard.middleware.adapter._wsgi_environ``'s Python translation
(``py_environ_parts``) is the reference: for every environ the C function either returns
the same ``(target, app_path, query, headers)``, headers in order, or None, and None
only for the environs it leaves to Python (a non-str or non-ASCII key, a head value
with a code point over U+00FF, a dict subclass).
"""

from __future__ import annotations

from collections import OrderedDict
from urllib.parse import urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from utf8guard.middleware.adapter._wsgi_environ import py_environ_parts, target_path

speedups = pytest.importorskip("utf8guard._speedups")


Parts = tuple[bytes | None, bytes, bytes, list[tuple[bytes, bytes]]]
#: The environ keys of the head besides the headers.
HEAD_KEYS = ("RAW_URI", "REQUEST_URI", "SCRIPT_NAME", "PATH_INFO", "QUERY_STRING")


def _python(environ: dict[object, object]) -> Parts:
    return py_environ_parts(environ)  # type: ignore[arg-type]  # odd keys on purpose


def _headers(environ: dict[object, object]) -> object:
    parts = speedups.environ_parts(environ)
    return None if parts is None else parts[3]


def _left_to_python(environ: dict[object, object]) -> bool:
    """Whether the C function must answer None (the module docstring's cases)."""
    for key, value in environ.items():
        if not isinstance(key, str) or not key.isascii():
            return True
        header = key[:5] == "HTTP_" or (
            bool(value) and key in ("CONTENT_TYPE", "CONTENT_LENGTH")
        )
        if header and isinstance(value, str) and not _latin1_text(value):
            return True
    uri = environ.get("RAW_URI")
    keys = (
        HEAD_KEYS
        if not (isinstance(uri, str) and uri)
        else HEAD_KEYS[:1] + HEAD_KEYS[2:]
    )
    return any(
        isinstance(environ.get(key), str) and not _latin1_text(environ[key])  # type: ignore[arg-type]
        for key in keys
    )


def _latin1_text(value: str) -> bool:
    return all(ord(c) <= 0xFF for c in value)


@pytest.mark.parametrize(
    ("environ", "pairs"),
    [
        ({}, []),
        ({"HTTP_HOST": "a", "PATH_INFO": "/"}, [(b"host", b"a")]),
        ({"HTTP_X_FORWARDED_FOR": "1"}, [(b"x-forwarded-for", b"1")]),
        ({"CONTENT_TYPE": "a/b", "CONTENT_LENGTH": "2"},
         [(b"content-type", b"a/b"), (b"content-length", b"2")]),
        ({"CONTENT_TYPE": "", "CONTENT_LENGTH": ""}, []),
        ({"HTTP_": ""}, [(b"", b"")]),
        ({"HTTP_A": "caf\xe9"}, [(b"a", b"caf\xe9")]),
        ({"HTTP_A": 1, "HTTP_B": b"x", "HTTP_C": None}, []),
        ({"http_x": "1", "HTTP": "1", "wsgi.input": "x"}, []),
    ],
)  # fmt: skip
def test_known_environs(environ: dict[object, object], pairs: object) -> None:
    assert _headers(environ) == pairs
    assert _python(environ)[3] == pairs


@pytest.mark.parametrize(
    ("environ", "parts"),
    [
        ({}, (None, b"", b"", [])),
        ({"RAW_URI": "/a?b#c", "REQUEST_URI": "/x", "SCRIPT_NAME": "/s",
          "PATH_INFO": "/caf\xe9", "QUERY_STRING": "b"},
         (b"/a#c", b"/s/caf\xe9", b"b", [])),
        ({"RAW_URI": "", "REQUEST_URI": "/r#f?g"}, (b"/r#f?g", b"", b"", [])),
        ({"RAW_URI": "/r?q#f?g"}, (b"/r#f?g", b"", b"", [])),
        ({"RAW_URI": "http://h#f"}, (b"#f", b"", b"", [])),
        ({"RAW_URI": 1, "REQUEST_URI": "/r", "PATH_INFO": None}, (b"/r", b"", b"", [])),
        ({"RAW_URI": "/a", "REQUEST_URI": "/\u20ac"}, (b"/a", b"", b"", [])),
        ({"RAW_URI": "http://h:1/p?q"}, (b"/p", b"", b"", [])),
        ({"RAW_URI": "a+b.c-d://h"}, (b"", b"", b"", [])),
        ({"RAW_URI": "1a://h/p"}, (b"1a://h/p", b"", b"", [])),
        ({"RAW_URI": "*"}, (b"*", b"", b"", [])),
        ({"RAW_URI": "h:/x"}, (b"h:/x", b"", b"", [])),
    ],
)  # fmt: skip
def test_known_heads(environ: dict[object, object], parts: Parts) -> None:
    assert speedups.environ_parts(environ) == parts
    assert _python(environ) == parts


_TARGETS = st.lists(
    st.sampled_from(["/", "?", "#", ":", "//", "://", "a", "Z", "1", "+", "-", ".",
                     "h", "\xe9", "*", "%2F"]),
    max_size=10,
).map("".join)  # fmt: skip


@settings(max_examples=500)
@given(_TARGETS.map(lambda rest: "/" + rest))
def test_target_path_is_rfc_3986_path_and_fragment(target: str) -> None:
    # The oracle: urllib's RFC 3986 split of an origin-form target (RFC 9112
    # §3.2.1). The guard's path is the path with any fragment the client sent.
    split = urlsplit("http://h" + target)  # an origin-form "//" is no authority
    want = split.path + ("#" + split.fragment if "#" in target else "")
    raw = target.encode("latin-1")
    assert target_path(raw) == want.encode("latin-1")
    parts = speedups.environ_parts({"RAW_URI": target})
    assert parts is not None
    assert parts[0] == want.encode("latin-1")


@settings(max_examples=2000)
@given(_TARGETS)
def test_target_path_as_python(target: str) -> None:
    parts = speedups.environ_parts({"RAW_URI": target})
    assert parts is not None
    assert parts[0] == target_path(target.encode("latin-1"))


@pytest.mark.parametrize(
    "environ",
    [
        {"HTTP_A": "\u20ac"},
        {"CONTENT_TYPE": "\U0001f600"},
        {"HTTP_\xc4": "x"},
        {"wsgi.\u00e4": "x"},
        {"RAW_URI": "/\u20ac"},
        {"REQUEST_URI": "/\u20ac"},
        {"SCRIPT_NAME": "/\u20ac"},
        {"PATH_INFO": "/\u20ac"},
        {"QUERY_STRING": "\u20ac"},
        {1: "x"},
        OrderedDict(HTTP_A="x"),
    ],
    ids=repr,
)
def test_left_to_python(environ: dict[object, object]) -> None:
    assert speedups.environ_parts(environ) is None


def test_not_a_dict() -> None:
    assert speedups.environ_parts([("HTTP_A", "x")]) is None


_KEYS = st.one_of(
    st.sampled_from(
        ["HTTP_HOST", "HTTP_X_A_B", "HTTP_", "HTTP", "http_x", "HTTP_COOKIE",
         "CONTENT_TYPE", "CONTENT_LENGTH", "wsgi.input", "HTTP_\xc4", *HEAD_KEYS]
    ),
    st.text(max_size=8),
)  # fmt: skip
_VALUES = st.one_of(
    _TARGETS,
    st.text(max_size=6),
    st.text(alphabet=st.characters(max_codepoint=0xFF), max_size=6),
    st.integers(),
    st.none(),
    st.binary(max_size=3),
)


@settings(max_examples=2000)
@given(st.dictionaries(_KEYS, _VALUES, max_size=8))
def test_same_parts_as_python(environ: dict[object, object]) -> None:
    compiled = speedups.environ_parts(environ)
    if _left_to_python(environ):
        assert compiled is None
    else:
        assert compiled == _python(environ)


def test_no_reference_leak() -> None:
    import sys

    environ = {"HTTP_HOST": "h", "CONTENT_TYPE": "a/b", "HTTP_X": "\xe9"}
    name = sys.intern("HTTP_HOST")
    # The first call caches the keys' fields (and remembers this environ's keys).
    speedups.environ_parts(environ)
    before = sys.getrefcount(name), sys.getrefcount(environ["HTTP_X"])
    for _ in range(1000):
        speedups.environ_parts(environ)
    assert (sys.getrefcount(name), sys.getrefcount(environ["HTTP_X"])) == before
