"""The C accelerator (utf8guard._speedups) against the oracle, on every instruction set.

The compiled ``first_violation`` must return exactly what the pure-Python core and
``utf8guard.reference`` return. Tests that need the extension skip when it is not
built; the rest run on both implementations through the ``implementation`` fixture.
"""

from __future__ import annotations

import doctest
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import product
from pathlib import Path
from typing import Final

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import utf8guard
from fuzz import fuzz_accel, fuzz_accel_boundaries
from utf8guard import (
    IDENTIFIER,
    STRICT,
    WELL_FORMED,
    IncrementalValidator,
    Kind,
    Policy,
    Violation,
    _accel,
    _scan,
    _stream,
    find_violation,
    iter_violations,
    reference,
    repair,
)
from utf8guard._policy import refused_ranges

from .pure import run_pure

try:
    from utf8guard import _speedups as _built
except ImportError:  # pragma: no cover - a build without a C compiler
    _built = None  # type: ignore[assignment]  # the tests below skip on None

speedups_only = pytest.mark.skipif(_built is None, reason="_speedups is not built")

ROOT: Final = Path(__file__).resolve().parent.parent
#: Every policy: bit i of the index turns allow_* flag i off.
POLICIES: Final = fuzz_accel.POLICIES
ALL_REFUSED: Final = POLICIES[-1]
#: Ill-formed sequences (Table 3-7 gaps), noncharacters and every policy-refused set.
NEEDLES: Final = (
    b"\xc0\xaf",
    b"\xc1",
    b"\xe0\x80\x80",
    b"\xe0\x9f",
    b"\xed\xa0\x80",
    b"\xed\xbf",
    b"\xf0\x80",
    b"\xf4\x90\x80\x80",
    b"\xf5\x80",
    b"\xfe",
    b"\xff",
    b"\x80",
    b"\xbf\xbf",
    b"\xe2\x82",
    b"\xf0\x9f\x98",
    b"\xe2\x82a",
    "\ufdd0".encode(),
    "\ufdef".encode(),
    "\ufffe".encode(),
    "\uffff".encode(),
    "\U0001fffe".encode(),
    "\U0010ffff".encode(),
    "\U0003ffff".encode(),
    b"\x00",
    b"\x01",
    b"\x7f",
    "\u0085".encode(),
    "\u061c".encode(),
    "\u200f".encode(),
    "\u202e".encode(),
    "\u2069".encode(),
    "\ue000".encode(),
    "\uf8ff".encode(),
    "\U000f0000".encode(),
    "\U0010fffd".encode(),
    "\ufeff".encode(),
    # Close to a refused set but allowed: the filters' edges.
    "\u1ffe".encode(),
    "\ufdcf".encode(),
    "\ufdf0".encode(),
    "\u202f".encode(),
    "\u2014".encode(),
    "\uf900".encode(),
    "\ufefe".encode(),
    "\u00a0".encode(),
)


def _isas() -> list[str]:
    return _built.supported_isas() if _built is not None else []


@pytest.fixture(params=["c", "python"])
def implementation(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> str:
    """Run the test on the compiled scanner, then on the pure-Python core."""
    name: str = request.param
    if name == "python":
        monkeypatch.setattr(_scan, "_compiled", None)
        monkeypatch.setattr(_stream, "_step", _stream._python_step)
        is_valid: _accel.IsValid = _scan.python_is_valid
    elif _built is None:  # pragma: no cover - a build without a C compiler
        pytest.skip("_speedups is not built")
    else:
        monkeypatch.setattr(_scan, "_compiled", _built.first_violation)
        monkeypatch.setattr(_stream, "_step", _built.stream_step)
        is_valid = _built.is_valid
    monkeypatch.setattr(_scan, "is_valid", is_valid)
    monkeypatch.setattr(utf8guard, "is_valid", is_valid)
    return name


@pytest.fixture
def all_isas() -> Iterator[list[str]]:
    """Every instruction set this CPU runs; the one in use is restored afterwards."""
    assert _built is not None
    saved = _built.isa()
    yield _built.supported_isas()
    _built.set_isa(saved)


def _oracle(data: bytes, policy: Policy) -> list[Violation]:
    return list(reference.iter_violations(data, policy))


def _each_isa(data: bytes, policy: Policy, isas: list[str]) -> None:
    """Every instruction set finds the oracle's violations in ``data``."""
    assert _built is not None
    want = _oracle(data, policy)
    for isa in isas:
        _built.set_isa(isa)
        got = fuzz_accel.walk(_built.first_violation, data, 0, policy)
        assert got == want, (isa, policy, data)


# --- choosing the implementation ---------------------------------------------------


def test_implementation_flag_names_the_active_scanner() -> None:
    assert utf8guard.IMPLEMENTATION == _accel.IMPLEMENTATION
    assert utf8guard.IMPLEMENTATION in ("c", "python")
    forced = os.environ.get(_accel.PURE_PYTHON_ENV, "") not in ("", "0")
    expected = "c" if _built is not None and not forced else "python"
    assert utf8guard.IMPLEMENTATION == expected


def test_environment_variable_forces_pure_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(_accel.PURE_PYTHON_ENV, "1")
    assert _accel.load() == ("python", None, None, None)


def test_missing_extension_falls_back_to_pure_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(_accel.PURE_PYTHON_ENV, raising=False)
    # None in sys.modules makes the import raise ImportError, as when it is not built.
    monkeypatch.setitem(sys.modules, "utf8guard._speedups", None)
    monkeypatch.delattr(utf8guard, "_speedups", raising=False)
    assert _accel.load() == ("python", None, None, None)


@speedups_only
@pytest.mark.parametrize("value", ["", "0"])
def test_extension_is_used_when_built(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    assert _built is not None
    monkeypatch.setenv(_accel.PURE_PYTHON_ENV, value)
    assert _accel.load() == (
        "c",
        _built.first_violation,
        _built.is_valid,
        _built.stream_step,
    )


@pytest.fixture
def saved_isa() -> Iterator[None]:
    """Put the instruction set back after a test that switches it."""
    assert _built is not None
    saved = _built.isa()
    yield
    _built.set_isa(saved)


def test_kernel_names_the_active_kernel() -> None:
    assert utf8guard.KERNEL == _accel.KERNEL
    if utf8guard.IMPLEMENTATION == "python":
        assert utf8guard.KERNEL == "python"
    else:
        assert _built is not None
        assert utf8guard.KERNEL in _built.supported_isas()


def test_pure_python_has_the_python_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_accel.ISA_ENV, "scalar")  # nothing to switch: ignored
    assert _accel.pick_kernel("python") == "python"


@speedups_only
@pytest.mark.usefixtures("saved_isa")
def test_isa_environment_variable_forces_each_kernel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _built is not None
    for isa in _built.supported_isas():
        monkeypatch.setenv(_accel.ISA_ENV, isa)
        assert _accel.pick_kernel("c") == isa
        assert _built.isa() == isa


@speedups_only
@pytest.mark.usefixtures("saved_isa")
@pytest.mark.parametrize("value", ["", "auto"])
def test_isa_auto_keeps_the_fastest(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    assert _built is not None
    fastest = _built.supported_isas()[-1]
    _built.set_isa(fastest)
    monkeypatch.setenv(_accel.ISA_ENV, value)
    assert _accel.pick_kernel("c") == fastest


@speedups_only
@pytest.mark.usefixtures("saved_isa")
@pytest.mark.parametrize("value", ["sse9", "AVX2", "scalar ", "avx512-typo"])
def test_unknown_isa_warns_and_keeps_the_kernel(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    assert _built is not None
    before = _built.isa()
    monkeypatch.setenv(_accel.ISA_ENV, value)
    with pytest.warns(
        RuntimeWarning, match=rf"UTF8GUARD_ISA='{value}' is not a kernel"
    ):
        assert _accel.pick_kernel("c") == before


@speedups_only
def test_isa_environment_variable_at_import_and_in_version() -> None:
    """A fresh interpreter: the variable picks the kernel and --version names it."""
    env = {**os.environ, _accel.ISA_ENV: "scalar", "PYTHONPATH": str(ROOT)}
    env.pop(_accel.PURE_PYTHON_ENV, None)
    done = subprocess.run(
        [sys.executable, "-m", "utf8guard", "--version"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("(C accelerator, scalar kernel)\n")


def test_public_is_valid_is_the_active_implementations() -> None:
    """The middleware imports _scan.is_valid: it must be the compiled one too."""
    c = utf8guard.IMPLEMENTATION == "c"
    want = _built.is_valid if c else _scan.python_is_valid
    assert utf8guard.is_valid is want
    assert _scan.is_valid is want


# Each case breaks one Python table in a fresh interpreter (the extension initialises
# once per process), then loads the extension the way utf8guard does and uses a policy
# that refuses every set. The lead table and Policy's flags are checked at import;
# each code-point set when a policy first refuses it (a sweep of every code point).
BROKEN_TABLES: Final = [
    (
        "extra-code-point",
        "p.BIDI_CONTROLS = ((0x41, 0x41), *p.BIDI_CONTROLS)",
        "_speedups and utf8guard._policy disagree on U+0041 under allow_bidi_controls",
        "use",
    ),
    (
        "missing-code-point",
        "p.BOM = ()",
        "_speedups and utf8guard._policy disagree on U+FEFF under allow_bom",
        "use",
    ),
    (
        # the last code point of the sweep, at the end of its last block
        "last-code-point",
        "p.PRIVATE_USE = (*p.PRIVATE_USE[:2], (0x100000, 0x10FFFC))",
        "_speedups and utf8guard._policy disagree on U+10FFFD under allow_private_use",
        "use",
    ),
    (
        # deep inside a range: its seventh block of 1024 code points
        "inner-code-point",
        "p.PRIVATE_USE = ((0xE000, 0xF900), *p.PRIVATE_USE[1:])",
        "_speedups and utf8guard._policy disagree on U+F900 under allow_private_use",
        "use",
    ),
    (
        "lead-table",
        # C0 and C1 read as one-byte leads
        "import utf8guard._tables as t\n"
        "t.LEADS = t.LEADS[:0xC0] + t.LEADS[:1] * 2 + t.LEADS[0xC2:]",
        "LEADS[0xC0] is inconsistent",
        "import",
    ),
    (
        "unsorted",
        "p.CONTROLS = tuple(reversed(p.CONTROLS))",
        "allow_controls: ranges not sorted and disjoint",
        "use",
    ),
    (
        "wrong-kind",
        "p.refused_ranges = lambda policy: ((p.Kind.NUL, ()),)",
        "refused_ranges() for allow_noncharacters alone is not one set",
        "use",
    ),
    (
        "unknown-flag",
        "p.FLAGS = (*p.FLAGS, 'allow_extra')",
        "Policy field 'allow_extra' is not the flag _speedups expects",
        "import",
    ),
    (
        "missing-flag",
        "p.FLAGS = p.FLAGS[:-1]",
        "Policy has 5 flags, _speedups knows 6",
        "import",
    ),
]

#: Loads the extension, then asks twice under a policy that refuses every set.
_USE_EVERY_SET: Final = """
from utf8guard import _accel
_accel.load()
from utf8guard import _speedups
flags = ("noncharacters", "nul", "controls", "bidi_controls", "private_use", "bom")
every = p.Policy(**{f"allow_{flag}": False for flag in flags})
for attempt in range(2):
    try:
        _speedups.is_valid(b"", every)
    except ValueError as exc:
        print("refused:", exc)
"""


@speedups_only
@pytest.mark.parametrize(
    ("patch", "message", "when"),
    [(patch, message, when) for _, patch, message, when in BROKEN_TABLES],
    ids=[name for name, _, _, _ in BROKEN_TABLES],
)
def test_extension_refuses_to_work_when_its_sets_differ(
    patch: str, message: str, when: str
) -> None:
    """A lead table or Policy flag C does not know fails the import; a code-point set
    that differs from C's fails every call under a policy that refuses it. Either is
    a ValueError, which _accel.load() does not turn into a silent fallback."""
    code = (
        "import os\n"
        "import utf8guard._policy as p\n"
        f"{patch}\n"
        f"del os.environ[{_accel.PURE_PYTHON_ENV!r}]\n" + _USE_EVERY_SET
    )
    result = run_pure(code)
    if when == "import":
        assert result.returncode != 0
        assert f"ValueError: {message}" in result.stderr, result.stderr
    else:
        assert result.returncode == 0, result.stderr
        lines = result.stdout.splitlines()
        assert len(lines) == 2, result.stdout
        assert all(line.startswith(f"refused: {message}") for line in lines), lines


def test_every_set_is_checked_when_first_refused() -> None:
    """Without a broken table the same script passes: nothing refused."""
    result = run_pure(
        "import utf8guard._policy as p\nimport os\n"
        f"del os.environ[{_accel.PURE_PYTHON_ENV!r}]\n" + _USE_EVERY_SET
    )
    assert (result.returncode, result.stdout) == (0, ""), result.stderr


@speedups_only
@pytest.mark.parametrize(
    ("patch", "message"),
    [(patch, message) for _, patch, message, when in BROKEN_TABLES if when == "use"],
    ids=[name for name, _, _, when in BROKEN_TABLES if when == "use"],
)
def test_the_baseline_sweep_finds_the_same_differences(
    patch: str, message: str
) -> None:
    """The sets are swept with AVX2 when the kernel is avx2 or avx512, else with the
    baseline build of the same loop: under the scalar kernel each broken set is
    refused the same way (the test above covers the kernel this CPU picks)."""
    code = (
        "import os\n"
        "import utf8guard._policy as p\n"
        f"{patch}\n"
        f"del os.environ[{_accel.PURE_PYTHON_ENV!r}]\n"
        "from utf8guard import _speedups\n"
        "_speedups.set_isa('scalar')\n" + _USE_EVERY_SET + "\n"
        "print('isa:', _speedups.isa())\n"
    )
    result = run_pure(code)
    assert result.returncode == 0, result.stderr
    *refusals, isa = result.stdout.splitlines()
    assert isa == "isa: scalar"
    assert len(refusals) == 2, result.stdout
    assert all(line.startswith(f"refused: {message}") for line in refusals), refusals


# --- the public API on both implementations ----------------------------------------


@pytest.mark.parametrize("needle", NEEDLES, ids=lambda n: n.hex())
def test_public_api_matches_reference(implementation: str, needle: bytes) -> None:
    data = b"abc " + needle + "\u20ac".encode() * 30 + needle + b"xyz"
    for policy in (STRICT, WELL_FORMED, IDENTIFIER, ALL_REFUSED):
        want = _oracle(data, policy)
        assert list(iter_violations(data, policy)) == want
        assert find_violation(bytearray(data), policy) == (want[0] if want else None)
        assert repair(memoryview(data), policy) == reference.repair(data, policy)
        assert utf8guard.is_valid(data, policy) == (not want)


# --- is_valid: one C call, the same verdicts as the pure-Python is_valid -----------

#: Padding every policy allows, ending on a character boundary: a needle after it is
#: judged as if alone.
PADDING: Final = (b"a", "\u00e9".encode(), "\u4f60".encode(), "\U0001f600".encode())


class _Bytes(bytes):
    """A bytes subclass: not the exact type, so it takes the fallback path."""


@speedups_only
@pytest.mark.parametrize("needle", [b"", *NEEDLES], ids=lambda n: n.hex() or "none")
def test_compiled_is_valid_matches_the_oracle(needle: bytes) -> None:
    """Every policy (all 64 flag combinations), every buffer type, sizes from the
    needle alone to past one SIMD block; past the no-GIL threshold for two policies."""
    assert _built is not None
    for policy in POLICIES:
        want = reference.find_violation(needle, policy) is None
        sizes = (0, 60, 600, 40_000) if policy in (STRICT, ALL_REFUSED) else (0, 70)
        for pad, size in product(PADDING, sizes):
            data = pad * (size // len(pad)) + needle
            for buf in (data, bytearray(data), memoryview(data), _Bytes(data)):
                assert _built.is_valid(buf, policy) is want, (policy, pad, size)
            with _pure_python():
                assert _scan.python_is_valid(data, policy) is want


@contextmanager
def _pure_python() -> Iterator[None]:
    saved, _scan._compiled = _scan._compiled, None
    try:
        yield
    finally:
        _scan._compiled = saved


@speedups_only
@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=20).map(str.encode),
            st.sampled_from(NEEDLES),
            st.binary(max_size=4),
        ),
        max_size=8,
    ),
    st.sampled_from(POLICIES),
)
def test_compiled_is_valid_on_near_valid_input(
    parts: list[bytes], policy: Policy
) -> None:
    assert _built is not None
    data = b"".join(parts)
    want = reference.find_violation(data, policy) is None
    assert _built.is_valid(data, policy) is want
    assert _built.is_valid(bytearray(data), policy) is want
    with _pure_python():
        assert _scan.python_is_valid(data, policy) is want


@speedups_only
def test_compiled_is_valid_defaults_to_strict_and_takes_keywords() -> None:
    assert _built is not None
    nonchar = "\ufffe".encode()
    assert _built.is_valid(nonchar) is False
    assert _built.is_valid(nonchar, WELL_FORMED) is True
    assert _built.is_valid(nonchar, policy=WELL_FORMED) is True
    assert _built.is_valid(data=nonchar) is False
    assert _built.is_valid(policy=WELL_FORMED, data=nonchar) is True
    # A policy equal to STRICT but another object: read afresh, then cached.
    for policy in (Policy(), STRICT, Policy(allow_noncharacters=True), STRICT):
        assert _built.is_valid(nonchar, policy) is policy.allow_noncharacters


def _outcome(call: Callable[[], bool]) -> tuple[str, str]:
    """The result of ``call`` or the type and message of what it raised."""
    try:
        return "returned", repr(call())
    except (TypeError, ValueError, AttributeError) as exc:
        return type(exc).__name__, str(exc)


#: Inputs and policies the public is_valid refuses or treats specially: the compiled
#: one must answer exactly as the pure-Python one (same result or same error).
ODD_CALLS: Final = [
    ("str", ("text",), {}),
    ("int", (3,), {}),
    ("none", (None,), {}),
    ("strided-view", (memoryview(b"abcdef")[::2],), {}),
    ("wide-view", (memoryview(b"\xef\xbf\xbf\x00").cast("I"),), {}),
    ("2d-view", (memoryview(b"abcd").cast("B", (2, 2)),), {}),
    ("not-a-policy", (b"abc", object()), {}),
    ("not-a-policy-view", (memoryview(b"abc"), object()), {}),
    ("policy-none", (b"abc",), {"policy": None}),
]


@speedups_only
@pytest.mark.parametrize(
    ("args", "kwargs"),
    [(args, kwargs) for _, args, kwargs in ODD_CALLS],
    ids=[name for name, _, _ in ODD_CALLS],
)
def test_compiled_is_valid_fails_as_the_python_one(
    args: tuple[object, ...], kwargs: dict[str, object]
) -> None:
    assert _built is not None
    compiled = _outcome(lambda: _built.is_valid(*args, **kwargs))  # type: ignore[arg-type]  # deliberately wrong
    python = _outcome(lambda: _scan.python_is_valid(*args, **kwargs))  # type: ignore[arg-type]  # deliberately wrong
    assert compiled[0] == python[0]
    if compiled[0] == "TypeError" and "not" in python[1]:
        assert compiled[1] == python[1]  # as_buffer's message, word for word


@speedups_only
@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((), {}),
        ((b"a", STRICT, 3), {}),
        ((b"a",), {"strict": True}),
        ((b"a", STRICT), {"policy": STRICT}),
        ((), {"policy": STRICT}),
    ],
    ids=["none", "three", "unknown-keyword", "twice", "no-data"],
)
def test_compiled_is_valid_checks_its_arguments(
    args: tuple[object, ...], kwargs: dict[str, object]
) -> None:
    assert _built is not None
    with pytest.raises(TypeError):
        _built.is_valid(*args, **kwargs)  # type: ignore[arg-type]  # deliberately wrong
    with pytest.raises(TypeError):
        _scan.python_is_valid(*args, **kwargs)  # type: ignore[arg-type]  # deliberately wrong


def _stamped(
    call: Callable[[], object], window: list[float], started: threading.Event
) -> None:
    window.append(time.perf_counter())
    started.set()
    call()
    window.append(time.perf_counter())


def _runs_without_the_gil(call: Callable[[], object]) -> bool:
    """Whether this thread ran Python code while ``call`` ran in another thread.

    With a switch interval far longer than the test, a thread gives up the GIL only
    when it blocks or when C code releases it. The worker stamps the time, wakes this
    thread, runs ``call`` and stamps again; this thread, woken, stamps at once, which
    it can do before the worker's second stamp only if ``call`` let go of the GIL.
    A loaded host may not schedule this thread in time: a few tries.
    """
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        for _ in range(5):
            window: list[float] = []
            started = threading.Event()

            worker = threading.Thread(target=_stamped, args=(call, window, started))
            worker.start()
            started.wait()
            seen = time.perf_counter()
            worker.join()
            if window[0] < seen < window[1]:
                return True
        return False
    finally:
        sys.setswitchinterval(interval)


#: Long enough to scan that another thread gets a turn (32 MiB of 2-byte sequences).
_LARGE: Final = ("ж" * (1 << 24)).encode()


@speedups_only
def test_compiled_is_valid_scans_large_input_without_the_gil() -> None:
    """Above 32 KiB the GIL is released; a bytearray stays exported (not resizable)
    while it is scanned, and threads see their own results."""
    assert _built is not None
    built = _built
    assert _runs_without_the_gil(lambda: built.is_valid(_LARGE))
    # Control: the observation can fail. CPython's decoder holds the GIL throughout.
    assert not _runs_without_the_gil(lambda: _LARGE.decode("utf-8"))
    good = ("ж" * 40000).encode()
    bad = good + b"\xed\xa0\x80"
    results: list[bool] = []

    def work(data: bytes | bytearray) -> None:
        results.append(_built.is_valid(data))

    inputs = [good, bad, bytearray(good), bytearray(bad)]
    threads = [threading.Thread(target=work, args=(data,)) for data in inputs * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False] * 4 + [True] * 4


@speedups_only
def test_compiled_is_valid_is_documented() -> None:
    assert _built is not None
    assert _built.is_valid.__doc__ is not None
    doc = _built.is_valid.__doc__
    assert doc.startswith("is_valid(data, policy=STRICT)")
    assert "TypeError" in doc
    # Its example runs, as the pure-Python docstring's does under --doctest-modules.
    names = {"is_valid": _built.is_valid}
    test = doctest.DocTestParser().get_doctest(doc, names, "is_valid", None, 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.summarize(verbose=False) == doctest.TestResults(0, 1)


def _feed_in_chunks(data: bytes, size: int) -> None:
    validator = IncrementalValidator()
    for at in range(0, len(data), size):
        validator.feed(data[at : at + size])
    validator.finish()


def test_stream_matches_one_shot(implementation: str) -> None:
    data = ("κόσμε " * 20).encode() + "\ufdd0".encode() + b"tail"
    for size in (1, 3, 64, 100):
        with pytest.raises(utf8guard.Utf8Error) as caught:
            _feed_in_chunks(data, size)
        assert caught.value.violation == find_violation(data)


def test_kuhn_stress_test_matches_reference(
    implementation: str, kuhn_corpus: bytes
) -> None:
    for policy in (STRICT, WELL_FORMED, IDENTIFIER, ALL_REFUSED):
        assert list(iter_violations(kuhn_corpus, policy)) == _oracle(
            kuhn_corpus, policy
        )


# --- the compiled scanner on every instruction set ---------------------------------


@speedups_only
def test_every_code_point_is_refused_exactly_by_its_set(all_isas: list[str]) -> None:
    """Each allow_* flag alone, over all 1,112,064 scalar values in one buffer."""
    assert _built is not None
    points = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    data = "".join(map(chr, points)).encode()
    offsets = [0]
    for cp in points:
        offsets.append(offsets[-1] + len(chr(cp).encode()))

    def span(cp: int) -> tuple[int, int]:
        index = cp - 0x800 if cp > 0xDFFF else cp  # points skips the surrogates
        return offsets[index], offsets[index + 1]

    for bit in range(len(fuzz_accel.FLAGS)):
        policy = POLICIES[1 << bit]
        ((kind, ranges),) = refused_ranges(policy)
        want = [
            Violation(kind, *span(cp)) for lo, hi in ranges for cp in range(lo, hi + 1)
        ]
        for isa in all_isas:
            _built.set_isa(isa)
            got = fuzz_accel.walk(_built.first_violation, data, 0, policy)
            assert got == want, (isa, kind)


@speedups_only
def test_every_two_byte_prefix_matches_reference(all_isas: list[str]) -> None:
    """Every non-ASCII lead, then each edge of the second-byte ranges of Table 3-7,
    then continuations, across a 64-byte block line."""
    seconds = (0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xFF)
    for lead, second in product(range(0x80, 0x100), seconds):
        data = b"a" * 62 + bytes([lead, second]) + b"\x80\x80a"
        _each_isa(data, STRICT, all_isas)


@speedups_only
@pytest.mark.parametrize("needle", NEEDLES, ids=lambda n: n.hex())
def test_needle_at_every_offset_around_block_lines(
    all_isas: list[str], needle: bytes
) -> None:
    """Every offset within 4 bytes of a 16-byte line, up to the end of a 2nd block."""
    offsets = sorted(
        {max(line + d, 0) for line in range(0, 141, 16) for d in range(-4, 5)}
    )
    for filler in fuzz_accel_boundaries.FILLERS:
        for offset in offsets:
            data = fuzz_accel_boundaries.build(filler, 140, offset, needle)
            for policy in (STRICT, ALL_REFUSED):
                _each_isa(data, policy, all_isas)


@speedups_only
def test_every_length_up_to_two_blocks(all_isas: list[str]) -> None:
    """Inputs of every length 0..128, ending anywhere inside a character."""
    for filler in fuzz_accel_boundaries.FILLERS:
        for length in range(129):
            data = fuzz_accel_boundaries.build(filler, length, 0, b"")
            for policy in (STRICT, ALL_REFUSED):
                _each_isa(data, policy, all_isas)


@speedups_only
def test_flagged_block_resumes_the_filter(all_isas: list[str]) -> None:
    """A false alarm (allowed U+1FFE ends in BF BE) then a real error blocks later."""
    data = ("\u1ffe" + "é" * 40).encode() * 3 + b"x" * 100 + b"\xc0"
    _each_isa(data, STRICT, all_isas)
    ascii_after_lead = b"b" * 63 + b"\xe2" + b"a" * 64
    _each_isa(ascii_after_lead, STRICT, all_isas)


#: Characters whose encoding the kernel's fast noncharacter test flags but its sharper
#: recheck clears (Unicode ch. 23.7: noncharacters are U+FDD0..U+FDEF and U+nFFFE,
#: U+nFFFF): a BF BE..BF pair after another lead (U+4FFE = E4 BF BE, U+4FFF), EF B7
#: before a byte outside 90..AF (U+FDCF, U+FDF0), and ones both keep (U+FFBE =
#: EF BE BE, U+1FFBE = F0 9F BE BE: BE BE counts too).
NEAR_NONCHARACTERS: Final = (
    "\u4ffe",
    "\u4fff",
    "\ufdcf",
    "\ufdf0",
    "\uffbe",
    "\U0001ffbe",
)
#: Noncharacters at each end of both ranges, in each plane kind.
SOME_NONCHARACTERS: Final = (
    "\ufdd0",
    "\ufdef",
    "\ufffe",
    "\uffff",
    "\U0001fffe",
    "\U0004ffff",
    "\U0010ffff",
)


@speedups_only
def test_sharp_recheck_keeps_every_noncharacter_in_dense_near_misses(
    all_isas: list[str],
) -> None:
    """Text of one near miss, a noncharacter at every character position of three
    blocks, and the near miss alone: the oracle's verdicts in every instruction set."""
    for near in NEAR_NONCHARACTERS:
        filler = near.encode()
        count = 200 // len(filler)
        _each_isa(filler * count, STRICT, all_isas)
        for needle in SOME_NONCHARACTERS:
            for before in range(count):
                data = filler * before + needle.encode() + filler * (count - before)
                for policy in (STRICT, ALL_REFUSED):
                    _each_isa(data, policy, all_isas)


@speedups_only
@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=40).map(str.encode),
            st.sampled_from(NEEDLES),
            st.binary(max_size=4),
        ),
        max_size=12,
    ),
    st.sampled_from(POLICIES),
)
def test_near_valid_input_matches_reference(parts: list[bytes], policy: Policy) -> None:
    assert _built is not None
    saved = _built.isa()
    try:
        _each_isa(b"".join(parts), policy, _built.supported_isas())
    finally:
        _built.set_isa(saved)


@speedups_only
@pytest.mark.parametrize(("start", "end"), [(0, 5), (1, 5), (3, 9), (9, 9), (5, 10)])
def test_range_is_honoured_and_its_end_ends_the_input(start: int, end: int) -> None:
    assert _built is not None
    data = b"ab\xe2\x82\xac\xf0\x9f\x98\x80c"
    for policy in (STRICT, ALL_REFUSED):
        want = _oracle(data[start:end], policy)
        got = _built.first_violation(data, start, end, policy)
        expected = (
            Violation(want[0].kind, want[0].start + start, want[0].end + start)
            if want
            else None
        )
        assert got == expected


@speedups_only
def test_buffers_are_read_in_place() -> None:
    assert _built is not None
    data = b"x" * 70 + "\uffff".encode()
    found = Violation(Kind.NONCHARACTER, 70, 73)
    for buf in (data, bytearray(data), memoryview(data), memoryview(bytearray(data))):
        assert _built.first_violation(buf, 0, len(data), STRICT) == found
    window = memoryview(b"??" + data)[2:]
    assert _built.first_violation(window, 0, len(data), STRICT) == found


@speedups_only
def test_large_input_scans_without_the_gil() -> None:
    """Above 32 KiB the scan runs with the GIL released; threads see their results."""
    assert _built is not None
    built = _built
    assert _runs_without_the_gil(
        lambda: built.first_violation(_LARGE, 0, len(_LARGE), STRICT)
    )
    data = ("ж" * 40000).encode() + b"\xed\xa0\x80"
    results: list[Violation | None] = []

    def work() -> None:
        results.append(_built.first_violation(data, 0, len(data), STRICT))

    threads = [threading.Thread(target=work) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [Violation(Kind.SURROGATE, 80000, 80001)] * 3


@speedups_only
def test_policy_changes_between_calls_are_seen() -> None:
    """The last policy's flags are cached by identity; another policy recomputes."""
    assert _built is not None
    data = "\ufffe".encode()
    for _ in range(2):
        assert _built.first_violation(data, 0, 3, WELL_FORMED) is None
        assert _built.first_violation(data, 0, 3, STRICT) is not None


@speedups_only
@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((b"abc", 0, 4, STRICT), ValueError),
        ((b"abc", -1, 2, STRICT), ValueError),
        ((b"abc", 2, 1, STRICT), ValueError),
        ((b"abc", 0, 3), TypeError),
        (("abc", 0, 3, STRICT), TypeError),
        ((b"abc", "0", 3, STRICT), TypeError),
        ((b"abc", 0, None, STRICT), TypeError),
        ((b"abc", 0, 3, object()), TypeError),
    ],
)
def test_bad_arguments_raise(args: tuple[object, ...], error: type[Exception]) -> None:
    assert _built is not None
    with pytest.raises(error):
        _built.first_violation(*args)  # type: ignore[arg-type]  # deliberately wrong


@speedups_only
@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((b"", b"abc"), TypeError),
        (("", b"abc", STRICT), TypeError),
        ((bytearray(b"\xe2"), b"abc", STRICT), TypeError),
        ((b"\xf0\x9f\x98\x80", b"", STRICT), ValueError),
        ((b"", "abc", STRICT), TypeError),
        ((b"", b"abc", object()), TypeError),
    ],
)
def test_stream_step_checks_its_arguments(
    args: tuple[object, ...], error: type[Exception]
) -> None:
    assert _built is not None
    with pytest.raises(error):
        _built.stream_step(*args)  # type: ignore[arg-type]  # deliberately wrong


@speedups_only
def test_policy_flags_must_be_truth_testable() -> None:
    assert _built is not None

    class Opaque:
        def __bool__(self) -> bool:
            raise RuntimeError("no truth value")

    class Odd(Policy):  # a Policy, so its flags are read: the first one raises
        @property
        def allow_noncharacters(self) -> bool:  # type: ignore[override]  # on purpose
            return Opaque()  # type: ignore[return-value]  # on purpose

    with pytest.raises(RuntimeError, match="no truth value"):
        _built.first_violation(b"a", 0, 1, object.__new__(Odd))

    # Anything but a Policy is refused before a flag is read, duck or not.
    class Duck:
        allow_noncharacters = Opaque()

    with pytest.raises(TypeError, match=r"^policy must be a Policy, not Duck$"):
        _built.first_violation(b"a", 0, 1, Duck())  # type: ignore[arg-type]  # duck


@speedups_only
def test_instruction_sets_can_be_listed_and_chosen(all_isas: list[str]) -> None:
    assert _built is not None
    assert all_isas[0] == "scalar"
    assert _built.isa() in all_isas
    for isa in all_isas:
        _built.set_isa(isa)
        assert _built.isa() == isa
    with pytest.raises(ValueError, match="not supported"):
        _built.set_isa("neon-on-a-toaster")
    with pytest.raises(TypeError):
        _built.set_isa(3)  # type: ignore[arg-type]  # deliberately wrong


# --- the fuzz corpora replay without atheris ----------------------------------------

CORPORA: Final = {
    "accel": fuzz_accel.check,
    "accel_boundaries": fuzz_accel_boundaries.check,
}


def _corpus_files() -> list[tuple[str, Path]]:
    return [
        (name, path)
        for name in CORPORA
        for path in sorted((ROOT / "fuzz" / "corpus" / name).glob("*"))
    ]


@speedups_only
@pytest.mark.parametrize(
    ("harness", "path"), _corpus_files(), ids=lambda v: getattr(v, "name", v)
)
def test_fuzz_corpus_replays(harness: str, path: Path) -> None:
    CORPORA[harness](path.read_bytes())


def test_corpora_are_not_empty() -> None:
    assert {name for name, _ in _corpus_files()} == set(CORPORA)


#: A fresh interpreter that imports utf8guard, builds one violation in C (unless
#: "unused": then the first use, and the C self-check of the policy's code-point
#: sets, comes after), then imports the package again: as coverage.py does for a
#: ``--cov=<subpackage>`` source (it imports to locate it, then restores
#: sys.modules), or ``importlib.reload``. The extension module is not initialised
#: again (single-phase init keeps its statics).
_REIMPORT: Final = """
import importlib, sys
import utf8guard
assert utf8guard.IMPLEMENTATION == "c"
if sys.argv[1] != "reimport-unused":
    utf8guard.find_violation(b"\\xff")
if sys.argv[1].startswith("reimport"):
    for name in [m for m in sys.modules if m.split(".")[0] == "utf8guard"]:
        if name != "utf8guard._speedups":
            del sys.modules[name]
    import utf8guard
else:
    importlib.reload(utf8guard._violation)
    importlib.reload(utf8guard)
from utf8guard import _speedups, _violation
found = _speedups.first_violation(b"a\\xed\\xa0\\x80", 0, 4, utf8guard.STRICT)
assert type(found) is _violation.Violation, type(found)
assert found.kind is _violation.Kind.SURROGATE, found.kind
assert found == _violation.Violation(_violation.Kind.SURROGATE, 1, 2), found
step = _speedups.stream_step(b"", b"\\xc0\\xaf", utf8guard.STRICT)
assert type(step) is _violation.Violation and step.kind is _violation.Kind.OVERLONG
"""


@speedups_only
@pytest.mark.parametrize("how", ["reimport", "reimport-unused", "reload"])
def test_violations_are_of_the_classes_imported_now(how: str) -> None:
    """Violations built in C are of the utf8guard._violation classes of the moment,
    so they compare equal to, and their kinds are, the ones Python code holds."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    env.pop(_accel.PURE_PYTHON_ENV, None)
    done = subprocess.run(  # noqa: S603 - our own interpreter, fixed arguments
        [sys.executable, "-c", _REIMPORT, how],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
