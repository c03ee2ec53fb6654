"""MkDocs hooks: one page per refusal kind, each opening with the kind's definition.

Every value of ``utf8guard.Kind``, ``utf8guard.middleware.RequestKind`` and
``utf8guard.paths.PathKind`` (the kinds of an unsafe multipart filename) must have a
page ``docs/kinds/<value>.md`` and every such page must name a kind, or the build
fails: the problem document's ``type`` links to these pages. The definition shown on
each page is the ``#:`` comment above the enum member in the source, so the rule
keeps one home.
"""

from __future__ import annotations

import enum
import inspect
import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from utf8guard import Kind
from utf8guard.middleware import RequestKind
from utf8guard.paths import PathKind

KINDS_DIR = "kinds"
#: The line on a kind's page that the hook replaces with the kind's definition.
DEFINITION = "<!-- definition -->"
_MEMBER = re.compile(r"^\s*([A-Z][A-Z0-9_]*) = \"([a-z0-9_]+)\"$")
_COMMENT = re.compile(r"^\s*#: ?(.*)$")
#: A kind's line in docs/kinds/index.md: ``- [`overlong`](overlong.md)``.
_INDEX_LINE = re.compile(r"^- \[`([a-z0-9_]+)`\]\(\1\.md\)$", re.MULTILINE)


def definitions(kind_enum: type[enum.Enum]) -> dict[str, str]:
    """Each member's value mapped to its ``#:`` comment, as Markdown."""
    found: dict[str, str] = {}
    comment: list[str] = []
    for line in inspect.getsource(kind_enum).splitlines():
        if match := _COMMENT.match(line):
            comment.append(match[1])
        elif match := _MEMBER.match(line):
            found[match[2]] = _markdown(" ".join(comment))
            comment = []
        else:
            comment = []
    return found


def _markdown(rst: str) -> str:
    # The comments are Sphinx markup: ``code`` with backslashes escaped.
    return rst.replace("``", "`").replace("\\\\", "\\")


def all_definitions() -> dict[str, str]:
    """Every refusal kind of the core, the middleware and the paths, defined.

    ``PathKind`` restates ``Kind``'s members first; those keep ``Kind``'s definition.
    """
    core = definitions(Kind)
    paths = {k: v for k, v in definitions(PathKind).items() if k not in core}
    return core | definitions(RequestKind) | paths


def kind_pages(docs_dir: Path) -> set[str]:
    """The kinds that have a page under ``docs/kinds``."""
    return {page.stem for page in (docs_dir / KINDS_DIR).glob("*.md")} - {"index"}


def on_config(config: MkDocsConfig, **_: Any) -> MkDocsConfig:
    """Fail on a kind without a page or a page without a kind; list them in the nav."""
    kinds = all_definitions()
    if set(kinds) != {member.value for member in [*Kind, *RequestKind, *PathKind]}:
        raise PluginError(f"a kind without a #: definition: {sorted(kinds)}")
    pages = kind_pages(Path(config.docs_dir))
    if missing := sorted(set(kinds) - pages):
        raise PluginError(f"refusal kinds without a page in docs/kinds: {missing}")
    if stray := sorted(pages - set(kinds)):
        raise PluginError(f"pages in docs/kinds that name no refusal kind: {stray}")
    entries = [f"{KINDS_DIR}/index.md"] + [
        {kind: f"{KINDS_DIR}/{kind}.md"} for kind in kinds
    ]
    for index, item in enumerate(config.nav or []):
        if item == {"Refusal kinds": f"{KINDS_DIR}/index.md"}:
            config.nav[index] = {"Refusal kinds": entries}  # type: ignore[index]
    return config


def on_page_markdown(markdown: str, page: Page, files: Files, **_: Any) -> str:
    """Each kind's definition on its page and after its line in the index."""
    path = Path(page.file.src_uri)
    if path.parent.name != KINDS_DIR:
        return markdown
    kinds = all_definitions()
    if path.stem == "index":
        return _INDEX_LINE.sub(lambda m: f"{m[0]}: {kinds[m[1]]}", markdown)
    if markdown.count(DEFINITION) != 1:
        raise PluginError(f"{page.file.src_uri}: needs one line {DEFINITION}")
    definition = kinds[path.stem]
    return markdown.replace(DEFINITION, definition[:1].upper() + definition[1:] + ".")
