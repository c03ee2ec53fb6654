"""One ``multipart/form-data`` part's header block: a refusal, or its content's check.

RFC 7578 §4: each part has a Content-Disposition ``form-data`` with a ``name`` and,
for a file, a ``filename``; optionally a Content-Type (default text/plain, §4.4).
"""

from __future__ import annotations

import re
from typing import Final

from .._policy import Policy
from .._scan import find_violation
from .._violation import Kind
from ._abnf import TOKEN, parameters
from ._config import GuardConfig
from ._finding import Finding, Location, RequestKind, safe_name
from ._json import JsonInspector
from ._mediatype import UTF8_CHARSETS, media_kind, parse_media_type
from ._percent import percent_decode
from ._text import BodyInspector, TextInspector, body_finding

__all__ = ["part_inspector"]

#: RFC 9110 §5.1: field-name = token.
_FIELD_NAME: Final = re.compile(TOKEN)


def _header_fields(block: bytes, base: int) -> dict[str, bytes] | Finding:
    """``{lower-case name: value}`` of a header block at offset ``base``, or a refusal.

    Refused: a folded line, a name that is not a token (RFC 9110 §5.1), a line with
    no colon, and a name given twice.
    """
    fields: dict[str, bytes] = {}
    offset = base
    for line in block.split(b"\r\n") if block else ():
        field, colon, value = line.partition(b":")
        if line.startswith((b" ", b"\t")):
            return body_finding(RequestKind.MULTIPART_FOLDED_HEADER, offset)
        if not colon:
            return body_finding(RequestKind.MALFORMED_MULTIPART, offset)
        if _FIELD_NAME.fullmatch(field) is None:
            return body_finding(RequestKind.INVALID_HEADER_NAME, offset)
        name = field.lower().decode("ascii")
        if name in fields:
            return body_finding(RequestKind.MULTIPART_DUPLICATE_HEADER, offset)
        fields[name] = value.strip()
        offset += len(line) + 2
    return fields


def part_inspector(
    block: bytes, base: int, body_start: int, config: GuardConfig
) -> BodyInspector | Finding | None:
    """The inspector for a part's content, from its header block at offset ``base``."""
    found = find_violation(block, config.policy)
    if found is not None:
        return Finding(Location.BODY, None, found.kind, base + found.start)
    fields = _header_fields(block, base)
    if isinstance(fields, Finding):
        return fields
    disposition = fields.get("content-disposition", b"")
    head = re.match(rb"\s*form-data\s*", disposition, re.IGNORECASE)
    params = parameters(disposition, head.end()) if head is not None else None
    if params is None:
        return body_finding(RequestKind.MALFORMED_MULTIPART, base)
    name = safe_name(params.get("name", b""))
    refusal = _filename_refusal(params, config.effective_path_policy)
    if refusal is not None:
        refused, parameter = refusal
        offset = base + max(block.find(parameter), 0)
        return Finding(Location.BODY, name, refused, offset)
    # RFC 7578 §4.7: Content-Transfer-Encoding is deprecated; a base64 or
    # quoted-printable part would hide its bytes from the check. Fail closed.
    coding = fields.get("content-transfer-encoding", b"binary").lower()
    if coding not in (b"7bit", b"8bit", b"binary"):
        kind = RequestKind.UNSUPPORTED_CONTENT_ENCODING
        return Finding(Location.BODY, name, kind, base)
    parsed = parse_media_type(fields.get("content-type", b"text/plain"))
    if parsed is None:
        return body_finding(RequestKind.MALFORMED_MULTIPART, base)
    media_type, type_params = parsed
    content = media_kind(media_type)
    if content not in ("text", "json"):
        return None
    if type_params.get("charset", "utf-8").lower() not in UTF8_CHARSETS:
        return Finding(Location.BODY, name, RequestKind.UNSUPPORTED_CHARSET, base)
    if content == "json":
        return JsonInspector(config.policy, base=body_start, name=name, fixable=False)
    return TextInspector(config.policy, base=body_start, name=name, fixable=False)


def _filename_refusal(
    params: dict[str, bytes], policy: Policy
) -> tuple[Kind | RequestKind, bytes] | None:
    """The first refusal in ``filename`` or ``filename*``, and that parameter's name.

    Findings point at the parameter, not into its value: the value may be quoted or
    percent-encoded, and the parameter is what a reader looks for.
    """
    plain = params.get("filename")
    if plain is not None:
        found = find_violation(plain, policy)
        if found is not None:
            return found.kind, b"filename="
    extended = params.get("filename*")
    if extended is None:
        return None
    # RFC 8187 §3.2.1: ext-value = charset "'" [ language ] "'" value-chars
    charset, _, rest = extended.partition(b"'")
    _, quote, value = rest.partition(b"'")
    if not quote or charset.lower() not in (b"utf-8", b"us-ascii"):
        return RequestKind.UNSUPPORTED_CHARSET, b"filename*"
    decoded = percent_decode(value)
    if decoded.errors:
        return decoded.errors[0][0], b"filename*"
    found = find_violation(decoded.data, policy)
    if found is not None:
        return found.kind, b"filename*"
    return None
