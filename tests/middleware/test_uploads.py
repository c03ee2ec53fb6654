"""Issue 26: a multipart body's files are counted apart from ``max_body_size``.

The fields and part headers keep the body limit; file contents (parts with a
filename, never read as text) count against ``max_upload_size`` instead, or
against nothing when it is None. The oracle is each body's own byte count.
"""

from __future__ import annotations

import json

import pytest

from utf8guard.middleware import GuardConfig
from utf8guard.middleware.body._multipart import MultipartInspector
from utf8guard.middleware.engine._engine import BodyCheck

MULTIPART = [(b"content-type", b"multipart/form-data; boundary=XyZ")]
FILE_HEAD = (
    b'--XyZ\r\nContent-Disposition: form-data; name="f"; filename="a.bin"\r\n\r\n'
)
FIELD_HEAD = b'--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n'
END = b"\r\n--XyZ--\r\n"


def _feed(check: BodyCheck, body: bytes, chunk_bytes: int) -> tuple[int, bytes] | None:
    """Feed ``body`` in chunks; the refusal's status and body, if any."""
    for start in range(0, len(body), chunk_bytes):
        last = start + chunk_bytes >= len(body)
        problem = check.feed(body[start : start + chunk_bytes], last=last)
        if problem is not None:
            return problem[0], problem[2]
    return None


@pytest.mark.parametrize("chunk_bytes", [7, 64, 10_000])
def test_file_content_is_counted_apart(chunk_bytes: int) -> None:
    content = b"\xff\x00" * 500
    body = FILE_HEAD + content + END
    inspector = MultipartInspector(b"XyZ", GuardConfig())
    assert inspector.feed(body) + inspector.finish() == []
    assert inspector.file_bytes == len(content)
    # The body is ten times the limit; its fields and headers are not.
    config = GuardConfig(max_body_size=len(body) // 10)
    assert _feed(BodyCheck(MULTIPART, config, "http"), body, chunk_bytes) is None


@pytest.mark.parametrize("chunk_bytes", [7, 10_000])
def test_fields_keep_the_body_limit(chunk_bytes: int) -> None:
    body = FILE_HEAD + b"x\r\n" + FIELD_HEAD + b"a" * 200 + END
    config = GuardConfig(max_body_size=100)
    refused = _feed(BodyCheck(MULTIPART, config, "http"), body, chunk_bytes)
    assert refused is not None
    assert refused[0] == 413
    assert "limit of 100 bytes" in json.loads(refused[1])["detail"]


def test_upload_limit() -> None:
    body = FILE_HEAD + b"x" * 300 + END
    config = GuardConfig(max_upload_size=200)
    refused = _feed(BodyCheck(MULTIPART, config, "http"), body, 50)
    assert refused is not None
    assert refused[0] == 413
    assert "limit of 200 bytes" in json.loads(refused[1])["detail"]
    # report mode enforces no limit
    report = GuardConfig(max_upload_size=200, mode="report")
    assert _feed(BodyCheck(MULTIPART, report, "http"), body, 50) is None


def test_declared_length_of_a_multipart_body() -> None:
    def refused(length: int, config: GuardConfig) -> bool:
        declared = (b"content-length", str(length).encode())
        return BodyCheck([*MULTIPART, declared], config, "http").refusal is not None

    both = GuardConfig(max_body_size=100, max_upload_size=1000)
    assert not refused(1100, both)
    assert refused(1101, both)
    unlimited = GuardConfig(max_body_size=100, max_upload_size=None)
    assert not refused(10**12, unlimited)
    body = FILE_HEAD + b"x" * 5000 + END
    assert _feed(BodyCheck(MULTIPART, unlimited, "http"), body, 512) is None
