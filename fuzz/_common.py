"""What the harnesses share: input layouts, the middleware driver and oracle, mismatch
reports, the atheris entry.

Each harness reads a few header bytes before the bytes under test, so the fuzzer
chooses the policy and the buffer type along with the input. The layout is plain
bytes, not atheris's FuzzedDataProvider, so that corpus files replay without atheris
(``tests/test_fuzz_corpus.py``) and a crash file can be read by eye. The two
middleware harnesses share one request layout (``Request``), the ASGI driver
(``run_asgi``) and the oracle for what an app may receive (``check_seen``). Only
public names of utf8guard are used, so the guard's internals can change freely.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any, Final, NoReturn
from urllib.parse import unquote_to_bytes

from fuzz import _multipart
from utf8guard import STRICT, BytesLike, Policy, reference
from utf8guard._policy import FLAGS
from utf8guard.middleware import Utf8GuardMiddleware
from utf8guard.middleware.asgi import ASGIApp, Message, Scope

__all__ = [
    "CONTENT_TYPES",
    "PATH_POLICY",
    "POLICY_FLAGS",
    "Request",
    "Seen",
    "as_bytes",
    "check_seen",
    "cookie_values",
    "fail",
    "mismatch",
    "parse_request",
    "policy_of",
    "run_asgi",
    "run_atheris",
    "run_middleware_atheris",
    "split",
    "wrap",
]

#: Bit ``i`` of the policy byte flips ``POLICY_FLAGS[i]`` from its STRICT default, so
#: 0x00 is STRICT, 0x01 WELL_FORMED and 0x0E IDENTIFIER. Read from Policy's FLAGS, so
#: a new flag needs no edit here (only a free bit, checked below).
POLICY_FLAGS: Final = FLAGS
#: Bits 6 and 7 of the policy byte choose how the bytes are handed over.
_WRAP_SHIFT: Final = 6
if len(POLICY_FLAGS) > _WRAP_SHIFT:  # fail closed: never fuzz a silently wrong policy
    raise ImportError(
        f"{len(POLICY_FLAGS)} policy flags no longer fit the 6 bits of the policy byte"
    )


def split(data: bytes, header_bytes: int) -> tuple[bytes, bytes]:
    """The header (zero-padded when the input is shorter) and the bytes under test."""
    header = data[:header_bytes]
    return header + bytes(header_bytes - len(header)), data[header_bytes:]


def policy_of(selector: int) -> Policy:
    """The policy chosen by the low 6 bits of ``selector``."""
    return _policy(selector & (1 << len(POLICY_FLAGS)) - 1)


@cache  # a Policy compiles its scanning plan on first use: reuse the 64 objects
def _policy(flips: int) -> Policy:
    return Policy(
        **{
            name: getattr(STRICT, name) ^ bool(flips >> bit & 1)
            for bit, name in enumerate(POLICY_FLAGS)
        }
    )


def wrap(payload: bytes, selector: int) -> BytesLike:
    """``payload`` as bytes, bytearray, memoryview, or a memoryview of format 'c'.

    The core takes a fast path for bytes and bytearray only, and casts other
    memoryview formats; each path must give the same answer.
    """
    choice = selector >> _WRAP_SHIFT
    if choice == 0:
        return payload
    if choice == 1:
        return bytearray(payload)
    if choice == 2:
        return memoryview(payload)
    # typeshed calls a format 'c' view memoryview[bytes]; the core takes any view
    return memoryview(payload).cast("c")  # type: ignore[return-value]


def mismatch(what: str, payload: bytes, policy: Policy, **sides: object) -> NoReturn:
    """Fail with ``what``, the input in hex, the policy, and each side's answer."""
    lines = [what, f"  input ({len(payload)} bytes): {payload.hex(' ')}", f"  {policy}"]
    lines += (f"  {name}: {value!r}" for name, value in sides.items())
    raise AssertionError("\n".join(lines))


def run_atheris(test_one_input: Callable[[bytes], None]) -> None:  # pragma: no cover
    """Instrument utf8guard and the harnesses, then hand ``sys.argv`` to libFuzzer.

    Runs only under atheris (``python -m fuzz``); the corpus replay tests call the
    harnesses' ``check`` directly.
    """
    import atheris

    atheris.instrument_all()
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


# The middleware harnesses (fuzz_middleware, fuzz_wsgi): one request layout, the ASGI
# driver, and the oracle for what an app may receive.

#: Byte 0 of a request: bits 0-2 pick the content type, bit 3 streams the body, bit 4
#: is normalize mode, bit 5 (WSGI) drops Content-Length, bit 6 builds the body from a
#: multipart script (``fuzz/_multipart.py``), bit 7 sends the header value as Cookie.
CONTENT_TYPES: Final = (
    b"text/plain",
    b"application/json",
    b"application/x-www-form-urlencoded",
    _multipart.CONTENT_TYPE,
    b"image/png",
    None,
    b"text/plain; charset=utf-16",
    b"application/ld+json",
)
#: Content types whose raw body the guard validates as a whole.
INSPECTED_RAW: Final = (b"text/plain", b"application/json", b"application/ld+json")
#: The middleware's path rule, from its documented defaults: the policy, and no NUL,
#: controls or bidi controls in a path (SECURITY.md, "What is refused").
PATH_POLICY: Final = Policy(
    allow_nul=False, allow_controls=False, allow_bidi_controls=False
)
_PART_SEPARATOR: Final = b"\xfe\xfe"
# RFC 6265 §4.1.1 cookie-pair; the quoted form is decoded the way http.cookies,
# Werkzeug and Django do: "\ooo" is an octal byte, "\c" is c.
_COOKIE_ESCAPE: Final = re.compile(rb"\\(?:([0-3][0-7][0-7])|(.))", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Request:
    """One fuzzed request: byte 0 the flags, byte 1 the chunk length (1 + byte % 64),
    the rest split at ``FE FE`` into raw path, query, one header value and body."""

    flags: int
    chunk: int
    raw_path: bytes
    query: bytes
    value: bytes
    body: bytes

    @property
    def content_type(self) -> bytes | None:
        if self.flags & 0x40:
            return _multipart.CONTENT_TYPE
        return CONTENT_TYPES[self.flags & 0x07]

    @property
    def header_name(self) -> bytes:
        return b"cookie" if self.flags & 0x80 else b"x-fuzz"

    @property
    def options(self) -> dict[str, Any]:
        """The middleware's keyword arguments: mode and streaming."""
        mode = "normalize" if self.flags & 0x10 else "block"
        return {"mode": mode, "stream_body": bool(self.flags & 0x08)}

    @property
    def pieces(self) -> list[bytes]:
        """The body cut into ``chunk``-byte pieces (one empty piece when empty)."""
        body, size = self.body, self.chunk
        return [body[i : i + size] for i in range(0, len(body), size)] or [b""]


def parse_request(data: bytes) -> Request:
    """The request ``data`` describes (see ``Request``)."""
    flags = data[0] if data else 0
    chunk = 1 + (data[1] if len(data) > 1 else 0) % 64
    parts = data[2:].split(_PART_SEPARATOR, 3)
    raw_path, query, value, body = parts + [b""] * (4 - len(parts))
    if flags & 0x40:
        body = _multipart.build(body)
    return Request(flags, chunk, raw_path, query, value, body)


def fail(what: str, data: bytes) -> AssertionError:
    """The AssertionError for a breach, with the whole input in hex."""
    return AssertionError(f"{what}; input ({len(data)} bytes) {data.hex(' ')}")


def as_bytes(value: object) -> bytes:
    if not isinstance(value, bytes):
        raise AssertionError(f"expected bytes in the ASGI message, not {value!r}")
    return value


def run_asgi(app: ASGIApp, request: Request) -> list[Message]:
    """Drive ``Utf8GuardMiddleware(app)`` with ``request``; the messages it sent.

    The body arrives in ``request.chunk``-byte ``http.request`` messages, then
    ``http.disconnect``, as a server would deliver it.
    """
    headers = [(request.header_name, request.value)]
    if request.content_type is not None:
        headers.append((b"content-type", request.content_type))
    scope: Scope = {
        "type": "http",
        "path": request.raw_path.decode("latin-1"),
        "raw_path": b"/" + request.raw_path,
        "query_string": request.query,
        "headers": headers,
    }
    pieces = request.pieces
    inbox = iter(
        [
            {"type": "http.request", "body": piece, "more_body": i < len(pieces) - 1}
            for i, piece in enumerate(pieces)
        ]
    )
    sent: list[Message] = []

    async def receive() -> Message:
        return next(inbox, {"type": "http.disconnect"})

    async def send(message: Message) -> None:
        sent.append(message)

    guard = Utf8GuardMiddleware(app, **request.options)
    asyncio.run(guard(scope, receive, send))
    return sent


@dataclass(frozen=True, slots=True)
class Seen:
    """What the app received, as bytes: the decoded path, the raw query, the
    headers (lower-case names), the body and whether it read it to the end."""

    path: bytes
    query: bytes
    headers: list[tuple[bytes, bytes]]
    body: bytes
    complete: bool


def check_seen(request: Request, seen: Seen, data: bytes) -> None:
    """Everything the app received is valid by the reference oracle (module docs of
    the harnesses); raise ``fail(...)`` on the first breach."""
    if not reference.is_valid(seen.path, PATH_POLICY):
        raise fail("invalid path reached the app", data)
    for part in seen.query.replace(b"+", b" ").replace(b"=", b"&").split(b"&"):
        if not reference.is_valid(unquote_to_bytes(part), STRICT):
            raise fail("invalid query reached the app", data)
    for _, value in seen.headers:
        if not reference.is_valid(value, STRICT):
            raise fail("invalid header reached the app", data)
    content_type = request.content_type
    if content_type in INSPECTED_RAW and not reference.is_valid(seen.body, STRICT):
        raise fail("invalid body reached the app", data)
    if content_type == b"application/json" and seen.complete:
        _check_json(seen.body, data)
    if request.options["mode"] == "block":
        _check_cookies(seen.headers, data)
        if content_type == _multipart.CONTENT_TYPE and seen.complete:
            _check_multipart(seen.body, data)


def _check_json(body: bytes, data: bytes) -> None:
    """A complete JSON body re-encodes without a lone surrogate (CPython's json)."""
    try:
        document = json.loads(body)
    except ValueError:
        return  # not JSON: the guard checks encoding, not syntax
    try:
        json.dumps(document, ensure_ascii=False).encode()
    except UnicodeEncodeError as exc:
        raise fail("a lone surrogate escape reached the app", data) from exc


def cookie_values(header: bytes) -> Iterator[bytes]:
    """Each cookie name and value in ``header``, quoted values unescaped."""
    for pair in header.split(b";"):
        name, _, value = pair.strip().partition(b"=")
        yield name
        if len(value) >= 2 and value[:1] == value[-1:] == b'"':
            value = _COOKIE_ESCAPE.sub(_unescape, value[1:-1])
        yield value


def _unescape(match: re.Match[bytes]) -> bytes:
    octal, char = match.groups()
    return bytes([int(octal, 8)]) if octal else char


def _check_cookies(headers: list[tuple[bytes, bytes]], data: bytes) -> None:
    """The Cookie header is UTF-8, and no reading of an escape gives what STRICT
    refuses: Werkzeug's (the escapes' bytes decoded as UTF-8, what is not UTF-8
    replaced by a visible U+FFFD); http.cookies' code points below 256 are always
    well-formed (docs/kinds/cookie_octal_escape.md: a value one family writes is
    mojibake or U+FFFD to the other, and passes)."""
    for name, value in headers:
        if name == b"cookie" and not (
            reference.is_valid(value, STRICT)
            and all(
                reference.is_valid(part.decode("utf-8", "replace").encode(), STRICT)
                for part in cookie_values(value)
            )
        ):
            raise fail("invalid cookie reached the app", data)


def _check_multipart(body: bytes, data: bytes) -> None:
    for what, value in _multipart.readings(body):
        if what == "charset":
            raise fail("a multipart charset other than UTF-8 reached the app", data)
        if not reference.is_valid(value, STRICT):
            raise fail(f"invalid multipart {what} reached the app", data)


def run_middleware_atheris(check: Callable[[bytes], None]) -> None:  # pragma: no cover
    """``run_atheris`` with the guard's refusal warnings silenced (thousands a
    second would be all the fuzzer prints)."""
    logging.getLogger("utf8guard").setLevel(logging.CRITICAL)
    run_atheris(check)
