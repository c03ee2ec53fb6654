"""on_refuse shapes refusals alike under ASGI and WSGI; it cannot unmake a refusal."""

from __future__ import annotations

import json

import pytest

from utf8guard import Kind
from utf8guard.middleware import (
    Finding,
    GuardConfig,
    Location,
    Refusal,
    RequestSummary,
    Utf8GuardWSGIMiddleware,
)
from utf8guard.middleware.engine._problem import MEDIA_TYPE, invalid_request
from utf8guard.middleware.engine._respond import refuse

from .test_asgi import client
from .test_wsgi import call, echo, make_environ

CORS = (b"access-control-allow-origin", b"https://app.example")
FINDING = Finding(Location.PATH, None, Kind.OVERLONG, 4, fixable=True)


def with_cors(refusal: Refusal) -> Refusal:
    return refusal.replace(headers=(*refusal.headers, CORS))


def test_no_hook_sends_the_problem_as_is() -> None:
    problem = invalid_request([FINDING])
    assert refuse(problem, [FINDING], RequestSummary(), GuardConfig()) is problem


def test_hook_adds_headers_under_asgi_and_wsgi() -> None:
    asgi = client(on_refuse=with_cors).get("/etc%C0%AFpasswd")
    assert asgi.status_code == 400
    assert asgi.headers["access-control-allow-origin"] == "https://app.example"
    assert asgi.headers["content-type"] == MEDIA_TYPE.decode()
    guard = Utf8GuardWSGIMiddleware(echo, on_refuse=with_cors)
    status, headers, body = call(guard, make_environ("/", RAW_URI="/etc%C0%AFpasswd"))
    assert status == "400 Bad Request"
    assert headers["access-control-allow-origin"] == "https://app.example"
    assert body == asgi.content
    assert headers["content-length"] == str(len(body))


def test_hook_sees_findings_and_request_and_may_replace_everything() -> None:
    seen: list[Refusal] = []

    def teapot(refusal: Refusal) -> Refusal:
        seen.append(refusal)
        headers = ((b"content-type", b"text/plain"), (b"Content-Length", b"999"))
        return Refusal(status=422, headers=headers, body=b"no")

    guard = Utf8GuardWSGIMiddleware(echo, on_refuse=teapot)
    environ = make_environ("/", RAW_URI="/etc%C0%AFpasswd", REMOTE_ADDR="192.0.2.9")
    status, headers, body = call(guard, environ)
    assert (status, body) == ("422 Unprocessable Entity", b"no")
    # the guard sets Content-Length from the body, whatever the hook said
    assert headers == {"content-type": "text/plain", "content-length": "2"}
    (refusal,) = seen
    assert refusal.findings[0] == FINDING
    assert refusal.request.client == "192.0.2.9"
    assert json.loads(refusal.body)["status"] == 400
    assert (b"content-type", MEDIA_TYPE) in refusal.headers


def test_hook_shapes_the_413_too() -> None:
    def unknown_status(refusal: Refusal) -> Refusal:
        assert refusal.findings == ()
        return refusal.replace(status=499)

    guard = Utf8GuardWSGIMiddleware(echo, on_refuse=unknown_status, max_body_size=1)
    status, _, _ = call(guard, make_environ("/", b"ab", "text/plain"))
    assert status == "499 Error"


@pytest.mark.parametrize(
    ("returned", "error", "message"),
    [
        ("400", TypeError, "must return a Refusal, not str"),
        (Refusal(status=200, headers=(), body=b""), ValueError, "4xx or 5xx, not 200"),
        (
            Refusal(status=True, headers=(), body=b""),
            TypeError,
            "status must be an int",
        ),
        (Refusal(status=400, headers=(), body="x"), TypeError, "body must be bytes"),  # type: ignore[arg-type]
        (Refusal(status=400, headers=((b"a",),), body=b""), TypeError, "pairs"),  # type: ignore[arg-type]
        (Refusal(status=400, headers=(("a", "b"),), body=b""), TypeError, "pairs"),  # type: ignore[arg-type]
        (Refusal(status=400, headers=([b"a", b"b"],), body=b""), TypeError, "pairs"),  # type: ignore[arg-type]
        (Refusal(status=400, headers=((b"a b", b"1"),), body=b""), ValueError, "field"),
        (
            Refusal(status=400, headers=((b"x", b"1\r\nx: 2"),), body=b""),
            ValueError,
            "field",
        ),
    ],
)
def test_a_bad_hook_result_is_an_error(
    returned: object, error: type[Exception], message: str
) -> None:
    config = GuardConfig(on_refuse=lambda _: returned)  # type: ignore[arg-type,return-value]
    problem = invalid_request([FINDING])
    with pytest.raises(error, match=message):
        refuse(problem, [FINDING], RequestSummary(), config)
