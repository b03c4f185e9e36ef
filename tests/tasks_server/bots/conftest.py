"""Bot fixtures: a writable copy of data/ (with bots/story_bot) under tmp_path, and the bot
served alone (`story_bot_server`) to a real in-memory MCP client."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from mcp import Client

from tasks_server.bots.config import BotConfig
from tasks_server.bots.loader import load_bot
from tasks_server.edge.server import TasksServer
from tests.tasks_server.bots.helpers import BOT
from tests.tasks_server.conftest import make_server


@pytest.fixture
def bot_root(example_root: Path) -> Path:
    """A copy of the bundled tree; its `bots/` folder holds story_bot."""
    return example_root


@pytest.fixture
def bot_folder(bot_root: Path) -> Path:
    return bot_root / "bots" / BOT


@pytest.fixture
def story_config(bot_folder: Path) -> BotConfig:
    return load_bot(bot_folder)


@pytest.fixture
def bot_server(bot_root: Path) -> Iterator[TasksServer]:
    server = make_server(bot_root, bot=BOT)
    yield server
    server.context.close()


@pytest.fixture
async def bot_client(bot_server: TasksServer) -> AsyncIterator[Client]:
    async with Client(bot_server) as session:
        yield session
