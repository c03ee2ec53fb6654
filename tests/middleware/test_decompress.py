"""Compressed bodies (issue 26): gzip, deflate and br are checked decoded, bounded.

The oracle is the standard library: ``gzip.compress`` / ``zlib.compress`` make the
bodies (``brotli.compress``, the reference encoder's bindings, for br) and
``bytes.decode`` says whether the decoded text is UTF-8. A bomb's cost is measured
with ``tracemalloc``.
"""

from __future__ import annotations

import gzip
import inspect
import json
import sys
import tracemalloc
import zlib
from collections.abc import Callable, Iterator

import brotli
import pytest

from utf8guard._memo import memoize
from utf8guard.middleware import GuardConfig
from utf8guard.middleware.body import _decompress
from utf8guard.middleware.body._decompress import MAX_RATIO, STEP_BYTES
from utf8guard.middleware.engine._engine import BodyCheck
from utf8guard.middleware.engine._problem import Problem

JSON = (b"content-type", b"application/json")
CODERS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "x-gzip": gzip.compress,
    "deflate": zlib.compress,
    "br": brotli.compress,
}
DECODERS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.decompress,
    "x-gzip": gzip.decompress,
    "deflate": zlib.decompress,
    "br": brotli.decompress,
}


def check(
    body: bytes, coding: bytes, config: GuardConfig, chunk_bytes: int = 1 << 20
) -> Problem | None:
    headers = [JSON, (b"content-encoding", coding)]
    body_check = BodyCheck(headers, config, "http")
    if body_check.refusal is not None:
        return body_check.refusal
    for start in range(0, len(body), chunk_bytes):
        problem = body_check.feed(body[start : start + chunk_bytes])
        if problem is not None:
            return problem
    return body_check.finish()


def kinds(problem: Problem | None) -> list[str]:
    if problem is None:
        return []
    return [v["kind"] for v in json.loads(problem[2]).get("violations", [])]


TEXTS = {
    "clean-json": ('{"city": "Medellín", "emoji": "👋"}'.encode(), []),
    "overlong": (b'{"a": "\xc0\xaf"}', ["overlong"]),
    "surrogate-escape": (b'{"a": "\\ud800"}', ["json_surrogate_escape"]),
    "latin1": (b'{"a": "caf\xe9"}', ["truncated"]),
}


@pytest.mark.parametrize("coding", sorted(CODERS))
@pytest.mark.parametrize("name", sorted(TEXTS))
@pytest.mark.parametrize("chunk_bytes", [1, 7, 1 << 20])
def test_decoded_body_gets_its_checks(name: str, coding: str, chunk_bytes: int) -> None:
    text, expected = TEXTS[name]
    # The oracle: the decoded body is what the sender compressed.
    body = CODERS[coding](text)
    assert DECODERS[coding](body) == text
    got = check(body, coding.upper().encode(), GuardConfig(), chunk_bytes)
    assert kinds(got) == expected


@pytest.mark.parametrize(
    "coding",
    [b"compress", b"zstd", b"gzip, gzip", b"br, gzip", b"gzip, identity", b"x"],
)
def test_other_and_stacked_codings_are_refused(coding: bytes) -> None:
    got = check(gzip.compress(b"{}"), coding, GuardConfig())
    assert kinds(got) == ["unsupported_content_encoding"]


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("not-gzip", b"{}"),
        ("truncated", gzip.compress(b'{"a": 1}')[:-5]),
        ("trailing-bytes", gzip.compress(b"{}") + b"junk"),
        ("second-member", gzip.compress(b"{}") + gzip.compress(b'"\xc0\xaf"')),
        ("empty", b""),
    ],
)
def test_malformed_gzip_streams_are_refused(name: str, body: bytes) -> None:
    # The second member: gzip.decompress reads it, a zlib stream ends before it.
    for chunk_bytes in (1, 1 << 20):
        got = check(body, b"gzip", GuardConfig(), chunk_bytes)
        assert kinds(got) == ["malformed_content_encoding"], name


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("not-br", b"{}"),
        (
            "truncated",
            brotli.compress(b'{"a": "' + bytes(range(32, 127)) * 9 + b'"}')[:-3],
        ),
        ("trailing-bytes", brotli.compress(b"{}") + b"junk"),
        ("second-stream", brotli.compress(b"{}") + brotli.compress(b'"\xc0\xaf"')),
        ("empty", b""),
    ],
)
def test_malformed_br_streams_are_refused(name: str, body: bytes) -> None:
    for chunk_bytes in (1, 1 << 20):
        got = check(body, b"br", GuardConfig(), chunk_bytes)
        assert kinds(got) == ["malformed_content_encoding"], name


def _without(monkeypatch: pytest.MonkeyPatch, *modules: str) -> Iterator[None]:
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)  # ImportError on import
    # A memo of its own, which sees these modules missing (and the module's own
    # memo untouched).
    fresh = memoize(1)(inspect.unwrap(_decompress._brotli))
    monkeypatch.setattr(_decompress, "_brotli", fresh)
    yield
    monkeypatch.undo()


@pytest.fixture
def without_brotli(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """An install without either br decoder."""
    yield from _without(monkeypatch, *_decompress.BROTLI_MODULES)


@pytest.fixture
def only_brotlicffi(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """An install with brotlicffi alone (PyPy's)."""
    yield from _without(monkeypatch, "brotli")


@pytest.mark.usefixtures("only_brotlicffi")
def test_brotlicffi_serves_as_well() -> None:
    clean = brotli.compress(b'{"city": "Medell\xc3\xadn"}')
    assert check(clean, b"br", GuardConfig(), chunk_bytes=7) is None
    assert kinds(check(brotli.compress(b'"\xc0\xaf"'), b"br", GuardConfig())) == [
        "overlong"
    ]
    junk = clean + b"junk"
    assert kinds(check(junk, b"br", GuardConfig())) == ["malformed_content_encoding"]
    got = check(_zeros_br(64 << 20), b"br", GuardConfig(max_body_size=1 << 30))
    assert got is not None
    assert got[0] == 413
    assert _decompress._brotli() is not brotli


@pytest.mark.usefixtures("without_brotli")
def test_br_without_the_package_is_refused_by_name() -> None:
    got = check(brotli.compress(b"{}"), b"br", GuardConfig())
    assert kinds(got) == ["unsupported_content_encoding"]
    assert got is not None
    assert json.loads(got[2])["title"] == "Unsupported encoding"


def test_modes() -> None:
    body = gzip.compress(b'{"a": "\xc0\xaf"}')
    # Normalize mode cannot repair compressed bytes: it blocks.
    assert kinds(check(body, b"gzip", GuardConfig(mode="normalize"))) == ["overlong"]
    assert check(body, b"gzip", GuardConfig(mode="report")) is None
    # Report mode reads on after a refusal: the rest is not decoded.
    junk = gzip.compress(b"{}") + b"junk" * 100
    assert check(junk, b"gzip", GuardConfig(mode="report"), chunk_bytes=7) is None


def _zeros_gzip(decoded_bytes: int) -> bytes:
    encoder = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1 << 20)
    pieces = [encoder.compress(block) for _ in range(decoded_bytes >> 20)]
    return b"".join(pieces) + encoder.flush()


def _zeros_br(decoded_bytes: int) -> bytes:
    encoder = brotli.Compressor()
    block = bytes(1 << 20)
    pieces: list[bytes] = [encoder.process(block) for _ in range(decoded_bytes >> 20)]
    tail: bytes = encoder.finish()
    return b"".join(pieces) + tail


BOMBS = {"gzip": _zeros_gzip, "br": _zeros_br}


@pytest.mark.parametrize("coding", sorted(BOMBS))
def test_bomb_is_refused_with_bounded_memory(coding: str) -> None:
    bomb = BOMBS[coding](64 << 20)  # 64 MiB of zeros: 64 KB as gzip, 106 bytes as br
    assert len(bomb) * MAX_RATIO < 64 << 20
    config = GuardConfig(max_body_size=1 << 30)  # only the ratio cap stops it
    tracemalloc.start()
    try:
        got = check(bomb, coding.encode(), config, chunk_bytes=64 * 1024)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert got is not None
    assert got[0] == 413
    assert peak < 16 * STEP_BYTES + 4 * 64 * 1024


def test_decoded_size_counts_against_the_body_limit() -> None:
    text = json.dumps([str(n) for n in range(200_000)]).encode()  # ~1.8 MB
    body = gzip.compress(text)
    assert len(body) < 1 << 20 < len(text)
    assert check(body, b"gzip", GuardConfig(max_body_size=1 << 21)) is None
    got = check(body, b"gzip", GuardConfig(max_body_size=1 << 20), 4096)
    assert got is not None
    assert got[0] == 413
    assert (
        check(body, b"gzip", GuardConfig(max_body_size=1 << 20, mode="report")) is None
    )


@pytest.mark.parametrize("coding", ["gzip", "br"])
def test_checked_counts_compressed_bytes(coding: str) -> None:
    text = b'{"a": "' + "é".encode() * 50_000 + b'"}'
    body = CODERS[coding](text)
    body_check = BodyCheck(
        [JSON, (b"content-encoding", coding.encode())], GuardConfig(), "http"
    )
    seen = []
    for start in range(0, len(body), 100):
        assert body_check.feed(body[start : start + 100]) is None
        seen.append(body_check.checked)
    assert seen == sorted(seen)
    assert all(0 <= done <= len(body) for done in seen)
    assert body_check.finish() is None
    assert body_check.checked == len(body)


def test_binary_types_still_pass_compressed() -> None:
    headers = [(b"content-type", b"image/png"), (b"content-encoding", b"gzip")]
    assert not BodyCheck(headers, GuardConfig(), "http").inspected


@pytest.mark.parametrize(
    "content_type",
    [
        b"application/x-www-form-urlencoded",
        b"multipart/form-data; boundary=B",
        b"text/plain",
    ],
)
def test_types_parsed_raw_stay_refused(content_type: bytes) -> None:
    # Frameworks parse these bodies' raw bytes whatever the Content-Encoding, and a
    # gzip header's file name carries any bytes: the decoded body would not be
    # what the parser reads.
    fname = b"&a=%C0%AF&"
    raw = b"\x1f\x8b\x08\x08\x00\x00\x00\x00\x00\x03" + fname + b"\x00"
    body = raw + zlib.compress(b"a=1")[2:-4] + bytes(8)
    assert fname in body
    headers = [(b"content-type", content_type), (b"content-encoding", b"gzip")]
    refusal = BodyCheck(headers, GuardConfig(), "http").refusal
    assert kinds(refusal) == ["unsupported_content_encoding"]
