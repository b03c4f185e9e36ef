"""A beads record's `dependencies` as task links.

`parent-child` → `parent` (a second parent is reported and kept as `beads_other_parents`),
`blocks` → `depends_on`, any other type → `soft_depends_on` with the type kept. A link to a
record left out on purpose (a deleted record, `status: tombstone`) is dropped, counted and
listed in the report; it never becomes a dangling reference. When the first parent is such a
record, the next one named is the parent.

>>> from storage.importers.report import ReportBuilder
>>> builder = ReportBuilder("issues.jsonl", "lines")
>>> reader = LinkReader("line 2", "p-2", frozenset({"p-0"}), builder)
>>> links = reader.read([{"depends_on_id": "p-0", "type": "parent-child"},
...                      {"depends_on_id": "p-1", "type": "parent-child"},
...                      {"depends_on_id": "p-0", "type": "related"}])
>>> links.parent, links.soft, builder.build(imported=1).problem_counts()
('p-1', [], {'dropped_reference': 2})
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from storage.model import is_valid_id

from .report import ReferenceField, ReportBuilder

__all__ = ["DELETED", "LinkReader", "Links"]

DELETED = "is a deleted record (tombstone)"
_FIELDS: dict[str, ReferenceField] = {"parent-child": "parent", "blocks": "depends_on"}
_EDGE_KEYS = frozenset({"issue_id", "depends_on_id", "type", "metadata"})
_EDGE_DROPPED = ("created_by", "created_at", "thread_id")


@dataclass
class Links:
    parent: str | None = None
    other_parents: list[str] = field(default_factory=list)
    hard: list[str] = field(default_factory=list)
    soft: list[str] = field(default_factory=list)
    soft_types: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, object] = field(default_factory=dict)


@dataclass
class LinkReader:
    """Reads the links of the record on `where` (id `task_id`); `deleted` are the ids of
    records left out on purpose."""

    where: str
    task_id: str
    deleted: frozenset[str]
    builder: ReportBuilder
    _dropped: set[tuple[str, str]] = field(default_factory=set)

    def read(self, raw: object) -> Links:
        links = Links()
        if raw is None:
            return links
        if not isinstance(raw, list):
            message = "dependencies is not a list; left out"
            self.builder.problem(self.where, "unmapped_value", message)
            return links
        for edge in raw:
            target = self._target(edge)
            if target is not None:
                self._add(target, edge, links)
        if links.parent:
            self.builder.count("with_parent")
        return links

    def _target(self, edge: object) -> str | None:
        target = edge.get("depends_on_id") if isinstance(edge, dict) else None
        if not isinstance(edge, dict) or not isinstance(target, str) or not is_valid_id(target):
            message = f"dependency {edge!r} has no valid depends_on_id"
            self.builder.problem(self.where, "unmapped_value", message)
            return None
        if edge.get("issue_id", self.task_id) != self.task_id:
            message = f"a dependency of {edge.get('issue_id')!r} listed under {self.task_id!r}"
            self.builder.problem(self.where, "unmapped_value", message + "; left out")
            return None
        return target

    def _add(self, target: str, edge: dict[str, Any], links: Links) -> None:
        kind = str(edge.get("type") or "blocks")
        self._account_fields(edge)
        field_name = _FIELDS.get(kind, "soft_depends_on")
        if target in self.deleted:
            self._drop(field_name, target)
            return
        if edge.get("metadata") not in (None, "", "{}", {}):
            links.metadata[target] = edge["metadata"]
        if field_name == "parent":
            self._add_parent(target, links)
        elif field_name == "depends_on":
            self._append_new(links.hard, target, field_name)
        else:
            self._append_new(links.soft, target, field_name)
            links.soft_types[target] = kind

    def _drop(self, field_name: ReferenceField, target: str) -> None:
        if (field_name, target) not in self._dropped:
            self._dropped.add((field_name, target))
            self.builder.named(field_name)
            self.builder.dropped_reference(self.where, field_name, self.task_id, target, DELETED)

    def _add_parent(self, target: str, links: Links) -> None:
        if links.parent is None:
            links.parent = target
            self.builder.named("parent")
        elif target != links.parent and target not in links.other_parents:
            message = f"second parent {target!r}: {links.parent!r} kept, the other in "
            self.builder.problem(self.where, "second_parent", message + "beads_other_parents")
            links.other_parents.append(target)

    def _append_new(self, ids: list[str], target: str, field_name: ReferenceField) -> None:
        if target not in ids:
            ids.append(target)
            self.builder.named(field_name)

    def _account_fields(self, edge: dict[str, Any]) -> None:
        for key, value in edge.items():
            if key in _EDGE_DROPPED:
                if value not in (None, ""):
                    self.builder.drop_field(f"dependencies.{key}")
            elif key not in _EDGE_KEYS:
                self.builder.unmapped_field(self.where, f"dependencies.{key}", None)
