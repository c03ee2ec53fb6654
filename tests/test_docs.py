"""The README and the documentation site: examples run, links resolve, kinds have pages.

The site itself is built strictly by ``make docs`` (mkdocs.yml); these tests hold what
the pages say to the code: every doctest runs as written, every refusal kind has a
page whose example request the guard refuses with that kind, and every link the
README gives (relative, or into the hosted site) lands on a file or page that exists.
"""

from __future__ import annotations

import asyncio
import doctest
import json
import re
from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from mkdocs.exceptions import PluginError

from docs import _griffe, _hooks
from utf8guard import Kind, Policy
from utf8guard._record import fields
from utf8guard.middleware import GuardConfig, RequestKind, Utf8GuardMiddleware
from utf8guard.paths import PathKind

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
SITE = "https://utf8guard.readthedocs.io/en/stable/"
ALL_KINDS = sorted({kind.value for kind in [*Kind, *RequestKind, *PathKind]})
# Pages with runnable examples; each example runs as written.
DOCTEST_PAGES = sorted(
    path for path in [README, *DOCS.rglob("*.md")] if ">>> " in path.read_text("utf-8")
)


def run_doctests(path: Path) -> doctest.TestResults:
    parser = doctest.DocTestParser()
    # A code fence ends an example's expected output, as a blank line would.
    fence = re.compile(r"^```.*$", re.MULTILINE)
    text = fence.sub("", path.read_text(encoding="utf-8"))
    test = parser.get_doctest(text, {}, path.name, str(path), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    return runner.summarize(verbose=False)


@pytest.mark.parametrize("path", DOCTEST_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_examples_run_as_written(path: Path) -> None:
    failed, tried = run_doctests(path)
    assert failed == 0
    assert tried > 0


def test_the_api_examples_moved_with_their_pages() -> None:
    # The README's examples went to these pages; none was lost on the way.
    pages = {path.relative_to(ROOT).as_posix() for path in DOCTEST_PAGES}
    assert {"README.md", "docs/core.md", "docs/paths.md"} <= pages
    assert (
        sum(run_doctests(DOCS / name).attempted for name in ("core.md", "paths.md"))
        > 10
    )


# The README's links -------------------------------------------------------------

_LINK = re.compile(r"\]\(([^)\s]+)\)|<(https?://[^>]+)>")


def site_page(url: str) -> Path | None:
    """The page source behind a link into the hosted site, if there is one."""
    path = url.removeprefix(SITE).split("#")[0].strip("/")
    for candidate in (DOCS / f"{path}.md", DOCS / path / "index.md"):
        if candidate.is_file():
            return candidate
    return None


def readme_links() -> list[str]:
    return [a or b for a, b in _LINK.findall(README.read_text("utf-8"))]


def test_readme_links_resolve() -> None:
    links = readme_links()
    assert len(links) > 10
    for link in links:
        if link.startswith(SITE):
            assert site_page(link) is not None, link
        elif not link.startswith(("http://", "https://")):
            assert (ROOT / link.split("#")[0]).is_file(), link


def test_site_page_finds_pages_and_misses_others() -> None:
    assert site_page(f"{SITE}kinds/") == DOCS / "kinds" / "index.md"
    assert site_page(f"{SITE}start/django/#x") == DOCS / "start" / "django.md"
    assert site_page(f"{SITE}no-such-page/") is None


def test_readme_keeps_the_quickstart_commands() -> None:
    text = README.read_text("utf-8")
    quickstart = text.split("## Quickstart")[1].split("\n## ")[0]
    assert re.findall(r"^(make \w+)", quickstart, re.MULTILINE) == [
        "make demo",
        "make test",
    ]


def test_the_configuration_table_has_every_option() -> None:
    text = (DOCS / "configuration.md").read_text("utf-8")
    table = re.findall(r"^\| `([a-z0-9_]+)` \|", text, re.MULTILINE)
    options = [f.name for f in fields(GuardConfig) if f.init]
    assert table == options


# One page per refusal kind ----------------------------------------------------------


def test_every_kind_has_a_page_and_every_page_a_kind() -> None:
    pages = sorted(path.stem for path in (DOCS / "kinds").glob("*.md"))
    assert pages == sorted([*ALL_KINDS, "index"])
    assert sorted(_hooks.kind_pages(DOCS)) == ALL_KINDS


def test_the_kinds_index_links_every_page() -> None:
    text = (DOCS / "kinds" / "index.md").read_text("utf-8")
    assert sorted(re.findall(r"\]\(([a-z0-9_]+)\.md\)", text)) == ALL_KINDS


def test_definitions_are_the_comments_above_the_members() -> None:
    definitions = _hooks.all_definitions()
    assert sorted(definitions) == ALL_KINDS
    assert all(definitions.values())
    assert definitions["nul"] == "U+0000"
    # Sphinx markup becomes Markdown: ``code`` and escaped backslashes.
    assert definitions["json_surrogate_escape"] == (
        "a JSON `\\u` escape of a lone surrogate (RFC 8259 §8.2)"
    )


def test_a_build_without_a_kinds_page_fails(tmp_path: Path) -> None:
    (tmp_path / "kinds").mkdir()
    for kind in ALL_KINDS[1:]:
        (tmp_path / "kinds" / f"{kind}.md").write_text("x")
    config: Any = type("Config", (), {"docs_dir": str(tmp_path), "nav": []})()
    with pytest.raises(PluginError, match=ALL_KINDS[0]):
        _hooks.on_config(config)
    (tmp_path / "kinds" / f"{ALL_KINDS[0]}.md").write_text("x")
    (tmp_path / "kinds" / "not_a_kind.md").write_text("x")
    with pytest.raises(PluginError, match="not_a_kind"):
        _hooks.on_config(config)


def test_the_hook_puts_each_definition_on_its_page_and_in_the_index() -> None:
    def page(uri: str) -> Any:
        return SimpleNamespace(file=SimpleNamespace(src_uri=uri))

    files: Any = None
    marker = f"# `nul`\n\n{_hooks.DEFINITION}\n"
    assert _hooks.on_page_markdown(marker, page("kinds/nul.md"), files) == (
        "# `nul`\n\nU+0000.\n"
    )
    index = "- [`nul`](nul.md)\n- [`bom`](bom.md)\n- [`x`](y.md)\n"
    assert _hooks.on_page_markdown(index, page("kinds/index.md"), files) == (
        "- [`nul`](nul.md): U+0000\n"
        "- [`bom`](bom.md): U+FEFF ZERO WIDTH NO-BREAK SPACE / byte order mark\n"
        "- [`x`](y.md)\n"
    )
    assert _hooks.on_page_markdown(marker, page("core.md"), files) == marker
    with pytest.raises(PluginError, match="needs one line"):
        _hooks.on_page_markdown("# `nul`\n", page("kinds/nul.md"), files)


# Options the guard is built with for a page's example (the page names them).
EXAMPLE_OPTIONS: Mapping[str, Mapping[str, Any]] = {
    "private_use": {"policy": Policy(allow_private_use=False)},
    "bom": {"policy": Policy(allow_bom=False)},
    "multipart_too_many_parts": {"max_multipart_parts": 2},
    # Windows's own name rules apply to uploads only with the option (issue 26).
    **{
        kind: {"windows_upload_names": True}
        for kind in (
            "reserved_name",
            "reserved_character",
            "trailing_dot_or_space",
            "too_long",
        )
    },
}
# Kinds no request shows: the server failing to deliver a body, and path rules that
# only utf8guard.paths applies (shown with a runnable example where one is portable).
PYTHON_EXAMPLE = frozenset({"empty", "not_nfc", "absolute"})
NO_REQUEST = PYTHON_EXAMPLE | {"unreadable_body", "outside_base", "symlink_escape"}
_HTTP = re.compile(r"^```http\n(.*?)\n```$", re.MULTILINE | re.DOTALL)
_BYTE = re.compile(rb"\\x([0-9A-Fa-f]{2})")


def raw(text: str) -> bytes:
    """Page text as bytes, each ``\\xNN`` the byte NN (as the pages say)."""
    return _BYTE.sub(lambda m: bytes([int(m[1], 16)]), text.encode("utf-8"))


def scope_and_body(example: str) -> tuple[dict[str, Any], bytes]:
    """An ASGI scope and body for a page's request: lines end in CRLF on the wire."""
    head, _, body = example.partition("\n\n")
    request_line, *fields = head.split("\n")
    method, target, _ = raw(request_line).split(b" ")
    path, _, query = target.partition(b"?")
    headers = [raw(field).split(b": ", 1) for field in fields]
    if "multipart/" in head:
        body = body.replace("\n", "\r\n")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method.decode("ascii"),
        "scheme": "http",
        "path": path.decode("latin-1"),
        "raw_path": path,
        "query_string": query,
        "root_path": "",
        "headers": [(name.lower(), value) for name, value in headers],
        "client": ("203.0.113.7", 51234),
        "server": ("127.0.0.1", 8000),
    }
    return scope, raw(body)


async def serve(example: str, options: Mapping[str, Any]) -> tuple[int, bytes]:
    scope, body = scope_and_body(example)
    sent: list[Mapping[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Mapping[str, Any]) -> None:
        sent.append(message)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    await Utf8GuardMiddleware(app, **options)(scope, receive, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_each_kind_page_example_is_refused_with_that_kind(kind: str) -> None:
    page = (DOCS / "kinds" / f"{kind}.md").read_text("utf-8")
    assert page.startswith(f"# `{kind}`\n")
    assert page.count(_hooks.DEFINITION) == 1
    examples = _HTTP.findall(page)
    if kind in NO_REQUEST:
        assert examples == []
        if kind in PYTHON_EXAMPLE:
            # test_examples_run_as_written runs it; its output names the kind.
            assert f"['{kind}']" in page.split("```pycon")[1]
        return
    assert len(examples) == 1
    options = EXAMPLE_OPTIONS.get(kind, {})
    for name in options:
        assert f"`{name}=" in page
    status, body = asyncio.run(serve(examples[0], options))
    assert status == 400
    assert kind in [v["kind"] for v in json.loads(body)["violations"]]
    assert "Content-Length" in examples[0] or "\n\n" not in examples[0]


def test_the_getting_started_requests_are_refused_and_passed() -> None:
    # docs/start/*.md: curl's overlong "/" is refused, its valid "café" passes.
    page = (DOCS / "start" / "fastapi.md").read_text("utf-8")
    assert "q=%C0%AF" in page
    assert "q=caf%C3%A9" in page
    get = "GET /search?q={} HTTP/1.1\nHost: 127.0.0.1:8000"
    status, body = asyncio.run(serve(get.format("%C0%AF"), {}))
    assert (status, json.loads(body)["violations"][0]["kind"]) == (400, "overlong")
    assert asyncio.run(serve(get.format("caf%C3%A9"), {})) == (200, b"ok")


# The griffe extension that renders the docstrings -----------------------------------


def test_docstring_examples_are_fenced() -> None:
    text = "Summary.\n\n    >>> f(1)\n    [1]\n\nAfter.\n>>> g()"
    assert _griffe.fence_examples(text) == (
        "Summary.\n\n    ```pycon\n    >>> f(1)\n    [1]\n    ```\n\nAfter.\n"
        "```pycon\n>>> g()\n```"
    )


def test_sphinx_roles_become_cross_references() -> None:
    text = "See :func:`~utf8guard.decode`, :class:`Violation` and :data:`x.Y`."
    assert _griffe.markdown(text, "utf8guard") == (
        "See [`decode`][utf8guard.decode], [`Violation`][utf8guard.Violation] and"
        " [`x.Y`][x.Y]."
    )


@pytest.mark.parametrize(
    ("module", "public"),
    [
        ("utf8guard._violation", "utf8guard"),
        ("utf8guard.paths", "utf8guard.paths"),
        ("utf8guard.middleware.asgi", "utf8guard.middleware"),
        ("utf8guard.middleware._private", "utf8guard.middleware"),
        ("utf8guard.middleware.engine._config", "utf8guard.middleware"),
        ("utf8guard.middleware.django", "utf8guard.middleware.django"),
    ],
)
def test_bare_names_resolve_where_they_are_public(module: str, public: str) -> None:
    # GuardConfig is defined in a private module, documented as utf8guard.middleware's
    assert _griffe._public(module) == public


# The getting-started pages' apps, run as written ------------------------------------


def first_python_block(page: str) -> str:
    text = (DOCS / "start" / page).read_text("utf-8")
    return text.split("```python\n", 1)[1].split("\n```", 1)[0]


def app_from(page: str) -> Any:
    namespace: dict[str, Any] = {"__name__": "getting_started"}
    exec(first_python_block(page), namespace)  # noqa: S102  # the page's own code
    return namespace["app"]


@pytest.mark.parametrize("page", ["fastapi.md", "starlette.md"])
def test_the_asgi_getting_started_apps_refuse_and_pass(page: str) -> None:
    from starlette.testclient import TestClient

    with TestClient(app_from(page)) as client:
        refused = client.get("/search?q=%C0%AF")
        passed = client.get("/search?q=caf%C3%A9")
    assert refused.status_code == 400
    assert refused.json()["violations"][0]["kind"] == "overlong"
    assert passed.status_code == 200
    assert passed.json() == {"q": "café"}


def test_the_flask_getting_started_app_refuses_and_passes() -> None:
    client = app_from("flask.md").test_client()
    refused = client.get("/search?q=%C0%AF")
    passed = client.get("/search?q=caf%C3%A9")
    assert refused.status_code == 400
    assert refused.get_json()["violations"][0]["kind"] == "overlong"
    assert passed.status_code == 200
    assert passed.get_json() == {"q": "café"}
