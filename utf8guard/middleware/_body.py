"""Which inspector a body gets, from its Content-Type and Content-Encoding headers."""

from __future__ import annotations

from collections.abc import Iterable

from ._config import GuardConfig
from ._finding import Finding, RequestKind
from ._form import FormInspector
from ._json import JsonInspector
from ._mediatype import UTF8_CHARSETS, media_kind, parse_media_type
from ._multipart import MAX_BOUNDARY_BYTES, MultipartInspector
from ._text import BodyInspector, TextInspector, body_finding

__all__ = ["body_inspector"]


def body_inspector(
    headers: Iterable[tuple[bytes, bytes]], config: GuardConfig
) -> BodyInspector | Finding | None:
    """The inspector for a body with these headers, a refusal, or None to pass it on.

    Binary media types, and bodies without a Content-Type (RFC 9110 §8.3: the
    recipient may treat them as application/octet-stream), pass on uninspected.
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
    if not types:
        return None
    parsed = parse_media_type(types[0])
    if parsed is None:
        return body_finding(RequestKind.UNSUPPORTED_CHARSET)
    media_type, params = parsed
    inspector = _inspector_for(media_type, params, config, 0)
    if inspector is None or isinstance(inspector, Finding):
        return inspector
    if codings and codings[0].strip().lower() not in (b"", b"identity"):
        return body_finding(RequestKind.UNSUPPORTED_CONTENT_ENCODING)
    return inspector


def _inspector_for(
    media_type: str, params: dict[str, str], config: GuardConfig, base: int
) -> BodyInspector | Finding | None:
    kind = media_kind(media_type)
    if kind is None:
        return None
    if params.get("charset", "utf-8").lower() not in UTF8_CHARSETS:
        return body_finding(RequestKind.UNSUPPORTED_CHARSET, base)
    if kind == "json":
        return JsonInspector(config.policy, base=base)
    if kind == "text":
        return TextInspector(config.policy, base=base)
    if kind == "form":
        return FormInspector(config.policy)
    boundary = params.get("boundary", "").encode("latin-1")
    if not 1 <= len(boundary) <= MAX_BOUNDARY_BYTES:
        return body_finding(RequestKind.MALFORMED_MULTIPART)
    return MultipartInspector(boundary, config)
