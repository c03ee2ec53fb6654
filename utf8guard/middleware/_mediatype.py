"""Media types: parse a Content-Type value and say which inspector its body gets."""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from ._abnf import MEDIA_TYPE, parameters

__all__ = ["UTF8_CHARSETS", "media_kind", "parse_media_type"]

#: Charsets whose bytes are UTF-8 (US-ASCII is a subset); RFC 8259 §8.1 for JSON.
UTF8_CHARSETS: Final = frozenset({"utf-8", "utf8", "us-ascii", "ascii"})


@lru_cache(maxsize=256)
def parse_media_type(value: bytes) -> tuple[str, dict[str, str]] | None:
    """``(type/subtype, parameters)``, names in lower case; None if malformed.

    Cached, as a few Content-Type values recur on every request: treat the result as
    read-only.

    >>> parse_media_type(b'Text/Plain; charset="UTF-8"')
    ('text/plain', {'charset': 'UTF-8'})
    """
    match = MEDIA_TYPE.match(value)
    params = None if match is None else parameters(value, match.end())
    if match is None or params is None:
        return None
    decoded = {name: raw.decode("latin-1") for name, raw in params.items()}
    return match.group(1).decode("ascii").lower(), decoded


def media_kind(media_type: str) -> str | None:
    """Which inspector a media type gets: json, text, form, multipart or None."""
    main, _, sub = media_type.partition("/")
    if media_type == "application/json" or sub.endswith("+json"):
        return "json"
    if main == "text":
        return "text"
    if media_type == "application/x-www-form-urlencoded":
        return "form"
    if media_type == "multipart/form-data":
        return "multipart"
    return None
