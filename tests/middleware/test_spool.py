"""BodySpool keeps small bodies as received and rolls large ones to a file."""

from __future__ import annotations

from utf8guard.middleware.engine._spool import REPLAY_BYTES, BodySpool


def test_small_body_stays_in_memory_without_copies() -> None:
    spool = BodySpool(10)
    chunks = [b"abc", b"", b"def"]
    for chunk in chunks:
        spool.append(chunk)
    replayed = list(spool.chunks())
    assert replayed == [b"abc", b"def"]
    assert replayed[0] is chunks[0]
    assert spool.size == 6
    spool.close()


def test_large_body_rolls_over_to_a_file() -> None:
    spool = BodySpool(4)
    spool.append(b"abc")
    spool.append(b"defg")
    spool.append(b"x" * REPLAY_BYTES)
    replayed = list(spool.chunks())
    assert b"".join(replayed) == b"abcdefg" + b"x" * REPLAY_BYTES
    assert [len(piece) for piece in replayed] == [REPLAY_BYTES, 7]
    assert list(spool.chunks()) == replayed  # replay is repeatable
    spool.close()
    spool.close()
    assert list(spool.chunks()) == []
