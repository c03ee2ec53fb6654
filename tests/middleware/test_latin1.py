"""Latin-1 text in free-text header fields (issue 26): passed where no parser is
deceived, refused where a byte could be read as something else.

The oracle for "passes" is what every framework shows the app: the bytes decoded as
Latin-1 (ASGI spec, PEP 3333), which must be printable (Unicode's C1 controls are
0x80-0x9F). The refused rows are Table 3-7's deceptive forms and C1 controls.
"""

from __future__ import annotations

import pytest

from utf8guard import STRICT, iter_violations
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.engine._finding import Finding
from utf8guard.middleware.head._latin1 import DEFAULT_LATIN1_HEADERS, deceptive

from . import django_site
from .attack_table import Row
from .test_adapters import run_asgi, run_wsgi
from .test_django import run_django_asgi, run_django_wsgi

django_site.configure()

PASSED = [
    ("latin1-e-acute", b"Mozilla Caf\xe9"),
    ("latin1-copyright", b"App \xa9 2003"),
    ("latin1-y-diaeresis", b"\xff\xfe text"),
    ("latin1-o-tilde", b"S\xf5o Paulo"),
    ("latin1-o-tilde-last", b"Jo\xf5"),
    ("latin1-a-grave-degree", b"\xe0\xb0 x"),
    ("utf8", "Grüße 世界".encode()),
]
REFUSED = [
    ("overlong-slash", b"x\xc0\xaf", "overlong"),
    ("surrogate", b"x\xed\xa0\x80", "surrogate"),
    ("out-of-range-f4", b"x\xf4\x90\x80\x80", "out_of_range"),
    ("legacy-five-byte", b"x\xf8\xa0\xa0\xa0\xa0", "out_of_range"),
    ("c1-nel", b"x\x85y", "unexpected_continuation"),
    ("truncated-with-c1", b"x\xe2\x82 y", "truncated"),
    ("noncharacter", b"x\xef\xbf\xbe", "noncharacter"),
]
RUNNERS = {
    "asgi": run_asgi,
    "wsgi": run_wsgi,
    "django-wsgi": run_django_wsgi,
    "django-asgi": run_django_asgi,
}


def _row(field: bytes, value: bytes) -> Row:
    return ("latin1", "GET", b"/h", ((field, value),), b"", 200)


@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize("field", [b"User-Agent", b"Referer"])
@pytest.mark.parametrize("value", [r[1] for r in PASSED], ids=[r[0] for r in PASSED])
def test_latin1_text_passes_in_free_text_fields(
    runner: str, field: bytes, value: bytes
) -> None:
    status, _, events = RUNNERS[runner](_row(field, value), {})
    assert (status, events) == (200, [])


@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize(
    ("value", "kind"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_deceptive_bytes_stay_refused_in_free_text_fields(
    runner: str, value: bytes, kind: str
) -> None:
    status, _, events = RUNNERS[runner](_row(b"User-Agent", value), {})
    assert status == 400
    finding = events[0][0]
    assert isinstance(finding, Finding)
    assert finding.kind.value == kind


@pytest.mark.parametrize("runner", RUNNERS)
def test_other_fields_and_the_empty_option_refuse_latin1(runner: str) -> None:
    run = RUNNERS[runner]
    assert run(_row(b"X-Name", b"Caf\xe9"), {})[0] == 400
    assert run(_row(b"User-Agent", b"Caf\xe9"), {"latin1_headers": ()})[0] == 400


@pytest.mark.parametrize("value", [r[1] for r in PASSED], ids=[r[0] for r in PASSED])
def test_passed_values_are_printable_latin1_or_utf8(value: bytes) -> None:
    # The independent reading: what an app sees is printable text either way.
    try:
        shown = value.decode("utf-8")
    except UnicodeDecodeError:
        shown = value.decode("latin-1")
    assert shown.isprintable()
    assert list(deceptive(value, iter_violations(value, STRICT))) == []


def test_normalize_keeps_a_latin1_user_agent() -> None:
    # A repair elsewhere in the head leaves the Latin-1 field as the client sent it.
    row: Row = ("n", "GET", b"/h?q=%C0%AF", ((b"User-Agent", b"Caf\xe9"),), b"", 200)
    status, reply, _ = run_wsgi(row, {"mode": "normalize"})
    assert status == 200
    assert b"%C0%AF" not in reply


def test_default_fields() -> None:
    assert GuardConfig().latin1_headers == frozenset(DEFAULT_LATIN1_HEADERS)
    assert GuardConfig(latin1_headers=["X-Legacy"]).latin1_headers == {"x-legacy"}


def test_normalize_repairs_a_deceptive_user_agent() -> None:
    row: Row = ("n", "GET", b"/h", ((b"User-Agent", b"Caf\xe9 \xc0\xaf"),), b"", 200)
    status, _, events = run_wsgi(row, {"mode": "normalize"})
    assert status == 200
    assert [action for _, action in events] == ["normalized"]
