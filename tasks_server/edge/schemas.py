"""The JSON Schemas a tool publishes, made from its pydantic models once per process.

Portable first: every schema is self-contained (definitions inlined; one used more than
once, or recursive, kept in the schema's own `$defs`), has no `title` keys, and writes "X or
null" the way pydantic does, as `anyOf: [{type: X}, {type: null}]` with one `type` per
branch: the one spelling every client reads, including the ones that map tool schemas onto
the OpenAPI subset (a `type` list is legal JSON Schema but drops the constraint there).
An input schema leaves out what the session's instructions say once for every tool
(`SaidOnce`, made by `tasks_server.edge.instructions`). Output schemas carry no
descriptions (clients validate results against them, they do not show them to the model)
and are strict at the top level only: an object inside a result is published as its
required keys.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

__all__ = ["SaidOnce", "input_schema", "output_schema"]


@dataclass(frozen=True)
class SaidOnce:
    """What the session's instructions say for every tool, so no input schema repeats it:
    the shared `arguments` (name to published schema), the usual cap on a text argument's
    length (`max_chars`; an argument with another cap keeps its own) and, when `closed`,
    that an argument a tool does not list is refused (no `additionalProperties: false`)."""

    arguments: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    max_chars: int | None = None
    closed: bool = False


def input_schema(model: type[BaseModel], said: SaidOnce | None = None) -> dict[str, Any]:
    """The schema of a tool's arguments: titles dropped, descriptions kept. An argument
    named in `said.arguments` leaves out every keyword it has just as that schema has it,
    but its `type`, `enum` and `items`; no argument has a `type` beside an `enum`, a
    `default: false` or a `maxLength` of `said.max_chars`."""
    schema: dict[str, Any] = _compact(_inline_refs(model.model_json_schema()), describe=True)
    said = said or SaidOnce()
    if said.closed and schema.get("additionalProperties") is False:
        del schema["additionalProperties"]
    properties = schema.get("properties", {})
    schema["properties"] = {
        name: _published(sub, said.arguments.get(name, {}), said.max_chars)
        for name, sub in properties.items()
    }
    return schema


ALWAYS_PUBLISHED = frozenset({"type", "enum", "items"})
"""What an argument's schema keeps even when the instructions give it: its shape."""


def _published(schema: dict[str, Any], shared: dict[str, Any], max_chars: int | None) -> Any:
    """One argument's schema (or its `items`) without what a reader learns elsewhere: what
    the instructions say of it, the `type` its `enum` implies, a flag's `default: false`,
    the usual length cap."""

    def redundant(key: str, value: Any) -> bool:
        if key in shared and key not in ALWAYS_PUBLISHED and shared[key] == value:
            return True
        return (
            (key == "type" and "enum" in schema)
            or (key == "default" and value is False)
            or (key == "maxLength" and value == max_chars)
        )

    kept = {key: value for key, value in schema.items() if not redundant(key, value)}
    if isinstance(kept.get("items"), dict):
        kept["items"] = _published(kept["items"], {}, max_chars)
    return kept


def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The schema of a tool's result, written for the client that checks results against it:
    the result's own keys typed, required and closed (`additionalProperties: false`); an
    object inside it published as its required keys alone (`_loosen`); no descriptions or
    defaults (a model reads the tool's description and input schema)."""
    raw = model.model_json_schema()
    loose = {
        key: {name: _loosen(sub) for name, sub in value.items()}
        if key in ("properties", "$defs")
        else value
        for key, value in raw.items()
    }
    schema: dict[str, Any] = _compact(_inline_refs(loose), describe=False)
    return schema


def _loosen(node: Any) -> Any:
    """`node` with every object that declares its properties published as `{type: object,
    required: [...]}`: the keys every answer has, open to the rest, their values unchecked.
    Typing each row's and each guidance's fields in every tool would cost a planner's
    `tools/list` 18 KB, and a client that checks would check them all on every row."""
    if isinstance(node, list):
        return [_loosen(item) for item in node]
    if not isinstance(node, dict):
        return node
    if isinstance(node.get("properties"), dict):
        required = node.get("required")
        return {"type": "object", **({"required": required} if required else {})}
    return {
        key: {name: _loosen(sub) for name, sub in value.items()}
        if key in NAMED and isinstance(value, dict)
        else _loosen(value)
        for key, value in node.items()
    }


SHARED_MIN_CHARS = 200
"""A definition used more than once and at least this long is written once, in the
schema's own `$defs`; anything smaller is cheaper inlined than referred to."""


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """`$ref`s replaced by their definitions, except a definition written more than once in
    the inlined document (a task row in several lists, kept in `$defs` and referred to from
    each) and a recursive one (a tree node). Every `$ref` left points into the document."""
    defs: dict[str, Any] = schema.get("$defs", {})
    uses = _uses(schema, defs, ())
    shared = {
        name for name, count in uses.items() if count > 1 and _chars(defs[name]) >= SHARED_MIN_CHARS
    }

    def inline(node: Any, stack: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [inline(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref", "")
        name = ref.removeprefix("#/$defs/")
        if ref.startswith("#/$defs/") and name in defs and name not in (*stack, *shared):
            merged = {**defs[name], **{k: v for k, v in node.items() if k != "$ref"}}
            return inline(merged, (*stack, name))
        return {k: inline(v, stack) for k, v in node.items() if k != "$defs"}

    inlined: dict[str, Any] = inline(schema, ())
    kept: dict[str, Any] = {}
    wanted = _refs_in(inlined)
    while wanted - kept.keys():  # a kept definition may refer to another
        for name in sorted(wanted - kept.keys()):
            kept[name] = inline(defs[name], (name,))
        wanted = _refs_in(inlined) | _refs_in(list(kept.values()))
    if kept:
        inlined["$defs"] = dict(sorted(kept.items()))
    return inlined


def _uses(node: Any, defs: dict[str, Any], stack: tuple[str, ...]) -> Counter[str]:
    """How often each definition would be written out if every `$ref` were inlined."""
    counts: Counter[str] = Counter()
    if isinstance(node, list):
        for item in node:
            counts += _uses(item, defs, stack)
    elif isinstance(node, dict):
        name = str(node.get("$ref", "")).removeprefix("#/$defs/")
        if name in defs:
            counts[name] += 1
            if name not in stack:
                counts += _uses(defs[name], defs, (*stack, name))
        for key, value in node.items():
            if key != "$defs":
                counts += _uses(value, defs, stack)
    return counts


def _chars(node: Any) -> int:
    return len(json.dumps(node, separators=(",", ":")))


def _refs_in(node: Any) -> set[str]:
    if isinstance(node, list):
        return set().union(*(_refs_in(item) for item in node))
    if not isinstance(node, dict):
        return set()
    ref = node.get("$ref")
    found = {ref.removeprefix("#/$defs/")} if isinstance(ref, str) else set()
    return found.union(*(_refs_in(value) for value in node.values()))


NAMED = ("properties", "patternProperties", "$defs")
"""Keywords whose keys are names (a property may be called `description`), not keywords."""


def _compact(schema: Any, *, describe: bool) -> Any:
    """No titles, no `default: null`; without `describe`, no descriptions or defaults."""
    if isinstance(schema, list):
        return [_compact(item, describe=describe) for item in schema]
    if not isinstance(schema, dict):
        return schema
    drop = {"title"} if describe else {"title", "description", "default"}
    kept = {}
    for key, value in schema.items():
        if key in NAMED and isinstance(value, dict):
            kept[key] = {name: _compact(sub, describe=describe) for name, sub in value.items()}
        elif not (key in drop or (key == "default" and value is None)):
            kept[key] = _compact(value, describe=describe)
    return kept
