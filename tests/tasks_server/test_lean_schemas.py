"""Published schemas are compacted: `X | None` becomes a type list, accepting and refusing
exactly what the schema pydantic generated does."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tasks_server.server import _nullable

NULL = {"type": "null"}
BRANCHES: list[dict[str, Any]] = [
    {"type": "array", "items": {"type": "string"}},
    {"type": "string", "format": "date-time"},
    {"type": "object", "additionalProperties": {"type": "integer"}},
    {
        "type": "object",
        "properties": {"id": {"type": "string"}},
        "required": ["id"],
        "additionalProperties": False,
    },
    {"type": "integer", "minimum": 0},
]
INSTANCES: list[Any] = [None, [], ["a"], [1], "x", "", {}, {"id": "a"}, {"id": 1}, {"n": 1}]
INSTANCES += [{"n": "1"}, 0, -1, 2.5, True]


def verdicts(schema: dict[str, Any]) -> list[bool]:
    validator = Draft202012Validator(schema)
    return [validator.is_valid(instance) for instance in INSTANCES]


@pytest.mark.parametrize("branch", BRANCHES)
@pytest.mark.parametrize("null_first", [False, True])
def test_a_nullable_branch_becomes_a_type_list_with_the_same_verdicts(
    branch: dict[str, Any], null_first: bool
) -> None:
    original = {"anyOf": [NULL, branch] if null_first else [branch, NULL], "default": None}
    lean = _nullable(original)
    assert "anyOf" not in lean and lean["type"] == [branch["type"], "null"]
    assert lean["default"] is None
    assert verdicts(lean) == verdicts(original)


@pytest.mark.parametrize(
    "options",
    [
        [{"type": "string", "enum": ["a", "b"]}, NULL],  # null would fail the enum
        [{"const": 1}, NULL],
        [{"type": ["string", "integer"]}, NULL],
        [{"type": "string"}, {"type": "integer"}],
        [{"type": "string"}, {"type": "integer"}, NULL],
    ],
)
def test_other_unions_are_left_as_written(options: list[dict[str, Any]]) -> None:
    original = {"anyOf": options}
    assert _nullable(original) == original
