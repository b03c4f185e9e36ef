"""What a session is told once, in the `initialize` result, instead of in every tool.

Many tools take the same arguments with the same meaning: paging (`limit`, `cursor`), how
task rows are shown (`fields`, `max_body_chars`, `format`), the filters and `task_id`. Each
is described here once, with its bounds and default, in the server's instructions; a tool's
published input schema keeps of such an argument its type, its `enum` and whatever it has
differently (its own description, default or bounds). The usual cap on a text argument's
length is said here too. The arguments are declared and validated as before: only what is
published shrinks.

>>> [line for line in instructions().splitlines() if line.startswith("limit")]
['limit (1-1000; default 50): Page size (all lists together).']
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import Field

from tasks_server.edge.schemas import SaidOnce, input_schema
from tasks_server.filters import STATUS_FILTER, TaskFilterInput
from tasks_server.listing import TaskListArgs
from tasks_server.models import IdArg, Unset
from tasks_server.sizes import MAX_SHORT_CHARS

__all__ = ["instructions", "said_once"]

PREAMBLE = (
    "Facts about a task graph kept as markdown files. The server counts and lists; you judge. "
    "Start with get_graph_metrics or get_ready_tasks; every result carries guidance.\n"
    "Lists come in pages with count, total and next_cursor (null on the last page).\n"
    f"Text arguments take at most {MAX_SHORT_CHARS} characters unless a tool says otherwise.\n"
    "These arguments mean this wherever a tool does not describe them; filters given must all "
    "hold:"
)


class SharedArguments(TaskFilterInput, TaskListArgs):
    """Every argument that means the same in each tool that takes it (the tools declare them
    through the same models, types and descriptions)."""

    status: str | Unset = Field(None, description=STATUS_FILTER)
    task_id: IdArg = Field(description="Exact task id.")


@cache
def said_once() -> SaidOnce:
    """The shared arguments' published schemas, by name, and the usual text cap."""
    arguments: dict[str, dict[str, Any]] = input_schema(SharedArguments)["properties"]
    return SaidOnce(arguments=arguments, max_chars=MAX_SHORT_CHARS)


@cache
def instructions() -> str:
    """The server's instructions: what it is for, then each shared argument on a line."""
    lines = [_line(name, schema) for name, schema in said_once().arguments.items()]
    return "\n".join([PREAMBLE, *lines])


def _line(name: str, schema: dict[str, Any]) -> str:
    """`name (values; bounds; default): description`, with what of these it has."""
    facts = ["|".join(schema["enum"])] if "enum" in schema else []
    facts += _bounds(schema)
    if "default" in schema:
        facts.append(f"default {schema['default']}")
    said = f" ({'; '.join(facts)})" if facts else ""
    return f"{name}{said}: {schema.get('description', '')}"


BOUNDS = (
    ("minimum", "maximum", ""),
    ("minLength", "maxLength", " chars"),
    ("", "maxItems", " items"),
)
"""The keywords of a range (lower, upper) and the unit it is written with."""


def _bounds(schema: dict[str, Any]) -> list[str]:
    """Each range `schema` has, as `1-1000`, `at most 500 items` or `at least 0`."""
    found = []
    for low, high, unit in BOUNDS:
        if low in schema and high in schema:
            found.append(f"{schema[low]}-{schema[high]}{unit}")
        elif high in schema:
            found.append(f"at most {schema[high]}{unit}")
        elif low in schema:
            found.append(f"at least {schema[low]}{unit}")
    return found
