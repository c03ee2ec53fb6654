"""Which inspector a body gets, from its Content-Type and Content-Encoding headers."""

from __future__ import annotations

import sys

from ..._memo import remember
from ..engine._config import GuardConfig
from ..engine._finding import Finding, RequestKind
from ._form import FormInspector
from ._json import JsonInspector
from ._mediatype import (
    SPACED_EQUALS,
    UTF8_CHARSETS,
    extended_parameter,
    has_parameter_escape,
    is_valid_boundary,
    media_kind,
    parse_media_type,
)
from ._sniff import SniffingInspector
from ._text import body_finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Final

    from ._decompress import DecodingInspector
    from ._multipart import MultipartInspector
    from ._text import BodyInspector

__all__ = ["body_inspector", "body_kind", "decoding_of", "inspector_for", "uploads_of"]

#: The multipart inspector's module, imported by the first multipart body: with
#: what it needs (the path rules, ``html``, ``urllib.parse``) it costs a tenth of
#: the middleware's import time, which most applications' requests never use.
_MULTIPART_MODULE: Final = f"{__package__}._multipart"
#: The decoding inspector's module, imported by the first compressed JSON body:
#: with ``zlib``, about 1% of the middleware's import (issue 28).
_DECOMPRESS_MODULE: Final = f"{__package__}._decompress"

#: Content-Type values whose kind is remembered.
_KINDS_CACHED: Final = 64
#: The memo of _kind: (Content-Type, inspect_all_bodies) -> its answer. Read inline
#: (see utf8guard._memo): every request with a body asks it.
_KINDS: Final[dict[tuple[bytes | None, bool], tuple[str, bytes] | RequestKind]] = {}


def body_inspector(
    headers: Iterable[tuple[bytes, bytes]], config: GuardConfig
) -> BodyInspector | Finding | None:
    """The inspector for a body with these headers, a refusal, or None to pass it on.

    Content-Type does not decide alone, as frameworks parse JSON whatever it says:
    a body with no Content-Type (RFC 9110 §8.3 lets a recipient sniff it) or of a
    ``text/*`` type is checked as UTF-8 text, and as JSON when it starts like JSON;
    a body of any other (binary) type gets the JSON checks when it starts like JSON
    and passes untouched otherwise, or is checked as text with
    ``inspect_all_bodies``. A compressed body of a binary type passes: frameworks do
    not decompress it before parsing. A JSON body in gzip, deflate or br is checked
    decoded (:mod:`._decompress`); other compressed bodies are refused.
    """
    types: list[bytes] = []
    codings: list[bytes] = []
    for name, value in headers:
        lowered = name.lower()
        if lowered == b"content-type":
            types.append(value)
        elif lowered == b"content-encoding":
            codings.append(value)
    if len(types) > 1 or len(codings) > 1:
        return body_finding(RequestKind.DUPLICATE_HEADER)
    inspector = inspector_for(types[0] if types else None, config)
    if isinstance(inspector, Finding):
        return inspector
    if codings and codings[0].strip().lower() not in (b"", b"identity"):
        if isinstance(inspector, SniffingInspector) and inspector.binary:
            return None
        # Issue 26: a JSON body in gzip, deflate or br is checked decoded. Only JSON:
        # frameworks parse a form, multipart or text body's raw bytes whatever its
        # Content-Encoding, and a gzip header's FNAME or a stored block carries any
        # bytes there; raw gzip or zlib bytes are never a JSON text (1f 8b, and a
        # zlib header then deflate blocks), so json.loads of them fails.
        if isinstance(inspector, JsonInspector):
            from ._decompress import decoding_inspector  # see _DECOMPRESS_MODULE

            return decoding_inspector(codings[0], inspector, config.max_body_size)
        return body_finding(RequestKind.UNSUPPORTED_CONTENT_ENCODING)
    return inspector


def body_kind(content_type: bytes | None, config: GuardConfig) -> str | RequestKind:
    """What a body of this Content-Type gets: ``sniff`` (no type, ``text/*``, or any
    type with ``inspect_all_bodies``), ``binary`` (sniffed, passes unless JSON),
    ``json``, ``json+form`` (a JSON type with ``inspect_all_bodies``), ``form``,
    ``multipart``, or the refusal its parameters earn."""
    key = (content_type, config.inspect_all_bodies)
    try:
        kind = _KINDS[key]
    except KeyError:
        kind = remember(_KINDS, key, _kind(*key), _KINDS_CACHED)
    return kind if isinstance(kind, RequestKind) else kind[0]


def _kind(
    content_type: bytes | None, inspect_all: bool
) -> tuple[str, bytes] | RequestKind:
    """:func:`body_kind`, with the multipart boundary (else empty)."""
    # Cached: a few Content-Type values recur on every request. The key is the
    # header's bytes, bounded by the server's header limits; the cache by its size.
    if content_type is None:
        return "sniff", b""
    parsed = parse_media_type(content_type)
    if parsed is None:
        return RequestKind.UNSUPPORTED_CHARSET
    media_type, params = parsed
    refused = extended_parameter(params)
    if refused is not None:
        return refused
    if has_parameter_escape(content_type):
        return RequestKind.PARAMETER_ESCAPE
    if SPACED_EQUALS.search(content_type):
        return RequestKind.AMBIGUOUS_PARAMETER
    # Issue 11 §3: one charset, on every media type. Django decodes request.GET with
    # the charset of any Content-Type (request.encoding), binary or bodiless too:
    # "?x=%2BADw-" is "<" under "application/octet-stream; charset=utf-7".
    if params.get("charset", "utf-8").lower() not in UTF8_CHARSETS:
        return RequestKind.UNSUPPORTED_CHARSET
    kind = media_kind(media_type)
    boundary = params.get("boundary", "").encode("latin-1")
    # RFC 2046 §5.1.1 on every multipart type, read by the guard or not: Bottle
    # reads any multipart/* as form-data (found by fuzz_framing).
    if "boundary" in params and media_type.startswith("multipart/"):
        if not is_valid_boundary(boundary):
            return RequestKind.MULTIPART_INVALID_BOUNDARY
    if kind == "wildcard":
        # Falcon reads a wildcard type with whichever handler matches (issue 25 R1).
        kind = "multipart" if "boundary" in params else "form"
    if inspect_all:
        # Bottle reads every multipart/* body as form-data and every other body
        # as a form, JSON types too (issue 25 R2): the readings no default can
        # give without refusing honest uploads.
        if media_type.startswith("multipart/"):
            kind = "multipart"
        elif kind == "json":
            return "json+form", b""
    if kind is None and not inspect_all:
        return "binary", b""
    if kind is None or kind == "text":
        return "sniff", b""
    if kind == "multipart" and not boundary:
        return RequestKind.MALFORMED_MULTIPART
    if kind == "multipart" and not is_valid_boundary(boundary):
        return RequestKind.MULTIPART_INVALID_BOUNDARY  # a wildcard type's
    return kind, boundary


def inspector_for(
    content_type: bytes | None, config: GuardConfig
) -> BodyInspector | Finding:
    """The inspector for a body of this one Content-Type (None: no such field),
    or the refusal it earns; Content-Encoding aside."""
    key = (content_type, config.inspect_all_bodies)
    try:
        found = _KINDS[key]
    except KeyError:
        found = remember(_KINDS, key, _kind(*key), _KINDS_CACHED)
    if isinstance(found, RequestKind):
        return body_finding(found)
    kind, boundary = found
    if kind == "binary":
        return SniffingInspector(config.policy, binary=True)
    if kind == "sniff":
        # Bottle reads a form from every body that is not multipart, WebOb from a
        # body with no Content-Type (issue 25 R2, R8): its decoded fields too.
        # The text reading first: its findings are the fixable ones (normalize mode).
        text = SniffingInspector(config.policy, binary=False)
        return _Both(text, FormInspector(config.policy, escapes=False))
    if kind == "json":
        return JsonInspector(config.policy)
    if kind == "json+form":
        form = FormInspector(config.policy, escapes=False)
        return _Both(JsonInspector(config.policy), form)
    if kind == "form":
        sniff = SniffingInspector(config.policy, binary=True)
        return _Both(FormInspector(config.policy), sniff)  # form findings first
    from ._multipart import MultipartInspector  # see _MULTIPART_MODULE

    return MultipartInspector(boundary, config)


def uploads_of(inspector: object) -> MultipartInspector | None:
    """``inspector`` if it is a multipart body's (it counts the bytes of uploaded
    files), else None."""
    # Not imported here: no instance exists before the module's import.
    loaded = sys.modules.get(_MULTIPART_MODULE)
    if loaded is None:
        return None
    kind: type[MultipartInspector] = loaded.MultipartInspector
    return inspector if isinstance(inspector, kind) else None


def decoding_of(inspector: object) -> DecodingInspector | None:
    """``inspector`` if it checks a compressed body decoded (it knows when the
    decoded size is too large), else None."""
    loaded = sys.modules.get(_DECOMPRESS_MODULE)  # see uploads_of
    if loaded is None:
        return None
    kind: type[DecodingInspector] = loaded.DecodingInspector
    return inspector if isinstance(inspector, kind) else None


class _Both:
    """A body checked as a form and as JSON or text: each reading a framework has.

    ``request.json()`` (Starlette) and ``json.loads(request.body)`` read a body as
    JSON whatever its Content-Type says (issue 11 F9), the form type included, while
    Werkzeug and Django parse the same body as a form; Bottle and WebOb parse a text
    or untyped body as a form (issue 25).
    """

    def __init__(self, first: BodyInspector, second: BodyInspector) -> None:
        self._first = first
        self._second = second
        self._seen: set[tuple[object, int]] = set()

    @property
    def checked(self) -> int:
        return min(self._first.checked, self._second.checked)

    def feed(self, chunk: bytes) -> list[Finding]:
        return self._new(self._first.feed(chunk) + self._second.feed(chunk))

    def finish(self) -> list[Finding]:
        return self._new(self._first.finish() + self._second.finish())

    def _new(self, findings: list[Finding]) -> list[Finding]:
        """``findings`` less those both readings made (a raw invalid byte is one to
        each); each reading bounds its own, so ``_seen`` stays small."""
        fresh = []
        for finding in findings:
            key = (finding.kind, finding.offset)
            if key not in self._seen:
                self._seen.add(key)
                fresh.append(finding)
        return fresh
