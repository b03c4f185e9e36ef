"""The SDK's top packages opened lean (`tasks_server.edge.lean_sdk`): a real `serve` answers
without loading the SDK's client side or its high-level server, and every name the packages
re-export is still there for whoever asks."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tasks_server.edge import lean_sdk
from tests.conftest import DATA, REPO, in_fresh_interpreter

# `serve` in a fresh interpreter that prints, as it exits, every module it had loaded.
SERVE_THEN_LIST_MODULES = """
import atexit, json, sys
atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))
from tasks_server import cli
sys.exit(cli.main(["serve", "--root", sys.argv[1]]))
"""

FIRST_CALL = [
    {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "lean", "version": "0"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {
        "jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "list_tasks", "arguments": {"limit": 1}},
    },
]  # fmt: skip


def first_answer_and_modules(root: Path) -> tuple[dict[str, object], list[str]]:
    """The answer to a first `list_tasks` from a real `serve`, and the modules it loaded."""
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE_THEN_LIST_MODULES, str(root)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in FIRST_CALL))
    process.stdin.flush()
    answer: dict[str, object] = {}
    while answer.get("id") != 3:
        answer = json.loads(process.stdout.readline())
    _, errors = process.communicate(timeout=60)  # stdin closed: the server exits
    return answer, json.loads(errors.decode().strip().splitlines()[-1])


def test_a_served_first_call_loads_neither_the_sdks_client_nor_its_high_level_server(
    tmp_path: Path,
) -> None:
    shutil.copytree(DATA, tmp_path / "tree")
    answer, modules = first_answer_and_modules(tmp_path / "tree")
    result = answer["result"]
    assert isinstance(result, dict) and not result.get("isError")
    assert result["structuredContent"]["total"] == 50
    assert "mcp.server.lowlevel.server" in modules
    assert [m for m in modules if m.split(".")[:2] in (["mcp", "client"], ["httpx"])] == []
    assert "mcp.server.mcpserver" not in modules


def test_the_names_the_lean_packages_reexport_are_found_when_asked() -> None:
    found = in_fresh_interpreter("""
import json, sys
import tasks_server.edge  # opens both packages lean
import mcp, mcp.server
lean = "mcp.client" not in sys.modules and "mcp.server.mcpserver" not in sys.modules
from mcp import Client
from mcp.server import MCPServer
from mcp.client.client import Client as Defined
print(json.dumps([lean, Client is Defined, MCPServer.__module__, "Client" in mcp.__all__]),
      file=sys.stderr)
""")
    assert found == [True, True, "mcp.server.mcpserver.server", True]


def test_packages_already_imported_are_left_as_they_are() -> None:
    import mcp  # noqa: PLC0415 - this process has the SDK imported in full

    lean_sdk.open_lean()
    assert sys.modules["mcp"] is mcp
    assert hasattr(mcp, "Client")
