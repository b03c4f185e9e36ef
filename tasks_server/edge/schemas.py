"""The JSON Schemas a tool publishes, made from its pydantic models once per process.

Portable first: every schema is self-contained (definitions inlined, recursive ones kept in
`$defs`), has no `title` keys, and writes "X or null" the way pydantic does, as
`anyOf: [{type: X}, {type: null}]` with one `type` per branch: the one spelling every client
reads, including the ones that map tool schemas onto the OpenAPI subset (a `type` list is
legal JSON Schema but drops the constraint there). Output schemas keep descriptions on their
top-level keys only: clients validate results against them, they do not show them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

__all__ = ["input_schema", "output_schema"]


def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The schema of a tool's arguments: titles dropped, descriptions kept."""
    schema: dict[str, Any] = _compact(_inline_refs(model.model_json_schema()), describe=True)
    return schema


def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The schema of a tool's result: descriptions only on the top-level keys."""
    full = model.model_json_schema()
    schema: dict[str, Any] = _compact(_inline_refs(full), describe=False)
    described = full.get("properties", {})
    for key, prop in schema.get("properties", {}).items():
        if "description" in described.get(key, {}):
            prop["description"] = described[key]["description"]
    return schema


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """`$ref`s to non-recursive `$defs` replaced by the definitions themselves."""
    defs: dict[str, Any] = schema.get("$defs", {})

    def inline(node: Any, stack: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [inline(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref", "")
        name = ref.removeprefix("#/$defs/")
        if ref.startswith("#/$defs/") and name in defs and name not in stack:
            merged = {**defs[name], **{k: v for k, v in node.items() if k != "$ref"}}
            return inline(merged, (*stack, name))
        return {k: inline(v, stack) for k, v in node.items() if k != "$defs"}

    inlined: dict[str, Any] = inline(schema, ())
    still = _refs_in(inlined)
    if still:  # recursive models (a tree node) keep their definitions
        inlined["$defs"] = {name: inline(defs[name], (name,)) for name in sorted(still)}
    return inlined


def _refs_in(node: Any) -> set[str]:
    if isinstance(node, list):
        return set().union(*(_refs_in(item) for item in node))
    if not isinstance(node, dict):
        return set()
    ref = node.get("$ref")
    found = {ref.removeprefix("#/$defs/")} if isinstance(ref, str) else set()
    return found.union(*(_refs_in(value) for value in node.values()))


def _compact(schema: Any, *, describe: bool) -> Any:
    """No titles (and no descriptions unless `describe`), no `default: null`."""
    if isinstance(schema, list):
        return [_compact(item, describe=describe) for item in schema]
    if not isinstance(schema, dict):
        return schema
    drop = {"title"} if describe else {"title", "description"}
    return {
        key: _compact(value, describe=describe)
        for key, value in schema.items()
        if not (key in drop and isinstance(value, str)) and not (key == "default" and value is None)
    }
