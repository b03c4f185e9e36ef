"""Small helpers for the bot tests: the state file as JSON, and editing config files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tasks_server.bots.store import state_path

BOT = "story_bot"


def state_file(root: Path) -> Path:
    return state_path(root.resolve(), BOT)


def saved_state(root: Path) -> dict[str, Any]:
    return dict(json.loads(state_file(root).read_text()))


def completed_keys(root: Path) -> list[str]:
    return [record["action_state"] for record in saved_state(root)["completed_actions"]]


def edit_json(path: Path, **changes: Any) -> None:
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data, indent=2))
