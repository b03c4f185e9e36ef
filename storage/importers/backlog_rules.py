"""Backlog.md's ids, folders and frontmatter, read the way Backlog.md itself reads them.

Ids: Backlog.md (`src/utils/task-id.ts`, `canonicalTaskId`) groups `task-7`, `TASK-7` and
`TASK-07` as one task: the prefix is upper-cased, and leading zeros of each dotted number are
cosmetic (`BACK-355.01` is `BACK-355.1`). A bare number takes the board's task prefix
(`task_prefix` in `config.yml`, `task` by default; drafts are `draft-<n>`). Ids that are not
numbered (`doc-intro`) are kept as written. Boards that changed their prefix (`task` → `back`)
still hold references in the old one; a reference whose prefix no imported task uses is read
with the board's prefix when that names a task.

>>> ids = BacklogIds("BACK", frozenset({"BACK", "DRAFT"}))
>>> ids.canonical("back-355.01"), ids.canonical("7"), ids.canonical("7", "draft")
('BACK-355.1', 'BACK-7', 'DRAFT-7')
>>> ids.resolve("task-100", {"BACK-100"}), ids.resolve("task-100", set())
('BACK-100', 'TASK-100')

Folders: `tasks/` holds the live board, `completed/` done tasks moved off it, `drafts/` ideas
not yet on it, `archive/tasks/` and `archive/drafts/` what was taken off (Backlog.md removes an
archived task from every other task's dependencies). `milestones/` holds milestones, not tasks.

>>> [folder_of(p).name for p in ("tasks/a.md", "archive/drafts/b.md", "completed/c.md")]
['tasks', 'archive/drafts', 'completed']
>>> folder_of("archive/tasks/d.md").rank > folder_of("completed/e.md").rank
True

Frontmatter: Backlog.md quotes `assignee: @name`, `reporter: @name` and `due_date` values before
parsing (`src/markdown/parser.ts`, `preprocessFrontmatter`); `@` cannot start a plain YAML
value, so without this the files it writes by default would not parse.

>>> as_backlog_reads("assignee: @ann\\nreporter: [@bo, 'cy']\\ndue_date: 2026-01-02 # soon\\n")
'assignee: "@ann"\\nreporter: ["@bo", \\'cy\\']\\ndue_date: "2026-01-02" # soon\\n'
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from storage.model import is_valid_id

from .report import ReportBuilder

__all__ = [
    "DRAFT_PREFIX",
    "BacklogIds",
    "Card",
    "Folder",
    "as_backlog_reads",
    "bare_prefix",
    "board_ids",
    "config_prefix",
    "folder_of",
    "likely_prefix",
    "winners",
]

DRAFT_PREFIX = "DRAFT"
_DEFAULT_PREFIX = "TASK"
_NUMBERED = re.compile(r"(?:([A-Za-z]+)-)?([0-9]+(?:\.[0-9]+)*)")
_CONFIG_PREFIX = re.compile(r"""^task_prefix:[ \t]*["']?([A-Za-z]+)["']?[ \t]*$""", re.MULTILINE)
_PEOPLE_LINE = re.compile(r"^([ \t]*(?:assignee|reporter):[ \t]*)(.*?)([ \t]*)$")
_DUE_LINE = re.compile(r"^([ \t]*due_date:[ \t]*)(.*?)((?:[ \t]+#.*)?)([ \t]*)$")
_FLOW_LIST = re.compile(r"^\[(.*)\][ \t]*(#.*)?$")


@dataclass(frozen=True, slots=True)
class BacklogIds:
    """The id rules of one board: its task prefix and the prefixes its tasks use (upper case)."""

    task_prefix: str
    in_use: frozenset[str]

    def head(self, written: str, prefix: str | None = None) -> str | None:
        """The prefix a numbered id has in its canonical form; None for other ids."""
        match = _NUMBERED.fullmatch(written.strip())
        return (match[1] or prefix or self.task_prefix).upper() if match else None

    def canonical(self, written: str, prefix: str | None = None) -> str:
        """One form for every way of writing a numbered id; others stripped, as written.
        `prefix` is the one a bare number takes (the board's task prefix by default)."""
        text = written.strip()
        match = _NUMBERED.fullmatch(text)
        if match is None:
            return text
        head = (match[1] or prefix or self.task_prefix).upper()
        return f"{head}-{'.'.join(part.lstrip('0') or '0' for part in match[2].split('.'))}"

    def resolve(self, written: str, known: Collection[str]) -> str:
        """The id a reference names: its canonical form, or, when no task has that and its
        prefix is one no task uses, the same number with the board's prefix if a task has it."""
        first = self.canonical(written)
        match = _NUMBERED.fullmatch(written.strip())
        if first in known or match is None or not match[1] or match[1].upper() in self.in_use:
            return first
        other = self.canonical(match[2])
        return other if other in known else first


def likely_prefix(written_ids: Iterable[str]) -> str:
    """The prefix most numbered ids use (ties: alphabetical), `TASK` when none is numbered.

    >>> likely_prefix(["back-1", "BACK-2", "task-3", "doc-intro"]), likely_prefix([])
    ('BACK', 'TASK')
    """
    heads = Counter(
        match[1].upper()
        for match in map(_NUMBERED.fullmatch, (text.strip() for text in written_ids))
        if match and match[1] and match[1].upper() != DRAFT_PREFIX
    )
    if not heads:
        return _DEFAULT_PREFIX
    return min(heads, key=lambda head: (-heads[head], head))


def config_prefix(config_text: str) -> str | None:
    """The `task_prefix` a Backlog.md `config.yml` sets, upper-cased; None when it sets none.

    >>> config_prefix('project_name: "X"\\ntask_prefix: "back"\\n'), config_prefix("")
    ('BACK', None)
    """
    match = _CONFIG_PREFIX.search(config_text)
    return match[1].upper() if match else None


@dataclass(frozen=True, slots=True)
class Folder:
    """Where a file sits on the board: `name` as written to `backlog_folder`, and `rank`
    (lower wins when two files carry one id)."""

    name: str
    rank: int

    @property
    def archived(self) -> bool:
        return self.name.startswith("archive")

    @property
    def draft(self) -> bool:
        return self.name.endswith("drafts")

    @property
    def milestones(self) -> bool:
        return self.name.endswith("milestones")

    @property
    def live(self) -> bool:
        return self.name == "tasks"


_RANKS = {"tasks": 0, "completed": 1, "drafts": 2, "archive/tasks": 3, "archive/drafts": 4}


def folder_of(relative: str) -> Folder:
    """The board folder of a file's relative path; any folder Backlog.md does not name counts
    as live (`tasks`), anything under `archive/` as archived."""
    parts = relative.split("/")[:-1]
    if parts[:1] == ["archive"]:
        name = "archive/" + (parts[1] if len(parts) > 1 else "tasks")
        return Folder(name, _RANKS.get(name, 3))
    if parts[:1] in (["completed"], ["drafts"], ["milestones"]):
        return Folder(parts[0], _RANKS.get(parts[0], 0))
    return Folder("tasks", 0)


# --- the board: which copy of an id is the task ----------------------------------------


@dataclass(frozen=True, slots=True)
class Card:
    """One task file read: where it sits, its frontmatter and body, its id as written."""

    relative: str
    folder: Folder
    meta: dict[str, Any]
    body: str
    written_id: str


def board_ids(cards: list[Card], configured: str | None) -> BacklogIds:
    """The board's id rules: its task prefix, and the prefixes its numbered ids use."""
    prefix = configured or likely_prefix(card.written_id for card in cards if not card.folder.draft)
    board = BacklogIds(prefix, frozenset())
    heads = (board.head(card.written_id, bare_prefix(card)) for card in cards)
    return BacklogIds(prefix, frozenset(head for head in heads if head))


def bare_prefix(card: Card) -> str | None:
    """The prefix a bare number takes in this card's folder (drafts are `draft-<n>`)."""
    return DRAFT_PREFIX if card.folder.draft else None


def winners(cards: list[Card], ids: BacklogIds, builder: ReportBuilder) -> list[tuple[Card, str]]:
    """One card per canonical id, with that id, in path order: the card in the liveliest
    folder (tasks, completed, drafts, archive), then the one writing the id canonically,
    then the first path. Every other card is reported as a duplicate and left out."""
    groups: dict[str, list[Card]] = {}
    for card in cards:
        task_id = ids.canonical(card.written_id, bare_prefix(card))
        if is_valid_id(task_id):
            groups.setdefault(task_id, []).append(card)
        else:
            message = f"id {task_id!r} is not a valid id"
            builder.problem(card.relative, "invalid_id", message, dropped=True)
    kept = []
    for task_id, group in groups.items():
        first, *others = sorted(
            group, key=lambda c: (c.folder.rank, c.written_id != task_id, c.relative)
        )
        for other in others:
            message = f"id {task_id!r} also in {first.relative}, which wins "
            message += f"({_why_first(first, other, task_id)}); this copy left out"
            builder.problem(other.relative, "duplicate_id", message, dropped=True)
        kept.append((first, task_id))
    return sorted(kept, key=lambda pair: pair[0].relative)


def _why_first(first: Card, other: Card, task_id: str) -> str:
    if first.folder.rank != other.folder.rank:
        return f"{first.folder.name}/ over {other.folder.name}/"
    if first.written_id == task_id != other.written_id:
        return f"{first.folder.name}/, writing the id as {task_id!r}"
    return f"{first.folder.name}/, first path"


# --- frontmatter -------------------------------------------------------------------------


def as_backlog_reads(front: str) -> str:
    """The frontmatter text with the quoting Backlog.md adds before it parses."""
    lines = front.splitlines(keepends=True)
    return "".join(
        _quoted_line(line.rstrip("\r\n")) + line[len(line.rstrip("\r\n")) :] for line in lines
    )


def _quoted_line(line: str) -> str:
    due = _DUE_LINE.match(line)
    if due is not None:
        value = due[2].strip()
        if value and value.lower() not in ("null", "~") and not value.startswith(("'", '"')):
            return f"{due[1]}{_quoted(value)}{due[3]}"
        return line
    people = _PEOPLE_LINE.match(line)
    if people is None:
        return line
    value = people[2]
    flow = _FLOW_LIST.match(value)
    if flow is not None:
        items = [item.strip() for item in flow[1].split(",") if item.strip()]
        quoted = [_quoted(item) if item.startswith("@") else item for item in items]
        return f"{people[1]}[{', '.join(quoted)}]" + (f" {flow[2]}" if flow[2] else "")
    if value and not value.startswith(("[", "'", '"', "-")):
        return f"{people[1]}{_quoted(value)}"
    return line


def _quoted(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'
