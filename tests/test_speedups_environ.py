"""The compiled environ_headers gives exactly the Python translation's pairs.

``utf8guard.middleware._wsgi_environ.header_items`` is the reference: for every
environ the C function either returns the same ``(name, value)`` pairs, in order, or
None, and None only for the environs it leaves to Python (a non-str or non-ASCII key,
a header value with a code point over U+00FF, a dict subclass).
"""

from __future__ import annotations

from collections import OrderedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from utf8guard.middleware._wsgi_environ import header_items

speedups = pytest.importorskip("utf8guard._speedups")


def _python(environ: dict[object, object]) -> list[tuple[bytes, bytes]]:
    return [(name, value) for _, name, value in header_items(environ)]  # type: ignore[arg-type]


def _left_to_python(environ: dict[object, object]) -> bool:
    """Whether the C function must answer None (the module docstring's cases)."""
    for key, value in environ.items():
        if not isinstance(key, str) or not key.isascii():
            return True
        header = key[:5] == "HTTP_" or (
            bool(value) and key in ("CONTENT_TYPE", "CONTENT_LENGTH")
        )
        if header and isinstance(value, str) and any(ord(c) > 0xFF for c in value):
            return True
    return False


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
    assert speedups.environ_headers(environ) == pairs
    assert _python(environ) == pairs


@pytest.mark.parametrize(
    "environ",
    [
        {"HTTP_A": "\u20ac"},
        {"CONTENT_TYPE": "\U0001f600"},
        {"HTTP_\xc4": "x"},
        {"wsgi.\u00e4": "x"},
        {1: "x"},
        OrderedDict(HTTP_A="x"),
    ],
    ids=repr,
)
def test_left_to_python(environ: dict[object, object]) -> None:
    assert speedups.environ_headers(environ) is None


def test_not_a_dict() -> None:
    assert speedups.environ_headers([("HTTP_A", "x")]) is None


_KEYS = st.one_of(
    st.sampled_from(
        ["HTTP_HOST", "HTTP_X_A_B", "HTTP_", "HTTP", "http_x", "HTTP_COOKIE",
         "CONTENT_TYPE", "CONTENT_LENGTH", "PATH_INFO", "wsgi.input", "HTTP_\xc4"]
    ),
    st.text(max_size=8),
)  # fmt: skip
_VALUES = st.one_of(
    st.text(max_size=6),
    st.text(alphabet=st.characters(max_codepoint=0xFF), max_size=6),
    st.integers(),
    st.none(),
    st.binary(max_size=3),
)


@settings(max_examples=2000)
@given(st.dictionaries(_KEYS, _VALUES, max_size=8))
def test_same_pairs_as_python(environ: dict[object, object]) -> None:
    compiled = speedups.environ_headers(environ)
    if _left_to_python(environ):
        assert compiled is None
    else:
        assert compiled == _python(environ)


def test_no_reference_leak() -> None:
    import sys

    environ = {"HTTP_HOST": "h", "CONTENT_TYPE": "a/b", "HTTP_X": "\xe9"}
    name = sys.intern("HTTP_HOST")
    before = sys.getrefcount(name), sys.getrefcount(environ["HTTP_X"])
    for _ in range(1000):
        speedups.environ_headers(environ)
    assert (sys.getrefcount(name), sys.getrefcount(environ["HTTP_X"])) == before
