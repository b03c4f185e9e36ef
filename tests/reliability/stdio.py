"""A minimal MCP client over a real server process's stdio: raw JSON-RPC, one call at a
time, so a test can kill the process at any moment and start another on the same tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import REPO

__all__ = ["STARTED", "ServerProcess", "error_code", "stop_all"]

STARTED: list[ServerProcess] = []


def stop_all() -> None:
    """Kill every server a test started and left running (a failed test's)."""
    while STARTED:
        with STARTED.pop():
            pass


class ServerProcess:
    """`python -m tasks_server serve --root ROOT` over stdio, initialized."""

    def __init__(self, root: Path, *, now: str | None = None, extra: tuple[str, ...] = ()) -> None:
        """`now`: the server's fixed clock (`TASKS_NOW`), else the real one; `extra`: more
        `serve` options (`--sync`)."""
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        env.pop("TASKS_NOW", None)
        if now is not None:
            env["TASKS_NOW"] = now
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tasks_server", "serve", "--root", str(root), *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self._next = 0
        STARTED.append(self)
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "reliability", "version": "0"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def start_call(self, tool: str, arguments: dict[str, Any]) -> int:
        """Send a tools/call without waiting for its answer; returns its request id."""
        self._next += 1
        params = {"name": tool, "arguments": arguments}
        self.send({"jsonrpc": "2.0", "id": self._next, "method": "tools/call", "params": params})
        return self._next

    def answer(self, request_id: int) -> dict[str, Any]:
        """The response to `request_id` (notifications before it are skipped)."""
        assert self.process.stdout is not None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise EOFError("the server closed its output")
            message = json.loads(line)
            if message.get("id") == request_id:
                return dict(message)

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._next += 1
        self.send({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params})
        return self.answer(self._next)

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """A tool's result: `structuredContent` on success, else {"error": code}."""
        result = self.answer(self.start_call(tool, arguments))["result"]
        if result.get("isError"):
            return {"error": error_code(result), "message": result["content"][0]["text"]}
        return dict(result["structuredContent"])

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        self.process.kill()
        self.process.wait()
        self._close_pipes()

    def close(self) -> None:
        """End the session as a client does (stdin closed) and wait for the exit."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)
        self._close_pipes()

    def _close_pipes(self) -> None:
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None and not pipe.closed:
                pipe.close()

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.kill()
        self._close_pipes()


def error_code(result: dict[str, Any]) -> str:
    """The error code of a failed tools/call result."""
    structured = result.get("structuredContent") or {}
    if isinstance(structured.get("error"), dict):
        return str(structured["error"]["code"])
    text = result["content"][0]["text"]
    try:
        return str(json.loads(text)["error"]["code"])
    except (ValueError, KeyError, TypeError):
        return text
