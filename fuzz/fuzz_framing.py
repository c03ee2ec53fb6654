"""Fuzz issue 25's canonical subset: a Content-Type the guard accepts reads alike.

Invariant: when the guard accepts a request's Content-Type (``inspector_for`` gives
an inspector, not a refusal), Django's ``parse_header_parameters``, Werkzeug's
``parse_options_header`` and ``email.message`` (the reading of ``cgi`` and
python-multipart's ``email.utils``) find the same media type and the same
``charset`` and ``boundary`` as the guard's ``parse_media_type``; a multipart type's
boundary, when it has one, is RFC 2046
``bchars``. When the guard accepts a part's header block
(``part_plan`` gives no refusal), ``email.parser`` finds only the header fields of
the subset, each once, and the part's Content-Type holds the same invariant.

Input layout: byte 0 bit 0 picks the target (0: a request Content-Type, 1: a part
header block, its lines joined by CRLF); the rest is the value, decoded as Latin-1
(one code point per byte, as servers hand header values over).
"""

from __future__ import annotations

import importlib
import re
import sys
from email.message import Message
from email.parser import BytesHeaderParser
from typing import Final

from utf8guard.middleware import GuardConfig
from utf8guard.middleware.body._body import inspector_for
from utf8guard.middleware.body._mediatype import parse_media_type
from utf8guard.middleware.body._multipart_part import part_plan, plan_rules
from utf8guard.middleware.engine._finding import Finding

__all__ = ["MAX_LEN", "TestOneInput", "check", "main"]

#: libFuzzer -max_len: a long Content-Type or a small header block.
MAX_LEN: Final = 512
_CONFIG: Final = GuardConfig()
_RULES: Final = plan_rules(_CONFIG.policy, _CONFIG.effective_path_policy)
#: RFC 2046 §5.1.1 bchars, the last not a space (stated here, not imported).
_BCHARS: Final = re.compile(r"[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]")
#: The part header fields of the subset (SECURITY.md).
_PART_FIELDS: Final = frozenset(
    {"content-disposition", "content-type", "content-transfer-encoding"}
)
_COMPARED: Final = ("charset", "boundary")
_CONTROL: Final = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")


def _fail(what: str, data: bytes, **sides: object) -> None:
    lines = [what, f"  input ({len(data)} bytes): {data.hex(' ')}"]
    lines += (f"  {name}: {value!r}" for name, value in sides.items())
    raise AssertionError("\n".join(lines))


def _readings(value: str) -> dict[str, tuple[str, dict[str, str]]]:
    """The media type and compared parameters as each other parser reads them."""
    # Imported here, after atheris instruments the loaded modules: the oracles'
    # coverage is not the fuzzer's aim, and instrumenting Django takes a minute.
    from django.utils.http import parse_header_parameters
    from werkzeug.http import parse_options_header

    message = Message()
    message["Content-Type"] = value
    email = message.get_params() or [("", "")]
    readings = {
        "email": (email[0][0].lower(), dict(email[1:])),
        "werkzeug": parse_options_header(value),
        "django": parse_header_parameters(value),
    }
    return {
        name: (media.lower(), {k: params[k] for k in _COMPARED if k in params})
        for name, (media, params) in readings.items()
    }


def _check_content_type(data: bytes, value: bytes) -> None:
    # RFC 9110 §5.5: a field value has no control but HTAB and no OWS at its ends
    # (servers refuse the one and strip the other before any parser runs).
    value = value.strip(b" \t")
    if _CONTROL.search(value) or isinstance(inspector_for(value, _CONFIG), Finding):
        return
    parsed = parse_media_type(value)
    if parsed is None:
        _fail("accepted a Content-Type it cannot parse", data)
        return
    media, params = parsed
    guard = (media, {k: params[k] for k in _COMPARED if k in params})
    for name, reading in _readings(value.decode("latin-1")).items():
        if reading != guard:
            _fail(
                f"{name} reads an accepted Content-Type otherwise",
                data,
                guard=guard,
                **{name: reading},
            )
    boundary = params.get("boundary")
    # Without a boundary no parser reads a multipart body (the guard refuses
    # multipart/form-data so; other subtypes pass as binary).
    if media.startswith("multipart/") and boundary is not None:
        if not _BCHARS.fullmatch(boundary):
            _fail("accepted a boundary outside bchars", data, boundary=boundary)


def _check_part(data: bytes, block: bytes) -> None:
    if b"\n" in block.replace(b"\r\n", b"") or b"\r" in block.replace(b"\r\n", b""):
        return  # bare line breaks are the framing's (MultipartInspector refuses them)
    plan = part_plan(block, 0, _RULES)
    if isinstance(plan, Finding):
        return
    headers = BytesHeaderParser().parsebytes(block + b"\r\n\r\n")
    names = [name.lower() for name in headers.keys()]
    if len(names) != len(set(names)) or not set(names) <= _PART_FIELDS:
        _fail("accepted a part header outside the subset", data, fields=names)
    for line in block.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-type":
            _check_content_type(data, value.strip(b" \t"))


def check(data: bytes) -> None:
    """Raise AssertionError if the guard accepts framing two parsers read apart."""
    if not data:
        return
    if data[0] & 1:
        _check_part(data, data[1:])
    else:
        _check_content_type(data, data[1:])


TestOneInput = check


def main() -> None:  # pragma: no cover - runs only under atheris
    # Imported here so the corpus replays without atheris, and through importlib
    # because atheris ships no type information.
    atheris = importlib.import_module("atheris")
    atheris.instrument_all()
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":  # pragma: no cover
    main()
