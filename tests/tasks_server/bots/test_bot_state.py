"""The workflow transitions as pure functions over (config, state), and the state file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tasks_server.bots.config import Action, BotConfig
from tasks_server.bots.errors import NotCurrent
from tasks_server.bots.state import (
    Completion,
    WorkflowState,
    behavior_current,
    close,
    complete,
    is_done,
    resolve_current,
    select,
    successor,
)
from tasks_server.bots.store import StateFile, parse_state, to_json

T0, T1 = "2026-11-22T12:00:00+00:00", "2026-11-22T12:05:00+00:00"


def act(config: BotConfig, key: str) -> Action:
    action = config.find(f"story_bot.{key}")
    assert action is not None, key
    return action


def at(config: BotConfig, key: str, *done: str) -> WorkflowState:
    """A state whose current action is `key`, with `done` recorded complete in order."""
    records = tuple(Completion(f"story_bot.{d}", T0) for d in done)
    behavior = "story_bot." + key.split(".", maxsplit=1)[0]
    return WorkflowState(behavior, f"story_bot.{key}", T0, records)


def keys(state: WorkflowState) -> list[str]:
    return [r.action_state.removeprefix("story_bot.") for r in state.completed_actions]


# --- precedence --------------------------------------------------------------------------------


def test_no_state_starts_at_the_first_behaviors_first_action(story_config: BotConfig) -> None:
    resolution = resolve_current(story_config, WorkflowState())
    assert resolution.action.key == "story_bot.shape.initialize_project"
    assert resolution.warning is None


def test_a_valid_current_action_wins_over_the_completed_actions(story_config: BotConfig) -> None:
    state = at(story_config, "exploration.render_output", "shape.initialize_project")
    assert resolve_current(story_config, state).action.key == "story_bot.exploration.render_output"


def test_an_unknown_current_action_falls_back_to_the_last_completions_successor(
    story_config: BotConfig,
) -> None:
    state = at(
        story_config, "shape.make_coffee", "shape.initialize_project", "shape.gather_context"
    )
    resolution = resolve_current(story_config, state)
    assert resolution.action.key == "story_bot.shape.decide_planning_criteria"
    assert resolution.warning is not None


def test_a_missing_current_action_falls_back_without_a_warning(story_config: BotConfig) -> None:
    records = (Completion("story_bot.shape.validate_rules", T0),)
    resolution = resolve_current(story_config, WorkflowState(completed_actions=records))
    assert resolution.action.key == "story_bot.discovery.initialize_project"
    assert resolution.warning is None


def test_completions_of_unknown_actions_are_skipped_in_the_fallback(
    story_config: BotConfig,
) -> None:
    records = (Completion("story_bot.shape.gather_context", T0), Completion("story_bot.x.y", T0))
    state = WorkflowState(completed_actions=records)
    assert resolve_current(story_config, state).action.name == "decide_planning_criteria"


# --- successors and behaviors ------------------------------------------------------------------


def test_the_successor_of_a_behaviors_last_action_is_the_next_behaviors_first(
    story_config: BotConfig,
) -> None:
    following = successor(story_config, WorkflowState(), act(story_config, "shape.validate_rules"))
    assert following is not None and following.key == "story_bot.discovery.initialize_project"


def test_the_bots_last_action_has_no_successor(story_config: BotConfig) -> None:
    last = act(story_config, "specification.validate_rules")
    assert successor(story_config, WorkflowState(), last) is None


def test_a_non_workflow_action_returns_to_where_its_behavior_stood(story_config: BotConfig) -> None:
    state = at(
        story_config, "shape.correct_bot", "shape.initialize_project", "shape.gather_context"
    )
    following = successor(story_config, state, act(story_config, "shape.correct_bot"))
    assert following is not None and following.name == "decide_planning_criteria"


def test_a_behavior_resumes_after_its_last_completed_action(story_config: BotConfig) -> None:
    state = at(story_config, "shape.render_output", "discovery.initialize_project")
    discovery = story_config.behavior("discovery")
    assert discovery is not None
    assert behavior_current(story_config, state, discovery).action.name == "gather_context"


def test_a_behavior_with_nothing_completed_starts_at_its_first_action(
    story_config: BotConfig,
) -> None:
    exploration = story_config.behavior("exploration")
    assert exploration is not None
    found = behavior_current(story_config, at(story_config, "shape.gather_context"), exploration)
    assert found.action.key == "story_bot.exploration.initialize_project"


def test_the_current_behavior_keeps_its_current_action(story_config: BotConfig) -> None:
    state = at(story_config, "shape.build_knowledge", "shape.initialize_project")
    shape = story_config.behaviors[0]
    assert behavior_current(story_config, state, shape).action.name == "build_knowledge"


# --- select, complete, close -------------------------------------------------------------------


def test_selecting_an_action_sets_it_current_without_completing_it(story_config: BotConfig) -> None:
    state = select(WorkflowState(), act(story_config, "discovery.build_knowledge"), T1)
    assert state == WorkflowState(
        "story_bot.discovery", "story_bot.discovery.build_knowledge", T1, ()
    )


def test_reopening_an_action_clears_only_its_own_completion(story_config: BotConfig) -> None:
    state = at(
        story_config, "shape.render_output", "shape.initialize_project", "shape.gather_context"
    )
    reopened = select(state, act(story_config, "shape.gather_context"), T1, reopen=True)
    assert keys(reopened) == ["shape.initialize_project"]
    assert reopened.current_action == "story_bot.shape.gather_context"


def test_selecting_the_current_action_again_changes_nothing(story_config: BotConfig) -> None:
    state = at(story_config, "shape.gather_context")
    assert select(state, act(story_config, "shape.gather_context"), T1) is state


def test_completing_twice_records_once(story_config: BotConfig) -> None:
    gather = act(story_config, "shape.gather_context")
    once = complete(WorkflowState(), gather, T0)
    assert complete(once, gather, T1) is once and keys(once) == ["shape.gather_context"]


def test_close_records_the_current_action_and_moves_to_the_next(story_config: BotConfig) -> None:
    state, outcome = close(story_config, at(story_config, "shape.gather_context"), T1)
    assert keys(state) == ["shape.gather_context"]
    assert state.current_action == "story_bot.shape.decide_planning_criteria"
    assert (outcome.closed.name, outcome.current.name, outcome.done) == (
        "gather_context", "decide_planning_criteria", False,
    )  # fmt: skip


def test_closing_a_behaviors_last_action_enters_the_next_behavior(story_config: BotConfig) -> None:
    state, _ = close(story_config, at(story_config, "discovery.validate_rules"), T1)
    assert state.current_behavior == "story_bot.exploration"
    assert state.current_action == "story_bot.exploration.initialize_project"


def test_closing_the_bots_last_action_reports_done_and_stays(story_config: BotConfig) -> None:
    state, outcome = close(story_config, at(story_config, "specification.validate_rules"), T1)
    assert outcome.done and is_done(story_config, state)
    assert state.current_action == "story_bot.specification.validate_rules"
    again, second = close(story_config, state, T1)
    assert again == state and second.done and second.already_closed


def test_closing_an_auto_completed_action_does_not_record_it_twice(story_config: BotConfig) -> None:
    state = at(story_config, "shape.initialize_project", "shape.initialize_project")
    closed, _ = close(story_config, state, T1)
    assert keys(closed) == ["shape.initialize_project"]
    assert closed.current_action == "story_bot.shape.gather_context"


def test_a_close_naming_an_already_closed_action_changes_nothing(story_config: BotConfig) -> None:
    first, _ = close(story_config, at(story_config, "shape.gather_context"), T0)
    gather = act(story_config, "shape.gather_context")
    second, outcome = close(story_config, first, T1, expected=gather)
    assert second is first and outcome.already_closed


def test_a_close_naming_an_open_action_that_is_not_current_is_refused(
    story_config: BotConfig,
) -> None:
    with pytest.raises(NotCurrent):
        close(story_config, at(story_config, "shape.gather_context"), T1,
              expected=act(story_config, "shape.build_knowledge"))  # fmt: skip


def test_closing_a_side_action_returns_to_the_behaviors_resume_point(
    story_config: BotConfig,
) -> None:
    state = at(story_config, "shape.correct_bot", "shape.initialize_project")
    closed, outcome = close(story_config, state, T1)
    assert outcome.current.name == "gather_context"
    assert keys(closed) == ["shape.initialize_project", "shape.correct_bot"]


# --- the file --------------------------------------------------------------------------------


def test_the_file_round_trips_every_field(story_config: BotConfig) -> None:
    state = at(story_config, "shape.render_output", "shape.initialize_project")
    assert parse_state(to_json(state)) == (state, [])


@pytest.mark.parametrize(
    ("raw", "problem_count"),
    [
        (b"{not json", 1),
        (b"[1, 2]", 1),
        (b'{"current_action": 7}', 1),
        (b'{"completed_actions": {"a": 1}}', 1),
        (b'{"completed_actions": [{"action_state": 3}]}', 1),
        (b"\xff\xfe", 1),
    ],
)
def test_a_corrupt_file_yields_what_it_can_and_names_each_problem(
    raw: bytes, problem_count: int
) -> None:
    _, problems = parse_state(raw)
    assert len(problems) == problem_count


def test_a_corrupt_file_keeps_its_readable_parts(story_config: BotConfig) -> None:
    record = {"action_state": "story_bot.shape.gather_context", "timestamp": T0}
    raw = json.dumps({"current_action": 42, "completed_actions": [record, "x"]}).encode()
    state, problems = parse_state(raw)
    assert state.current_action is None and keys(state) == ["shape.gather_context"]
    assert len(problems) == 2


def test_a_transaction_writes_only_a_changed_state(tmp_path: Path, story_config: BotConfig) -> None:
    store = StateFile(tmp_path / "wf" / "workflow_state.json")
    with store.transaction() as transaction:
        transaction.result = at(story_config, "shape.gather_context")
    stamp = store.path.stat().st_mtime_ns
    with store.transaction() as transaction:
        transaction.result = transaction.loaded.state
    assert store.path.stat().st_mtime_ns == stamp
    assert store.read().state == at(story_config, "shape.gather_context")


def test_a_corrupt_file_is_kept_aside_when_it_is_replaced(
    tmp_path: Path, story_config: BotConfig
) -> None:
    store = StateFile(tmp_path / "workflow_state.json")
    store.path.write_bytes(b"{broken")
    with store.transaction() as transaction:
        assert transaction.loaded.problems
        transaction.result = at(story_config, "shape.gather_context")
    assert (tmp_path / "workflow_state.json.corrupt").read_bytes() == b"{broken"
    assert store.read().problems == ()


@pytest.mark.parametrize("depth", [100, 100_000])
def test_a_state_file_nested_too_deep_is_a_problem_and_a_fresh_state(depth: int) -> None:
    state, problems = parse_state(('{"a": ' * depth + "1" + "}" * depth).encode())
    assert state == WorkflowState() and problems == ["JSON nested deeper than 64 levels"]
