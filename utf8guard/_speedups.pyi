from ._policy import Policy
from ._violation import Violation

def first_violation(
    buf: bytes | bytearray | memoryview, start: int, end: int, policy: Policy, /
) -> Violation | None: ...
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
    /,
) -> tuple[bool, bytes | None, bytes | None] | None: ...
def strict_unquote(raw: bytes, /) -> bytes | None: ...
