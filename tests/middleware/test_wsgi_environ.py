"""The WSGI environ's head parts: which keys are headers, whatever was seen before.

PEP 3333 and CGI/1.1 (RFC 3875 §4.1.3, §4.1.18) are the oracle: every ``HTTP_*``
key holding a str is a header named by the rest of the key ("_" as "-", lower
case), and so are ``CONTENT_TYPE`` and ``CONTENT_LENGTH`` unless empty.
"""

from __future__ import annotations

from utf8guard.middleware.adapter import _wsgi_environ
from utf8guard.middleware.adapter._wsgi_environ import header_items, py_environ_parts
from utf8guard.middleware.head import _seen


def _headers(environ: object) -> list[tuple[bytes, bytes]]:
    return py_environ_parts(environ)[3]  # type: ignore[arg-type]  # odd keys on purpose


def test_header_items_name_each_header_key() -> None:
    environ = {"HTTP_X_A": "1", "wsgi.input": "x", "CONTENT_TYPE": "a/b",
               "CONTENT_LENGTH": "", "HTTP_B": 2, "HTTP_C": "caf\xe9"}  # fmt: skip
    assert header_items(environ) == [
        ("HTTP_X_A", b"x-a", b"1"),
        ("CONTENT_TYPE", b"content-type", b"a/b"),
        ("HTTP_C", b"c", b"caf\xe9"),
    ]


def test_same_keys_new_values() -> None:
    # The second environ has the first one's keys: its own values count, and a
    # CONTENT_TYPE that turns empty (or a value that is no str) is no header.
    first = {"HTTP_HOST": "a", "CONTENT_TYPE": "a/b", "HTTP_X": "1"}
    second = {"HTTP_HOST": "b", "CONTENT_TYPE": "", "HTTP_X": 1}
    assert _headers(first) == [(b"host", b"a"), (b"content-type", b"a/b"), (b"x", b"1")]
    assert _headers(second) == [(b"host", b"b")]
    assert _headers(first) == [(b"host", b"a"), (b"content-type", b"a/b"), (b"x", b"1")]


def test_odd_and_long_keys() -> None:
    long_name = "HTTP_" + "A" * 5000
    assert _headers({long_name: "v", "HTTP_B": "w"}) == [
        (b"a" * 5000, b"v"),
        (b"b", b"w"),
    ]
    # PEP 3333 keys are str: others are no header (and nothing is remembered of them).
    odd = {b"HTTP_A": "v", "HTTP_B": "w", ("HTTP_C",): "x"}
    assert _headers(odd) == [(b"b", b"w")]


def test_many_shapes_stay_bounded() -> None:
    """Clients choose the header names: what is remembered of them stays bounded."""
    shapes = [{f"HTTP_X_{n}": "v", "HTTP_HOST": "h"} for n in range(300)]
    shapes.append({f"HTTP_{'Y' * 4000}_{n}": "v" for n in range(8)})
    for environ in shapes:
        name = next(iter(environ))[5:].replace("_", "-").lower().encode()
        assert _headers(environ)[0] == (name, b"v")
    seen = _wsgi_environ._seen_keys
    assert len(seen) <= _seen.MAX_SEEN_SHAPES
    assert all(sum(map(len, keys)) <= _seen.MAX_SEEN_CHARS for keys in seen)
    # And the first shape, long forgotten, still comes out right.
    assert _headers(shapes[0]) == [(b"x-0", b"v"), (b"host", b"h")]


def test_code_points_over_latin1_are_kept_as_utf8() -> None:
    # PEP 3333 allows only U+0000..U+00FF in environ strings; a server that breaks
    # that gets its text checked as UTF-8 (wsgi_bytes), never dropped.
    environ = {"RAW_URI": "/\u20ac?q=\u20ac", "PATH_INFO": "/\u20ac",
               "QUERY_STRING": "q=\u20ac", "HTTP_X": "\u20ac"}  # fmt: skip
    raw_path, app_path, query, headers = py_environ_parts(environ)
    euro = "\u20ac".encode()
    assert (raw_path, app_path, query) == (b"/" + euro, b"/" + euro, b"q=" + euro)
    assert headers == [(b"x", euro)]
