"""``utf8guard.middleware`` imports each adapter at its first lookup (PEP 562) and
still offers every public name: from the package, by ``dir()`` and by ``*``."""

from __future__ import annotations

import pytest

import utf8guard.middleware as package
from utf8guard.middleware import asgi, wsgi

#: The adapters the package loads when first looked up: name -> where it lives.
ADAPTERS = {
    "Utf8GuardMiddleware": asgi.Utf8GuardMiddleware,
    "Utf8GuardWSGIMiddleware": wsgi.Utf8GuardWSGIMiddleware,
}


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_an_adapter_is_its_modules_class_at_first_lookup(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    # As before its first lookup (another test may have made it already).
    monkeypatch.delitem(vars(package), name, raising=False)
    assert name not in vars(package)
    assert getattr(package, name) is ADAPTERS[name]
    assert vars(package)[name] is ADAPTERS[name]  # looked up once, then plain


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(
        AttributeError,
        match=r"^module 'utf8guard\.middleware' has no attribute 'Utf8GuardWsgi'$",
    ):
        getattr(package, "Utf8GuardWsgi")  # noqa: B009 - the name is the test


def test_dir_and_star_offer_every_public_name(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ADAPTERS:
        monkeypatch.delitem(vars(package), name, raising=False)
    assert set(package.__all__) <= set(dir(package))
    assert dir(package) == sorted(dir(package))
    star: dict[str, object] = {}
    exec("from utf8guard.middleware import *", star)  # noqa: S102 - fixed code
    assert sorted(set(star) - {"__builtins__"}) == sorted(package.__all__)
    assert star["Utf8GuardWSGIMiddleware"] is wsgi.Utf8GuardWSGIMiddleware
