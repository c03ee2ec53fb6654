"""The fuzz harnesses without atheris: every corpus file passes, planted bugs fail.

Each seed (and each finding once added to ``fuzz/corpus/``) is replayed through its
target's ``check`` on every test run. The planted-bug cases patch a broken behaviour
into the product for one test and assert that the harness catches it on the seeds:
a harness that cannot fail proves nothing.
"""

from __future__ import annotations

import importlib
import inspect
import runpy
from collections.abc import Callable, Iterator
from importlib import import_module
from pathlib import Path

import pytest

import utf8guard
from fuzz import _common, _cpython, fuzz_accel, fuzz_stream
from fuzz.run import SEEDS, targets
from utf8guard import (
    IDENTIFIER,
    STRICT,
    WELL_FORMED,
    Kind,
    Policy,
    Violation,
    _repair,
    _scan,
    _stream,
    reference,
)
from utf8guard._scan import BytesLike

CHECKS: dict[str, Callable[[bytes], None]] = {
    name: import_module(module).check for name, module in targets().items()
}
CORPUS = [(name, path) for name in CHECKS for path in sorted((SEEDS / name).iterdir())]
# Header bytes giving STRICT over plain bytes; for stream, 7-byte chunks.
STRICT_HEADERS = {"validate": b"\x00\x00", "stream": b"\x00\x01\x07", "repair": b"\x00"}


def test_every_target_the_runner_finds_declares_max_len() -> None:
    # fuzz/run.py passes each harness's MAX_LEN to libFuzzer.
    for name, module in targets().items():
        assert isinstance(importlib.import_module(module).MAX_LEN, int), name


@pytest.mark.parametrize("name", sorted(targets()))
def test_every_target_runs_as_a_script(name: str) -> None:
    # Absolute imports only: loaded from its file, outside the fuzz package (as
    # `PYTHONPATH=. python fuzz/fuzz_<name>.py` does), the module still imports.
    namespace = runpy.run_path(str(SEEDS.parent / f"fuzz_{name}.py"), run_name="x")
    assert callable(namespace["TestOneInput"])


def test_every_target_is_in_the_fuzz_readme() -> None:
    readme = (SEEDS.parent / "README.md").read_text("utf-8")
    for name in targets():
        assert f"| `{name}` | `fuzz_{name}.py` |" in readme, name


def test_policy_flags_are_the_policy_fields() -> None:
    parameters = inspect.signature(Policy).parameters.values()
    flags = {p.name for p in parameters if p.annotation in (bool, "bool")}
    assert set(_common.POLICY_FLAGS) == flags
    assert fuzz_accel.FLAGS == _common.POLICY_FLAGS


def test_every_target_has_seeds() -> None:
    assert {"validate", "stream", "repair"} <= set(CHECKS)
    for name in CHECKS:
        assert any((SEEDS / name).iterdir()), name


@pytest.mark.parametrize(
    ("target", "path"), CORPUS, ids=[f"{t}-{p.name}" for t, p in CORPUS]
)
def test_corpus_file_passes(target: str, path: Path) -> None:
    CHECKS[target](path.read_bytes())


@pytest.mark.parametrize("target", sorted(STRICT_HEADERS))
def test_kuhn_stress_test_passes(target: str, kuhn_corpus: bytes) -> None:
    CHECKS[target](STRICT_HEADERS[target] + kuhn_corpus)


def test_policy_byte_names_the_policies() -> None:
    assert _common.policy_of(0x00) == STRICT
    assert _common.policy_of(0x01) == WELL_FORMED
    assert _common.policy_of(0x0E) == IDENTIFIER
    assert _common.policy_of(0xC0) is _common.policy_of(0x00)
    everything_refused = _common.policy_of(0x3E)
    assert not any(getattr(everything_refused, f) for f in _common.POLICY_FLAGS)


def test_buffer_types() -> None:
    kinds = [type(_common.wrap(b"ab", selector)) for selector in (0, 64, 128)]
    assert kinds == [bytes, bytearray, memoryview]
    view = _common.wrap(b"ab", 192)
    assert isinstance(view, memoryview)
    assert view.format == "c"


def test_short_input_gets_a_zero_header() -> None:
    assert _common.split(b"\x01", 3) == (b"\x01\x00\x00", b"")


def test_chunked() -> None:
    assert list(fuzz_stream.chunked(b"abcdef", b"\x01\x02")) == [
        b"a",
        b"bc",
        b"d",
        b"ef",
    ]
    assert list(fuzz_stream.chunked(b"abc", b"\x00\x00")) == [b"", b"", b"abc"]
    assert list(fuzz_stream.chunked(b"", b"\x05")) == []


def test_cpython_oracle_names_refused_code_points() -> None:
    data = b"\x00\x1b\xe2\x80\x8e\xef\xbb\xbf\xee\x80\x80\xef\xb7\x90\xc0"
    assert _cpython.violations(data, Policy(allow_noncharacters=True)) == [
        (14, 15, None)
    ]
    refused = _common.policy_of(0x3E)
    kinds = [kind for _, _, kind in _cpython.violations(data, refused)]
    assert kinds == [
        Kind.NUL,
        Kind.CONTROL,
        Kind.BIDI_CONTROL,
        Kind.BOM,
        Kind.PRIVATE_USE,
        Kind.NONCHARACTER,
        None,
    ]


def test_cpython_oracle_handler_is_for_decoding_only() -> None:
    with pytest.raises(UnicodeEncodeError):
        "\udc80".encode("utf-8", "utf8guard-fuzz-mark")


# Planted bugs: (target, what the harness must report, patcher).
Patch = Callable[[pytest.MonkeyPatch], None]


def _accept_surrogates(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scanner stops at a surrogate as if ``ED A0 80`` were fine."""
    real = _scan.first_violation

    def broken(*args: object, **kwargs: object) -> Violation | None:
        found = real(*args, **kwargs)  # type: ignore[arg-type]  # same signature
        return None if found and found.kind is Kind.SURROGATE else found

    monkeypatch.setattr(_scan, "first_violation", broken)
    monkeypatch.setattr(_stream, "first_violation", broken)


def _forget_the_carry(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sequence split across chunks is checked as two truncated halves."""
    monkeypatch.setattr(
        _stream._Splitter, "_unfinished_tail", staticmethod(lambda buf, start: len(buf))
    )


def _replacement(replacement: bytes) -> Patch:
    """repair writes ``replacement`` instead of one U+FFFD."""

    def plant(monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(_repair, "REPLACEMENT", replacement)

    return plant


def _in_harness(target: str, name: str, fake: Callable[..., object]) -> Patch:
    """Replace the product function ``name`` as the harness module sees it."""

    def plant(monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(import_module(f"fuzz.fuzz_{target}"), name, fake)

    return plant


def _off_by_one_offsets(monkeypatch: pytest.MonkeyPatch) -> None:
    """The streaming validator reports spans one byte late."""
    real = _stream.IncrementalValidator._fail

    def broken(
        self: _stream.IncrementalValidator,
        found: Violation,
        held: bytes,
        chunk: BytesLike,
    ) -> utf8guard.Utf8Error:
        late = Violation(found.kind, found.start + 1, found.end + 1)
        return real(self, late, held, chunk)

    monkeypatch.setattr(_stream.IncrementalValidator, "_fail", broken)


def _after_failing(
    then: Callable[[_stream.IncrementalValidator], None],
) -> Patch:
    """The validator raises its first error, then runs ``then`` on itself."""

    def plant(monkeypatch: pytest.MonkeyPatch) -> None:
        real = _stream.IncrementalValidator._fail

        def broken(
            self: _stream.IncrementalValidator,
            found: Violation,
            held: bytes,
            chunk: BytesLike,
        ) -> utf8guard.Utf8Error:
            error = real(self, found, held, chunk)
            then(self)
            return error

        monkeypatch.setattr(_stream.IncrementalValidator, "_fail", broken)

    return plant


def _forget_error(validator: _stream.IncrementalValidator) -> None:
    """Fails open: the error is not kept."""
    validator._error = None


def _replace_error(validator: _stream.IncrementalValidator) -> None:
    """Later calls raise a different error."""
    validator._error = utf8guard.Utf8Error(Violation(Kind.NUL, 0, 0))


def _position(value: Callable[[_stream.IncrementalValidator], int]) -> Patch:
    def plant(monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(_stream.IncrementalValidator, "position", property(value))

    return plant


def _finish_resets_position(monkeypatch: pytest.MonkeyPatch) -> None:
    real = _stream.IncrementalValidator.finish

    def broken(self: _stream.IncrementalValidator) -> None:
        real(self)
        self._fed = 0

    monkeypatch.setattr(_stream.IncrementalValidator, "finish", broken)


def _validate_wrong_message(monkeypatch: pytest.MonkeyPatch) -> None:
    """Utf8Error messages lose their hex snippet."""
    real = utf8guard.Utf8Error.__init__

    def broken(self: utf8guard.Utf8Error, violation: Violation, data: object) -> None:
        real(self, violation)

    monkeypatch.setattr(utf8guard.Utf8Error, "__init__", broken)


def _always_raises(data: object, policy: Policy) -> None:
    raise utf8guard.Utf8Error(Violation(Kind.OVERLONG, 0, 1))


def _decode_adds_text(data: utf8guard.BytesLike, policy: Policy) -> str:
    return utf8guard.decode(data, policy) + "x"


def _without_surrogates(
    data: utf8guard.BytesLike, policy: Policy
) -> Iterator[Violation]:
    """The reference's violations, less surrogates: a bug shared with the oracle."""
    found = _REFERENCE_ITER(bytes(data), policy)
    return (v for v in found if v.kind is not Kind.SURROGATE)


def _shared_surrogate_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fast path and reference both skip surrogates: only CPython can tell."""
    _in_harness("validate", "iter_violations", _without_surrogates)(monkeypatch)
    monkeypatch.setattr(reference, "iter_violations", _without_surrogates)


def _shared_repair_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fast path and reference both turn 'a' into 'b': only CPython can tell."""

    def broken(data: utf8guard.BytesLike, policy: Policy) -> bytes:
        return _REFERENCE_REPAIR(bytes(data), policy).replace(b"a", b"b")

    _in_harness("repair", "repair", broken)(monkeypatch)
    monkeypatch.setattr(reference, "repair", broken)


_REFERENCE_ITER = reference.iter_violations
_REFERENCE_REPAIR = reference.repair


def _escapes_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 25's parameter_escape rule is gone: R00's quoted pair passes."""
    from utf8guard.middleware.body import _body

    monkeypatch.setattr(_body, "has_parameter_escape", lambda value: False)
    monkeypatch.setattr(_body, "_KINDS", {})  # its verdicts were made with the rule


def _any_part_header(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every part header field passes, as before issue 25 (R11's Content-Length)."""
    from utf8guard.middleware.body import _multipart_part as part

    monkeypatch.setattr(part, "PART_HEADERS", _Everything())
    monkeypatch.setattr(part, "_PLANS", {})  # its plans were made with the rule


class _Everything(frozenset[str]):
    def __contains__(self, item: object) -> bool:
        return True


PLANTED: dict[str, tuple[str, str, Patch]] = {
    "framing-escapes-pass": (
        "framing",
        "reads an accepted Content-Type",
        _escapes_pass,
    ),
    "framing-any-part-header": ("framing", "outside the subset", _any_part_header),
    "accepts-ed-a0-80": ("validate", "ed a0 80", _accept_surrogates),
    "accepts-ed-a0-80-shared-with-reference": (
        "validate",
        "!= cpython",
        _shared_surrogate_bug,
    ),
    "seam-finds-nothing": (
        "validate",
        "first_violation(window=",
        _in_harness("validate", "first_violation", lambda *args: None),
    ),
    "is-valid-always": (
        "validate",
        "find_violation/is_valid",
        _in_harness("validate", "is_valid", lambda data, policy: True),
    ),
    "validate-always-raises": (
        "validate",
        "validate raised",
        _in_harness("validate", "validate", _always_raises),
    ),
    "decode-skips-validation": (
        "validate",
        "did not raise",
        _in_harness(
            "validate",
            "decode",
            lambda data, policy: bytes(data).decode(errors="replace"),
        ),
    ),
    "decode-adds-text": (
        "validate",
        "decoded:",
        _in_harness("validate", "decode", _decode_adds_text),
    ),
    "message-without-hex": ("validate", "message", _validate_wrong_message),
    "stream-accepts-ed-a0-80": ("stream", "ed a0 80", _accept_surrogates),
    "stream-forgets-carry": ("stream", "chunked", _forget_the_carry),
    "stream-offsets-off-by-one": ("stream", "chunked != one-shot", _off_by_one_offsets),
    "stream-reports-unseen-bytes": (
        "stream",
        "raised before the bytes were fed",
        _off_by_one_offsets,
    ),
    "stream-fails-open": (
        "stream",
        "accepted input after",
        _after_failing(_forget_error),
    ),
    "stream-changes-its-error": (
        "stream",
        "after a violation",
        _after_failing(_replace_error),
    ),
    "stream-position-stuck": ("stream", "position", _position(lambda self: 0)),
    "stream-finish-resets-position": (
        "stream",
        "position after finish",
        _finish_resets_position,
    ),
    "repair-stream-question-mark": ("stream", "repair_stream", _replacement(b"?")),
    "repair-accepts-ed-a0-80": ("repair", "ed a0 80", _accept_surrogates),
    "repair-leaves-input": (
        "repair",
        "invalid or not a fixed point",
        _in_harness("repair", "repair", lambda data, policy: bytes(data)),
    ),
    "repair-doubles-fffd": ("repair", "too long", _replacement(b"\xef\xbf\xbd" * 2)),
    "repair-drops-violations": ("repair", "one U+FFFD per", _replacement(b"")),
    "repair-changes-text": (
        "repair",
        "repair != reference",
        _in_harness(
            "repair",
            "repair",
            lambda data, policy: utf8guard.repair(data, policy).replace(b"a", b"b"),
        ),
    ),
    "repair-bug-shared-with-reference": ("repair", "!= cpython", _shared_repair_bug),
}


def _failures(target: str) -> Iterator[str]:
    for name, path in CORPUS:
        if name == target:
            try:
                CHECKS[target](path.read_bytes())
            except AssertionError as exc:
                yield str(exc)


@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_harness_catches_planted_bug(bug: str, monkeypatch: pytest.MonkeyPatch) -> None:
    target, expected, plant = PLANTED[bug]
    plant(monkeypatch)
    failures = list(_failures(target))
    assert failures, f"{target} harness passed every seed with {bug} planted"
    assert any(expected in message for message in failures), failures[0]
    assert all("input (" in message for message in failures)
