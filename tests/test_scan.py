"""One-shot API against the spec vectors, CPython's codec and the reference oracle."""

from __future__ import annotations

import array
import pickle

import pytest

import utf8guard
from utf8guard import (
    STRICT,
    WELL_FORMED,
    Kind,
    Policy,
    Utf8Error,
    Violation,
    decode,
    find_violation,
    is_valid,
    iter_violations,
    reference,
    validate,
)
from utf8guard._scan import CHUNK_BYTES, first_violation, safe_cut

from .conftest import ALL_POLICIES
from .vectors import INVALID, NEIGHBOURS, POLICY, VALID


@pytest.mark.parametrize(
    ("data", "kind", "start", "end"),
    [pytest.param(d, k, s, e, id=i) for i, d, k, s, e, _ in INVALID],
)
def test_invalid_vectors(data: bytes, kind: Kind, start: int, end: int) -> None:
    expected = Violation(kind, start, end)
    assert find_violation(data) == expected
    assert not is_valid(data)
    with pytest.raises(Utf8Error) as info:
        validate(data)
    assert info.value.violation == expected
    with pytest.raises(Utf8Error):
        decode(data)


@pytest.mark.parametrize(
    ("data", "kind", "start", "end"),
    [
        pytest.param(d, k, s, e, id=i)
        for i, d, k, s, e, _ in INVALID
        if k != Kind.NONCHARACTER
    ],
)
def test_ill_formed_spans_match_cpython(
    data: bytes, kind: Kind, start: int, end: int
) -> None:
    with pytest.raises(UnicodeDecodeError) as info:
        data.decode("utf-8")
    assert (info.value.start, info.value.end) == (start, end)
    assert find_violation(data, WELL_FORMED) == Violation(kind, start, end)


@pytest.mark.parametrize("data", [pytest.param(d, id=i) for i, d, _ in VALID])
def test_valid_vectors(data: bytes) -> None:
    assert find_violation(data) is None
    assert is_valid(data)
    validate(data)
    assert decode(data) == data.decode("utf-8")


@pytest.mark.parametrize(
    ("data", "flag", "kind", "start", "end"),
    [pytest.param(d, f, k, s, e, id=i) for i, d, f, k, s, e in POLICY],
)
def test_policy_flags(data: bytes, flag: str, kind: Kind, start: int, end: int) -> None:
    assert is_valid(data, STRICT)
    refusing = STRICT.replace(**{flag: False})
    assert find_violation(data, refusing) == Violation(kind, start, end)
    others = Policy(**{f: False for f in ("allow_nul", "allow_controls")})
    if flag not in ("allow_nul", "allow_controls"):
        assert is_valid(data, others)


@pytest.mark.parametrize("data", [pytest.param(d, id=i) for i, d in NEIGHBOURS])
def test_neighbours_of_refused_sets_pass_every_policy(data: bytes) -> None:
    for policy in ALL_POLICIES:
        assert find_violation(data, policy) is None, policy


def test_nul_is_governed_by_allow_nul_alone() -> None:
    assert is_valid(b"\x00", Policy(allow_controls=False))
    assert find_violation(b"\x00", Policy(allow_nul=False)) == Violation(Kind.NUL, 0, 1)


def test_all_66_noncharacters() -> None:
    nonchars = [*range(0xFDD0, 0xFDF0)] + [
        p << 16 | low for p in range(17) for low in (0xFFFE, 0xFFFF)
    ]
    assert len(nonchars) == 66
    for cp in nonchars:
        data = b"ab" + chr(cp).encode() + b"c"
        assert find_violation(data) == Violation(Kind.NONCHARACTER, 2, len(data) - 1)
        assert is_valid(data, WELL_FORMED)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param("café", id="str"),
        pytest.param(123, id="int"),
        pytest.param(None, id="none"),
        pytest.param(["a"], id="list"),
    ],
)
def test_non_bytes_input_is_a_type_error(data: object) -> None:
    for call in (find_violation, is_valid, validate, decode, utf8guard.repair):
        with pytest.raises(TypeError, match="expected bytes, bytearray or memoryview"):
            call(data)  # type: ignore[arg-type]  # wrong type on purpose
    with pytest.raises(TypeError, match="expected bytes"):
        list(iter_violations(data))  # type: ignore[arg-type]  # wrong type on purpose


class _DuckPolicy:
    """Every flag a Policy has, but not a Policy: refused like any other object."""

    def __getattr__(self, name: str) -> bool:
        return True


@pytest.mark.parametrize(
    "policy",
    [
        pytest.param("strict", id="str"),
        pytest.param(None, id="none"),
        pytest.param(5, id="int"),
        pytest.param(_DuckPolicy(), id="duck"),
    ],
)
@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"abc", id="ascii"),
        pytest.param(b"caf\xc3\xa9 \xff", id="invalid"),
        pytest.param(bytearray(b"caf\xc3\xa9"), id="bytearray"),
        pytest.param("é".encode() * (CHUNK_BYTES // 2 + 1), id="past-one-chunk"),
    ],
)
def test_a_policy_that_is_not_a_policy_is_a_type_error(
    data: bytes | bytearray, policy: object
) -> None:
    # Named plainly by every entry point in both builds (was an AttributeError).
    message = f"^policy must be a Policy, not {type(policy).__name__}$"
    for call in (find_violation, is_valid, validate, decode, utf8guard.repair):
        with pytest.raises(TypeError, match=message):
            call(data, policy)  # type: ignore[arg-type]  # wrong type on purpose
    with pytest.raises(TypeError, match=message):
        list(iter_violations(data, policy))  # type: ignore[arg-type]  # on purpose


def test_str_error_explains_what_to_pass() -> None:
    with pytest.raises(TypeError, match="pass the raw bytes"):
        is_valid("text")  # type: ignore[arg-type]  # wrong type on purpose


def test_bytes_like_inputs() -> None:
    data = b"ok \xe2\x82\xac \xed\xa0\x80"
    expected = Violation(Kind.SURROGATE, 7, 8)
    assert find_violation(bytearray(data)) == expected
    assert find_violation(memoryview(data)) == expected
    assert find_violation(memoryview(data)[2:]) == Violation(Kind.SURROGATE, 5, 6)
    wide = array.array("H", [0x8080, 0x4141])  # bytes 80 80 41 41 on either byte order
    assert find_violation(memoryview(wide)) == Violation(
        Kind.UNEXPECTED_CONTINUATION, 0, 1
    )
    with pytest.raises(TypeError, match="C-contiguous"):
        find_violation(memoryview(data)[::2])


def test_error_message_names_kind_offsets_and_hex_only() -> None:
    with pytest.raises(Utf8Error) as info:
        validate(b"secret-\xf0\x9f\x98")
    assert str(info.value) == "truncated at bytes [7, 10): f0 9f 98"
    assert "secret" not in str(info.value)
    assert isinstance(info.value, ValueError)


def test_error_without_bytes_gives_kind_and_offsets() -> None:
    error = Utf8Error(Violation(Kind.NUL, 3, 4))
    assert str(error) == "nul at bytes [3, 4)"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"a\xc0\xafb", "overlong at bytes [1, 2): c0"),
        (b"x" * 20 + b"\xef\xbf\xbe", "noncharacter at bytes [20, 23): ef bf be"),
    ],
)
def test_error_survives_pickle(data: bytes, message: str) -> None:
    # A worker pool or a multiprocessing queue pickles the exception: it must come
    # back as the same type with the same violation and message, not fail to load.
    with pytest.raises(Utf8Error) as info:
        validate(data)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(info.value, protocol))  # noqa: S301 (own bytes)
        assert type(back) is Utf8Error
        assert str(back) == message
        assert back.violation == info.value.violation
    bare = pickle.loads(pickle.dumps(Utf8Error(Violation(Kind.NUL, 3, 4))))  # noqa: S301
    assert str(bare) == "nul at bytes [3, 4)"


def test_kind_str_is_its_value() -> None:
    assert str(Kind.BIDI_CONTROL) == "bidi_control"
    assert Kind("overlong") is Kind.OVERLONG


def test_iter_violations_resumes_after_each() -> None:
    data = b"\xc0\xaf-\xed\xa0\x80-\xef\xbf\xbe-\xe2\x82"
    assert list(iter_violations(data)) == [
        Violation(Kind.OVERLONG, 0, 1),
        Violation(Kind.UNEXPECTED_CONTINUATION, 1, 2),
        Violation(Kind.SURROGATE, 3, 4),
        Violation(Kind.UNEXPECTED_CONTINUATION, 4, 5),
        Violation(Kind.UNEXPECTED_CONTINUATION, 5, 6),
        Violation(Kind.NONCHARACTER, 7, 10),
        Violation(Kind.TRUNCATED, 11, 13),
    ]


def test_pure_ascii_under_policy_refusing_ascii() -> None:
    assert is_valid(b"plain ascii\t\r\n", Policy(allow_controls=False, allow_nul=False))
    assert find_violation(b"abc\x07", Policy(allow_controls=False)) == Violation(
        Kind.CONTROL, 3, 4
    )


# Large inputs are decoded in chunks: violations and characters at every position around
# the chunk boundaries must be found exactly as in a single pass.
@pytest.mark.parametrize("shift", range(-5, 5))
@pytest.mark.parametrize(
    "piece",
    [
        b"\xe2\x82\xac",
        b"\xf0\x9d\x84\x9e",
        b"\xed\xa0\x80",
        b"\xf0\x9f\xbf\xbe",
        b"\xe2\x82",
    ],
    ids=["euro", "clef", "surrogate", "nonchar", "truncated"],
)
def test_chunk_boundaries(shift: int, piece: bytes) -> None:
    tail = piece + "ä".encode() * 10
    local = reference.find_violation(tail)
    for boundary in (CHUNK_BYTES, 2 * CHUNK_BYTES):
        offset = boundary + shift
        data = b"a" * offset + tail
        expected = local and Violation(
            local.kind, offset + local.start, offset + local.end
        )
        assert find_violation(data) == expected
        assert find_violation(bytearray(data)) == expected
        assert find_violation(memoryview(data)) == expected


def test_long_run_of_violations_is_all_reported() -> None:
    data = b"\xff" * (3 * CHUNK_BYTES)
    found = list(iter_violations(data))
    assert len(found) == len(data)
    assert found[-1] == Violation(Kind.INVALID_BYTE, len(data) - 1, len(data))


def test_safe_cut_never_splits_a_span() -> None:
    # Four continuation bytes before the cut: no span of at most 4 bytes can cross it.
    data = b"\xf0\x90\x80\x80\x80\x80\x80"
    assert safe_cut(data, 5) == 5
    assert safe_cut(b"a\xe2\x82\xac", 3) == 1
    assert safe_cut(b"abc", 3) == 3


def test_first_violation_respects_range() -> None:
    data = b"\xff abc \xff"
    assert first_violation(data, 1, 6, STRICT) is None
    assert first_violation(data, 1, 7, STRICT, window=2) == Violation(
        Kind.INVALID_BYTE, 6, 7
    )


@pytest.mark.parametrize("policy", ALL_POLICIES[:: len(ALL_POLICIES) // 8])
def test_kuhn_corpus_agrees_with_reference(kuhn_corpus: bytes, policy: Policy) -> None:
    assert list(iter_violations(kuhn_corpus, policy)) == list(
        reference.iter_violations(kuhn_corpus, policy)
    )


def test_python_is_valid_is_the_only_late_name() -> None:
    # _scan's module __getattr__ supplies python_is_valid (bound late in the C build,
    # issue 28) and nothing else.
    from utf8guard import _scan

    assert _scan.python_is_valid(b"\xef\xb7\x90") is False  # U+FDD0, a noncharacter
    assert _scan.python_is_valid("\u00e9".encode()) is True
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        _scan.no_such_name  # noqa: B018 - the lookup is the test


@pytest.mark.parametrize("policy", [STRICT, Policy(allow_controls=False)])
@pytest.mark.parametrize("kind", [bytes, bytearray])
def test_ascii_past_one_chunk_matches_reference(
    kind: type[bytes] | type[bytearray], policy: Policy
) -> None:
    # Past one chunk neither type takes is_valid's one-chunk shortcut: isascii()
    # settles it where the policy refuses no ASCII, first_violation where it does.
    data = kind(b"ascii\t" * (CHUNK_BYTES // 6 + 1))
    expected = reference.find_violation(bytes(data), policy)
    assert find_violation(data, policy) == expected
    assert is_valid(data, policy) == (expected is None)
