from collections.abc import Awaitable, Callable, MutableMapping

from ._policy import Policy
from ._violation import Violation
from .middleware.head._clean_fields import OnceFields

def first_violation(
    buf: bytes | bytearray | memoryview, start: int, end: int, policy: Policy, /
) -> Violation | None: ...
def is_valid(data: bytes | bytearray | memoryview, policy: Policy = ...) -> bool: ...
def stream_step(
    held: bytes, chunk: bytes | bytearray | memoryview, policy: Policy, /
) -> bytes | Violation: ...
def isa() -> str: ...
def supported_isas() -> list[str]: ...
def set_isa(name: str, /) -> None: ...
def scan_head(
    raw_path: bytes | None,
    app_path: bytes | None,
    query: bytes,
    headers: object,
    path_policy: Policy,
    policy: Policy,
    header_policy: Policy,
    lookalike: bool,
    /,
) -> OnceFields | None: ...
def strict_unquote(raw: bytes, /) -> bytes | None: ...
def head_plan(
    lane: tuple[Policy, Policy, Policy, bool, int, dict[bytes, bool]],
    raw_path: bytes | None,
    app_path: bytes | None,
    query: bytes,
    headers: object,
    bodiless: bool,
    /,
) -> int | tuple[int, bytes | None] | None: ...
def asgi_plan(
    lane: tuple[Policy, Policy, Policy, bool, int, dict[bytes, bool]], scope: object, /
) -> int | tuple[int, bytes | None] | None: ...
def whole_plain_json(
    lane: tuple[Policy, Policy, Policy, bool, int, dict[bytes, bool]],
    message: object,
    length: int,
    /,
) -> bool: ...
def environ_parts(
    environ: object, /
) -> tuple[bytes | None, bytes, bytes, list[tuple[bytes, bytes]]] | None: ...
def prepend(
    message: MutableMapping[str, object],
    receive: Callable[[], Awaitable[MutableMapping[str, object]]],
    /,
) -> Callable[[], Awaitable[MutableMapping[str, object]]]: ...
