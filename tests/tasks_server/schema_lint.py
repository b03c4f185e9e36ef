"""Tool-schema portability findings, by the rules the MCP Inspector's `tools/list` applies
(its "Schema portability" line), written again here so that every test run checks them:

- `type-union`: `type` is a list (legal, but clients that map tool schemas onto the OpenAPI
  subset, e.g. for Gemini, reject the tool or drop the constraint);
- `remote-ref`: a `$ref` outside the document;
- `untyped-schema`: a schema object with no validation keyword (accepts anything);
- `boolean-schema`: a bare `true`/`false` where a schema object is expected.
"""

from __future__ import annotations

from typing import Any

MAP_KEYWORDS = ("properties", "patternProperties", "dependentSchemas", "dependencies", "$defs")
ARRAY_KEYWORDS = ("allOf", "anyOf", "oneOf", "prefixItems")
SINGLE_KEYWORDS = (
    "items", "contains", "not", "propertyNames", "if", "then", "else", "additionalProperties",
    "unevaluatedProperties", "additionalItems", "unevaluatedItems", "contentSchema",
)  # fmt: skip
BOOLEAN_OK = {
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
}
CONSTRAINING = {
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
    "exclusiveMinimum", "maxLength", "minLength", "pattern", "format", "contentMediaType",
    "contentEncoding", "contentSchema", "maxItems", "minItems", "uniqueItems", "maxContains",
    "minContains", "maxProperties", "minProperties", "required", "dependentRequired", "allOf",
    "anyOf", "oneOf", "not", "items", "prefixItems", "contains", "additionalItems",
    "unevaluatedItems", "properties", "patternProperties", "additionalProperties",
    "unevaluatedProperties", "propertyNames", "dependentSchemas", "dependencies", "$ref",
    "$dynamicRef", "$recursiveRef",
}  # fmt: skip


def findings(schema: Any, path: str = "", keyword: str | None = None) -> list[str]:
    """Every portability finding in `schema`, as `rule at path`."""
    if isinstance(schema, bool):
        return [] if keyword in BOOLEAN_OK else [f"boolean-schema at {path}"]
    if not isinstance(schema, dict):
        return []
    found = _node(schema, path, keyword)
    for key, sub, sub_path in _children(schema, path):
        found += findings(sub, sub_path, key)
    return found


def _node(node: dict[str, Any], path: str, keyword: str | None) -> list[str]:
    found = []
    if isinstance(node.get("type"), list):
        found.append(f"type-union at {path}")
    ref = node.get("$ref")
    if isinstance(ref, str) and ref and not ref.startswith("#"):
        found.append(f"remote-ref at {path}")
    pair = "if" in node and ("then" in node or "else" in node)
    if not (CONSTRAINING & node.keys() or pair) and keyword != "not":
        found.append(f"untyped-schema at {path}")
    return found


def _children(node: dict[str, Any], path: str) -> list[tuple[str, Any, str]]:
    out: list[tuple[str, Any, str]] = []
    for key in MAP_KEYWORDS:
        if isinstance(node.get(key), dict):
            out += [(key, sub, f"{path}.{key}.{name}") for name, sub in node[key].items()]
    for key in ARRAY_KEYWORDS:
        if isinstance(node.get(key), list):
            out += [(key, sub, f"{path}.{key}[{i}]") for i, sub in enumerate(node[key])]
    for key in SINGLE_KEYWORDS:
        if key in node:
            value = node[key]
            if key == "items" and isinstance(value, list):
                out += [(key, sub, f"{path}.items[{i}]") for i, sub in enumerate(value)]
            else:
                out.append((key, value, f"{path}.{key}"))
    return out
