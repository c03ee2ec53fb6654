"""Issue 26: configuration mistakes fail where the guard is added, and say how to fix.

Unknown options name the valid ones; each adapter refuses the other kind of app and
names the class to use; the Django setting's errors name the setting, and Django's
system checks (``manage.py check``) report the setting and the guard's place in
``MIDDLEWARE``.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from functools import partial

import pytest
from django.core.checks import Error, Warning
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.wsgi import WSGIHandler
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings
from flask import Flask
from starlette.applications import Starlette
from starlette.testclient import TestClient

from utf8guard.middleware import (
    GuardConfig,
    Utf8GuardMiddleware,
    Utf8GuardWSGIMiddleware,
)
from utf8guard.middleware.adapter._django_checks import check_guard
from utf8guard.middleware.django import Utf8GuardAppConfig

from . import django_site
from .test_adapters import asgi_echo, wsgi_echo

django_site.configure()

DJANGO_CLASS = "utf8guard.middleware.django.Utf8GuardMiddleware"
ASGI_CLASS = "utf8guard.middleware.Utf8GuardMiddleware"
WSGI_CLASS = "utf8guard.middleware.Utf8GuardWSGIMiddleware"
APP_CONFIG = "utf8guard.middleware.django.Utf8GuardAppConfig"


@pytest.mark.parametrize("adapter", [Utf8GuardMiddleware, Utf8GuardWSGIMiddleware])
def test_unknown_option_names_the_right_one(adapter: type) -> None:
    app = asgi_echo if adapter is Utf8GuardMiddleware else wsgi_echo
    with pytest.raises(
        TypeError,
        match=r"unknown option 'mdoe' \(did you mean 'mode'\?\); the options are: "
        r".*max_upload_size",
    ):
        adapter(app, mdoe="report")
    with pytest.raises(TypeError, match=r"unknown option 'zzz'; the options are: "):
        adapter(app, zzz=1)


def test_config_built_at_import_fails_fast() -> None:
    # The documented way to fail at import, before Starlette builds its stack.
    with pytest.raises(TypeError, match="mdoe"):
        GuardConfig(mdoe="report")  # type: ignore[call-arg]  # the mistake
    app = Starlette()
    app.add_middleware(Utf8GuardMiddleware, config=GuardConfig(mode="report"))
    with TestClient(app) as client:
        assert client.get("/").status_code == 404


def test_starlette_add_middleware_raises_the_message_at_startup() -> None:
    app = Starlette()
    app.add_middleware(Utf8GuardMiddleware, mdoe="report")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="did you mean 'mode'"), TestClient(app):
        pass


def test_asgi_class_on_a_wsgi_app_names_the_wsgi_class() -> None:
    flask = Flask(__name__)
    for app in (flask.wsgi_app, flask, wsgi_echo):
        with pytest.raises(TypeError, match=f"not .*: for a WSGI app use {WSGI_CLASS}"):
            Utf8GuardMiddleware(app)  # type: ignore[arg-type]  # the mistake
    # An async callable, through functools.partial too, is an ASGI app.
    assert Utf8GuardMiddleware(partial(asgi_echo)).app is not None


def test_wsgi_class_on_an_asgi_app_names_the_asgi_class() -> None:
    for app in (Starlette(), asgi_echo, partial(asgi_echo)):
        with pytest.raises(TypeError, match=f"not the ASGI app .*: use {ASGI_CLASS}"):
            Utf8GuardWSGIMiddleware(app)  # type: ignore[arg-type]  # the mistake
    starlette = Starlette()
    starlette.add_middleware(Utf8GuardWSGIMiddleware)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=ASGI_CLASS), TestClient(starlette):
        pass
    # A callable whose signature does not say (a builtin) is not refused for it.
    assert Utf8GuardWSGIMiddleware(next).config == GuardConfig()  # type: ignore[arg-type]


@pytest.mark.parametrize("handler", [WSGIHandler, ASGIHandler])
@pytest.mark.parametrize("wrong", [ASGI_CLASS, WSGI_CLASS])
def test_adapters_in_django_middleware_name_the_django_class(
    handler: type, wrong: str
) -> None:
    with (
        override_settings(MIDDLEWARE=[wrong], UTF8GUARD={}),
        pytest.raises(TypeError, match=f"in Django's MIDDLEWARE (use )?{DJANGO_CLASS}"),
    ):
        handler()


def test_django_setting_errors_name_the_setting() -> None:
    with (
        override_settings(UTF8GUARD={"mdoe": "report"}),
        pytest.raises(TypeError, match="UTF8GUARD setting: unknown option 'mdoe'"),
    ):
        WSGIHandler()
    with (
        override_settings(UTF8GUARD={"max_body_size": 0}),
        pytest.raises(ValueError, match="UTF8GUARD setting: max_body_size must be > 0"),
    ):
        WSGIHandler()


@pytest.fixture
def installed() -> Iterator[None]:
    with override_settings(INSTALLED_APPS=[APP_CONFIG]):
        yield


def _check(**overrides: object) -> tuple[str, str]:
    """``manage.py check``: (the SystemCheckError's text or "", the output)."""
    out = io.StringIO()
    with override_settings(**overrides):
        try:
            call_command("check", stdout=out, stderr=out)
        except SystemCheckError as exc:
            return str(exc), out.getvalue()
    return "", out.getvalue()


@pytest.mark.usefixtures("installed")
@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        (["block"], "utf8guard.E001) UTF8GUARD must be a dict of options, not list"),
        ({"mdoe": "report"}, "utf8guard.E002) UTF8GUARD has unknown option 'mdoe'"),
        ({"mdoe": "report"}, "HINT: did you mean 'mode'? The options are: "),
        ({"zzz": 1}, "HINT: The options are: allow_encoded_separators, "),
        ({"mode": "strict"}, "utf8guard.E003) UTF8GUARD: mode must be one of"),
        ({"max_body_size": "4M"}, "UTF8GUARD: max_body_size must be an int, not str"),
        ({"stream_body": True}, "UTF8GUARD: stream_body is not supported"),
    ],
)
def test_check_command_reports_the_setting(setting: object, expected: str) -> None:
    error, _ = _check(UTF8GUARD=setting, MIDDLEWARE=[DJANGO_CLASS])
    assert expected in error


@pytest.mark.usefixtures("installed")
def test_check_command_reports_the_middleware() -> None:
    common = "django.middleware.common.CommonMiddleware"
    assert _check(UTF8GUARD={"mode": "report"}, MIDDLEWARE=[DJANGO_CLASS, common]) == (
        "",
        "System check identified no issues (0 silenced).\n",
    )
    _, out = _check(MIDDLEWARE=[common, DJANGO_CLASS])
    assert f"utf8guard.W003) {DJANGO_CLASS} is not first in MIDDLEWARE" in out
    assert f"HINT: these see each request before it is checked: {common}" in out
    _, out = _check(MIDDLEWARE=[DJANGO_CLASS, DJANGO_CLASS])
    assert f"utf8guard.W002) {DJANGO_CLASS} is in MIDDLEWARE 2 times" in out
    _, out = _check(MIDDLEWARE=[common])
    assert "utf8guard.W001) the utf8guard app is installed but its middleware" in out
    error, _ = _check(MIDDLEWARE=[DJANGO_CLASS, ASGI_CLASS])
    assert (
        f"utf8guard.E004) {ASGI_CLASS} in MIDDLEWARE is not a Django middleware"
        in error
    )


def test_checks_are_django_check_messages() -> None:
    with override_settings(UTF8GUARD={"mdoe": 1}, MIDDLEWARE=[WSGI_CLASS]):
        messages = check_guard()
    assert [type(m) for m in messages] == [Error, Error, Warning]
    assert Utf8GuardAppConfig.label == "utf8guard"
