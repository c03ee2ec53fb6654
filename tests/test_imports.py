"""Issue 28: what importing the package costs stays out of what a common request never
needs, and every public name still imports where it did.

Each check runs in a fresh ``python -S`` (an installed package gets no head start from
the editable install's ``site`` hook), in both builds. The modules listed are imported
at first use instead: a refusal's log record (``logging``), a configuration typo's
suggestion (``difflib``), a WSGI refusal's reason phrase (``http``), a repaired or
malformed escape (``urllib.parse``), ``safe_join`` (``pathlib``), a variation selector
in a name (its table) and a multipart body (its inspector, ``paths`` and ``html``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parents[1]
#: ``dataclasses`` and what it imports (issue 28: a third of the middleware's import).
RECORDS: Final = ("dataclasses", "inspect", "ast", "dis", "tokenize")
#: Modules each import must leave unimported (issue 28: each costs milliseconds).
DEFERRED: Final = {
    # dataclasses (with inspect, ast, dis, tokenize) and typing: the core's records
    # are hand-written slotted classes, its Final annotations for mypy only;
    # warnings only for a kernel name the CPU lacks.
    "utf8guard": (
        "logging",
        "pathlib",
        "urllib.parse",
        "http",
        "difflib",
        "json",
        "dataclasses",
        "inspect",
        "typing",
        "warnings",
    ),
    "utf8guard.middleware": (
        "logging",
        "pathlib",
        "urllib.parse",
        "http",
        "difflib",
        "html",
        "string",
        "utf8guard.paths",
        "utf8guard._variation_bases",
        "utf8guard.middleware.body._multipart",
        # Its records are utf8guard._record's; inspect only at construction.
        *RECORDS,
    ),
    "utf8guard.paths": (
        "pathlib",
        "urllib.parse",
        "utf8guard._variation_bases",
        *RECORDS,
    ),
}
#: Public modules whose ``__all__`` must resolve (the Django adapter needs Django).
PUBLIC: Final = (
    "utf8guard",
    "utf8guard.paths",
    "utf8guard.middleware",
    "utf8guard.middleware.asgi",
    "utf8guard.middleware.wsgi",
)


def _fresh(code: str, *, pure: bool) -> str:
    """Run ``code`` in a fresh ``python -S`` with the repository on the path."""
    env = dict(os.environ, UTF8GUARD_PURE_PYTHON="1" if pure else "0")
    prelude = f"import os, sys; sys.path.insert(0, {str(ROOT)!r})\n"
    done = subprocess.run(  # noqa: S603 - our own interpreter, fixed code
        [sys.executable, "-S", "-c", prelude + code],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    return done.stdout


@pytest.mark.parametrize("pure", [False, True], ids=["c", "pure"])
@pytest.mark.parametrize("module", sorted(DEFERRED))
def test_import_leaves_deferred_modules_unimported(module: str, pure: bool) -> None:
    code = f"import {module}\nprint('\\n'.join(sys.modules))"
    loaded = set(_fresh(code, pure=pure).splitlines())
    assert module in loaded
    assert sorted(loaded & set(DEFERRED[module])) == []


def test_c_build_compiles_no_plan_at_import() -> None:
    # The C build needs no regex at import (issue 28); the pure-Python is_valid,
    # asked for by name, compiles STRICT's plan then and agrees with the standard:
    # U+FDD0 is a noncharacter (Unicode ch. 23.7; its regex gate imports re), U+00E9
    # is not.
    code = (
        "import utf8guard\n"
        "from utf8guard import _scan\n"
        "print(utf8guard.IMPLEMENTATION, 're' in sys.modules)\n"
        "check = _scan.python_is_valid\n"
        "print(check(b'\\xef\\xb7\\x90'), check(b'\\xc3\\xa9'), 're' in sys.modules)\n"
        "print(check is _scan.python_is_valid, hasattr(_scan, 'no_such_name'))\n"
    )
    lines = _fresh(code, pure=False).splitlines()
    if lines[0].startswith("python"):
        pytest.skip("the C extension is not built")
    assert lines == ["c False", "False True True", "True False"]


@pytest.mark.parametrize("pure", [False, True], ids=["c", "pure"])
def test_every_public_name_still_imports(pure: bool) -> None:
    code = (
        "import importlib\n"
        f"for name in {PUBLIC!r}:\n"
        "    module = importlib.import_module(name)\n"
        "    for attr in module.__all__:\n"
        "        getattr(module, attr)\n"
        "    print(name, len(module.__all__))\n"
    )
    lines = _fresh(code, pure=pure).splitlines()
    assert [line.split()[0] for line in lines] == list(PUBLIC)
    assert all(int(line.split()[1]) > 0 for line in lines)


def test_deferred_imports_work_at_first_use() -> None:
    # A multipart body, a WSGI refusal and safe_join in a process that had none yet.
    code = (
        "from utf8guard.middleware.engine._config import GuardConfig\n"
        "from utf8guard.middleware.engine._engine import BodyCheck\n"
        "from utf8guard.middleware.adapter._wsgi_response import send_problem\n"
        "from utf8guard.paths import safe_join\n"
        "check = BodyCheck([(b'content-type', b'multipart/form-data; boundary=B'),"
        " (b'content-length', b'9')], GuardConfig(), 'http')\n"
        "print(check.inspected, 'utf8guard.middleware.body._multipart'"
        " in sys.modules)\n"
        "status = []\n"
        "send_problem(lambda s, h: status.append(s), (451, [], b''))\n"
        "print(status[0])\n"
        "print(safe_join('/srv', 'a/b').as_posix())\n"
    )
    assert _fresh(code, pure=False).splitlines() == [
        "True True",
        "451 Unavailable For Legal Reasons",
        "/srv/a/b",
    ]


#: The package's modules that compile a regular expression when imported: none. Every
#: pattern is a ``lazy_pattern``, compiled at its first use; the lane's triggers too
#: (``_trigger.pattern_of``, issue 28).
COMPILES_AT_IMPORT: Final[frozenset[str]] = frozenset()


@pytest.mark.parametrize("pure", [False, True], ids=["c", "pure"])
def test_middleware_import_compiles_no_pattern_but_the_lanes(pure: bool) -> None:
    # Every regex compile goes through re._compile; its caller's caller is the
    # module that asked. After the import, a first use must show up (the hook works).
    code = (
        "import re\n"
        "compiled = []\n"
        "original = re._compile\n"
        "def recording(pattern, flags):\n"
        "    compiled.append(sys._getframe(2).f_code.co_filename)\n"
        "    return original(pattern, flags)\n"
        "re._compile = recording\n"
        "import utf8guard.middleware\n"
        "def ours():\n"
        f"    names = (os.path.relpath(f, {str(ROOT)!r}) for f in compiled)\n"
        "    return sorted({n for n in names if n.startswith('utf8guard')})\n"
        "print(ours())\n"
        "from utf8guard.middleware.head._abnf import MEDIA_TYPE\n"
        "print(MEDIA_TYPE.match(b'text/plain') is not None, ours())\n"
    )
    at_import, first_use = _fresh(code, pure=pure).splitlines()
    assert set(eval(at_import)) <= COMPILES_AT_IMPORT  # noqa: S307 - our own print
    assert first_use.startswith("True [")
    assert "utf8guard/_lazy_pattern.py" in eval(first_use[5:])  # noqa: S307


@pytest.mark.parametrize("pure", [False, True], ids=["c", "pure"])
def test_body_inspectors_load_with_their_first_body(pure: bool) -> None:
    # Issue 28: json waits for a JSON body's first bytes (or a refusal's problem
    # document), the decoding inspector (with zlib) for a compressed JSON body, the
    # multipart one for a multipart body.
    code = (
        "import utf8guard.middleware\n"
        "from utf8guard.middleware.engine._config import GuardConfig\n"
        "from utf8guard.middleware.engine._engine import BodyCheck\n"
        "LAZY = ('json', 'utf8guard.middleware.body._decompress', 'zlib',"
        " 'utf8guard.middleware.body._multipart')\n"
        "def loaded():\n"
        "    return [name for name in LAZY if name in sys.modules]\n"
        "JSON = (b'content-type', b'application/json')\n"
        "check = BodyCheck([JSON], GuardConfig(), 'http')\n"
        "print(loaded())\n"
        "print(check.feed(b'[\"caf\\\\u00e9\"]', last=True), loaded())\n"
        "for headers in ([JSON, (b'content-encoding', b'gzip')],"
        " [(b'content-type', b'multipart/form-data; boundary=B')]):\n"
        "    check = BodyCheck(headers, GuardConfig(), 'http')\n"
        "    print(check.inspected, loaded())\n"
    )
    assert _fresh(code, pure=pure).splitlines() == [
        "[]",
        "None ['json']",
        "True ['json', 'utf8guard.middleware.body._decompress', 'zlib']",
        "True ['json', 'utf8guard.middleware.body._decompress', 'zlib',"
        " 'utf8guard.middleware.body._multipart']",
    ]


#: What each adapter of ``utf8guard.middleware`` imports that the other does not
#: (issue 28: the package loads an adapter at its first lookup).
ADAPTER_ONLY: Final = {
    "Utf8GuardMiddleware": (
        "utf8guard.middleware.asgi",
        "utf8guard.middleware.adapter._asgi_receive",
        "utf8guard.middleware.adapter._asgi_response",
        "utf8guard.middleware.adapter._asgi_scope",
    ),
    "Utf8GuardWSGIMiddleware": (
        "utf8guard.middleware.wsgi",
        "utf8guard.middleware.adapter._wsgi_environ",
        "utf8guard.middleware.adapter._wsgi_input",
        "utf8guard.middleware.adapter._wsgi_response",
        "utf8guard.middleware.head._wsgi_lane",
    ),
}

#: Modules that no request needs, which ``import utf8guard.middleware`` and the
#: adapters' construction must not import (issue 28: ``typing`` brings ``contextlib``
#: and ``warnings``; ``urllib.parse`` ``ipaddress``).
UNTYPED: Final = ("typing", "contextlib", "warnings", "urllib.parse", "ipaddress")
#: Each statement a cold start runs: the import, and each adapter built.
COLD_STARTS: Final = {
    "import": "import utf8guard.middleware",
    "asgi": (
        "from utf8guard.middleware import Utf8GuardMiddleware\n"
        "async def app(scope, receive, send): pass\n"
        "Utf8GuardMiddleware(app)"
    ),
    "wsgi": (
        "from utf8guard.middleware import Utf8GuardWSGIMiddleware\n"
        "Utf8GuardWSGIMiddleware(lambda environ, start_response: [])"
    ),
}


@pytest.mark.parametrize("pure", [False, True], ids=["c", "pure"])
@pytest.mark.parametrize("name", sorted(ADAPTER_ONLY))
def test_each_adapter_imports_without_the_other(name: str, pure: bool) -> None:
    # The package alone loads neither adapter; one adapter's class loads its own
    # modules and none of the other's, nor Django's.
    (other,) = set(ADAPTER_ONLY) - {name}
    code = (
        "import utf8guard.middleware\n"
        f"print(sorted(m for m in {ADAPTER_ONLY!r}[{name!r}] if m in sys.modules))\n"
        f"from utf8guard.middleware import {name}\n"
        "print('\\n'.join(sys.modules))\n"
    )
    before, *loaded = _fresh(code, pure=pure).splitlines()
    assert before == "[]"
    assert set(ADAPTER_ONLY[name]) <= set(loaded)
    assert set(loaded) & {*ADAPTER_ONLY[other], "utf8guard.middleware.django"} == set()


@pytest.mark.parametrize("pure", [False, True], ids=["c", "pure"])
def test_import_utf8guard_leaves_re_enum_and_collections_unimported(pure: bool) -> None:
    # Issue 28: ``re`` and its compiler were a fifth of the core's import (a plan's
    # patterns compile at their first search, STRICT's in the pure build too); enum
    # with functools and collections a third: the kinds are
    # utf8guard._constant.Constant classes, collections.abc is for mypy.
    # The scanner of the build in use (whose first use may import re, and enum with
    # it) still names the kind: C0 AF is overlong (Unicode ch. 3, Table 3-7).
    code = (
        "import utf8guard\n"
        "loaded = list(sys.modules)\n"
        "found = utf8guard.find_violation(b'/etc\\xc0\\xafpasswd')\n"
        "print(found.kind is utf8guard.Kind.OVERLONG, found.start, found.end)\n"
        "print('\\n'.join(loaded))"
    )
    first, *loaded = _fresh(code, pure=pure).splitlines()
    assert first == "True 4 5"
    assert "utf8guard._constant" in loaded
    unwanted = {"re", "re._compiler", "enum", "functools", "collections", "operator"}
    unwanted.add("collections.abc")
    assert unwanted & set(loaded) == set()


@pytest.mark.parametrize("pure", [False, True], ids=["c", "pure"])
@pytest.mark.parametrize("start", sorted(COLD_STARTS))
def test_cold_start_imports_no_typing(start: str, pure: bool) -> None:
    # Every import statement goes through builtins.__import__: record which of our
    # modules asks for one of UNTYPED. The public Mode, looked up last, must show
    # up (built with typing at its first look-up), or the hook saw nothing. An
    # ASGI app (an async def) and a WSGI app (a def) are recognised without inspect.
    absent = (*UNTYPED, "inspect")
    code = (
        "import builtins\n"
        "asked = set()\n"
        "original = builtins.__import__\n"
        "def recording(name, globals=None, *args):\n"
        f"    if name in {UNTYPED!r} and globals is not None:\n"
        "        asked.add((globals.get('__name__', ''), name))\n"
        "    return original(name, globals, *args)\n"
        "builtins.__import__ = recording\n"
        f"{COLD_STARTS[start]}\n"
        "def ours():\n"
        "    return sorted(a for a in asked if a[0].startswith('utf8guard'))\n"
        f"print((ours(), sorted(set({absent!r}) & set(sys.modules))))\n"
        "from utf8guard.middleware import Mode\n"
        "print(ours())\n"
    )
    at_start, after_mode = _fresh(code, pure=pure).splitlines()
    importers, loaded = eval(at_start)  # noqa: S307 - our own print
    assert importers == []
    assert loaded == []
    assert ("utf8guard.middleware.engine._options", "typing") in eval(after_mode)  # noqa: S307


def test_typing_names_still_import_and_mean_the_same() -> None:
    # The documented values (docs/configuration.md: mode; docs/paths.md: platform)
    # and the adapters' options as PEP 692 reads them, built at their first look-up.
    import collections.abc
    import re
    import typing

    import utf8guard.middleware
    from utf8guard import Policy, _pathrules, paths
    from utf8guard.middleware import GuardOptions, Mode, Refusal, ViolationEvent
    from utf8guard.middleware.engine import _config

    assert (_config.Mode, _config.GuardOptions) == (Mode, GuardOptions)
    assert typing.get_args(Mode) == _config.MODES == ("block", "normalize", "report")
    assert typing.get_origin(Mode) is typing.Literal
    assert typing.is_typeddict(GuardOptions)
    assert not GuardOptions.__total__
    hints = typing.get_type_hints(GuardOptions)
    assert hints["mode"] == Mode
    assert hints["policy"] is Policy
    assert hints["max_upload_size"] == int | None
    assert (
        hints["on_violation"] == collections.abc.Callable[[ViolationEvent], None] | None
    )
    assert hints["on_refuse"] == collections.abc.Callable[[Refusal], Refusal] | None
    assert hints["exclude_paths"] == collections.abc.Collection[str | re.Pattern[str]]
    assert typing.get_args(paths.Platform) == _pathrules.PLATFORMS
    assert _pathrules.PLATFORMS == ("universal", "windows", "posix")
    # The public records' annotations resolve too (type checkers see Literals where
    # run time has str).
    from utf8guard.middleware import Finding, RequestSummary

    for record in (Finding, Refusal, RequestSummary, ViolationEvent):
        assert typing.get_type_hints(record)
    assert typing.get_type_hints(ViolationEvent)["action"] is str
    assert typing.get_type_hints(RequestSummary)["scope_type"] is str
    for module in (utf8guard.middleware, _config, _pathrules):
        with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
            getattr(module, "Nope")  # noqa: B009 - the look-up is the test


#: What ``import utf8guard.middleware`` and the adapters' construction must not
#: import (issue 28: ``re`` brings ``enum``, ``functools``, ``collections`` and
#: ``copyreg``): patterns are built without it and compiled at their first use.
NO_REGEX: Final = ("re", "enum", "copyreg")


@pytest.mark.parametrize("pure", [False, True], ids=["c", "pure"])
def test_middleware_import_and_construction_leave_re_unimported(pure: bool) -> None:
    # A prefix in exclude_paths is told from a pattern without re; once the app has
    # imported re, a compiled pattern is taken (and a bytes one still refused).
    code = (
        "import utf8guard.middleware\n"
        f"print(sorted(set({NO_REGEX!r}) & set(sys.modules)))\n"
        "from utf8guard.middleware import Utf8GuardMiddleware\n"
        "async def app(scope, receive, send): pass\n"
        "Utf8GuardMiddleware(app)\n"
        "Utf8GuardMiddleware(app, exclude_paths=['/health'], mode='report')\n"
        f"print(sorted(set({NO_REGEX!r}) & set(sys.modules)))\n"
        "from utf8guard.middleware import Utf8GuardWSGIMiddleware\n"
        "Utf8GuardWSGIMiddleware(lambda environ, start_response: [])\n"
        f"print(sorted(set({NO_REGEX!r}) & set(sys.modules)))\n"
        "import re\n"
        "Utf8GuardMiddleware(app, exclude_paths=[re.compile('/hooks/[0-9]+')])\n"
        "try:\n"
        "    Utf8GuardMiddleware(app, exclude_paths=[re.compile(b'/x')])\n"
        "except TypeError as error:\n"
        "    print(error)\n"
    )
    assert _fresh(code, pure=pure).splitlines() == [
        "[]",
        "[]",
        "[]",
        "exclude_paths patterns must be str patterns",
    ]


#: What ``functools`` brings (``collections`` with ``keyword``, ``operator``,
#: ``reprlib``): some 11 M instructions of a cold start (issue 28). The middleware's
#: memos are ``utf8guard._memo``'s and ``collections.abc`` is for mypy.
NO_FUNCTOOLS: Final = ("functools", "collections", "collections.abc", "reprlib")
#: A clean GET through the WSGI adapter, as Gunicorn passes it.
WSGI_FIRST_GET: Final = (
    "import io\n"
    "from utf8guard.middleware import Utf8GuardWSGIMiddleware\n"
    "def app(environ, start_response):\n"
    "    start_response('200 OK', [('Content-Type', 'text/plain')])\n"
    "    return [b'app reached']\n"
    "environ = {'RAW_URI': '/api/items?page=2', 'REQUEST_METHOD': 'GET',"
    " 'SCRIPT_NAME': '', 'PATH_INFO': '/api/items', 'QUERY_STRING': 'page=2',"
    " 'SERVER_NAME': '127.0.0.1', 'SERVER_PORT': '8000',"
    " 'SERVER_PROTOCOL': 'HTTP/1.1', 'HTTP_HOST': '127.0.0.1:8000',"
    " 'HTTP_ACCEPT': '*/*', 'HTTP_COOKIE': 'session=abc',"
    " 'wsgi.url_scheme': 'http', 'wsgi.input': io.BytesIO(),"
    " 'wsgi.errors': io.StringIO(), 'wsgi.version': (1, 0),"
    " 'wsgi.multithread': False, 'wsgi.multiprocess': False,"
    " 'wsgi.run_once': False}\n"
    "print(b''.join(Utf8GuardWSGIMiddleware(app)(environ, lambda s, h: None)))\n"
)


#: The same GET through the ASGI adapter, its coroutine driven by hand: asyncio,
#: which a server runs, imports functools and collections itself.
ASGI_FIRST_GET: Final = (
    "from utf8guard.middleware import Utf8GuardMiddleware\n"
    "async def app(scope, receive, send):\n"
    "    print(repr(b'app reached'))\n"
    "async def receive():\n"
    "    return {'type': 'http.request', 'body': b'', 'more_body': False}\n"
    "async def send(message):\n"
    "    pass\n"
    "scope = {'type': 'http', 'asgi': {'version': '3.0'}, 'http_version': '1.1',"
    " 'method': 'GET', 'scheme': 'http', 'path': '/api/items',"
    " 'raw_path': b'/api/items', 'query_string': b'page=2', 'root_path': '',"
    " 'headers': [(b'host', b'127.0.0.1:8000'), (b'accept', b'*/*'),"
    " (b'cookie', b'session=abc')], 'client': ('127.0.0.1', 5000),"
    " 'server': ('127.0.0.1', 8000)}\n"
    "try:\n"
    "    Utf8GuardMiddleware(app)(scope, receive, send).send(None)\n"
    "except StopIteration:\n"
    "    pass\n"
)
COLD_GETS: Final = {
    "import": COLD_STARTS["import"],
    "wsgi-first-get": WSGI_FIRST_GET,
    "asgi-first-get": ASGI_FIRST_GET,
}


@pytest.mark.parametrize("pure", [False, True], ids=["c", "pure"])
@pytest.mark.parametrize("start", sorted(COLD_GETS))
def test_cold_start_leaves_functools_and_collections_unimported(
    start: str, pure: bool
) -> None:
    # The import and each adapter's construction and first clean GET (a cookie too:
    # its policy is memoized); the app's answer shows the request went through.
    code = COLD_GETS[start]
    code += f"\nprint(sorted(set({NO_FUNCTOOLS!r}) & set(sys.modules)))\n"
    lines = _fresh(code, pure=pure).splitlines()
    assert lines[-1] == "[]"
    assert lines[:-1] == ([] if start == "import" else ["b'app reached'"])


#: What a multipart body's inspector and ``utf8guard.paths`` import must leave out
#: (issue 28): their patterns are lazy, html and urllib.parse imported by the rare
#: name that needs them, typing for mypy only.
MULTIPART_DEFERRED: Final = (
    "re",
    "typing",
    "html",
    "urllib.parse",
    *NO_FUNCTOOLS,
)


@pytest.mark.parametrize("pure", [False, True], ids=["c", "pure"])
def test_multipart_modules_and_paths_import_without_re(pure: bool) -> None:
    modules = (
        "utf8guard.middleware.body._multipart",
        "utf8guard.middleware.body._multipart_block",
        "utf8guard.middleware.body._multipart_names",
        "utf8guard.middleware.body._multipart_part",
        "utf8guard.paths",
    )
    code = (
        "import importlib\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(sorted(set({MULTIPART_DEFERRED!r}) & set(sys.modules)))\n"
        "from utf8guard import paths\n"
        "print(paths.Platform.__args__)\n"
    )
    assert _fresh(code, pure=pure).splitlines() == [
        "[]",
        "('universal', 'windows', 'posix')",
    ]


def test_paths_has_no_other_lazy_name() -> None:
    from utf8guard import paths

    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        getattr(paths, "Nope")  # noqa: B009 - the look-up is the test
