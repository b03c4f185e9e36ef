"""What an import did: how much it read, imported and skipped, and every problem, by where.

A problem that stops a line or file from becoming a task is `dropped`; the others (a second
parent, an unknown status kept as written, a field kept without a model slot) are notes on
a task that was imported. Every line or file read is accounted for exactly once, and so is
every reference an imported task makes (`parent`, `depends_on`, `soft_depends_on`): it
resolves to an imported task, is dropped because it names a record left out on purpose (a
beads tombstone), or is kept dangling; the last two are listed one by one as problems:

>>> builder = ReportBuilder("issues.jsonl", "lines")
>>> builder.read = 3
>>> builder.skip("tombstone")
>>> builder.problem("line 2", "not_json", "Expecting value", dropped=True)
>>> report = builder.build(imported=1)
>>> report.counts_add_up(), report.skipped_total, report.dropped
(True, 1, 1)
>>> builder.named("parent", 2)
>>> builder.resolved("parent")
>>> builder.build(imported=1).counts_add_up()
False
>>> builder.dangling("line 3", "parent", "p-3", "p-9")
>>> report = builder.build(imported=1)
>>> report.counts_add_up(), dict(report.references["parent"])
(True, {'named': 2, 'resolved': 1, 'dropped': 0, 'dangling': 1})
>>> report.problems[-1].message
"parent 'p-9' of 'p-3' names no imported task: kept, dangling"
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any, Literal

from storage.timestamps import parse_timestamp

__all__ = [
    "REFERENCE_FIELDS",
    "ImportProblem",
    "ImportReport",
    "ProblemKind",
    "ReferenceField",
    "ReportBuilder",
    "Unit",
]

Unit = Literal["lines", "files"]
ReferenceField = Literal["parent", "depends_on", "soft_depends_on"]
REFERENCE_FIELDS: tuple[ReferenceField, ...] = ("parent", "depends_on", "soft_depends_on")
_OUTCOMES = ("named", "resolved", "dropped", "dangling")
ProblemKind = Literal[
    "not_utf8",
    "not_json",
    "not_an_object",
    "merge_conflict",
    "parse_error",
    "invalid_id",
    "missing_title",
    "duplicate_id",
    "second_parent",
    "unknown_status",
    "bad_timestamp",
    "unmapped_field",
    "unmapped_value",
    "dangling_reference",
    "dropped_reference",
]


@dataclass(frozen=True, slots=True)
class ImportProblem:
    """One thing the import could not map. `where` is `line 12` or a file's relative path."""

    where: str
    kind: ProblemKind
    message: str
    dropped: bool = False

    def to_dict(self) -> dict[str, object]:
        return {
            "where": self.where,
            "kind": self.kind,
            "message": self.message,
            "dropped": self.dropped,
        }


@dataclass(frozen=True, slots=True)
class ImportReport:
    """The outcome of one import.

    `skipped` counts records left out on purpose, by reason (`tombstone`, `blank_line`,
    `not_a_task`); `dropped_fields` counts fields left out on purpose (personal data);
    `counts` holds other tallies worth knowing (`from_archive`, `with_parent`);
    `references` counts, by field, the distinct references imported tasks name and what
    became of each (`resolved`, `dropped`, `dangling`).
    """

    source: str
    unit: Unit
    read: int
    imported: int
    skipped: Mapping[str, int]
    problems: tuple[ImportProblem, ...]
    dropped_fields: Mapping[str, int]
    counts: Mapping[str, int]
    references: Mapping[str, Mapping[str, int]]

    @property
    def skipped_total(self) -> int:
        return sum(self.skipped.values())

    @property
    def dropped(self) -> int:
        """Lines or files that were read but not imported because of a problem."""
        return len({problem.where for problem in self.problems if problem.dropped})

    def counts_add_up(self) -> bool:
        """True when every line or file read was imported, skipped or dropped, once, and
        every reference named was resolved, dropped or kept dangling, once."""
        records = self.read == self.imported + self.skipped_total + self.dropped
        return records and all(
            tally["named"] == tally["resolved"] + tally["dropped"] + tally["dangling"]
            for tally in self.references.values()
        )

    def problem_counts(self) -> dict[str, int]:
        """Problems by kind, sorted by kind."""
        found: dict[str, int] = {}
        for problem in self.problems:
            found[problem.kind] = found.get(problem.kind, 0) + 1
        return dict(sorted(found.items()))

    def to_dict(self) -> dict[str, object]:
        return {
            "source": self.source,
            "unit": self.unit,
            "read": self.read,
            "imported": self.imported,
            "skipped": dict(self.skipped),
            "dropped": self.dropped,
            "counts_add_up": self.counts_add_up(),
            "problem_counts": self.problem_counts(),
            "problems": [problem.to_dict() for problem in self.problems],
            "dropped_fields": dict(self.dropped_fields),
            "counts": dict(self.counts),
            "references": {name: dict(tally) for name, tally in self.references.items()},
        }


@dataclass
class _FieldSeen:
    where: str
    kept_as: str | None
    times: int = 0


@dataclass
class ReportBuilder:
    """Collects a report while an importer maps its records; `build` freezes it."""

    source: str
    unit: Unit
    read: int = 0
    _skipped: dict[str, int] = field(default_factory=dict)
    _problems: list[ImportProblem] = field(default_factory=list)
    _dropped_fields: dict[str, int] = field(default_factory=dict)
    _counts: dict[str, int] = field(default_factory=dict)
    _unmapped: dict[str, _FieldSeen] = field(default_factory=dict)
    _references: dict[str, dict[str, int]] = field(
        default_factory=lambda: {name: dict.fromkeys(_OUTCOMES, 0) for name in REFERENCE_FIELDS}
    )

    def skip(self, reason: str) -> None:
        self._skipped[reason] = self._skipped.get(reason, 0) + 1

    def count(self, name: str) -> None:
        self._counts[name] = self._counts.get(name, 0) + 1

    def drop_field(self, name: str) -> None:
        """A field left out on purpose (not a problem: the report lists it apart)."""
        self._dropped_fields[name] = self._dropped_fields.get(name, 0) + 1

    def problem(
        self, where: str, kind: ProblemKind, message: str, *, dropped: bool = False
    ) -> None:
        self._problems.append(ImportProblem(where, kind, message, dropped))

    def timestamp(self, where: str, record: Mapping[str, Any], key: str) -> datetime | None:
        """`record[key]` as a time (None when absent); one that is not a time is a
        `bad_timestamp` problem and None."""
        try:
            return parse_timestamp(record.get(key))
        except (ValueError, TypeError):
            self.problem(where, "bad_timestamp", f"{key} {record.get(key)!r} is not a timestamp")
            return None

    def named(self, field_name: ReferenceField, times: int = 1) -> None:
        """References an imported task names (each then resolved, dropped or dangling)."""
        self._references[field_name]["named"] += times

    def resolved(self, field_name: ReferenceField) -> None:
        self._references[field_name]["resolved"] += 1

    def dangling(self, where: str, field_name: ReferenceField, task_id: str, target: str) -> None:
        """A reference kept although it names no imported task: counted and listed."""
        self._references[field_name]["dangling"] += 1
        message = f"{field_name} {target!r} of {task_id!r} names no imported task: kept, dangling"
        self.problem(where, "dangling_reference", message)

    def dropped_reference(
        self, where: str, field_name: ReferenceField, task_id: str, target: str, why: str
    ) -> None:
        """A reference left out because it names a record left out on purpose."""
        self._references[field_name]["dropped"] += 1
        message = f"{field_name} {target!r} of {task_id!r} {why}: dropped"
        self.problem(where, "dropped_reference", message)

    def unmapped_field(self, where: str, name: str, kept_as: str | None) -> None:
        """A field with no place in the model: reported once, with how often it occurred."""
        seen = self._unmapped.setdefault(name, _FieldSeen(where, kept_as))
        seen.times += 1

    def build(self, imported: int) -> ImportReport:
        return ImportReport(
            source=self.source,
            unit=self.unit,
            read=self.read,
            imported=imported,
            skipped=_frozen(self._skipped),
            problems=(*self._problems, *self._unmapped_problems()),
            dropped_fields=_frozen(self._dropped_fields),
            counts=_frozen(self._counts),
            references=MappingProxyType(
                {name: MappingProxyType(dict(tally)) for name, tally in self._references.items()}
            ),
        )

    def _unmapped_problems(self) -> list[ImportProblem]:
        problems = []
        for name, seen in sorted(self._unmapped.items()):
            fate = f"kept as {seen.kept_as!r}" if seen.kept_as else "left out (not a plain key)"
            message = f"field {name!r} on {seen.times} record(s) has no model field: {fate}"
            problems.append(ImportProblem(seen.where, "unmapped_field", message))
        return problems


def _frozen(counts: dict[str, int]) -> Mapping[str, int]:
    return MappingProxyType(dict(sorted(counts.items())))
