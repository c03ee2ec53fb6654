"""lazy_pattern: a regular expression compiled at its first use (issue 28).

The oracle is ``re.compile`` of the same source and flags: every attribute the
package uses answers as the compiled pattern's, and after the first use it *is* the
compiled pattern's (a bound method of a ``re.Pattern``), so no wrapper runs per call.
"""

from __future__ import annotations

import copy
import importlib
import pickle
import pkgutil
import re
from typing import Any, Final

import pytest

import utf8guard
from utf8guard import _lazy_pattern
from utf8guard._lazy_pattern import lazy_pattern, literal

#: (source, flags, subject) for each kind of pattern the package writes.
CASES: list[tuple[Any, int, Any]] = [
    (rb"(?P<name>[a-z]+)=([0-9]+)", 0, b"a=1;bc=22;=3"),
    (rb"\\(.)", re.DOTALL, b"x\\\ny\\z"),
    (rb"[ \t]*form-data[ \t]*", re.IGNORECASE, b" FORM-DATA ;form-data"),
    (r"[^']*'[^']*'(.*)", re.DOTALL, "utf-8'en'a\nb"),
]


def _seen(*matches: re.Match[Any] | None) -> list[object]:
    """What the matches found: each one's span and groups (None for no match)."""
    return [m if m is None else (m.span(), m.groups()) for m in matches]


def _compiles(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Record each ``re.compile`` call from now on."""
    calls: list[object] = []
    compile_ = re.compile

    def counting(pattern: Any, flags: int = 0) -> re.Pattern[Any]:
        calls.append(pattern)
        return compile_(pattern, flags)

    monkeypatch.setattr(re, "compile", counting)
    return calls


@pytest.mark.parametrize(("source", "flags", "subject"), CASES)
def test_every_attribute_answers_as_the_compiled_pattern(
    source: Any, flags: int, subject: Any
) -> None:
    lazy, compiled = lazy_pattern(source, flags), re.compile(source, flags)
    assert lazy.pattern == compiled.pattern
    assert _seen(lazy.search(subject)) == _seen(compiled.search(subject)) != []
    assert _seen(lazy.match(subject, 1)) == _seen(compiled.match(subject, 1))
    assert _seen(lazy.fullmatch(subject)) == _seen(compiled.fullmatch(subject))
    assert _seen(*lazy.finditer(subject)) == _seen(*compiled.finditer(subject))
    assert lazy.findall(subject) == compiled.findall(subject)
    empty = subject[:0]
    assert lazy.sub(empty, subject) == compiled.sub(empty, subject)
    assert lazy.subn(empty, subject) == compiled.subn(empty, subject)
    assert lazy.split(subject) == compiled.split(subject)
    assert lazy.flags == compiled.flags
    assert lazy.groups == compiled.groups
    assert lazy.groupindex == compiled.groupindex


def test_compiles_once_at_first_use_and_then_holds_the_compiled_methods(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = _compiles(monkeypatch)
    lazy = lazy_pattern(rb"%[0-9A-Fa-f]{2}")
    assert lazy.pattern == rb"%[0-9A-Fa-f]{2}"  # the source reads without compiling
    assert calls == []
    assert lazy.search(b"a%2Fb") is not None
    assert calls == [rb"%[0-9A-Fa-f]{2}"]
    assert lazy.fullmatch(b"%zz") is None
    assert lazy.groups == 0
    assert calls == [rb"%[0-9A-Fa-f]{2}"]
    # No wrapper in between: the attribute is the compiled pattern's bound method.
    method: Any = lazy.search
    assert isinstance(method.__self__, re.Pattern)
    assert lazy.search == re.compile(rb"%[0-9A-Fa-f]{2}").search


def test_a_bad_pattern_fails_at_first_use_not_at_creation() -> None:
    lazy = lazy_pattern(rb"[unclosed")
    with pytest.raises(re.error, match="unterminated character set"):
        lazy.search(b"")


@pytest.mark.parametrize("used", [False, True], ids=["before", "after"])
def test_a_name_no_pattern_has_is_an_attribute_error(used: bool) -> None:
    lazy = lazy_pattern(b"a")
    if used:
        lazy.search(b"a")
    with pytest.raises(AttributeError, match="no_such_name"):
        getattr(lazy, "no_such_name")  # noqa: B009 - a name mypy would refuse


def _package_patterns() -> dict[str, Any]:
    """Every lazy pattern bound to a name in a module of the package."""
    found: dict[str, Any] = {}
    for module_info in pkgutil.walk_packages(utf8guard.__path__, "utf8guard."):
        if module_info.name == "utf8guard.__main__":
            continue  # runs the CLI
        try:
            module = importlib.import_module(module_info.name)
        except ImportError:  # pragma: no cover - Django is a test extra
            continue
        for name, value in vars(module).items():
            # type(), not isinstance: a lazy object such as Django's settings
            # would set itself up when asked for its __class__.
            if issubclass(type(value), _lazy_pattern._Compiled):
                found[f"{module_info.name}.{name}"] = value
    return found


def test_every_lazy_pattern_in_the_package_compiles() -> None:
    # A typo in a pattern raises only at its first use: compile each one here.
    patterns = _package_patterns()
    assert "utf8guard.middleware.head._abnf.MEDIA_TYPE" in patterns
    assert "utf8guard._pathrules.EMOJI_TAG_SEQUENCE" in patterns
    assert "utf8guard.middleware.body._multipart_part._FORM_DATA" in patterns
    for name, lazy in patterns.items():
        method: Any = lazy.search
        compiled = method.__self__
        assert isinstance(compiled, re.Pattern), name
        assert compiled.pattern == lazy.pattern, name


def test_the_named_flags_are_re_s() -> None:
    # The package passes these without importing re (issue 28).
    assert _lazy_pattern.DOTALL == int(re.DOTALL)
    assert _lazy_pattern.IGNORECASE == int(re.IGNORECASE)


#: A class's worth of tchar-like bytes, ranges' ends and metacharacters mixed.
TCHAR_LIKE: Final = b"!#$%&'*+-.^_`|~09AZaz"


def test_a_literal_matches_itself_alone_in_or_out_of_a_class() -> None:
    # Every byte, the regular expression syntax and NUL among them; in a class,
    # "]", "^", "-" and "\\" too (oracle: membership in the literal).
    every = bytes(range(256))
    for byte in every:
        one = bytes([byte])
        assert re.fullmatch(literal(one + b"*"), one + b"*") is not None
        assert re.search(literal(one), every.replace(one, b"")) is None
    for members in (b"^]-\\", b"a-z", b"]", TCHAR_LIKE):
        in_class = re.compile(b"[" + literal(members) + b"]")
        found = {byte for byte in every if in_class.fullmatch(bytes([byte]))}
        assert found == set(members), members


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ((rb"a+", 0), (rb"a+", 0)),
        ((rb"a+", 0), (rb"a+", re.IGNORECASE)),
        ((rb"a+", 0), (rb"b+", 0)),
        ((r"a+", 0), (rb"a+", 0)),
    ],
)
def test_equal_and_hashed_as_re_compile(
    left: tuple[Any, int], right: tuple[Any, int]
) -> None:
    # Compiled or not, two lazy patterns compare as the compiled ones do.
    a, b = lazy_pattern(*left), lazy_pattern(*right)
    expected = re.compile(*left) == re.compile(*right)
    assert (a == b) is expected
    b.search(right[0][:0])  # the right one compiled, the left one not
    assert (a == b) is expected is (b == a)
    assert (a != b) is not expected
    if expected:
        assert hash(a) == hash(b)
    assert a != re.compile(*left)  # not a re.Pattern: re's own __eq__ says no


@pytest.mark.parametrize("used", [False, True], ids=["before", "after"])
def test_pickled_and_copied_as_source_and_flags(used: bool) -> None:
    lazy = lazy_pattern(rb"\\(.)", _lazy_pattern.DOTALL)
    if used:
        lazy.search(b"")
    for again in (
        pickle.loads(pickle.dumps(lazy)),  # noqa: S301 - our own bytes
        copy.copy(lazy),
        copy.deepcopy(lazy),
    ):
        assert again == lazy
        assert again.pattern == lazy.pattern
        assert _seen(again.search(b"x\\\n")) == _seen(
            re.compile(rb"\\(.)", re.DOTALL).search(b"x\\\n")
        )
