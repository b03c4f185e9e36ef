"""Every date a person can write, and every `now` a server can be given, over the whole range
Python holds (year 1 to 9999, any offset up to ±23:59), through a real in-memory MCP client:
each tool that reads or computes a time answers or refuses with a stable code, never
INTERNAL_ERROR (an instant past year 9999 in UTC is held at that end as it is read).

The issue's case first: a lease ending `9999-12-31T23:59:59-01:00` (past year 9999 in UTC)
held by another agent made every claim-checking write an OverflowError.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from tests.conftest import examples
from tests.tasks_server.conftest import error_of, make_server

LATE = "9999-12-31T23:59:59-01:00"
TIME_KEYS = ("due", "created", "modified", "completed")
EXTRA_KEYS = ("claim_expires", "claimed_at", "defer_until", "reviewed_at")
MOST_OFFSET = 23 * 60 + 59  # minutes: the widest offset ISO text can carry into Python

offsets = st.integers(-MOST_OFFSET, MOST_OFFSET).map(lambda m: timezone(timedelta(minutes=m)))
edges = st.sampled_from(
    [datetime(1, 1, 1), datetime(1, 1, 1, 9, 59), datetime(9999, 12, 31, 23, 59, 59, 999999)]
)
moments = st.one_of(edges, st.datetimes())


def written(moment: datetime, zone: timezone | None, shape: int) -> str:
    """`moment` as a person writes it: a date, a naive date-time, `Z`, or an offset."""
    if shape == 0:
        return moment.date().isoformat()
    if zone is None:
        return moment.isoformat() + ("Z" if shape == 1 else "")
    return moment.replace(tzinfo=zone).isoformat()


date_texts = st.builds(written, moments, st.one_of(st.none(), offsets), st.integers(0, 2))
nows = st.builds(lambda m, z: m.replace(tzinfo=z), moments, offsets)


def tree_file(dates: dict[str, str]) -> str:
    lines = "".join(f'{key}: "{value}"\n' for key, value in dates.items())
    return f"---\nid: t1\ntitle: T\nstatus: active\nparent: p1\nclaimed_by: other\n{lines}---\nb\n"


def write_tree(root: Path, dates: dict[str, str]) -> None:
    root.mkdir(parents=True)
    (root / "p1.md").write_text("---\nid: p1\ntitle: P\nstatus: active\n---\n")
    (root / "t1.md").write_text(tree_file(dates))
    (root / "t2.md").write_text(
        f'---\nid: t2\ntitle: U\nstatus: done\ndepends_on: [t1]\ncompleted: "{LATE}"\n---\n'
    )


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_task", {"task_id": "t1"}),
    ("list_tasks", {"fields": "full"}),
    ("get_children", {"task_id": "p1", "fields": "full"}),
    ("get_task_tree", {}),
    ("get_ready_tasks", {}),
    ("get_blocked_tasks", {}),
    ("get_review_tasks", {}),
    ("get_structural_signals", {}),
    ("get_graph_metrics", {}),
    ("get_task_scoring_factors", {"ready_only": False}),
    ("get_tasks_with_topology", {}),
    ("get_review_snapshot", {"since_days": 3650}),
    ("get_task_neighborhood", {"task_id": "t1"}),
    ("get_index_stats", {}),
    ("get_changes", {"since_days": 36500}),
    ("get_task_history", {"task_id": "t1"}),
    ("search_tasks", {"query": "T", "fields": "full"}),
    ("claim_task", {"task_id": "t1", "agent": "me", "lease_seconds": 86_400}),
    ("update_task", {"task_id": "t1", "agent": "me", "title": "T2"}),
    ("add_note", {"task_id": "t1", "agent": "me", "text": "n"}),
    ("release_task", {"task_id": "t1", "agent": "me"}),
    ("complete_task", {"task_id": "t1", "agent": "me"}),
    ("create_task", {"title": "new", "parent": "p1"}),
    ("claim_task", {"task_id": "p1", "agent": "me", "lease_seconds": 86_400}),
    ("get_task", {"task_id": "p1"}),
]


def answers(portal: BlockingPortal, dates: dict[str, str], now: datetime) -> list[str]:
    """The error code of every call in CALLS (empty for a success), on a fresh tree."""
    root = Path(tempfile.mkdtemp(prefix="dates-")) / "tree"
    write_tree(root, dates)
    server = make_server(root)
    server.context.clock = lambda: now
    codes = []
    try:
        with portal.wrap_async_context_manager(Client(server)) as client:
            for name, arguments in CALLS:
                result = portal.call(client.call_tool, name, arguments)
                codes.append(error_of(result)["error"]["code"] if result.is_error else "")
    finally:
        server.context.close()
        shutil.rmtree(root.parent)
    return codes


@pytest.fixture(scope="module")
def portal() -> Iterator[BlockingPortal]:
    with start_blocking_portal() as running:
        yield running


def test_a_lease_past_year_9999_in_utc_is_held_at_that_end_and_answered(
    portal: BlockingPortal,
) -> None:
    now = datetime(2026, 11, 22, 12, tzinfo=UTC)
    codes = answers(portal, {"claim_expires": LATE}, now)
    by_call = {
        f"{name}#{i}": code for i, ((name, _), code) in enumerate(zip(CALLS, codes, strict=True))
    }
    assert "INTERNAL_ERROR" not in codes, by_call
    assert by_call["claim_task#17"] == "CONFLICT"  # another agent's lease, held to year 9999


def test_a_lease_from_a_clock_at_the_end_of_year_9999_ends_at_that_end(
    portal: BlockingPortal,
) -> None:
    codes = answers(portal, {}, datetime(9999, 12, 31, 23, 30, tzinfo=UTC))
    assert "INTERNAL_ERROR" not in codes, codes
    assert codes[-2] == "", codes  # claim_task on p1, lease 86,400 s from 23:30 on 31 Dec 9999


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    dates=st.dictionaries(st.sampled_from(TIME_KEYS + EXTRA_KEYS), date_texts, max_size=8),
    now=nows,
)
def test_every_date_and_now_in_the_range_is_answered_without_an_internal_error(
    portal: BlockingPortal, dates: dict[str, str], now: datetime
) -> None:
    codes = answers(portal, dates, now)
    assert "INTERNAL_ERROR" not in codes, list(zip([name for name, _ in CALLS], codes, strict=True))
