"""`workflow_state.json` on disk: read leniently on every call, written atomically under a lock.

A file that cannot be fully read is never reset silently: the readable parts are kept, each
problem becomes a warning, the file stays as it is until the next change, and that change
first saves the unreadable bytes beside it (`workflow_state.json.corrupt`).

>>> parse_state(b'{"current_action": "b.s.a", "completed_actions": 3}')[1]
['completed_actions: expected a list, got int']
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from storage.errors import ParseError, UnsafeFolder
from storage.files import (
    atomic_write,
    is_server_folder_safe,
    locked,
    make_folders,
    read_regular,
    server_folder,
)
from storage.nesting import TooDeep, json_loads
from tasks_server.bots.state import Completion, WorkflowState

__all__ = ["STATE_FILE", "Loaded", "StateFile", "parse_state", "state_path", "to_json"]

STATE_FILE = "workflow_state.json"
CORRUPT_SUFFIX = ".corrupt"
STATE_LIMIT = 16 << 20
"""A state file past this many bytes is refused, not read (a bot's state is a few KB)."""


def state_path(root: Path, bot: str) -> Path:
    return root / ".workflow" / bot / STATE_FILE


def to_json(state: WorkflowState) -> bytes:
    data: dict[str, Any] = {
        "current_behavior": state.current_behavior,
        "current_action": state.current_action,
        "timestamp": state.timestamp,
        "completed_actions": [
            {"action_state": c.action_state, "timestamp": c.timestamp}
            for c in state.completed_actions
        ],
    }
    if state.project is not None:
        data["project"] = state.project
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()


def parse_state(raw: bytes) -> tuple[WorkflowState, list[str]]:
    """The state a file holds and what was wrong with it (pure; nothing raises)."""
    try:
        data = json_loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return WorkflowState(), ["not UTF-8"]
    except TooDeep as exc:
        return WorkflowState(), [f"JSON {exc}"]
    except json.JSONDecodeError as exc:
        return WorkflowState(), [f"bad JSON at line {exc.lineno}: {exc.msg}"]
    if not isinstance(data, dict):
        return WorkflowState(), [f"expected an object, got {type(data).__name__}"]
    problems: list[str] = []
    state = WorkflowState(
        current_behavior=_text(data, "current_behavior", problems),
        current_action=_text(data, "current_action", problems),
        timestamp=_text(data, "timestamp", problems),
        completed_actions=_completions(data.get("completed_actions", []), problems),
        project=_text(data, "project", problems),
    )
    return state, problems


def _text(data: dict[str, Any], key: str, problems: list[str]) -> str | None:
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    problems.append(f"{key}: expected a string, got {type(value).__name__}")
    return None


def _completions(value: Any, problems: list[str]) -> tuple[Completion, ...]:
    if not isinstance(value, list):
        problems.append(f"completed_actions: expected a list, got {type(value).__name__}")
        return ()
    records = [_completion(item) for item in value]
    if None in records:
        problems.append(f"completed_actions: dropped {records.count(None)} unreadable record(s)")
    return tuple(record for record in records if record is not None)


def _completion(item: Any) -> Completion | None:
    if not isinstance(item, dict):
        return None
    action, stamp = item.get("action_state"), item.get("timestamp")
    if isinstance(action, str) and isinstance(stamp, str):
        return Completion(action, stamp)
    return None


@dataclass(frozen=True, slots=True)
class Loaded:
    """A state as read: `exists` is False for no file; `problems` lists corrupt parts."""

    state: WorkflowState
    exists: bool = False
    problems: tuple[str, ...] = ()
    raw: bytes = field(default=b"", repr=False)

    def warnings(self, path: Path) -> list[str]:
        if not self.problems:
            return []
        return [
            f"{path} is corrupt ({'; '.join(self.problems)}); using what could be read. "
            f"The next change replaces it and keeps a copy as {path.name}{CORRUPT_SUFFIX}"
        ]


@dataclass(slots=True)
class Transaction:
    """A read state and, once set, the state to write in its place."""

    loaded: Loaded
    result: WorkflowState | None = None


class StateFile:
    """One bot's state file under a task root."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> Loaded:
        """The state as on disk, read as writes are made: never through a link (the
        `.workflow` folder, the bot's folder or the file: UnsafeFolder), never from a
        FIFO or past STATE_LIMIT bytes (ParseError: the file is left as it is)."""
        for folder in (self.path.parent.parent, self.path.parent):
            if not is_server_folder_safe(folder.parent, folder.name):
                raise UnsafeFolder(str(folder), "is a symlink or not a folder")
        found = read_regular(self.path, STATE_LIMIT)
        if found == "missing":
            return Loaded(WorkflowState())
        if found == "a symlink":
            raise UnsafeFolder(str(self.path), "is a symlink")
        if isinstance(found, str):
            raise ParseError(str(self.path), f"{found}; the file is left as it is")
        state, problems = parse_state(found)
        return Loaded(state, True, tuple(problems), found)

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """Read, let the caller set `result`, write it if it changed: all under one lock.

        The lock is on the state's folder, which (unlike the file, replaced by rename on
        every write) is the same inode for every process that waits on it.
        """
        root, folder = self.path.parents[2], self.path.parent  # <root>/.workflow/<bot>/
        make_folders(server_folder(root, folder.parent.name), folder.name)  # never via a link
        with locked(self.path.parent):
            transaction = Transaction(self.read())
            yield transaction
            self._write(transaction)

    def _write(self, transaction: Transaction) -> None:
        new, loaded = transaction.result, transaction.loaded
        if new is None or (loaded.exists and new == loaded.state):
            return  # unchanged (a corrupt file stays as it is, for the user to inspect)
        if loaded.problems:
            atomic_write(self.path.with_name(self.path.name + CORRUPT_SUFFIX), loaded.raw)
        atomic_write(self.path, to_json(new))
