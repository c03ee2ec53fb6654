"""The Kind data in _violation.py, held to CPython's strict decoder."""

from __future__ import annotations

import pytest

from utf8guard import Kind
from utf8guard._violation import ILL_FORMED

from .vectors import INVALID, POLICY


@pytest.mark.parametrize(
    ("data", "kind"), [(row[1], row[2]) for row in INVALID], ids=[r[0] for r in INVALID]
)
def test_invalid_vectors_kind_is_ill_formed_where_cpython_refuses(
    data: bytes, kind: Kind
) -> None:
    # An INVALID row's first violation: ill-formed exactly when the bytes are not
    # UTF-8 to CPython (Table 3-7); otherwise a code point STRICT refuses.
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        assert kind in ILL_FORMED
    else:
        assert kind not in ILL_FORMED


@pytest.mark.parametrize(
    ("data", "kind"), [(row[1], row[3]) for row in POLICY], ids=[r[0] for r in POLICY]
)
def test_policy_kinds_are_well_formed(data: bytes, kind: Kind) -> None:
    data.decode("utf-8")  # a code point a policy refuses is well-formed UTF-8
    assert kind not in ILL_FORMED


def test_every_ill_formed_kind_has_a_vector() -> None:
    assert {row[2] for row in INVALID} >= ILL_FORMED
