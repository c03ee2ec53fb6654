"""One ``multipart/form-data`` part's header block: a refusal, or its content's check.

RFC 7578 §4: each part has a Content-Disposition ``form-data`` with a ``name`` and,
for a file, a ``filename``; optionally a Content-Type (default text/plain, §4.4).
The names are judged in :mod:`._multipart_names`.
"""

from __future__ import annotations

from ..._lazy_pattern import IGNORECASE, lazy_pattern
from ..._memo import memoize, remember
from ..._policy import Policy
from ..._scan import find_violation, is_valid
from ..._violation import Kind
from ..engine._finding import (
    MAX_SAFE_NAME_BYTES,
    Finding,
    Location,
    RequestKind,
    safe_name,
)
from ..head._abnf import PARAMETER, TOKEN
from ._json import JsonInspector, is_plain_json
from ._mediatype import (
    FORM_MEDIA_TYPES,
    UTF8_CHARSETS,
    has_parameter_escape,
    media_kind,
    parse_media_type,
)
from ._multipart_names import filename_refusal, name_refusal
from ._text import TextInspector, body_finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, NamedTuple

    from ._text import BodyInspector
else:
    from ..._named_tuple import NamedTuple

__all__ = [
    "CANONICAL_FIELD_HEAD",
    "PartPlan",
    "PlanRules",
    "content_inspector",
    "content_is_clean",
    "field_plan",
    "part_plan",
    "plan_rules",
]

#: HTML §4.10.21.8: a field of this name holds the form's character encoding (OWASP
#: CRS 922100 limits it to a list; here only UTF-8 and US-ASCII pass).
CHARSET_FIELD: Final = "_charset_"
#: CHARSET_FIELD as a part's name parameter holds it.
_CHARSET_FIELD_BYTES: Final = CHARSET_FIELD.encode()
#: Header blocks up to this size have their verdict cached (see _PLANS).
MAX_CACHED_BLOCK_BYTES: Final = 512
#: Longest charset name worth reading ("UTF-8", "US-ASCII"); a longer value is refused.
MAX_CHARSET_BYTES: Final = 16
#: The part header fields that pass (issue 25's canonical subset): what Chromium,
#: Firefox, curl, requests (urllib3) and httpx send, Content-Disposition and
#: Content-Type, plus Content-Transfer-Encoding from older clients (Apache HttpMime
#: 4.x sends ``binary`` or ``8bit``), whose value is checked in _content_check.
PART_HEADERS: Final = frozenset(
    {"content-disposition", "content-type", "content-transfer-encoding"}
)
#: The header block and empty line of a text field, byte for byte as Chromium,
#: Firefox, curl, requests and httpx send it, with a name that ``safe_name`` keeps
#: whole (its character class and length) other than ``_charset_``. Every rule of
#: :func:`_plan` passes such a block, so its plan is :func:`field_plan` of the name;
#: any other spelling (case, spaces, a token name, a filename, more fields) takes
#: the full path. ``tests/middleware/test_multipart_canonical.py`` holds the two to
#: the same verdicts.
CANONICAL_FIELD_HEAD: Final = lazy_pattern(
    rb'Content-Disposition: form-data; name="(?!_charset_")'
    rb'([A-Za-z0-9._\-\[\]]{1,%d})"\r\n\r\n' % MAX_SAFE_NAME_BYTES
)
#: RFC 9110 §5.5: field-value = *( VCHAR / obs-text / SP / HTAB ); CR and LF are
#: the framing's (bare ones are refused there).
_HEADER_CONTROL: Final = lazy_pattern(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: RFC 7578 §4.2: each part's disposition type is form-data.
_FORM_DATA: Final = lazy_pattern(rb"[ \t]*form-data[ \t]*", IGNORECASE)
#: RFC 9110 §5.1, §5.5: a header line's field-name, ":" and OWS.
_FIELD_START: Final = lazy_pattern(b"(" + TOKEN + rb"):[ \t]*")
#: The escape character of a quoted-string (RFC 9110 §5.6.4), as the int that
#: ``in`` looks up with one memchr (see _json.JSON_ESCAPE).
_BACKSLASH: Final = ord("\\")
# Part parameters by ``_abnf.PARAMETER``, not ``_abnf.parameters``: that one's dict
# would hide a name given twice and undo quoted pairs before they can be checked, and
# it allows space around "=" (Werkzeug reads ``filename ="a"`` as no filename at all,
# python-multipart and Django as "a").


def _header_fields(block: bytes) -> dict[str, tuple[int, bytes]] | Finding:
    """``{lower-case name: (offset, value)}`` of a header block, or a refusal;
    ``offset`` is where the value starts in the block.

    Refused: a folded line, a name that is not a token (RFC 9110 §5.1), a line with
    no colon, and a name given twice.
    """
    fields: dict[str, tuple[int, bytes]] = {}
    offset = 0
    for line in block.split(b"\r\n") if block else ():
        match = _FIELD_START.match(line)
        if match is None:
            return body_finding(_line_refusal(line), offset)
        name = match[1].lower().decode("ascii")
        if name in fields:
            return body_finding(RequestKind.MULTIPART_DUPLICATE_HEADER, offset)
        start = match.end()
        # RFC 9110 §5.5: OWS around a field value is SP or HTAB.
        fields[name] = (offset + start, line[start:].rstrip(b" \t"))
        offset += len(line) + 2
    return fields


def _line_refusal(line: bytes) -> RequestKind:
    """Why a header line does not start with ``field-name ":"``."""
    if line.startswith((b" ", b"\t")):
        return RequestKind.MULTIPART_FOLDED_HEADER
    if b":" not in line:
        return RequestKind.MALFORMED_MULTIPART
    return RequestKind.INVALID_HEADER_NAME


class PartPlan(NamedTuple):
    """What a part's content gets."""

    #: its check: "text", "json", or CHARSET_FIELD (text, then the charset rule)
    check: str
    #: the part's field name, as findings name it
    name: str | None


class PlanRules:
    """What a header block is judged by (two policies, and whether upload names get
    the Windows rules), as one cache key.

    Hashed by identity (one per pair of policies, from :func:`plan_rules`): a frozen
    dataclass computes its hash anew on each call, so a key of two Policy objects
    had every part's cached lookup hash both.
    """

    __slots__ = ("path_policy", "policy", "windows_names")

    def __init__(
        self, policy: Policy, path_policy: Policy, windows_names: bool = False
    ) -> None:
        self.policy = policy
        self.path_policy = path_policy
        self.windows_names = windows_names


#: The PlanRules of each set of rules; an evicted one only costs its blocks' cached
#: verdicts.
plan_rules: Final = memoize(16)(PlanRules)


def part_plan(block: bytes, base: int, rules: PlanRules) -> PartPlan | Finding | None:
    """What a part's content gets, from its header block at offset ``base``; or the
    refusal of its headers. None: the content passes unchecked.

    Form fields (parts without ``filename``) are checked as text, or as JSON when so
    typed; a file's content is bytes, never checked.
    """
    if len(block) > MAX_CACHED_BLOCK_BYTES:
        plan = _plan(block, rules)
    else:
        try:  # the memo read inline: every part asks it (utf8guard._memo)
            plan = _PLANS[block, rules]
        except KeyError:
            plan = remember(_PLANS, (block, rules), _plan(block, rules), 256)
    if isinstance(plan, Finding):
        return plan.replace(offset=base + plan.offset)
    return plan


def field_plan(name: bytes) -> PartPlan:
    """The plan of a text field named ``name`` (see CANONICAL_FIELD_HEAD)."""
    return PartPlan("text", name.decode("ascii"))


def content_inspector(plan: PartPlan, start: int, policy: Policy) -> BodyInspector:
    """The streaming check of a part's content, which starts at offset ``start``."""
    check, name = plan
    inspector: BodyInspector
    if check == "json":
        inspector = JsonInspector(policy, base=start, name=name, fixable=False)
    else:
        inspector = TextInspector(policy, base=start, name=name, fixable=False)
    if check == CHARSET_FIELD:
        return _CharsetField(inspector, start)
    return inspector


def content_is_clean(plan: PartPlan, content: bytes, policy: Policy) -> bool:
    """True when a part's whole content passes its check in one call; False decides
    nothing (:func:`content_inspector` finds what is wrong, if anything)."""
    if plan.check == "text":
        return is_valid(content, policy)
    # The _charset_ field's rule is its inspector's alone.
    return plan.check == "json" and is_plain_json(content, policy)


def _plan(block: bytes, rules: PlanRules) -> PartPlan | Finding | None:
    """What a header block's part gets (see :func:`part_plan`), or a refusal at an
    offset in the block."""
    policy = rules.policy
    found = None if is_valid(block, policy) else find_violation(block, policy)
    if found is not None:
        return Finding(Location.BODY, None, found.kind, found.start)
    # RFC 9110 §5.5: no controls but HTAB in a field value, whatever the policy
    # allows elsewhere: parsers strip and split on them differently.
    control = _HEADER_CONTROL.search(block)
    if control is not None:
        kind = Kind.NUL if control.group() == b"\x00" else Kind.CONTROL
        return Finding(Location.BODY, None, kind, control.start())
    fields = _header_fields(block)
    if isinstance(fields, Finding):
        return fields
    other = next(
        (at for name, (at, _) in fields.items() if name not in PART_HEADERS), None
    )
    if other is not None:
        # The offset of the field's value; its name starts its line.
        line = block.rfind(b"\r\n", 0, other) + 2
        return body_finding(RequestKind.MULTIPART_UNEXPECTED_HEADER, line)
    at, disposition = fields.get("content-disposition", (0, b""))
    params = _disposition(disposition, at)
    if isinstance(params, Finding):
        return params
    name = safe_name(params["name"][1]) if "name" in params else None
    refusal = name_refusal(params, policy) or filename_refusal(
        params, rules.path_policy, windows=rules.windows_names
    )
    if refusal is not None:
        return Finding(Location.BODY, name, *refusal)
    # RFC 7578 §4.2: every part has a name. Starlette refuses a part without one,
    # Werkzeug keeps it under None (or its name*), Django drops it.
    if not params.get("name", (0, b""))[1]:
        return Finding(Location.BODY, None, RequestKind.MALFORMED_MULTIPART, at)
    check = _content_check(fields, params)
    if isinstance(check, RequestKind):
        return Finding(Location.BODY, name, check, 0)
    return None if check is None else PartPlan(check, name)


def _content_check(
    fields: dict[str, tuple[int, bytes]], params: dict[str, tuple[int, bytes]]
) -> str | RequestKind | None:
    """How a part's content is checked (see _plan), or the refusal of its headers."""
    # RFC 7578 §4.7: Content-Transfer-Encoding is deprecated; a base64 or
    # quoted-printable part would hide its bytes from the check. Fail closed
    # (OWASP CRS 922120).
    _, coding = fields.get("content-transfer-encoding", (0, b"binary"))
    if coding.lower() not in (b"7bit", b"8bit", b"binary"):
        return RequestKind.UNSUPPORTED_CONTENT_ENCODING
    # Issue 26: a part with a filename is a file to every parser, whatever its
    # Content-Type says or whether it has one (requests sends none, httpx labels
    # x.txt.gz text/plain): Starlette, Werkzeug and Django hand its bytes over
    # undecoded, so they are not read as text; only its name is checked. Only a
    # plain, non-empty filename makes a file to every parser: python-multipart
    # ignores filename*, and Django reads a part with filename="" as a field.
    if params.get("filename", (0, b""))[1]:
        return None if "content-type" not in fields else _file_type_check(fields)
    # RFC 7578 §4.4: a part without a Content-Type is text/plain.
    content: str | RequestKind | None = "text"
    if "content-type" in fields:
        content = _media_check(fields["content-type"][1])
        if isinstance(content, RequestKind):
            return content
    # F8: a part without a filename is a form field, which frameworks decode as text
    # whatever its type says (Starlette even falls back to Latin-1).
    if params.get("name", (0, b""))[1] == _CHARSET_FIELD_BYTES:
        return CHARSET_FIELD
    return "json" if content == "json" else "text"


def _file_type_check(fields: dict[str, tuple[int, bytes]]) -> RequestKind | None:
    """A file part's Content-Type: only its refusal (see _media_check) counts, as
    no framework reads the file's bytes by it."""
    content = _media_check(fields["content-type"][1])
    return content if isinstance(content, RequestKind) else None


def _media_check(content_type: bytes) -> str | RequestKind | None:
    """A part's Content-Type: its media kind (see media_kind), or its refusal."""
    parsed = parse_media_type(content_type)
    if parsed is None:
        return RequestKind.MALFORMED_MULTIPART
    if has_parameter_escape(content_type):
        return RequestKind.PARAMETER_ESCAPE
    media_type, type_params = parsed
    # Issue 25 R9, R10: a nested form or multipart is parsed by Falcon, never here.
    if media_type in FORM_MEDIA_TYPES or media_type.startswith("multipart/"):
        return RequestKind.MULTIPART_NESTED_BODY
    if "*" in media_type:
        return RequestKind.MULTIPART_NESTED_BODY
    # Issue 11: one charset. Any part may declare one (RFC 7578 §4.4), in plain or
    # RFC 2231 form; only UTF-8 and US-ASCII pass (stricter than OWASP CRS 922110).
    charset = type_params.get("charset", "utf-8").lower()
    if charset not in UTF8_CHARSETS or "charset*" in type_params:
        return RequestKind.UNSUPPORTED_CHARSET
    return media_kind(media_type)


#: Tiny parts repeat the same header block; its verdict is computed once. Blocks and
#: entries are bounded (at most 256 x 512 bytes held), and a cached Finding is only
#: a template: its offset is relative to the block.
_PLANS: Final[dict[tuple[bytes, PlanRules], PartPlan | Finding | None]] = {}


class _CharsetField:
    """The ``_charset_`` field (HTML §4.10.21.8): the form's encoding, which must be
    UTF-8 or US-ASCII. Its bytes are held until the verdict: a value longer than any
    such name is refused at once, so at most MAX_CHARSET_BYTES are."""

    def __init__(self, text: BodyInspector, start: int) -> None:
        self._text = text
        self._start = start
        self._value = b""
        self._decided = False

    @property
    def checked(self) -> int:
        return self._start

    def feed(self, chunk: bytes) -> list[Finding]:
        findings = self._text.feed(chunk)
        if self._decided:
            return findings
        self._value += chunk[: MAX_CHARSET_BYTES + 1 - len(self._value)]
        if findings or len(self._value) > MAX_CHARSET_BYTES:
            return self._decide(findings)
        return findings

    def finish(self) -> list[Finding]:
        findings = self._text.finish()
        return findings if self._decided else self._decide(findings)

    def _decide(self, findings: list[Finding]) -> list[Finding]:
        """The charset's finding, at the value's start, then its text findings.

        The same however the value arrives: it is decided on all of it, on its first
        MAX_CHARSET_BYTES + 1 bytes, or on its bytes up to a text finding, which is
        a byte no charset name holds, so each of those names no charset the whole
        value would not (and a value with a text finding never names one)."""
        self._decided = True
        charset = self._value.decode("latin-1").lower()
        if charset not in UTF8_CHARSETS:
            kind = RequestKind.UNSUPPORTED_CHARSET
            findings.insert(0, Finding(Location.BODY, CHARSET_FIELD, kind, self._start))
        return findings


def _disposition(value: bytes, at: int) -> dict[str, tuple[int, bytes]] | Finding:
    """The parameters of a ``form-data`` disposition at offset ``at``, or a refusal.

    Returns ``{lower-case name: (offset, value)}``, quotes removed. Refused: another
    disposition type; a malformed parameter; an RFC 2231 continuation; a name twice,
    or both plain and extended (``filename`` and ``filename*``); a backslash in a
    quoted value.
    """
    head = _FORM_DATA.match(value)
    if head is None:
        return body_finding(RequestKind.MALFORMED_MULTIPART, at)
    params: dict[str, tuple[int, bytes]] = {}
    pos = head.end()
    while pos < len(value):
        match = PARAMETER.match(value, pos)
        if match is None:
            return body_finding(RequestKind.MALFORMED_MULTIPART, at + pos)
        token, quoted, raw = match.groups()
        name = token.decode("ascii").lower()
        where = at + match.start(1)
        plain = name.removesuffix("*")
        if "*" in plain:
            # RFC 2231 §3: name*0, name*1* ... joined by Werkzeug and Django only.
            return body_finding(RequestKind.MULTIPART_PARAMETER_CONTINUATION, where)
        if quoted is not None:
            raw = quoted
        # A name twice, or plain and extended: each parser keeps another one.
        # Quoted pairs: RFC 9110 §5.6.4 undoes any, the parsers only \\ and \".
        twice = name in params or (plain + "*" if plain == name else plain) in params
        if twice or _BACKSLASH in raw:
            return body_finding(RequestKind.MULTIPART_AMBIGUOUS_PARAMETER, where)
        params[name] = (where, raw)
        pos = match.end()
    return params
