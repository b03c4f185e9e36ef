"""A raw JSON-RPC client over stdio: what a server costs with no client-side validation.

It writes requests as lines and reads responses, nothing else, so its figures are the
server's own cost plus the pipe.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

__all__ = ["RawClient"]


class RawClient:
    """One server process spoken to by hand."""

    def __init__(
        self, args: list[str], cwd: Path | None = None, stderr: IO[str] | int = subprocess.DEVNULL
    ) -> None:
        self.process = subprocess.Popen(
            [sys.executable, *args],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
        self.next_id = 0
        self.last_bytes = 0  # the size of the last response line, as the pipe carried it
        info = {"name": "raw-bench", "version": "0"}
        self.request(
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": info},
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.process.stdout is not None
        while True:
            line = self.process.stdout.readline()
            message = json.loads(line)
            if message.get("id") == self.next_id:
                self.last_bytes = len(line)
                result: dict[str, Any] = message["result"]
                return result

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.request("tools/call", {"name": tool, "arguments": arguments})

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=10)
