"""Every tool called by the MCP Inspector's CLI (`npx @modelcontextprotocol/inspector --cli`),
a client we did not write, which checks each result against the tool's outputSchema: each
tool with its declared example (the bots' tools after their starting calls), over stdio on a
copy of the bundled tree; wait_for_changes, whose token only another answer gives, is left
to the SDK's client. A client without elicitation is not asked to confirm: the tools that
ask a person (delete_task, a forced completion, a bot's close) go ahead and say so. Deep:
npx fetches the Inspector the first time, and each call starts a server."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from docs.examples import ARGUMENTS
from tasks_server.toolset import open_toolset
from tests.conftest import REPO
from tests.gitrepo import commit_all, init
from tests.tasks_server.test_every_call import walk_order

pytestmark = pytest.mark.deep


def inspector_call(root: Path, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    npx = shutil.which("npx")
    assert npx is not None, "npx is needed for the Inspector"
    server = [sys.executable, "-m", "tasks_server", "serve", "--root", str(root)]
    pairs = [
        word
        for k, v in arguments.items()
        for word in ("--tool-arg", f"{k}={v if isinstance(v, str) else json.dumps(v)}")
    ]
    done = subprocess.run(
        [npx, "-y", "@modelcontextprotocol/inspector", "--cli", "-e", f"PYTHONPATH={REPO}",
         *server, "--method", "tools/call", "--tool-name", tool, *pairs],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, (tool, done.stderr[-2000:])
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def test_the_inspector_calls_every_tool_and_accepts_every_answer(example_root: Path) -> None:
    commit_all(init(example_root), "the example tree")  # get_changes reads git
    toolset = open_toolset(example_root, watch=False)
    names = [n for n in toolset.names if toolset.specs[n].example is not None or n in ARGUMENTS]
    toolset.context.close()
    failed = {}
    for name in walk_order(names):
        result = inspector_call(example_root, name, ARGUMENTS.get(name, {}))
        if result.get("isError"):
            failed[name] = result["content"][0]["text"][:300]
        else:
            assert result["structuredContent"]["success"] is True, name
    assert not failed, failed
