"""Finding (one refusal in a request) and the request-level kinds; data only."""

from __future__ import annotations

from ..._constant import Constant
from ..._lazy_pattern import lazy_pattern
from ..._pathrules import PathKind
from ..._record import Record
from ..._violation import Kind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Literal

    #: What the guard did about a request's findings (report mode lets it through).
    Action = Literal["blocked", "normalized", "reported"]
    #: Where a request came from: an ASGI scope type, or a WSGI environ.
    ScopeType = Literal["http", "websocket", "wsgi"]
else:
    # Without typing at run time, typing.get_type_hints() of ViolationEvent and
    # RequestSummary reads these as str (their values are strs); type checkers read
    # the Literals above.
    Action = ScopeType = str

__all__ = [
    "MAX_SAFE_NAME_BYTES",
    "Finding",
    "Location",
    "RequestKind",
    "RequestSummary",
    "ViolationEvent",
    "safe_name",
    "title",
]


class Location(str, Constant):
    """Which part of the request a finding is in."""

    PATH = "path"
    QUERY = "query"
    HEADER = "header"
    BODY = "body"

    def __str__(self) -> str:
        return self.value


class RequestKind(str, Constant):
    """Refusals beyond UTF-8 itself; each names the attack or defect it stops."""

    #: ``%`` not followed by two hex digits (``%G0``, a trailing ``%``); RFC 3986 §2.1
    MALFORMED_ESCAPE = "malformed_escape"
    #: ``%uXXXX``, IIS's non-standard escape, which no RFC defines
    NONSTANDARD_ESCAPE = "nonstandard_escape"
    #: an escape that a second decode would see: ``%25`` followed by two hex digits,
    #: each of the three possibly escaped itself (``%25C0%25AF``, ``%252e``,
    #: ``%25%32%65``, ``%%32%65``); a later layer's decode would turn it into a
    #: byte the guard never checked. Any such escape in a path; in a query or form
    #: name or value, those whose second decode is not valid text
    DOUBLE_ENCODING = "double_encoding"
    #: ``%2F`` or ``%5C`` in a path: a separator hidden from routing and filters
    ENCODED_SEPARATOR = "encoded_separator"
    #: a ``.`` or ``..`` segment that exists only after percent-decoding (``%2e%2e/``)
    ENCODED_DOT_SEGMENT = "encoded_dot_segment"
    #: a code point whose NFKC form contains ``/``, ``\\`` or ``.`` (U+FF0F, U+2215,
    #: U+2024, U+2025 ...): it becomes a separator or dot segment after normalisation
    LOOKALIKE_SEPARATOR = "lookalike_separator"
    #: a header name that is not an RFC 9110 §5.1 token
    INVALID_HEADER_NAME = "invalid_header_name"
    #: a declared charset other than UTF-8 or US-ASCII (UTF-7, UTF-16 ...)
    UNSUPPORTED_CHARSET = "unsupported_charset"
    #: a second Content-Type or Content-Encoding field (RFC 9110 §5.3: singletons whose
    #: duplicates two parsers may resolve differently)
    DUPLICATE_HEADER = "duplicate_header"
    #: a Content-Encoding other than identity, gzip, deflate or br (br with the
    #: ``brotli`` extra only) on a body the guard must inspect, a list of codings, or
    #: a multipart part with a Content-Transfer-Encoding such as base64
    UNSUPPORTED_CONTENT_ENCODING = "unsupported_content_encoding"
    #: a gzip, deflate or br body that does not decode, ends early, or has bytes
    #: after its end (RFC 1950, RFC 1952, RFC 7932): each decoder would stop at
    #: another byte
    MALFORMED_CONTENT_ENCODING = "malformed_content_encoding"
    #: a backslash or ``%`` anywhere in a Content-Type, of the request or of a
    #: multipart part (issue 25 R0, R00): RFC 9110 §5.6.4 reads ``"x\\\\"`` as ``x\\``,
    #: ``email.message``, ``cgi`` and Django as an escaped quote that runs on into
    #: the next parameters (``charset=utf-7``); Werkzeug, Sanic and Litestar
    #: percent-decode values (``boundary=Xy%22Z`` is ``Xy"Z``). No client sends either
    PARAMETER_ESCAPE = "parameter_escape"
    #: a JSON ``\\u`` escape of a lone surrogate (RFC 8259 §8.2)
    JSON_SURROGATE_ESCAPE = "json_surrogate_escape"
    #: a JSON ``\\u`` escape not followed by four hex digits (RFC 8259 §7)
    MALFORMED_JSON_ESCAPE = "malformed_json_escape"
    #: a multipart body the guard cannot parse (no boundary, unterminated, oversize
    #: part headers); RFC 2046 §5.1.1, RFC 7578
    MALFORMED_MULTIPART = "malformed_multipart"
    # request head (issue 11)
    #: a ``.`` or ``..`` segment that RFC 3986 §5.2.4 keeps but another parser drops:
    #: delimited by ``\\`` (a separator to Windows and to the WHATWG URL parser), by
    #: an encoded separator, or carrying a ``;`` path parameter (Tomcat, Jetty and
    #: Spring strip it, so ``/..;/`` is ``..`` to them)
    AMBIGUOUS_DOT_SEGMENT = "ambiguous_dot_segment"
    #: a byte over 0x7F, unescaped, in the request target's path or query (RFC 9112
    #: §3.2, RFC 3986 §2: the target is ASCII); servers disagree on what it means
    NON_ASCII_TARGET = "non_ascii_target"
    #: a run of octal escapes above ``\\177`` in a Cookie value whose bytes a lax
    #: UTF-8 decoder reads as an overlong, surrogate or out-of-range form
    #: (``"\\300\\257"``, ``/`` to it): ``http.cookies`` (Starlette, Django) reads
    #: code points, Werkzeug U+FFFD, and no framework writes it
    COOKIE_OCTAL_ESCAPE = "cookie_octal_escape"
    # bodies (issue 11)
    #: a JSON body that JSON parsers read as UTF-16 or UTF-32 (a byte order mark, or
    #: the NUL pattern of RFC 4627 §3 that ``json.loads(bytes)`` detects), whose
    #: escapes and characters a UTF-8 check never sees; RFC 8259 §8.1 requires UTF-8
    NON_UTF8_JSON = "non_utf8_json"
    #: a Content-Type parameter in RFC 2231 extended or continuation form
    #: (``charset*=``, ``boundary*0=``) or given twice, or a second ``_charset_``
    #: form field: parsers that know RFC 2231 and parsers that don't, or that keep
    #: the first or the last, read different values
    AMBIGUOUS_PARAMETER = "ambiguous_parameter"
    #: two Content-Length fields, one that is not a single decimal number, or
    #: Content-Length with Transfer-Encoding (RFC 9112 §6.3: request smuggling)
    AMBIGUOUS_FRAMING = "ambiguous_framing"
    #: the server failed to deliver the body (``wsgi.input`` raised ``OSError``: a
    #: malformed chunked encoding, a client that left); PEP 3333
    UNREADABLE_BODY = "unreadable_body"
    # multipart (issue 11): each is read differently by two mainstream parsers
    # (python-multipart under Starlette/FastAPI, Werkzeug, Django), so content one of
    # them sees could pass the guard unread. ModSecurity's MULTIPART_STRICT_ERROR
    # flags are the anchor; these are stricter and named.
    #: bytes before the first delimiter other than one CRLF (RFC 2046 §5.1.1 allows a
    #: preamble; no client sends one): python-multipart skips everything after a
    #: leading CR/LF up to the first ``-``, so ``\nJUNK--XyZ`` opens a part there,
    #: and Django finds ``--XyZ`` anywhere (ModSecurity MULTIPART_DATA_BEFORE)
    MULTIPART_PREAMBLE = "multipart_preamble"
    #: ``--boundary`` that is not a whole delimiter line ``CRLF --boundary (CRLF |
    #: --)``: ``x--XyZ`` in a part, ``--XyZ`` right after the header block or inside
    #: it, ``--XyZx``. Django splits at every ``--boundary``, python-multipart and
    #: Werkzeug only at delimiter lines, so each sees other parts (RFC 2046 §5.1.1:
    #: the boundary must not occur in the content; ModSecurity
    #: MULTIPART_UNMATCHED_BOUNDARY). Transport padding (``--XyZ \r\n``) is
    #: refused too: RFC 2046 allows it, no client sends it, parsers tolerate it
    #: unevenly
    MULTIPART_BOUNDARY_IN_PART = "multipart_boundary_in_part"
    #: a CR or LF alone in a delimiter line or a part's header block (``\n--XyZ``,
    #: ``name: v\n``): Werkzeug accepts LF and CR line breaks, python-multipart only
    #: CRLF (RFC 2046 §5.1.1 and RFC 5322 §2.2 require CRLF; ModSecurity
    #: MULTIPART_LF_LINE, MULTIPART_CRLF_LF_LINES)
    MULTIPART_BARE_LINE_BREAK = "multipart_bare_line_break"
    #: anything after the close delimiter but one CRLF: Django reads parts there,
    #: the others ignore them (ModSecurity MULTIPART_DATA_AFTER)
    MULTIPART_EPILOGUE = "multipart_epilogue"
    #: a part header field given twice (two Content-Disposition lines): Werkzeug
    #: reads the first, python-multipart and Django the last (RFC 7578 §4.8 allows
    #: one of each; ModSecurity MULTIPART_DUPLICATE_PART_HEADER)
    MULTIPART_DUPLICATE_HEADER = "multipart_duplicate_header"
    #: a part header line that starts with SP or HTAB (obs-fold, RFC 9112 §5.2):
    #: Werkzeug joins it to the line before, python-multipart and Django do not
    #: (ModSecurity MULTIPART_HEADER_FOLDING, MULTIPART_INVALID_HEADER_FOLDING)
    MULTIPART_FOLDED_HEADER = "multipart_folded_header"
    #: an RFC 2231 §3 continuation in a part's disposition (``name*0``,
    #: ``filename*1*``): Werkzeug and Django join the pieces, python-multipart drops
    #: them (RFC 7578 §4.2 forbids them), so ``filename*0="shell.php";
    #: filename*1*=utf-8''%00.jpg`` names another file for each (no ModSecurity flag)
    MULTIPART_PARAMETER_CONTINUATION = "multipart_parameter_continuation"
    #: a disposition parameter given twice, or both plain and extended (``filename``
    #: and ``filename*``), or a quoted value with a backslash: python-multipart
    #: ignores extended parameters, Werkzeug and Django let the later one win, and
    #: RFC 9110 §5.6.4 undoes quoted pairs the parsers keep (``"..\\x"``;
    #: ModSecurity MULTIPART_INVALID_QUOTING, CRS 920120)
    MULTIPART_AMBIGUOUS_PARAMETER = "multipart_ambiguous_parameter"
    #: more parts than ``max_multipart_parts`` (default 1000): each part costs every
    #: parser a fixed amount, so a body of tiny parts costs many times its size in
    #: text. The frameworks count them too (Werkzeug's ``max_form_parts``,
    #: CVE-2023-25577; Starlette's ``max_fields``; Django's
    #: ``DATA_UPLOAD_MAX_NUMBER_FIELDS``: 1000 each); refused at the delimiter that
    #: opens the first part too many
    MULTIPART_TOO_MANY_PARTS = "multipart_too_many_parts"
    # multipart (issue 25): the canonical subset that every stack reads alike
    #: a boundary with a byte outside RFC 2046 §5.1.1 ``bchars`` (``"``, ``\\``,
    #: ``;``, ``%``, controls) or ending in a space (``"XyZ "``): parsers strip,
    #: unquote or decode it differently, and Bottle and WebOb answer 500 (R4, R11)
    MULTIPART_INVALID_BOUNDARY = "multipart_invalid_boundary"
    #: a part header other than Content-Disposition, Content-Type and
    #: Content-Transfer-Encoding, the ones browsers, curl, requests and httpx send
    #: (RFC 7578 §4.8: other fields MUST be ignored): ``cgi`` (WebOb) frames a part by
    #: its Content-Length, and ``Content-Length: x`` is a 500 there (R11)
    MULTIPART_UNEXPECTED_HEADER = "multipart_unexpected_header"
    #: a part typed as a form or multipart (``application/x-www-form-urlencoded``,
    #: ``multipart/mixed``, a wildcard type): Falcon parses it as a nested form, whose
    #: fields and files the guard does not read (R9, R10; RFC 7578 §4.3 deprecates
    #: ``multipart/mixed`` parts)
    MULTIPART_NESTED_BODY = "multipart_nested_body"

    def __str__(self) -> str:
        return self.value


#: Issue 26: a problem title per family of kinds (RFC 9457 §3.1.3: the title names
#: the problem type; "not valid UTF-8" only for ill-formed UTF-8 itself). Kinds not
#: listed here are the ill-formed ones of Table 3-7.
_FAMILIES: Final[tuple[tuple[str, frozenset[str]], ...]] = (
    (
        "Request holds characters the server refuses",
        frozenset(
            {"noncharacter", "nul", "control", "bidi_control", "private_use", "bom"}
        ),
    ),
    ("Unsafe file name", frozenset(PathKind) - frozenset(Kind)),
    (
        "Ambiguous request framing",
        frozenset(
            {
                "ambiguous_framing",
                "duplicate_header",
                "unreadable_body",
                "malformed_multipart",
                "ambiguous_parameter",
                "parameter_escape",
                "invalid_header_name",
                *(kind for kind in RequestKind if kind.startswith("multipart_")),
            }
        ),
    ),
    (
        "Unsupported encoding",
        frozenset(
            {
                "unsupported_charset",
                "non_utf8_json",
                "unsupported_content_encoding",
                "malformed_content_encoding",
            }
        ),
    ),
    (
        "Ambiguous escape or path",
        frozenset(
            {
                "malformed_escape",
                "nonstandard_escape",
                "double_encoding",
                "encoded_separator",
                "encoded_dot_segment",
                "ambiguous_dot_segment",
                "lookalike_separator",
                "non_ascii_target",
                "cookie_octal_escape",
                "json_surrogate_escape",
                "malformed_json_escape",
            }
        ),
    ),
)
#: The title of ill-formed UTF-8 (and of a refusal that lists no finding).
INVALID_UTF8_TITLE: Final = "Request is not valid UTF-8"


def title(kind: Kind | RequestKind | PathKind | None) -> str:
    """The problem title of a refusal whose first finding is of ``kind``."""
    for name, kinds in _FAMILIES:
        if kind in kinds:
            return name
    return INVALID_UTF8_TITLE


#: The longest name shown in reports and logs.
MAX_SAFE_NAME_BYTES: Final = 64
#: Names shown in reports and logs: short and harmless, so a log line or problem
#: document can never carry attacker-chosen bytes.
_SAFE_NAME: Final = lazy_pattern(rb"[A-Za-z0-9._\-\[\]]{1,%d}" % MAX_SAFE_NAME_BYTES)


def safe_name(raw: bytes) -> str | None:
    """``raw`` as text if it is a short name of harmless ASCII, else None."""
    if _SAFE_NAME.fullmatch(raw):
        return raw.decode("ascii")
    return None


class Finding(Record):
    """One refusal: where it is, under which name, what it is, and its byte offset.

    ``offset`` counts bytes from the start of the raw component: the request target's
    path, the raw query string, the header value, or the body stream (before any
    percent-decoding). ``name`` is the query or form field, header, or multipart part
    name when that name is short harmless ASCII, else None. ``kind`` is a
    :class:`~utf8guard.paths.PathKind` for an unsafe multipart filename.
    ``fixable`` is True when normalize mode can replace the bytes with U+FFFD
    instead of blocking.
    """

    location: Location
    name: str | None
    kind: Kind | RequestKind | PathKind
    offset: int
    fixable: bool = False


class RequestSummary(Record, kw_only=True):
    """Who sent a request and to where, safe to log: every field is escaped ASCII.

    ``method`` and ``path`` are the request method and the path as the client sent
    it (the raw target's path where the server gives it; never the query, which may
    hold secrets), with each byte outside printable ASCII, and ``\\``, written as
    ``\\xNN`` and long values cut with ``...``. ``client`` is ``"host:port"`` as the
    server reports the peer (None if unknown). ``request_id`` is the value of the
    configured ``request_id_header``, escaped the same way (None if absent).
    ``scope_type`` is the ASGI scope type (``"http"``, ``"websocket"``) or ``"wsgi"``.
    """

    method: str = ""
    path: str = ""
    client: str | None = None
    request_id: str | None = None
    scope_type: ScopeType = "http"


class ViolationEvent(Record):
    """What ``on_violation`` receives: one per reported request, never request bytes.

    ``findings`` are the request's findings (head and body, at most ``MAX_FINDINGS``);
    ``finding`` is the first of them, kept for code written against one event per
    finding. ``action`` is ``"blocked"``, ``"normalized"`` or ``"reported"`` (report
    mode lets the request through unchanged). ``scope_type`` is the ASGI scope type
    (``"http"`` or ``"websocket"``), or ``"wsgi"``. ``request`` says who sent it and
    to where (see :class:`RequestSummary`).
    """

    finding: Finding
    action: Action
    scope_type: ScopeType
    request: RequestSummary = RequestSummary()
    findings: tuple[Finding, ...] = ()
