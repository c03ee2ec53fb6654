"""HTTP/2 over cleartext with prior knowledge (RFC 9113 §3.3): a row as HTTP/2.

A row is raw HTTP/1.1 bytes; its HTTP/2 form carries the same method, target,
fields and body, which an HTTP/2 server hands to the app as ASGI scope and messages
like any other request. Rows whose point is HTTP/1.1 framing (chunked, two lengths,
folding, another version, an absolute or raw non-ASCII target) have no such form:
``h2_request`` gives None for them and the HTTP/2 stacks skip them.
"""

from __future__ import annotations

import socket
from typing import Final

from h2.config import H2Configuration
from h2.connection import H2Connection
from h2.events import (
    ConnectionTerminated,
    DataReceived,
    ResponseReceived,
    StreamEnded,
    StreamReset,
)

from .._servers import HOST, REQUEST_TIMEOUT_SECONDS, Response
from .rows import Row

#: RFC 9113 §8.2.2: connection-specific fields, which HTTP/2 forbids.
_HOP_BY_HOP: Final = frozenset(
    {b"transfer-encoding", b"upgrade", b"keep-alive", b"te", b"proxy-connection"}
)
Fields = list[tuple[bytes, bytes]]


def h2_form(row: Row) -> tuple[Fields, bytes] | None:
    """What ``row`` sends over HTTP/2: its own fields (an HTTP/2-only row), else
    the HTTP/2 form of its raw request, or None."""
    if row.h2 is not None:
        return list(row.h2[0]), row.h2[1]
    return h2_request(row.raw)


def h2_request(raw: bytes) -> tuple[Fields, bytes] | None:
    """The HTTP/2 header list and body of the HTTP/1.1 request ``raw``, or None."""
    head, blank, body = raw.partition(b"\r\n\r\n")
    request_line, *lines = head.split(b"\r\n")
    parts = request_line.split(b" ")
    if not blank or len(parts) != 3 or parts[2] != b"HTTP/1.1":
        return None
    method, target = parts[0], parts[1]
    if not target.startswith(b"/") or not target.isascii():
        return None
    fields: Fields = []
    length: int | None = None
    for line in lines:
        name, colon, value = line.partition(b":")
        lowered = name.lower()
        if not colon or name != name.strip() or lowered in _HOP_BY_HOP:
            return None
        if lowered == b"content-length":
            digits = value.strip()
            if length is not None or not digits.isdigit() or len(digits) > 9:
                return None
            length = int(value)
        elif lowered == b"host" and value.strip() != b"t":
            return None  # the row is about Host; HTTP/2 sends :authority "t"
        elif lowered not in (b"host", b"connection"):
            fields.append((lowered, value.strip(b" \t")))
    if (length or 0) != len(body):
        return None
    pseudo = [(b":method", method), (b":scheme", b"http"), (b":authority", b"t")]
    sized = [(b"content-length", b"%d" % len(body))] if body else []
    return [*pseudo, (b":path", target), *fields, *sized], body


def exchange_h2(
    port: int, fields: Fields, body: bytes, timeout: float = REQUEST_TIMEOUT_SECONDS
) -> Response | None:
    """One request on a new HTTP/2 connection; None if no response came.

    Raises:
        TimeoutError: no byte for ``timeout`` seconds (a hang).
        OSError: the connection failed.
    """
    # Headers go out as given: the rows' point is what a client can send.
    config = H2Configuration(
        client_side=True,
        header_encoding=None,
        validate_outbound_headers=False,
        normalize_outbound_headers=False,
        validate_inbound_headers=False,
    )
    connection = H2Connection(config)
    connection.initiate_connection()
    stream = connection.get_next_available_stream_id()
    connection.send_headers(stream, fields, end_stream=not body)
    with socket.create_connection((HOST, port), timeout=timeout) as sock:
        status, headers, payload = _converse(connection, stream, sock, body)
    return None if status is None else Response(status, headers, bytes(payload))


def _converse(
    connection: H2Connection, stream: int, sock: socket.socket, body: bytes
) -> tuple[int | None, tuple[tuple[bytes, bytes], ...], bytearray]:
    """Send the request's frames and ``body``; read the response on ``stream``."""
    status: int | None = None
    headers: tuple[tuple[bytes, bytes], ...] = ()
    payload = bytearray()
    try:
        sock.sendall(connection.data_to_send())
        pending, done = body, False
        while not done:
            room = min(
                connection.local_flow_control_window(stream),
                connection.max_outbound_frame_size,
                len(pending),
            )
            if room > 0:
                last = room == len(pending)
                connection.send_data(stream, pending[:room], end_stream=last)
                pending = pending[room:]
                sock.sendall(connection.data_to_send())
                continue
            chunk = sock.recv(65536)
            if not chunk:
                break
            for event in connection.receive_data(chunk):
                if isinstance(event, ResponseReceived):
                    headers = tuple((k.lower(), v) for k, v in event.headers)
                    status = int(dict(headers)[b":status"])
                elif isinstance(event, DataReceived):
                    payload += event.data
                    size = event.flow_controlled_length
                    connection.acknowledge_received_data(size, stream)
                elif isinstance(
                    event, StreamEnded | StreamReset | ConnectionTerminated
                ):
                    done = True
            sock.sendall(connection.data_to_send())
    except (BrokenPipeError, ConnectionResetError):
        # RFC 9113 §5.4.1: a server closes the connection on a connection error (a
        # malformed field block): what came before counts, like a close in HTTP/1.1.
        pass
    return status, headers, payload
