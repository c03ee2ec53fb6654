# ruff: noqa: E501  # a table of data: one request per line reads best
"""Websocket handshakes (RFC 6455 §4.1) on every stack, answered by the apps' websocket
echo (ws.py): the target, the query, ``Sec-WebSocket-Protocol`` (which the ASGI
server parses into the scope's ``subprotocols``), cookies and ``Origin``.

Every ASGI echo app accepts a handshake on any path and sends what its framework
parsed; a WSGI stack reads the handshake as a GET and echoes it over HTTP. Each
refuse row hides an overlong "/" (C0 AF: "À¯" to a Latin-1 reader) or U+FFFE where
one of these fields carries it.
"""

from __future__ import annotations

from typing import Final

from .rows import Headers, Row
from .table import control, refuse

_OVERLONG: Final = "À¯"  # C0 AF (Unicode Table 3-7: never valid) read as Latin-1


def upgrade(target: bytes, headers: Headers = ()) -> bytes:
    """A websocket opening handshake (RFC 6455 §4.1, the key of its §1.3 example)."""
    lines = [
        b"GET " + target + b" HTTP/1.1",
        b"Host: t",
        b"Upgrade: websocket",
        b"Connection: Upgrade",
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        b"Sec-WebSocket-Version: 13",
        *(name + b": " + value for name, value in headers),
    ]
    return b"\r\n".join(lines) + b"\r\n\r\n"


def _protocol(value: bytes) -> Headers:
    return ((b"Sec-WebSocket-Protocol", value),)


CONTROLS: Final = (
    control("ws-control-path-query", upgrade(b"/ws/caf%C3%A9?q=%E2%82%AC"), path="/ws/café", query=[["q", "€"]]),
    control("ws-control-subprotocols", upgrade(b"/ws", _protocol(b"chat, v2.json.example.com"))),
    control("ws-control-cookie", upgrade(b"/ws", ((b"Cookie", b"lang=fr; name=caf%C3%A9"),))),
)  # fmt: skip

ATTACKS: Final = (
    refuse("ws-subprotocol-overlong", upgrade(b"/ws", _protocol(b"chat, x\xc0\xaf")), _OVERLONG),
    refuse("ws-subprotocol-noncharacter", upgrade(b"/ws", _protocol(b"chat, \xef\xbf\xbe")), "\ufffe"),
    refuse("ws-query-overlong", upgrade(b"/ws?q=%C0%AF"), _OVERLONG),
    refuse("ws-query-noncharacter", upgrade(b"/ws?q=%EF%BF%BE"), "\ufffe"),
    refuse("ws-query-double-encoded", upgrade(b"/ws?q=%25C0%25AF"), _OVERLONG, query="%C0%AF"),
    refuse("ws-path-noncharacter", upgrade(b"/ws/%EF%BF%BE"), "\ufffe"),
    refuse("ws-cookie-percent-overlong", upgrade(b"/ws", ((b"Cookie", b"d=%C0%AF"),)), _OVERLONG),
    refuse("ws-origin-overlong", upgrade(b"/ws", ((b"Origin", b"http://t\xc0\xaf"),)), _OVERLONG),
)  # fmt: skip

ROWS: Final[tuple[Row, ...]] = CONTROLS + ATTACKS
