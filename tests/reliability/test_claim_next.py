"""Six agents, each with its own real server process (stdio), drain a tree of ready tasks
with `claim_next`: every task claimed exactly once, no caller ever sees CONFLICT, and each
agent ends on `claimed: null`."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bench.claim_bench import make_tree
from tests.reliability.stdio import ServerProcess
from tests.reliability.test_agents import AGENTS, T0, in_parallel, read


def drain(server: ServerProcess, agent: str) -> tuple[list[str], dict[str, object]]:
    """claim_next until it answers `claimed: null`: the ids won, and that last answer. Any
    error (CONFLICT included) fails the test."""
    won: list[str] = []
    while True:
        answer = server.call("claim_next", agent=agent, lease_seconds=600)
        assert "error" not in answer, answer
        if answer["claimed"] is None:
            return won, answer
        assert answer["claimed"]["claimed_by"] == agent
        won.append(answer["claimed"]["id"])


@pytest.mark.deep
def test_six_processes_drain_120_ready_tasks_with_claim_next_without_a_conflict(
    tmp_path: Path,
) -> None:
    ids = make_tree(tmp_path, 120)
    servers = [ServerProcess(tmp_path, now=T0) for _ in range(AGENTS)]
    try:
        results = in_parallel(lambda n: drain(servers[n], f"agent-{n}"))
    finally:
        for server in servers:
            server.close()
    wins = Counter(task_id for won, _ in results for task_id in won)
    assert sorted(wins) == ids
    assert set(wins.values()) == {1}
    assert all(last["claimed"] is None for _, last in results)
    owner = {task_id: f"agent-{n}" for n, (won, _) in enumerate(results) for task_id in won}
    for task_id in ids:
        assert read(tmp_path, task_id).extra["claimed_by"] == owner[task_id]
