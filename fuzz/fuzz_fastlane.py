"""Differential fuzzing of the middleware's C fast lane against its Python references.

Invariant, for every head, config and environ the input describes:

- ``_speedups.scan_head`` gives what ``_clean.py_scan_head`` gives: the same answer
  (the Content-Length and Content-Type values the very header objects), or an
  exception of the same type;
- ``_speedups.strict_unquote`` gives what ``_percent.py_strict_unquote`` gives, for
  the raw path, the query and each header value, as bytes and as a bytes subclass;
- ``_speedups.environ_parts`` gives ``_wsgi_environ.py_environ_parts``'s parts, or
  None, and None exactly in its documented fallback cases (``left_to_python``);
  ``scan_head`` then agrees on those parts as well;
- ``_wsgi_lane.py_wsgi_plan`` (the pure-Python WSGI lane, no C twin) gives what
  ``_fast.py_head_plan`` gives on ``py_environ_parts``' parts (the plan, or an
  exception of the same type), or None where a header value is no exact str of
  code points up to U+00FF (``_fused_may_decline``); for the configs' Policy
  objects (the lane's contract: a lane comes from a GuardConfig).

The reference runs in Python throughout: ``py_scan_head`` with ``py_strict_unquote``
and the pure-Python ``is_valid`` swapped in for the call (``python_twins``), so a bug
in a compiled helper cannot hide behind both sides sharing it.

Input layout (plain bytes, so corpus files replay without atheris and read by eye):
byte 0 picks the config (bits 0-2, ``CONFIGS``), the app path (bits 3-5,
``app_path``) and the headers' container (bits 6-7, ``container``); byte 1 holds
shape flags (``FLAG_*``); the rest splits at ``FE FE`` into raw path, query and one
field per header. A field's first byte picks the name (low 5 bits: ``NAMES``, or 31:
the field up to ":") and the pair's shape (top 3 bits, ``pair``); the rest is the
value; the look-alike rule applies when the input's length is not a multiple of 3.
The environ is built from the same head (``build_environ``). Run:
``python -m fuzz run fastlane``; ``make fuzz-accel FUZZ_TARGET=fastlane`` adds
coverage from inside a libFuzzer build of the extension.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final, NoReturn
from urllib.parse import unquote_to_bytes

from fuzz._common import mismatch, policy_of, run_atheris
from utf8guard import IDENTIFIER, STRICT, WELL_FORMED, Policy, _scan
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.adapter._wsgi_environ import py_environ_parts
from utf8guard.middleware.head import _clean
from utf8guard.middleware.head._fast import Lane, py_head_plan
from utf8guard.middleware.head._percent import py_strict_unquote
from utf8guard.middleware.head._wsgi_lane import py_wsgi_plan

try:
    from utf8guard import _speedups
except ImportError:  # pragma: no cover - check() has nothing to compare without it
    _speedups = None  # type: ignore[assignment]

__all__ = [
    "CONFIGS",
    "MAX_LEN",
    "NAMES",
    "Case",
    "TestOneInput",
    "check",
    "left_to_python",
    "main",
    "parse",
    "python_twins",
]

#: libFuzzer -max_len: a head of a few dozen fields, past the C stack buffer (512).
MAX_LEN: Final = 2048
_SEPARATOR: Final = b"\xfe\xfe"
#: Byte 1: the raw path, the query an odd type (which one: the length, ``_ODD``).
FLAG_ODD_PATH, FLAG_ODD_QUERY = 0x01, 0x02
#: Byte 1: the environ's target in REQUEST_URI (RAW_URI empty); Content-Type and
#: -Length as the CGI keys (RFC 3875 §4.1.2, §4.1.3), not HTTP_*.
FLAG_REQUEST_URI, FLAG_CGI = 0x04, 0x08
#: Byte 1: environ values as UTF-8 (code points over U+00FF, against PEP 3333);
#: non-str values and empty CGI values; one odd key (``_ODD_KEYS``); a dict subclass.
FLAG_UTF8, FLAG_NON_STR, FLAG_ODD_KEY, FLAG_SUBCLASS = 0x10, 0x20, 0x40, 0x80
#: (path_policy, policy, header_policy) of each config byte 0 can pick; the last
#: reads a header policy that is no Policy (a TypeError, where it is reached).
_NOT_A_POLICY: Final = object()
CONFIGS: Final[tuple[tuple[object, object, object], ...]] = (
    *(
        (c.effective_path_policy, c.policy, c.header_policy)
        for c in (
            GuardConfig(),
            GuardConfig(policy=Policy(allow_controls=False, allow_private_use=False)),
            GuardConfig(policy=Policy(allow_noncharacters=True, allow_bom=False)),
            GuardConfig(path_policy=Policy(allow_bidi_controls=False, allow_nul=False)),
            GuardConfig(policy=WELL_FORMED),
            GuardConfig(policy=IDENTIFIER),
            GuardConfig(policy=policy_of(0x3E)),  # every allow_* flag off
        )
    ),
    (GuardConfig().effective_path_policy, STRICT, _NOT_A_POLICY),
)
#: Header names by the low 5 bits of a field's first byte: the fields the fast lane
#: counts (RFC 9112 §3.2, §6.3; RFC 9110 §8.4; RFC 6265) in several cases, near
#: misses, and names that are no token (RFC 9110 §5.6.2). 31: the field names itself.
NAMES: Final = (
    *(b"host", b"Host", b"HOST", b"HoSt", b"cookie", b"Cookie", b"COOKIE"),
    *(b"content-length", b"Content-Length", b"CONTENT-LENGTH"),
    *(b"content-type", b"Content-Type", b"CONTENT-type"),
    *(b"transfer-encoding", b"Transfer-Encoding", b"content-encoding"),
    *(b"Content-Encoding", b"x-a", b"accept", b"x-forwarded-for"),
    *(b"hos", b"hostt", b"content_length", b"!#$%&'*+-.^_`|~"),
    *(b"", b"bad name", b"x\xe9", b"a\n", b"\x00", b"h\xc3\xb6st", b"k\xe2\x84\xaa"),
)
_OWN_NAME: Final = 0x1F
if len(NAMES) != _OWN_NAME:  # fail closed: every low-5-bit value must pick a name
    raise ImportError(f"NAMES holds {len(NAMES)} names, not {_OWN_NAME}")


class Bytes(bytes):
    """A bytes subclass: ``isinstance(x, bytes)``, so a header may hold one."""


class ListOf(list[object]):
    """A list subclass: walked through the iteration protocol, not read in place."""


class StrKey(str):
    """A str subclass as an environ key: the C function leaves it to Python."""

    __slots__ = ()


class Unequal:
    """An app path whose comparison raises (the same error on both sides)."""

    def __ne__(self, other: object) -> bool:
        raise ZeroDivisionError


#: Odd raw paths and queries, by the component's length.
_ODD: Final[tuple[Callable[[bytes], object], ...]] = (
    lambda raw: None,
    len,
    lambda raw: raw.decode("latin-1"),
    bytearray,
    memoryview,
    Bytes,
)
#: Odd environ keys (PEP 3333 wants str; the C function wants ASCII str).
_ODD_KEYS: Final[tuple[object, ...]] = (
    *(1, "HTTP_\xc4", StrKey("HTTP_S"), "http_x", "HTTP", "HTTP_"),
    *("wsgi.\xe4", "HTTP_\u20ac"),
)
#: The head's environ keys besides the headers.
HEAD_KEYS: Final = (
    "RAW_URI",
    "REQUEST_URI",
    "SCRIPT_NAME",
    "PATH_INFO",
    "QUERY_STRING",
)
_CGI_KEYS: Final = {
    b"content-type": "CONTENT_TYPE",
    b"content-length": "CONTENT_LENGTH",
}


@dataclass(frozen=True, slots=True)
class Case:
    """What one input describes: scan_head's arguments and an environ."""

    args: tuple[object, ...]
    environ: Mapping[object, object]


def parse(data: bytes) -> Case:
    """The case ``data`` describes (module docstring)."""
    flags, shapes = (data[:2] + b"\0\0")[:2]
    parts = data[2:].split(_SEPARATOR)
    raw, query, *fields = parts + [b""] * (2 - len(parts))
    pairs = [pair(field) for field in fields]
    raw_path: object = (
        _ODD[len(raw) % len(_ODD)](raw) if shapes & FLAG_ODD_PATH else raw
    )
    query_arg: object = (
        _ODD[len(query) % len(_ODD)](query) if shapes & FLAG_ODD_QUERY else query
    )
    args = (
        raw_path,
        app_path(raw, flags >> 3 & 7),
        query_arg,
        container(pairs, flags >> 6),
        *CONFIGS[flags & 7],
        # The look-alike rule, by the input's length.
        len(data) % 3 > 0,
    )
    return Case(args, build_environ(raw, query, pairs, shapes))


def app_path(raw: bytes, choice: int) -> object:
    """The server's decoded path: none, the same in several types, or another one."""
    decoded = unquote_to_bytes(raw)
    options: tuple[object, ...] = (
        None,
        decoded,
        bytearray(decoded),
        Bytes(decoded),
        decoded + b"/",
        decoded.decode("latin-1"),
        Unequal(),
        raw,
    )
    return options[choice]


def container(pairs: list[object], choice: int) -> object:
    """The pairs as a list, tuple or list subclass; or no sequence at all."""
    if choice == 0:
        return pairs
    if choice == 1:
        return tuple(pairs)
    if choice == 2:
        return ListOf(pairs)
    return (None, {}, b"", 1)[len(pairs) % 4]


def pair(field: bytes) -> object:
    """One header pair from a field: its name and value, in the shape byte 0 picks."""
    selector, value = (field[:1] or b"\0")[0], field[1:]
    index = selector & _OWN_NAME
    if index == _OWN_NAME:
        name, _, value = value.partition(b":")
    else:
        name = NAMES[index]
    shape = selector >> 5
    if shape < 4:
        return (name, value)
    if shape == 4:
        return [name, value]
    if shape == 5:
        return (Bytes(name), Bytes(value))
    if shape == 6:
        return (name, bytearray(value) if len(value) % 2 else value.decode("latin-1"))
    odd: tuple[object, ...] = (
        (name,),
        (name, value, b""),
        None,
        name + value,
        (name.decode("latin-1"), value),
    )
    return odd[len(value) % len(odd)]


def build_environ(
    raw: bytes, query: bytes, pairs: list[object], shapes: int
) -> Mapping[object, object]:
    """A WSGI environ of the same head (PEP 3333: str of one byte per code point)."""
    text: Callable[[bytes], str] = (
        (lambda b: b.decode("utf-8", "surrogateescape"))
        if shapes & FLAG_UTF8
        else (lambda b: b.decode("latin-1"))
    )
    env: dict[object, object] = {}
    if shapes & FLAG_NON_STR:
        env.update({"HTTP_X_INT": 1, "HTTP_X_NONE": None, "HTTP_X_BYTES": b"b"})
        env.update({"CONTENT_TYPE": "", "CONTENT_LENGTH": "", "SCRIPT_NAME": 2})
    if shapes & FLAG_ODD_KEY:
        env[_ODD_KEYS[len(raw) % len(_ODD_KEYS)]] = "x"
    target = raw + b"?" + query if query else raw
    env["REQUEST_URI" if shapes & FLAG_REQUEST_URI else "RAW_URI"] = text(target)
    decoded = unquote_to_bytes(raw)
    middle = len(decoded) // 2
    env["SCRIPT_NAME"], env["PATH_INFO"] = (
        text(decoded[:middle]),
        text(decoded[middle:]),
    )
    env["QUERY_STRING"] = text(query)
    for item in pairs:
        if isinstance(item, tuple | list) and len(item) == 2:
            name, value = item
            if isinstance(name, bytes) and isinstance(value, bytes):
                env[_key(name, shapes)] = text(value)
    return OrderedDict(env) if shapes & FLAG_SUBCLASS else env


def _key(name: bytes, shapes: int) -> str:
    cgi = _CGI_KEYS.get(name.lower()) if shapes & FLAG_CGI else None
    return cgi or "HTTP_" + name.decode("latin-1").upper().replace("-", "_")


def left_to_python(environ: Mapping[object, object]) -> bool:
    """Whether ``_speedups.environ_parts`` must answer None, by its documentation:
    not an exact dict; a key that is not an exact ASCII str; a header's or a read
    head key's str value with a code point over U+00FF."""
    if type(environ) is not dict:
        return True
    for key, value in environ.items():
        if type(key) is not str or not key.isascii():
            return True
        header = key[:5] == "HTTP_" or (bool(value) and key in _CGI_KEYS.values())
        if header and isinstance(value, str) and not _is_latin1(value):
            return True
    uri = environ.get("RAW_URI")
    # REQUEST_URI is read only when RAW_URI gives no target.
    skip = "REQUEST_URI" if isinstance(uri, str) and uri else None
    return any(
        isinstance(value := environ.get(key), str) and not _is_latin1(value)
        for key in HEAD_KEYS
        if key != skip
    )


def _is_latin1(value: str) -> bool:
    return not value or max(value) <= "\xff"


@contextmanager
def python_twins() -> Iterator[None]:
    """Inside the block, py_scan_head runs in Python throughout: py_strict_unquote
    and the pure-Python is_valid in place of their C twins."""
    patches = (
        (_clean, "strict_unquote", py_strict_unquote),
        (_clean, "is_valid", _scan.python_is_valid),
        (_scan, "_compiled", None),
    )
    saved = [(module, name, getattr(module, name)) for module, name, _ in patches]
    for module, name, value in patches:
        setattr(module, name, value)
    try:
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)


Outcome = tuple[str, object]


def outcome(function: Callable[..., object], *args: object) -> Outcome:
    """What a call gives: its result, or the type of the exception it raised."""
    try:
        return "returned", function(*args)
    except (TypeError, ValueError, AttributeError, ZeroDivisionError) as exc:
        return "raised", type(exc)


def _fail(what: str, data: bytes, case: Case, **sides: object) -> NoReturn:
    policy = case.args[5]
    mismatch(what, data, policy if isinstance(policy, Policy) else STRICT, **sides)


def _check_scan_head(args: tuple[object, ...], data: bytes, case: Case) -> None:
    compiled = outcome(_speedups.scan_head, *args)
    with python_twins():
        python = outcome(_clean.py_scan_head, *args)
    same = compiled == python
    if same and isinstance(compiled[1], tuple) and isinstance(python[1], tuple):
        same = all(a is b for a, b in zip(compiled[1], python[1], strict=True))
    if not same:
        _fail("scan_head != py_scan_head", data, case, args=args, c=compiled, py=python)


def _check_unquote(raw: bytes, data: bytes, case: Case) -> None:
    python = py_strict_unquote(raw)
    for given in (raw, Bytes(raw)):
        compiled = _speedups.strict_unquote(given)
        if compiled != python or type(compiled) is not type(python):
            _fail("strict_unquote != py", data, case, raw=given, c=compiled, py=python)


def _check_environ(data: bytes, case: Case) -> None:
    compiled = _speedups.environ_parts(case.environ)
    if compiled is None:
        if not left_to_python(case.environ):
            _fail("environ_parts gave up", data, case, environ=case.environ)
        return
    python = py_environ_parts(case.environ)  # type: ignore[arg-type]  # str keys
    if left_to_python(case.environ) or compiled != python:
        _fail("environ_parts != py", data, case, environ=case.environ, c=compiled,
              py=python)  # fmt: skip
    _check_scan_head((*compiled, *case.args[4:]), data, case)


def _check_wsgi_plan(data: bytes, case: Case) -> None:
    path_policy, policy, header_policy, lookalike = case.args[4:]
    if not (
        isinstance(path_policy, Policy)
        and isinstance(policy, Policy)
        and isinstance(header_policy, Policy)
    ):
        return
    # A body limit and bodiless by the input's length.
    lane = Lane(path_policy, policy, header_policy, bool(lookalike),
                len(data) % 7 * 3, {b"application/json": True})  # fmt: skip
    bodiless = len(data) % 2 == 0
    expected = outcome(py_environ_parts, case.environ)
    if expected[0] == "returned":
        expected = outcome(py_head_plan, lane, *expected[1], bodiless)  # type: ignore[misc]
    fused = outcome(py_wsgi_plan, lane, case.environ, bodiless)
    if fused != expected and not (
        fused == ("returned", None) and _fused_may_decline(case.environ)
    ):
        _fail("py_wsgi_plan != py_head_plan(*py_environ_parts)", data, case,
              environ=case.environ, fused=fused, composed=expected)  # fmt: skip


def _fused_may_decline(environ: Mapping[object, object]) -> bool:
    """Whether a header value is no exact str of code points up to U+00FF."""
    return any(
        type(value) is not str or not _is_latin1(value)
        for key, value in environ.items()
        if isinstance(key, str) and (key[:5] == "HTTP_" or key in _CGI_KEYS.values())
    )


def check(data: bytes) -> None:
    """Fail with AssertionError when a C function and its reference disagree, or
    the pure WSGI lane and the composition it replaces."""
    case = parse(data)
    _check_wsgi_plan(data, case)
    if _speedups is None:  # pragma: no cover - the extension is not built
        return
    _check_scan_head(case.args, data, case)
    for item in (case.args[0], case.args[2], *_values(case.args[3])):
        if type(item) is bytes:
            _check_unquote(item, data, case)
    _check_environ(data, case)


def _values(headers: object) -> Iterator[object]:
    if isinstance(headers, list | tuple):
        for item in headers:
            if isinstance(item, tuple | list) and item:
                yield item[-1]


TestOneInput = check


def main() -> None:  # pragma: no cover - runs under atheris only
    if _speedups is None:
        print("fuzz_fastlane: utf8guard._speedups is not built: nothing to compare")
        return
    run_atheris(check)


if __name__ == "__main__":  # pragma: no cover
    main()
