"""The size cap on one answer: small answers untouched, long strings then long lists cut
to one length each, and a warning that names what was cut."""

from __future__ import annotations

import json
from typing import Any

from tasks_server.answer import KEPT_CHARS, KEPT_ITEMS, bound_answer
from tasks_server.human.render import blocked_reasons


def _answer(**fields: Any) -> dict[str, Any]:
    return {**fields, "guidance": {"current_state": "s", "next_action": "n"}}


def test_an_answer_under_the_cap_is_left_as_it_is() -> None:
    answer = _answer(tasks=[{"id": "a", "body": "x" * 5000, "body_truncated": False}])
    kept = json.loads(json.dumps(answer))
    bound_answer(answer, limit=10_000)
    assert answer == kept


def test_the_longest_strings_are_cut_to_one_length_and_ids_stay_whole() -> None:
    rows = [
        {"id": f"t{n}", "body": "x" * size, "body_truncated": False}
        for n, size in enumerate([500, 1500, 4000, 8000, 16_000])
    ]
    answer = _answer(tasks=rows)
    bound_answer(answer, limit=10_000)
    bodies = [len(r["body"]) for r in answer["tasks"]]
    assert len(json.dumps(answer)) < 11_000
    assert bodies[:2] == [500, 1500] and len(set(bodies[2:])) == 1 and 1500 < bodies[2] < 4000
    assert [r["id"] for r in answer["tasks"]] == [f"t{n}" for n in range(5)]
    assert [r["body_truncated"] for r in answer["tasks"]] == [False, False, True, True, True]
    [warning] = answer["guidance"]["warnings"]
    assert "3 strings cut" in warning and "tasks[2].body" in warning


def test_long_lists_are_cut_when_short_strings_are_all_there_is() -> None:
    answer = _answer(rows=[{"unmet": [f"id-{n:06d}" for n in range(20_000)]} for _ in range(3)])
    bound_answer(answer, limit=100_000)
    [length] = {len(r["unmet"]) for r in answer["rows"]}
    assert len(json.dumps(answer)) < 100_000 and KEPT_ITEMS <= length < 20_000
    assert answer["rows"][0]["unmet"][:2] == ["id-000000", "id-000001"]
    assert "3 lists cut" in answer["guidance"]["warnings"][0]


def test_nothing_is_cut_below_the_kept_length_even_over_the_cap() -> None:
    answer = _answer(titles=["t" * KEPT_CHARS] * 50)
    bound_answer(answer, limit=1000)
    assert {len(t) for t in answer["titles"]} == {KEPT_CHARS}


def test_a_blocked_row_on_a_long_cycle_says_how_many_members_are_not_listed() -> None:
    row = {"cycle": ["a", "b"], "cycle_length": 10_000}
    assert blocked_reasons(row) == "in a dependency cycle with a, b and 9,998 more"


def _page_in_columns(sizes: list[int], same: dict[str, Any]) -> dict[str, Any]:
    columns = ["id", "body", *(["body_truncated"] if "body_truncated" not in same else [])]
    rows = [[f"t{n}", "x" * size, False][: len(columns)] for n, size in enumerate(sizes)]
    return {"columns": columns, "rows": rows, **({"same": same} if same else {})}


def test_a_body_cut_in_a_row_in_columns_sets_that_rows_body_truncated() -> None:
    answer = _answer(tasks=_page_in_columns([500, 16_000, 16_000], {"project": "p"}))
    bound_answer(answer, limit=10_000)
    page = answer["tasks"]
    assert page["columns"] == ["id", "body", "body_truncated"]
    assert [row[2] for row in page["rows"]] == [False, True, True]
    assert len(page["rows"][0][1]) == 500 and len(page["rows"][1][1]) < 16_000
    assert page["same"] == {"project": "p"}
    assert "tasks.rows[1][1]" in answer["guidance"]["warnings"][0]


def test_a_body_truncated_that_same_held_goes_back_among_the_columns_after_body() -> None:
    same = {"project": "p", "body_truncated": False}
    answer = _answer(tasks=_page_in_columns([500, 16_000, 700], same))
    bound_answer(answer, limit=10_000)
    page = answer["tasks"]
    assert page["columns"] == ["id", "body", "body_truncated"]
    cut = page["rows"][1][1]
    assert page["rows"] == [["t0", "x" * 500, False], ["t1", cut, True], ["t2", "x" * 700, False]]
    assert len(page["rows"][1][1]) < 16_000
    assert page["same"] == {"project": "p"}


def test_same_left_empty_by_body_truncated_going_back_is_left_out() -> None:
    answer = _answer(tasks=_page_in_columns([16_000, 16_000], {"body_truncated": False}))
    bound_answer(answer, limit=10_000)
    assert "same" not in answer["tasks"]
    assert [row[2] for row in answer["tasks"]["rows"]] == [True, True]
