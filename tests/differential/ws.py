"""Websocket handshakes (RFC 6455 §4): a row's raw upgrade request, and the echo the
app sends as its first message.

An upgrade row goes out as is. A 101 answer is followed by the app's echo document
as one text frame (§5.2; a server does not mask), which the oracle then reads as the
payload of a 200; a close frame first (§5.5.1) counts as closed. Any other answer is
judged as it is: a refusal, or the HTTP echo of a stack that does not speak
websocket (every WSGI stack).
"""

from __future__ import annotations

import socket
from typing import Final

from .._servers import HOST, REQUEST_TIMEOUT_SECONDS, Response, parse_response

#: RFC 6455 §5.2 opcodes.
_TEXT: Final = 0x1
_CLOSE: Final = 0x8
_JSON: Final = ((b"content-type", b"application/json"),)


def is_upgrade(raw: bytes) -> bool:
    """True when the request ``raw`` asks for a websocket (RFC 6455 §4.1 item 5)."""
    head = raw.partition(b"\r\n\r\n")[0].lower()
    return b"\r\nupgrade: websocket\r\n" in head + b"\r\n"


def exchange_ws(
    port: int, raw: bytes, timeout: float = REQUEST_TIMEOUT_SECONDS
) -> Response | None:
    """Send the upgrade request ``raw``; the answer, or None if the server closed.

    Raises:
        TimeoutError: no byte for ``timeout`` seconds (a hang).
        OSError: the connection failed.
        ValueError: the server sent a frame that is not text or close.
    """
    with socket.create_connection((HOST, port), timeout=timeout) as sock:
        sock.sendall(raw)
        reader = _Reader(sock)
        head = reader.until(b"\r\n\r\n")
        if head is None:
            return None
        response = parse_response(head)
        if response.status != 101:
            length = response.header(b"content-length")
            body = reader.exactly(int(length)) if length else reader.rest()
            return parse_response(head + (body or b""))
        return _first_message(reader, response.headers)


def _first_message(
    reader: _Reader, headers: tuple[tuple[bytes, bytes], ...]
) -> Response | None:
    """The first frame after a 101, as a 200 carrying its payload."""
    start = reader.exactly(2)
    if start is None:
        return None
    opcode, length = start[0] & 0x0F, start[1] & 0x7F
    if length >= 126:  # §5.2: a 16-bit or 64-bit extended payload length
        extended = reader.exactly(2 if length == 126 else 8)
        if extended is None:
            return None
        length = int.from_bytes(extended, "big")
    payload = reader.exactly(length)
    if opcode == _CLOSE or payload is None:
        return None
    if opcode != _TEXT:
        raise ValueError(f"websocket frame with opcode {opcode:#x} before any text")
    return Response(200, (*headers, *_JSON), payload)


class _Reader:
    """Bytes from a socket, read as needed."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._buffer = bytearray()

    def _more(self) -> bool:
        try:
            chunk = self._sock.recv(65536)
        except ConnectionResetError:
            chunk = b""
        self._buffer += chunk
        return bool(chunk)

    def until(self, end: bytes) -> bytes | None:
        """Everything up to and including ``end``; None if the peer closed first."""
        while (at := self._buffer.find(end)) < 0:
            if not self._more():
                return None
        return self._take(at + len(end))

    def exactly(self, size: int) -> bytes | None:
        """The next ``size`` bytes; None if the peer closed first."""
        while len(self._buffer) < size:
            if not self._more():
                return None
        return self._take(size)

    def rest(self) -> bytes:
        """Everything until the peer closes."""
        while self._more():
            pass
        return self._take(len(self._buffer))

    def _take(self, size: int) -> bytes:
        taken = bytes(self._buffer[:size])
        del self._buffer[:size]
        return taken
