"""`tasks-server config CLIENT`: the exact client configuration for this install.

A desktop client starts servers with the system PATH, not the shell's: a bare
`"command": "tasks-server"` is not found when the program lives in a virtual environment
(`spawn tasks-server ENOENT`). So the printed command is absolute: the console script beside
the running interpreter when there is one, else that interpreter with `-m tasks_server`. The
interpreter's path is kept as spelled, never resolved through links (a venv's `python` is a
link to the system one, and resolving it would lose the venv). When the package is found
only through `$PYTHONPATH` (a clone run without installing), the config carries that too.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import tasks_server

__all__ = ["CLIENTS", "config_text", "launch"]

CLIENTS = ("claude-desktop", "claude-code", "mcp-json")
"""claude-desktop: `claude_desktop_config.json`; claude-code: the `claude mcp add` command;
mcp-json: a project's `.mcp.json` (Claude Code, Cursor and others read this shape)."""

SERVER_NAME = "tasks"


def launch(root: Path, options: list[str]) -> tuple[list[str], dict[str, str]]:
    """The absolute command line that serves `root` over stdio (then `options`, such as
    `--role planner`), and the environment it needs beyond the system PATH (empty for any
    installed copy)."""
    python = os.path.abspath(sys.executable)
    script = Path(python).with_name("tasks-server")
    command = [str(script)] if script.is_file() else [python, "-m", "tasks_server"]
    return [*command, "serve", "--root", os.path.abspath(root), *options], _extra_env()


def _extra_env() -> dict[str, str]:
    """`PYTHONPATH` when that is where this package was found (a source checkout)."""
    home = str(Path(tasks_server.__file__).resolve().parent.parent)
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if any(p and os.path.abspath(p) == home for p in paths):
        return {"PYTHONPATH": home}
    return {}


def config_text(client: str, root: Path, options: list[str]) -> str:
    """The configuration to paste for `client` (one of CLIENTS)."""
    argv, env = launch(root, options)
    if client == "claude-code":
        prefix = [part for key, value in env.items() for part in ("-e", f"{key}={value}")]
        return shlex.join(["claude", "mcp", "add", SERVER_NAME, *prefix, "--", *argv])
    server: dict[str, Any] = {"command": argv[0], "args": argv[1:]}
    if client == "mcp-json":
        server = {"type": "stdio", **server}
    if env:
        server["env"] = env
    return json.dumps({"mcpServers": {SERVER_NAME: server}}, indent=2)
