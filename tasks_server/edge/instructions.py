"""What a session is told once, in the `initialize` result, instead of in every tool.

Many tools take the same arguments with the same meaning: paging (`limit`, `cursor`), how
task rows are shown (`fields`, `max_body_chars`, `format`), the filters and `task_id`. Each
is described here once, with its bounds and default, in the server's instructions; a tool's
published input schema keeps of such an argument its type, its `enum` and whatever it has
differently (its own description, default or bounds). The usual cap on a text argument's
length is said here too, and that an argument a tool does not list is refused. The arguments
are declared and validated as before: only what is published shrinks.

>>> text = instructions({"get_children": ["task_id", "limit", "cursor"]})
>>> [line.split(":")[0] for line in text.splitlines()[-3:]]
['limit (1-1000; default 50)', 'cursor', 'task_id (1-255 chars)']
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from functools import cache
from typing import Any

from pydantic import Field

from tasks_server.edge.schema_cache import schema_cache
from tasks_server.edge.schemas import SaidOnce, input_schema
from tasks_server.filters import STATUS_FILTER, TaskFilterInput
from tasks_server.listing import TaskListArgs
from tasks_server.models import SINCE_TOKEN, IdArg, Token, Unset
from tasks_server.sizes import MAX_SHORT_CHARS

__all__ = ["instructions", "said_once"]

ABOUT = (
    "Facts about a task graph kept as markdown files. The server counts and lists; you judge. "
    "Every result carries guidance."
)
START = ("get_graph_metrics", "get_ready_tasks")
PAGING = "Lists come in pages with count, total and next_cursor (null on the last page)."
TEXT_CAP = (
    f"Text arguments take at most {MAX_SHORT_CHARS} characters unless a tool says otherwise; "
    "an argument a tool does not list is refused."
)
SHARED = (
    "These arguments mean this wherever a tool does not describe them; filters given must all hold:"
)


class SharedArguments(TaskFilterInput, TaskListArgs):
    """Every argument that means the same in each tool that takes it (the tools declare them
    through the same models, types and descriptions)."""

    status: str | Unset = Field(None, description=STATUS_FILTER)
    task_id: IdArg = Field(description="Exact task id.")
    since_token: Token = Field(description=SINCE_TOKEN)


@cache
def said_once() -> SaidOnce:
    """The shared arguments' published schemas, by name (kept across starts with the tools'
    schemas: `edge.schema_cache`), and the usual text cap."""
    arguments = schema_cache().kept("shared arguments", _shared, _is_object)
    return SaidOnce(arguments=arguments, max_chars=MAX_SHORT_CHARS, closed=True)


def _shared() -> dict[str, dict[str, Any]]:
    properties: dict[str, dict[str, Any]] = input_schema(SharedArguments)["properties"]
    return properties


def _is_object(found: Any) -> bool:
    return isinstance(found, dict)


def instructions(arguments: Mapping[str, Collection[str]]) -> str:
    """The instructions of a session serving these tools (each name with the names of its
    arguments): what the server is for, where to start and how paging works when its tools
    are served, the usual text cap, then each shared argument some tool takes, one a line."""
    taken = set().union(*arguments.values())
    start = [f"Start with {' or '.join(START)}."] if set(START) <= arguments.keys() else []
    paging = [PAGING] if "cursor" in taken else []
    lines = [_line(name, s) for name, s in said_once().arguments.items() if name in taken]
    return "\n".join([ABOUT, *start, *paging, TEXT_CAP, *([SHARED, *lines] if lines else [])])


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
