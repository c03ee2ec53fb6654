"""multipart/form-data: the canonical text-field header block (issue 28's per-part
fast path) gets exactly the verdicts of the full path.

``CANONICAL_FIELD_HEAD`` lets a part whose header block is byte for byte
``Content-Disposition: form-data; name="x"`` skip the header rules. It must never
pass what they refuse, nor refuse what they pass: the reference is the same parser
with the fast path off, fed bodies of header blocks taken from the refusal rows of
the differential suite and the multipart tests, mutated at random, under boundaries
that occur inside the canonical block itself.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from utf8guard import IDENTIFIER, STRICT, WELL_FORMED, Policy
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.body import _multipart as multipart_module
from utf8guard.middleware.body import _multipart_fields
from utf8guard.middleware.body._multipart import MultipartInspector
from utf8guard.middleware.body._multipart_part import (
    CANONICAL_FIELD_HEAD,
    _plan,
    field_plan,
    plan_rules,
)
from utf8guard.middleware.engine._finding import (
    MAX_SAFE_NAME_BYTES,
    Finding,
    safe_name,
)

from ..differential import table, table_framing
from .test_multipart import MULTIPART_CASES
from .test_multipart_whole_parts import BLOCKS

CANONICAL = b'Content-Disposition: form-data; name="%s"'
END = b"\r\n\r\n"


def _header_blocks(raw: bytes) -> list[bytes]:
    """Each header block in ``raw`` that starts with a Content-Disposition, up to
    the empty line (or at most 300 bytes)."""
    blocks = []
    for match in re.finditer(rb"(?i)content-disposition", raw):
        end = raw.find(END, match.start())
        stop = match.start() + 300 if end < 0 else min(end, match.start() + 300)
        blocks.append(raw[match.start() : stop])
    return blocks


#: Header blocks of the differential rows (refusals, controls, probes) and of the
#: multipart tests, as sent; the canonical block's neighbours among them (a name of
#: another case or quoting, a filename, a second field) are the adversarial ones.
SEEDS: tuple[bytes, ...] = tuple(
    dict.fromkeys(
        block
        for raw in itertools.chain(
            (row.raw for row in table.ROWS + table_framing.ROWS),
            (body for _, body, _ in MULTIPART_CASES),
        )
        for block in _header_blocks(raw)
    )
)
#: Every byte those blocks hold, plus the ones the canonical form is close to.
ALPHABET: bytes = bytes(sorted(set(b"".join(SEEDS)) | set(b'"\\;= \t\r\n%*\x00\xff')))
#: Names: safe ones up to the length limit and past it, and each byte of the
#: alphabet inside one.
SAFE = st.text("abcXYZ019._-[]", min_size=1, max_size=MAX_SAFE_NAME_BYTES + 1).map(
    str.encode
)
NAMES = st.one_of(
    SAFE,
    st.builds(
        lambda head, byte, tail: head + bytes([byte]) + tail,
        SAFE,
        st.sampled_from(ALPHABET) | st.integers(0, 0xFF),
        SAFE | st.just(b""),
    ),
    st.sampled_from([b"", b"_charset_", "\u00e4".encode(), b"a b", b"A"]),
)


@st.composite
def mutated(draw: st.DrawFn, block: bytes) -> bytes:
    """``block`` with up to three bytes replaced, inserted or deleted."""
    data = bytearray(block)
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["replace", "insert", "delete"]))
        byte = draw(st.sampled_from(ALPHABET))
        if op == "insert" or at == len(data):
            data.insert(at, byte)
        elif op == "replace":
            data[at] = byte
        else:
            del data[at]
    return bytes(data)


#: A header block: canonical with any name, a seed, or either mutated.
HEADS = st.one_of(
    NAMES.map(lambda name: CANONICAL % name),
    st.sampled_from(SEEDS),
    BLOCKS.map(lambda block: block.replace(b"%s", b"a")),
).flatmap(lambda block: st.one_of(st.just(block), mutated(block)))
#: Boundaries (RFC 2046 bchars): the suite's, and ones the canonical block holds.
BOUNDARIES = st.sampled_from([b"XyZ", b"a", b"on", b"form", b"data", b"-", b"1", b"="])
CONTENTS = st.sampled_from([b"x", b"", "\u00e4".encode(), b"\xff", b"utf-8", b"\r"])
POLICIES = st.sampled_from([STRICT, IDENTIFIER, WELL_FORMED])

Findings = list[tuple[str | None, str, int, bool]]


def _run(
    data: bytes, boundary: bytes, chunks: Sequence[int], config: GuardConfig
) -> tuple[Findings, list[int]]:
    inspector = MultipartInspector(boundary, config)
    found, checked = [], []
    for lo, hi in itertools.pairwise([0, *chunks, len(data)]):
        found += inspector.feed(data[lo:hi])
        checked.append(inspector.checked)
    found += inspector.finish()
    return [(f.name, f.kind.value, f.offset, f.fixable) for f in found], checked


def run(
    data: bytes,
    boundary: bytes,
    chunks: Sequence[int],
    config: GuardConfig,
    *,
    fast: bool,
) -> tuple[Findings, list[int]]:
    """Findings and ``checked`` after each chunk, with the fast path on or off."""
    if fast:
        return _run(data, boundary, chunks, config)
    with pytest.MonkeyPatch.context() as patch:
        never = re.compile(b"(?!)")
        patch.setattr(multipart_module, "CANONICAL_FIELD_HEAD", never)
        patch.setattr(_multipart_fields, "CANONICAL_FIELD_HEAD", never)
        return _run(data, boundary, chunks, config)


@settings(max_examples=400)
@given(
    parts=st.lists(st.tuples(HEADS, CONTENTS), min_size=1, max_size=4),
    boundary=BOUNDARIES,
    policy=POLICIES,
    cuts=st.lists(st.integers(min_value=0, max_value=600), max_size=3),
)
def test_fast_path_gives_the_full_paths_findings(
    parts: list[tuple[bytes, bytes]],
    boundary: bytes,
    policy: Policy,
    cuts: list[int],
) -> None:
    dash = b"--" + boundary
    data = b"".join(
        dash + b"\r\n" + head + END + body + b"\r\n" for head, body in parts
    )
    data += dash + b"--\r\n"
    config = GuardConfig(policy=policy)
    chunks = sorted(min(at, len(data)) for at in cuts)
    for split in ([], chunks):
        got = run(data, boundary, split, config, fast=True)
        assert got == run(data, boundary, split, config, fast=False)


@settings(max_examples=400)
@given(head=HEADS, policy=POLICIES, windows=st.booleans())
def test_a_canonical_block_gets_the_full_plan(
    head: bytes, policy: Policy, windows: bool
) -> None:
    rules = plan_rules(policy, policy, windows)
    field = CANONICAL_FIELD_HEAD.fullmatch(head + END)
    if field is not None:
        assert field_plan(field[1]) == _plan(head, rules)


@pytest.mark.parametrize("policy", [STRICT, WELL_FORMED], ids=["strict", "wf"])
def test_each_byte_in_a_name_gets_the_full_plan(policy: Policy) -> None:
    # Exhaustive where the property samples: every byte, alone and inside a name.
    rules = plan_rules(policy, policy)
    passed = set()
    for byte in range(0x100):
        for name in (bytes([byte]), b"a" + bytes([byte]) + b"b"):
            field = CANONICAL_FIELD_HEAD.fullmatch(CANONICAL % name + END)
            if field is not None:
                assert field_plan(field[1]) == _plan(CANONICAL % name, rules)
                passed.add(byte)
    # The fast path takes exactly safe_name's characters.
    assert passed == {byte for byte in range(0x100) if safe_name(bytes([byte]))}


@pytest.mark.parametrize(
    "name",
    [b"a", b"user[email]", b"a-b.c_d", b"Z" * MAX_SAFE_NAME_BYTES],
)
def test_browser_fields_take_the_fast_path(name: bytes) -> None:
    # What Chromium, Firefox, curl and requests send for a text field.
    field = CANONICAL_FIELD_HEAD.fullmatch(CANONICAL % name + END)
    assert field is not None
    plan = field_plan(field[1])
    assert plan == _plan(CANONICAL % name, plan_rules(STRICT, STRICT))
    assert plan.name == safe_name(name)


@pytest.mark.parametrize(
    "head",
    [
        CANONICAL % b"a" + b'; filename="a.txt"',
        CANONICAL % b"",
        CANONICAL % (b"Z" * (MAX_SAFE_NAME_BYTES + 1)),
        CANONICAL % b"a%0D",
        CANONICAL % b"_charset_",  # its content is the form's charset
        CANONICAL % "\u00e4".encode(),
        b'content-disposition: form-data; name="a"',
        b'Content-Disposition: form-data;name="a"',
        b"Content-Disposition: form-data; name=a",
        CANONICAL % b"a" + b"\r\nContent-Type: application/json",
    ],
)
def test_other_spellings_take_the_full_path(head: bytes) -> None:
    assert CANONICAL_FIELD_HEAD.match(head + END) is None


def test_the_seeds_hold_refusals_near_the_canonical_block() -> None:
    # The property's seeds are the suite's rows, not only clean blocks.
    rules = plan_rules(STRICT, STRICT)
    refused = [seed for seed in SEEDS if isinstance(_plan(seed, rules), Finding)]
    assert len(SEEDS) > 50
    assert len(refused) > 20


@pytest.mark.parametrize("boundary", [b"form", b"a", b"Disposition"])
def test_a_boundary_inside_the_canonical_block_is_refused(boundary: bytes) -> None:
    # RFC 2046 §5.1.1: no part holds its boundary (Sanic splits at each one).
    data = b"--%s\r\n%s\r\n\r\nx\r\n--%s--\r\n" % (boundary, CANONICAL % b"a", boundary)
    stray = data.index(boundary, len(boundary) + 4)
    for fast in (True, False):
        found, _ = run(data, boundary, [], GuardConfig(), fast=fast)
        assert found == [(None, "multipart_boundary_in_part", stray, False)]
