"""docs/kinds/index.md lists every request kind the guard can report, and no other."""

from __future__ import annotations

import re
from pathlib import Path

from utf8guard.middleware import RequestKind

KINDS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "kinds" / "index.md"


def test_kinds_page_lists_every_request_kind() -> None:
    text = KINDS_PAGE.read_text(encoding="utf-8")
    block = text.split("<!-- request-kinds:begin")[1].split("<!-- request-kinds:end")[0]
    listed = re.findall(r"`([a-z0-9_]+)`", block)
    assert sorted(listed) == sorted(kind.value for kind in RequestKind)
    assert len(listed) == len(set(listed))
