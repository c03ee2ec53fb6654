"""The hot loop of a multipart body of many small text fields (issue 28).

:class:`._multipart.MultipartInspector` takes a part in several steps; a body of
tens of thousands of tiny fields pays those steps' constant per part. This pass
goes over the fields whole in the buffer that the steps would pass anyway, in one
loop with its names in locals, and leaves every other part to the steps.
"""

from __future__ import annotations

from ..._policy import Policy
from ..._scan import is_valid
from ._multipart_part import CANONICAL_FIELD_HEAD

__all__ = ["whole_fields"]


def whole_fields(
    buf: bytes, pos: int, dash: bytes, head: bytes, policy: Policy, room: int
) -> tuple[int, int]:
    """Pass at most ``room`` text fields from the delimiter ``dash`` at
    ``buf[pos]`` on, while the parser's steps would pass each with no finding: its
    header block is ``head`` (the last accepted one, of a text field; or b"") or a
    canonical one, and its content is whole and valid under ``policy``.

    Returns the index of the delimiter of the first part not passed, and how many
    were passed. At that part (another header block, a content with a finding or
    not yet whole, the part over the limit) the steps take over.
    """
    boundary = dash[2:]
    match = CANONICAL_FIELD_HEAD.match
    # RFC 2046 §5.1.1: a content ends at CRLF "--" boundary, and CRLF after that
    # opens the next part.
    between = b"\r\n" + dash + b"\r\n"
    passed = 0
    opens = buf.startswith(between[2:], pos)
    start = pos + len(between) - 2  # the header block, if a part opens
    while opens and passed < room:
        if head and buf.startswith(head, start):
            content = start + len(head)
        else:
            field = match(buf, start)
            if field is None:
                break
            content = field.end()
        # Found from the header block's start: the boundary is in neither.
        end = buf.find(boundary, start) - 4
        if end < content:
            break
        opens = buf.startswith(between, end)
        if not opens and not buf.startswith(b"\r\n--", end):
            break
        if not is_valid(buf[content:end], policy):
            break
        pos, passed = end + 2, passed + 1
        start = end + len(between)
    return pos, passed
