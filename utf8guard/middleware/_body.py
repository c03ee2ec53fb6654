"""Which inspector a body gets, from its Content-Type and Content-Encoding headers."""

from __future__ import annotations

from collections.abc import Iterable

from ._config import GuardConfig
from ._finding import Finding, RequestKind
from ._form import FormInspector
from ._json import JsonInspector
from ._mediatype import UTF8_CHARSETS, extended_parameter, media_kind, parse_media_type
from ._multipart import MAX_BOUNDARY_BYTES, MultipartInspector
from ._sniff import SniffingInspector
from ._text import BodyInspector, body_finding

__all__ = ["body_inspector"]


def body_inspector(
    headers: Iterable[tuple[bytes, bytes]], config: GuardConfig
) -> BodyInspector | Finding | None:
    """The inspector for a body with these headers, a refusal, or None to pass it on.

    Content-Type does not decide alone, as frameworks parse JSON whatever it says:
    a body with no Content-Type (RFC 9110 §8.3 lets a recipient sniff it) or of a
    ``text/*`` type is checked as UTF-8 text, and as JSON when it starts like JSON;
    a body of any other (binary) type gets the JSON checks when it starts like JSON
    and passes untouched otherwise, or is checked as text with
    ``inspect_all_bodies``. A compressed body of a binary type passes: it cannot be
    sniffed, and frameworks do not decompress it before parsing.
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
    inspector = _inspector_for(types[0] if types else None, config)
    if inspector is None or isinstance(inspector, Finding):
        return inspector
    if codings and codings[0].strip().lower() not in (b"", b"identity"):
        binary = isinstance(inspector, SniffingInspector) and inspector.binary
        return (
            None if binary else body_finding(RequestKind.UNSUPPORTED_CONTENT_ENCODING)
        )
    return inspector


def _inspector_for(
    content_type: bytes | None, config: GuardConfig
) -> BodyInspector | Finding | None:
    if content_type is None:
        return SniffingInspector(config.policy, binary=False)
    parsed = parse_media_type(content_type)
    if parsed is None:
        return body_finding(RequestKind.UNSUPPORTED_CHARSET)
    media_type, params = parsed
    refused = extended_parameter(params)
    if refused is not None:
        return body_finding(refused)
    kind = media_kind(media_type)
    if kind is None and not config.inspect_all_bodies:
        # A binary type's charset is ignored: nothing decodes such a body by it.
        return SniffingInspector(config.policy, binary=True)
    if params.get("charset", "utf-8").lower() not in UTF8_CHARSETS:
        return body_finding(RequestKind.UNSUPPORTED_CHARSET)
    if kind is None or kind == "text":
        return SniffingInspector(config.policy, binary=False)
    if kind == "json":
        return JsonInspector(config.policy)
    if kind == "form":
        return FormInspector(config.policy)
    boundary = params.get("boundary", "").encode("latin-1")
    if not 1 <= len(boundary) <= MAX_BOUNDARY_BYTES:
        return body_finding(RequestKind.MALFORMED_MULTIPART)
    return MultipartInspector(boundary, config)
