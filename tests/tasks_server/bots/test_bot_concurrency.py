"""Closers racing on one state file lose no completion: across processes and HTTP clients."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client

from tasks_server.bots.catalog import BotCatalog
from tasks_server.bots.config import BotConfig
from tasks_server.bots.models import ProjectInput
from tasks_server.edge.server import TasksServer
from tasks_server.edge.threaded import start_in_thread
from tasks_server.live import LiveTree
from tests.conftest import REPO
from tests.tasks_server.bots.helpers import completed_keys, saved_state
from tests.tasks_server.conftest import NOW, call

CLOSER = """
import sys
from datetime import UTC, datetime
from pathlib import Path

from tasks_server.bots.catalog import BotCatalog
from tasks_server.bots.models import CloseInput
from tasks_server.live import LiveTree

root, count = Path(sys.argv[1]), int(sys.argv[2])
live = LiveTree(root, watch=False)
bot = BotCatalog.load(root / "bots", live).bot("story_bot")
print("ready", flush=True)
sys.stdin.readline()
for _ in range(count):
    bot.close(CloseInput(), datetime.now(UTC))
print("closed", flush=True)
"""


def workflow_keys(config: BotConfig) -> list[str]:
    return [action.key for behavior in config.behaviors for action in behavior.steps]


def start_closer(root: Path, count: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", CLOSER, str(root), str(count)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=REPO,
    )  # fmt: skip


def start_workflow(root: Path) -> None:
    """Run initialize_project once, so its project exists and the closes can move on."""
    live = LiveTree(root, watch=False)
    try:
        BotCatalog.load(root / "bots", live).bot("story_bot").forward(ProjectInput(), NOW)
    finally:
        live.close()


def test_two_processes_closing_at_once_lose_no_completion(
    bot_root: Path, story_config: BotConfig
) -> None:
    start_workflow(bot_root)
    closers = [start_closer(bot_root, 11) for _ in range(2)]
    for closer in closers:  # both loaded, then released together
        assert closer.stdout is not None and closer.stdout.readline().strip() == "ready"
    for closer in closers:
        assert closer.stdin is not None
        closer.stdin.write("go\n")
        closer.stdin.flush()
    for closer in closers:
        out, _ = closer.communicate(timeout=60)
        assert closer.returncode == 0 and out.strip() == "closed"
    steps = workflow_keys(story_config)
    assert completed_keys(bot_root) == steps[:22]
    assert saved_state(bot_root)["current_action"] == steps[22]


@pytest.mark.anyio
async def test_two_http_clients_closing_at_once_lose_no_completion(
    bot_server: TasksServer, bot_root: Path, story_config: BotConfig
) -> None:
    async def close_many(url: str, count: int) -> None:
        async with Client(url) as client:
            for _ in range(count):
                await call(client, "story_bot_close_current_action")

    start_workflow(bot_root)
    with start_in_thread(bot_server) as running:
        async with anyio.create_task_group() as group:
            for _ in range(2):
                group.start_soon(close_many, running.url, 8)
    steps = workflow_keys(story_config)
    assert completed_keys(bot_root) == steps[:16]
    assert saved_state(bot_root)["current_action"] == steps[16]


@pytest.mark.anyio
async def test_a_server_started_in_a_thread_answers_and_then_stops_listening(
    bot_server: TasksServer,
) -> None:
    running = start_in_thread(bot_server)
    async with Client(running.url) as client:
        assert (await call(client, "story_bot_tool"))["action"] == "initialize_project"
    running.stop()
    host, port = running.url.removeprefix("http://").split("/")[0].split(":")
    with pytest.raises(ConnectionRefusedError), socket.create_connection((host, int(port))):
        pass
