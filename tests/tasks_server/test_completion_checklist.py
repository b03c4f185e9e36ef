"""One open-checklist rule for completion and the scoring factors, read in one linear pass
(through a real in-memory MCP client)."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from tests.tasks_server.conftest import call, fail

pytestmark = pytest.mark.anyio

BLANK_LINES = "\n" * 40_000  # quadratic for a `^\s*...` regex over the whole body


async def created(client: Client, body: str) -> str:
    data = await call(
        client, "create_task", title="Listed", project="wx", status="active", body=body
    )
    return str(data["task"]["id"])


async def accepted(client: Client, task_id: str) -> bool:
    """The has_acceptance_criteria factor of one ready task."""
    data = await call(client, "get_task_scoring_factors", limit=1000)
    return next(row["has_acceptance_criteria"] for row in data["tasks"] if row["id"] == task_id)


async def test_an_open_item_after_forty_thousand_blank_lines_refuses_completion(
    client: Client,
) -> None:
    task_id = await created(client, BLANK_LINES + "- [ ] the last step\n")
    refused = await fail(client, "complete_task", task_id=task_id)
    assert refused["error"]["code"] == "OPEN_CHECKLIST"
    assert (await call(client, "get_task", task_id=task_id))["task"]["status"] == "active"


async def test_forty_thousand_blank_lines_without_an_open_item_complete(client: Client) -> None:
    task_id = await created(client, BLANK_LINES + "- [x] ticked\n")
    assert (await call(client, "complete_task", task_id=task_id))["task"]["status"] == "done"


async def test_forcing_completes_whatever_the_body_holds(client: Client) -> None:
    task_id = await created(client, BLANK_LINES + "- [ ] open\n" * 1000)
    data = await call(client, "complete_task", task_id=task_id, force=True)
    assert data["task"]["status"] == "done"


@pytest.mark.parametrize(
    ("body", "is_open"),
    [
        ("- [ ] plain", True),
        ("  * [ ] indented star", True),
        ("+ [ ] plus", True),
        ("1. [ ] ordered", True),
        ("- [ ]", True),
        ("- [x] ticked", False),
        ("a [ ] in prose", False),
        ("`[ ]` in code", False),
        ("-[ ] no space", False),
    ],
)
async def test_completion_and_the_scoring_factors_apply_the_same_checklist_rule(
    client: Client, body: str, is_open: bool
) -> None:
    task_id = await created(client, body + "\n")
    assert await accepted(client, task_id) is is_open
    result = await client.call_tool("complete_task", {"task_id": task_id})
    assert result.is_error is is_open


async def test_a_refusal_quotes_a_huge_checklist_item_cut_short(client: Client) -> None:
    task_id = await created(client, "- [ ] " + "x" * 500_000 + "\n")
    refused = await fail(client, "complete_task", task_id=task_id)
    assert refused["error"]["code"] == "OPEN_CHECKLIST"
    assert len(json.dumps(refused)) < 4000
