"""Griffe extension: the docstrings' reStructuredText habits, read as Markdown.

The docstrings are written for ``help()`` and doctest: examples are bare ``>>>``
blocks and references are Sphinx roles (``:func:`~utf8guard.decode```). Here each
example becomes a fenced ``pycon`` block and each role a cross-reference, so that the
API reference renders them (and a bare example's ``[...]`` is not read as a link).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

#: Middleware modules whose docstrings name the package's public names bare.
_ADAPTERS = {"asgi", "wsgi"}
#: The middleware's private subpackages (docs/architecture.md): the names their
#: modules define are public as ``utf8guard.middleware``'s.
_LAYERS = {"adapter", "engine", "head", "body"}
_ROLE = re.compile(r":(?:func|class|data|meth|attr|mod|exc|obj):`(~?)([\w.]+)`")


def fence_examples(text: str) -> str:
    """Wrap each run of lines from a ``>>>`` line to the next blank line in a fence."""
    out: list[str] = []
    fenced = False
    for line in text.splitlines():
        if not fenced and line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            fenced = True
        elif fenced and not line.strip():
            out.append(f"{indent}```")
            fenced = False
        out.append(line)
    if fenced:
        out.append(f"{indent}```")
    return "\n".join(out)


def markdown(text: str, package: str) -> str:
    """A docstring's examples fenced and its Sphinx roles made cross-references.

    A role's bare name (``:class:`Violation```) is one of ``package``'s public names,
    as the docstrings use them.
    """

    def reference(match: re.Match[str]) -> str:
        short, target = match[1], match[2]
        shown = target.rsplit(".", 1)[-1] if short else target
        full = target if "." in target else f"{package}.{target}"
        return f"[`{shown}`][{full}]"

    return _ROLE.sub(reference, fence_examples(text))


class RstToMarkdown(griffe.Extension):
    """Rewrite every loaded docstring with :func:`markdown`."""

    def on_object(self, *, obj: griffe.Object, **_: Any) -> None:
        if obj.docstring is not None:
            package = obj.path if obj.is_module else obj.module.path
            obj.docstring.value = markdown(obj.docstring.value, _public(package))


def _public(module: str) -> str:
    # utf8guard._violation -> utf8guard; utf8guard.middleware.asgi -> ...middleware;
    # utf8guard.middleware.engine._config -> utf8guard.middleware
    parts = module.split(".")
    while len(parts) > 1 and (
        parts[-1].startswith("_") or parts[-1] in _ADAPTERS or parts[-1] in _LAYERS
    ):
        parts.pop()
    return ".".join(parts)
