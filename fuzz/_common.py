"""What every harness shares: the input header, mismatch reports, the atheris entry.

Each harness reads a few header bytes before the bytes under test, so the fuzzer
chooses the policy and the buffer type along with the input. The layout is plain
bytes, not atheris's FuzzedDataProvider, so that corpus files replay without atheris
(``tests/test_fuzz_corpus.py``) and a crash file can be read by eye.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cache
from typing import Final, NoReturn

from utf8guard import STRICT, BytesLike, Policy

__all__ = ["POLICY_FLAGS", "mismatch", "policy_of", "run_atheris", "split", "wrap"]

#: Bit ``i`` of the policy byte flips ``POLICY_FLAGS[i]`` from its STRICT default, so
#: 0x00 is STRICT, 0x01 WELL_FORMED and 0x0E IDENTIFIER.
POLICY_FLAGS: Final = (
    "allow_noncharacters",
    "allow_nul",
    "allow_controls",
    "allow_bidi_controls",
    "allow_private_use",
    "allow_bom",
)
#: Bits 6 and 7 of the policy byte choose how the bytes are handed over.
_WRAP_SHIFT: Final = 6


def split(data: bytes, header_bytes: int) -> tuple[bytes, bytes]:
    """The header (zero-padded when the input is shorter) and the bytes under test."""
    header = data[:header_bytes]
    return header + bytes(header_bytes - len(header)), data[header_bytes:]


def policy_of(selector: int) -> Policy:
    """The policy chosen by the low 6 bits of ``selector``."""
    return _policy(selector & (1 << len(POLICY_FLAGS)) - 1)


@cache  # a Policy compiles its scanning plan on first use: reuse the 64 objects
def _policy(flips: int) -> Policy:
    return Policy(
        **{
            name: getattr(STRICT, name) ^ bool(flips >> bit & 1)
            for bit, name in enumerate(POLICY_FLAGS)
        }
    )


def wrap(payload: bytes, selector: int) -> BytesLike:
    """``payload`` as bytes, bytearray, memoryview, or a memoryview of format 'c'.

    The core takes a fast path for bytes and bytearray only, and casts other
    memoryview formats; each path must give the same answer.
    """
    choice = selector >> _WRAP_SHIFT
    if choice == 0:
        return payload
    if choice == 1:
        return bytearray(payload)
    if choice == 2:
        return memoryview(payload)
    # typeshed calls a format 'c' view memoryview[bytes]; the core takes any view
    return memoryview(payload).cast("c")  # type: ignore[return-value]


def mismatch(what: str, payload: bytes, policy: Policy, **sides: object) -> NoReturn:
    """Fail with ``what``, the input in hex, the policy, and each side's answer."""
    lines = [what, f"  input ({len(payload)} bytes): {payload.hex(' ')}", f"  {policy}"]
    lines += (f"  {name}: {value!r}" for name, value in sides.items())
    raise AssertionError("\n".join(lines))


def run_atheris(test_one_input: Callable[[bytes], None]) -> None:  # pragma: no cover
    """Instrument utf8guard and the harnesses, then hand ``sys.argv`` to libFuzzer.

    Runs only under atheris (``python -m fuzz``); the corpus replay tests call the
    harnesses' ``check`` directly.
    """
    import atheris

    atheris.instrument_all()
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
