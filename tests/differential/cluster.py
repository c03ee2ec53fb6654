"""Every stack running at once: start them, send each row to all, judge, stop them.

A row goes to every stack at the same time (one request per stack at a time, so a
stack's answer never depends on another row), and its answers are kept for the
row's tests. A stack that hung or failed is restarted before the next row, so one
freeze or crash is one failure, not a cascade. Each server's stderr goes to a log
file the failure messages name.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Final

from .._servers import ServerProcess, exchange
from .echo import LIFETIME_ENV
from .h2c import exchange_h2, h2_form
from .oracle import Exchange, Verdict, judge
from .rows import Row
from .stacks import BLIND_STACKS, Stack
from .ws import exchange_ws, is_upgrade

#: Seconds a server lives before it exits by itself (a run that dies leaves none).
LIFETIME_SECONDS: Final = 900
#: Rows larger than this (issue 11 F7's 4 MiB forms) go to one stack at a time:
#: two million fields parsed by 23 servers at once on two cores is a hang of the
#: test's own making.
SERIAL_BYTES: Final = 1024 * 1024


def missing_module(stack: Stack) -> str | None:
    """The first module ``stack`` needs that is not installed, or None."""
    return next(
        (m for m in stack.requires if importlib.util.find_spec(m) is None), None
    )


class Cluster:
    """The running stacks, and the verdicts of every row sent so far."""

    def __init__(self, stacks: Iterable[Stack], logs: Path) -> None:
        self.skipped: dict[str, str] = {}
        self.failed: dict[str, str] = {}
        self.servers: dict[str, ServerProcess] = {}
        self.verdicts: dict[str, dict[str, Verdict]] = {}
        self.logs = logs
        self.h2c = {stack.id for stack in stacks if stack.h2c}
        for stack in stacks:
            module = missing_module(stack)
            if module is not None:
                self.skipped[stack.id] = f"{module} is not installed"
                continue
            env = {LIFETIME_ENV: str(LIFETIME_SECONDS), **stack.env}
            self.servers[stack.id] = ServerProcess(
                stack.command,
                env=env,
                inherit_socket=stack.inherit_socket,
                log=self.log(stack.id),
            )
        self._pool = ThreadPoolExecutor(max_workers=max(1, len(self.servers)))

    def log(self, stack: str) -> Path:
        """The file ``stack``'s server writes its stderr to."""
        return self.logs / f"{stack}.log"

    def start(self) -> None:
        """Start every server at once; one that does not start is recorded."""
        self._each(list(self.servers), self._start)

    def stop(self) -> None:
        """Stop every server by its PID."""
        self._each(list(self.servers), lambda name: self.servers[name].stop())
        self._pool.shutdown()

    def verdict(self, row: Row, stack: str) -> Verdict | None:
        """The verdict for ``row`` on ``stack`` (None: it is not running).

        The first call for a row sends it to every running stack at once.
        """
        if row.id not in self.verdicts:
            self.verdicts[row.id] = self._send(row)
        return self.verdicts[row.id].get(stack)

    def _send(self, row: Row) -> dict[str, Verdict]:
        h2 = h2_form(row)
        if row.h2 is not None:  # an HTTP/2-only row
            names = [name for name in self.servers if name in self.h2c]
        else:
            names = [n for n in self.servers if h2 is not None or n not in self.h2c]
        names = [name for name in names if name not in self.failed]
        send = self._exchange(row)
        answers = (
            map(send, names)
            if len(row.raw) > SERIAL_BYTES
            else self._pool.map(send, names)
        )
        exchanges = dict(zip(names, answers, strict=True))
        broken = [name for name, got in exchanges.items() if got.hung or got.error]
        self._each(broken, self._restart)
        return {
            name: judge(_as_judged(row, name), got) for name, got in exchanges.items()
        }

    def _exchange(self, row: Row) -> Callable[[str], Exchange]:
        h2 = h2_form(row)
        upgrade = is_upgrade(row.raw)

        def send(name: str) -> Exchange:
            port = self.servers[name].port
            try:
                if name in self.h2c and h2 is not None:
                    return Exchange(exchange_h2(port, *h2))
                if upgrade:
                    return Exchange(exchange_ws(port, row.raw))
                return Exchange(exchange(port, row.raw))
            except TimeoutError:
                return Exchange(hung=True)
            except (OSError, ValueError) as exc:
                return Exchange(error=f"{type(exc).__name__}: {exc}")

        return send

    def _start(self, name: str) -> None:
        self.failed.pop(name, None)
        try:
            self.servers[name].start()
        except RuntimeError as exc:
            self.failed[name] = str(exc)

    def _restart(self, name: str) -> None:
        self.servers[name].stop()
        self._start(name)

    def _each(self, names: list[str], action: Callable[[str], None]) -> None:
        list(self._pool.map(action, names))


def _as_judged(row: Row, stack: str) -> Row:
    """``row`` on ``stack``; on a blind stack a refuse row may pass, never leak."""
    if stack in BLIND_STACKS:
        return replace(row, blind_on=(*row.blind_on, stack)).on(stack)
    return row.on(stack)
