"""The language server at 1k, 10k and 100k tasks: diagnostics after a keystroke, a completion
list, and the memory of an `lsp` process beside a `serve` process on the same tree.

    python -m bench.lsp_bench --sizes 1000 10000 100000 --runs 30

For each size a tree is generated (`bench.generate`, seed 1), then a real `tasks-server lsp`
process is driven over stdio by a raw client (Content-Length framing, no validation: the
figures are the server's cost plus the pipe):

- keystroke: one character typed into an open task file's title (`didChange`, the whole
  text) until its `publishDiagnostics` arrives; median of `--runs`;
- completion: `textDocument/completion` inside `depends_on: [proj0` (a full list of 100
  ids at every size); median of `--runs`;
- memory: resident memory (VmRSS) of the `lsp` process once loaded, and of a `serve` process
  (stdio MCP, one tool call answered) on the same tree.

Figures only, no assertions; the ratio line compares the largest size with the smallest.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.generate import generate_tree
from bench.raw_client import RawClient

__all__ = ["main"]


class LspClient:
    """A `tasks-server lsp` process spoken to by hand."""

    def __init__(self, root: Path) -> None:
        command = [sys.executable, "-m", "tasks_server", "lsp", "--root", str(root)]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.next_id = 0
        self.request("initialize", {"processId": None, "capabilities": {}, "rootUri": None})
        self.notify("initialized", {})

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        length = 0
        while line := self.process.stdout.readline().strip():
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        return dict(json.loads(self.process.stdout.read(length)))

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while "id" not in (message := self.receive()) or message["id"] != self.next_id:
            pass
        return message

    def wait_for(self, method: str) -> dict[str, Any]:
        while (message := self.receive()).get("method") != method:
            pass
        return message

    def close(self) -> None:
        self.request("shutdown", {})
        self.notify("exit", {})
        self.process.wait(timeout=60)


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _task_file(root: Path) -> Path:
    """A task file of the generated tree with a `title:` line (the first, in sorted order)."""
    return min(root.glob("proj00/tasks/*.md"))


def measure(root: Path, runs: int) -> dict[str, float]:
    client = LspClient(root)
    path = _task_file(root)
    uri = path.as_uri()
    text = path.read_text(encoding="utf-8")
    item = {"uri": uri, "languageId": "markdown", "version": 1, "text": text}
    client.notify("textDocument/didOpen", {"textDocument": item})
    client.wait_for("textDocument/publishDiagnostics")
    keystrokes = []
    for version in range(2, runs + 2):
        text = text.replace("title: ", "title: x", 1)
        change = {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"text": text}],
        }
        started = time.perf_counter()
        client.notify("textDocument/didChange", change)
        client.wait_for("textDocument/publishDiagnostics")
        keystrokes.append(time.perf_counter() - started)
    line = "depends_on: [proj0"  # 100 ids or more start with it at every size
    lines = text.split("\n")
    lines.insert(1, line)
    change = {
        "textDocument": {"uri": uri, "version": runs + 2},
        "contentChanges": [{"text": "\n".join(lines)}],
    }
    client.notify("textDocument/didChange", change)
    client.wait_for("textDocument/publishDiagnostics")
    completions, count = [], 0
    where = {"textDocument": {"uri": uri}, "position": {"line": 1, "character": len(line)}}
    for _ in range(runs):
        started = time.perf_counter()
        answer = client.request("textDocument/completion", where)
        completions.append(time.perf_counter() - started)
        count = len(answer["result"]["items"])
    memory = rss_mb(client.process.pid)
    client.close()
    return {
        "keystroke_ms": statistics.median(keystrokes) * 1000,
        "completion_ms": statistics.median(completions) * 1000,
        "items": count,
        "lsp_mb": memory,
        "serve_mb": serve_rss(root),
    }


def serve_rss(root: Path) -> float:
    """Resident memory of a `serve` process on the tree once it has answered a tool call."""
    client = RawClient(["-m", "tasks_server", "serve", "--root", str(root)])
    client.call("get_index_stats", {})
    memory = rss_mb(client.process.pid)
    client.close()
    return memory


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args(argv)
    rows = {}
    heads = (
        ("keystroke ms", 13),
        ("completion ms", 14),
        ("items", 6),
        ("lsp MB", 7),
        ("serve MB", 9),
    )
    print(f"{'tasks':>7}" + "".join(f" {name:>{width}}" for name, width in heads))
    for size in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            generate_tree(Path(tmp), size, seed=1)
            row = rows[size] = measure(Path(tmp), args.runs)
        print(
            f"{size:>7} {row['keystroke_ms']:>13.2f} {row['completion_ms']:>14.2f}"
            f" {row['items']:>6.0f} {row['lsp_mb']:>7.0f} {row['serve_mb']:>9.0f}",
            flush=True,
        )
    small, large = rows[min(rows)], rows[max(rows)]
    keystroke = large["keystroke_ms"] / small["keystroke_ms"]
    completion = large["completion_ms"] / small["completion_ms"]
    print(f"{max(rows)} vs {min(rows)}: keystroke x{keystroke:.2f}, completion x{completion:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
