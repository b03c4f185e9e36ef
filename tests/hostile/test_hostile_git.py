"""A served tree's git configuration is data: no trap in it (fsmonitor, include, filter and
diff drivers, external diff, textconv, pager, hooks, aliases, signature checks) ever runs,
and every history tool still answers right. The quick run arms every trap in one
repository and asks through an in-memory session; the deep run gives each trap
its own repository and asks every history tool through a real server process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.gittraps import TRAPS, History, arm, hostile_history, lazy_fetch, marks_made
from tests.reliability.stdio import ServerProcess
from tests.tasks_server.conftest import NOW, call, error_of, session_on

SCRIPT = Path(sys.executable).with_name("tasks-server")
NOW_TEXT = NOW.isoformat().replace("+00:00", "Z")


def changed_ids(answer: dict[str, Any]) -> list[str]:
    return sorted(row["task_id"] for row in answer["changed"])


def check_changes(answers: dict[str, dict[str, Any]], found: History) -> None:
    """What each history tool must answer on `hostile_history`'s tree."""
    since_first, between = answers["since_first"], answers["between"]
    assert changed_ids(since_first) == ["a", "b"] and since_first["until"] is None
    assert changed_ids(between) == ["a"] and between["until"] == found.second
    assert changed_ids(answers["since_days"]) == ["b"]
    assert answers["since_days"]["since"] == found.second
    assert [c["message"] for c in answers["history"]["commits"]] == ["a is urgent", "plan"]
    assert answers["review"]["metrics"]["total_tasks"] == 2


def questions(found: History) -> dict[str, tuple[str, dict[str, Any]]]:
    return {
        "since_first": ("get_changes", {"since_ref": found.first}),
        "between": ("get_changes", {"since_ref": found.first, "until_ref": "HEAD"}),
        "since_days": ("get_changes", {"since_days": 30}),
        "history": ("get_task_history", {"task_id": "a"}),
        "review": ("get_review_snapshot", {"since_days": 30}),
    }


async def ask_in_memory(client: Client, found: History) -> dict[str, dict[str, Any]]:
    return {
        name: await call(client, tool, **arguments)
        for name, (tool, arguments) in questions(found).items()
    }


def ask_process(root: Path, found: History) -> dict[str, dict[str, Any]]:
    with ServerProcess(root, now=NOW_TEXT) as server:
        answers = {
            name: server.call(tool, **arguments)
            for name, (tool, arguments) in questions(found).items()
        }
        server.close()
    return answers


def cli(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [str(SCRIPT), *args, "--json"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def check_cli(found: History) -> None:
    root = str(found.root)
    assert changed_ids(cli("diff", found.first, "--root", root)) == ["a", "b"]
    assert changed_ids(cli("diff", found.first, "HEAD", "--root", root)) == ["a"]
    log = cli("log", "a", "--root", root)
    assert [c["message"] for c in log["commits"]] == ["a is urgent", "plan"]


@pytest.mark.anyio
async def test_no_trap_in_the_repository_runs_and_every_history_tool_answers(
    tmp_path: Path,
) -> None:
    found = hostile_history(tmp_path / "repo")
    arm(found, list(TRAPS), tmp_path / "marks")
    async with session_on(found.root) as client:
        check_changes(await ask_in_memory(client, found), found)
    assert marks_made(tmp_path / "marks") == []


@pytest.mark.deep
@pytest.mark.parametrize("trap", sorted(TRAPS))
def test_a_trap_never_runs_through_a_real_server_or_the_cli(tmp_path: Path, trap: str) -> None:
    found = hostile_history(tmp_path / "repo")
    arm(found, [trap], tmp_path / "marks")
    check_changes(ask_process(found.root, found), found)
    check_cli(found)
    assert marks_made(tmp_path / "marks") == []


@pytest.mark.anyio
async def test_a_partial_clone_never_fetches_a_missing_object_and_says_what_it_lacks(
    tmp_path: Path,
) -> None:
    found = hostile_history(tmp_path / "repo")
    (tmp_path / "marks").mkdir()
    lazy_fetch(found, tmp_path / "marks" / "lazy_fetch")
    async with session_on(found.root) as client:
        results = [
            await client.call_tool(tool, arguments) for tool, arguments in questions(found).values()
        ]
    codes = {error_of(result)["error"]["code"] for result in results if result.is_error}
    assert "INTERNAL_ERROR" not in codes
    assert marks_made(tmp_path / "marks") == []


@pytest.mark.deep
def test_a_partial_clone_never_fetches_through_a_real_server(tmp_path: Path) -> None:
    found = hostile_history(tmp_path / "repo")
    (tmp_path / "marks").mkdir()
    lazy_fetch(found, tmp_path / "marks" / "lazy_fetch")
    with ServerProcess(found.root, now=NOW_TEXT) as server:
        answers = [server.call(tool, **arguments) for tool, arguments in questions(found).values()]
        server.close()
    assert all(answer.get("error") != "INTERNAL_ERROR" for answer in answers)
    assert marks_made(tmp_path / "marks") == []
