"""What a validating client pays to check one `list_tasks` answer of 1,000 brief rows.

    python -m bench.validation_bench [--n 10000] [--runs 15]

The SDK's Python client checks every structured result against the tool's outputSchema
with `jsonschema` (a validator compiled once per tool, then `iter_errors`); other clients
use a compiled validator such as `fastjsonschema` (the test extra installs it:
`pip install -e '.[test]'`; without it that column is left out, and the bench says so). This
prints the median cost of one check of the answer as published, beside the shapes it was
chosen over, on two trees' worth of rows: the bench tree (nearly every task has a project
and a parent) and the same rows with neither (a flat tree, as most imported trees are).

- published: a row is an object with its required keys (id, title, type, status,
  priority), open to the others, their values unchecked; rows leave out `project`/`parent`
  when the task has none;
- typed fields: each row's brief fields typed, open to the others (the shape published
  before the planner's listing was cut to 30 KB);
- anyOf [brief, full]: typed fields, rows checked against a closed brief schema or the open
  one (it accepts the same rows as the open one alone);
- nulls written: as "anyOf [brief, full]", with `project`/`parent` always present, `null`
  when unset, typed `anyOf: [{type: string}, {type: null}]` (the shape before issue 14);
- type lists: as "nulls written", spelled `type: [string, null]` (cheaper to check, but
  the spelling clients that read only the OpenAPI subset drop).
Each on the rows of `list_tasks(limit=1000)` in brief and, last, in full (`fields="full"`).
Figures only.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jsonschema import exceptions
from jsonschema.validators import validator_for
from referencing import Registry

from bench.generate import generate_tree
from bench.timing import median_ms
from tasks_server.edge.schemas import output_schema
from tasks_server.registry import discover
from tasks_server.toolset import open_toolset
from tasks_server.views import BRIEF_FIELDS, TaskBrief

Schema = dict[str, Any]
OPTIONAL = ("project", "parent")
NULLABLE = {"anyOf": [{"type": "string"}, {"type": "null"}]}


def jsonschema_check(schema: Schema, answer: Schema) -> Callable[[], object] | None:
    """The SDK client's check: a validator made once, then the best error (None if valid);
    None when the schema rejects the answer."""
    cls = validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema, registry=Registry())
    if exceptions.best_match(validator.iter_errors(answer)) is not None:
        return None
    return lambda: exceptions.best_match(validator.iter_errors(answer))


def compiled_check(schema: Schema, answer: Schema) -> Callable[[], object] | None:
    try:
        import fastjsonschema  # noqa: PLC0415 - optional, measured when installed
    except ImportError:
        return None
    check = fastjsonschema.compile(schema)
    return lambda: check(answer)


def with_rows(schema: Schema, row_schema: Schema) -> Schema:
    schema = copy.deepcopy(schema)
    schema["properties"]["tasks"]["items"] = copy.deepcopy(row_schema)
    return schema


def typed_row() -> Schema:
    """A row with its brief fields typed, open to the others, as the model declares it."""
    declared: Schema = TaskBrief.model_json_schema()
    unread = ("title", "description", "default", "additionalProperties")
    properties = {
        key: {k: v for k, v in field.items() if k not in unread}
        for key, field in declared["properties"].items()
    }
    assert properties.keys() == BRIEF_FIELDS
    return {"type": "object", "properties": properties, "required": declared["required"]}


def either_row(schema: Schema) -> Schema:
    closed = {**typed_row(), "additionalProperties": False}
    return with_rows(schema, {"anyOf": [closed, typed_row()]})


def nulls_written(schema: Schema, answer: Schema) -> tuple[Schema, Schema]:
    schema, answer = either_row(schema), copy.deepcopy(answer)
    for row_schema in schema["properties"]["tasks"]["items"]["anyOf"]:
        row_schema["properties"].update({key: dict(NULLABLE) for key in OPTIONAL})
        row_schema["required"] = sorted({*row_schema["required"], *OPTIONAL})
    for row in answer["tasks"]:
        row.update({key: row.get(key) for key in OPTIONAL})
    return schema, answer


def type_lists(node: Any) -> Any:
    if isinstance(node, list):
        return [type_lists(item) for item in node]
    if not isinstance(node, dict):
        return node
    first, *rest = node.get("anyOf") or [{}]
    if node.keys() == {"anyOf"} and rest == [{"type": "null"}] and first.keys() == {"type"}:
        return {"type": [first["type"], "null"]}
    return {key: type_lists(value) for key, value in node.items()}


def flat(answer: Schema) -> Schema:
    answer = copy.deepcopy(answer)
    for row in answer["tasks"]:
        for key in OPTIONAL:
            row.pop(key, None)
    return answer


def shapes(schema: Schema, answer: Schema) -> dict[str, tuple[Schema, Schema]]:
    written = nulls_written(schema, answer)
    return {
        "published": (schema, answer),
        "typed fields": (with_rows(schema, typed_row()), answer),
        "anyOf [brief, full]": (either_row(schema), answer),
        "nulls written": written,
        "type lists": (type_lists(written[0]), written[1]),
    }


def report(schema: Schema, answers: dict[str, Schema], runs: int) -> None:
    print(f"{'shape':<21}{'rows':<28}{'jsonschema ms':>15}{'compiled ms':>13}{'bytes':>9}")
    for tree, answer in answers.items():
        for shape, (shape_schema, shape_answer) in shapes(schema, answer).items():
            check = jsonschema_check(shape_schema, shape_answer)
            if check is None:
                print(f"{shape:<21}{tree:<28}{'rejects these rows':>28}")
                continue
            slow = median_ms(check, runs, warm=True)
            compiled = compiled_check(shape_schema, shape_answer)
            fast = f"{median_ms(compiled, runs, warm=True):13.2f}" if compiled else f"{'n/a':>13}"
            size = len(json.dumps(shape_answer, separators=(",", ":")))
            print(f"{shape:<21}{tree:<28}{slow:15.2f}{fast}{size:9d}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    if importlib.util.find_spec("fastjsonschema") is None:
        print(
            "fastjsonschema is not installed: the compiled validator is not measured "
            "(pip install -e '.[test]', or pip install fastjsonschema)",
            file=sys.stderr,
        )
    spec = next(spec for spec in discover() if spec.name == "list_tasks")
    schema = output_schema(spec.output_model)
    # Rows as objects: the first branch of `tasks` (a client stops at it for such a page).
    schema["properties"]["tasks"] = schema["properties"]["tasks"]["anyOf"][0]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "tree"
        generate_tree(root, args.n, seed=1)
        toolset = open_toolset(root, watch=False)
        answer, full = (
            json.loads(json.dumps(toolset.run("list_tasks", {"limit": 1000, "fields": f}).data))
            for f in ("brief", "full")
        )  # as a client holds them: parsed JSON
    answers = {
        "bench tree (project, parent)": answer,
        "flat (neither)": flat(answer),
        "full rows, bench tree": full,
    }
    report(schema, answers, args.runs)


if __name__ == "__main__":
    main()
