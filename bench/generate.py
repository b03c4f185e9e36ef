"""Seeded, deterministic synthetic task trees for benchmarks.

``generate_tree(root, n, seed)`` writes ``n`` task files in the task file format, spread over up to
twenty projects (``proj00`` .. ``proj19``) at ``<root>/<project>/tasks/<id>-<slug>.md``. The same
``(n, seed)`` always gives byte-identical files: every choice comes from one ``random.Random(seed)``
and every timestamp from a fixed base date, never from the clock.

Shape of the tree, per project:

- task 0 is the project itself (``type: project``, depth 0, ``parent: null``);
- every later task has a parent that is an earlier task of the same project, depth 1 to 8;
- 0-3 ``depends_on`` and 0-2 ``soft_depends_on`` ids, always on earlier tasks (so the hard
  dependency graph has no cycles), about 15% of them in another project;
- a status mix like a lived-in tree (45% done, 20% active, ... 5% cancelled).

Tasks are generated round-robin over the projects, so "earlier" means earlier in that global
order and ``created`` grows with it.

Example::

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     tree = generate_tree(Path(tmp), 50, seed=7)
    >>> tree.files, tree.projects
    (50, 20)

Command line: ``python -m bench.generate --n 10000 --seed 1 --out DIR``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar

__all__ = ["GeneratedTree", "generate_tree", "main"]

_T = TypeVar("_T")


def _cumulative(weights: Sequence[int]) -> tuple[int, ...]:
    """Cumulative weights for ``Random.choices`` (faster than plain weights)."""
    return tuple(itertools.accumulate(weights))


def _words(text: str) -> tuple[str, ...]:
    """A whitespace-separated word list as a tuple."""
    return tuple(text.split())


PROJECT_COUNT = 20
MAX_DEPTH = 8
BASE_DATE = datetime(2026, 11, 1, tzinfo=UTC)
YEAR_SECONDS = 365 * 86_400
START_DATE = BASE_DATE - timedelta(seconds=YEAR_SECONDS)

STATUSES = _words("done active in_progress blocked waiting review inbox cancelled")
STATUS_CUM = _cumulative((45, 20, 8, 6, 5, 4, 7, 5))
PRIORITIES = (0, 1, 2, 3, 4)
PRIORITY_CUM = _cumulative((6, 20, 46, 19, 9))
TYPES = ("task", "action", "bug", "feature", "epic")
TYPE_CUM = _cumulative((70, 10, 8, 7, 5))
TOP_TYPES = ("epic", "task", "feature")
TOP_TYPE_CUM = _cumulative((60, 30, 10))
PARENT_TYPES = frozenset({"project", "epic", "task", "feature"})
DEPTHS = tuple(range(1, MAX_DEPTH + 1))
DEPTH_CUM = _cumulative((14, 24, 22, 16, 10, 7, 4, 3))
HARD_COUNTS = (0, 1, 2, 3)
HARD_COUNT_CUM = _cumulative((45, 30, 17, 8))
SOFT_COUNTS = (0, 1, 2)
SOFT_COUNT_CUM = _cumulative((60, 30, 10))
TAG_COUNTS = (0, 1, 2, 3)
TAG_COUNT_CUM = _cumulative((30, 40, 20, 10))

CROSS_PROJECT_SHARE = 0.15
RECENT_SHARE = 0.7
RECENT_WINDOW = 40
BODY_LOW, BODY_MODE, BODY_HIGH = 260, 600, 1700

VERBS = _words(
    """
    add audit build clean document draft extract fix harden implement index measure
    migrate outline profile refactor remove rename review rewrite ship simplify split
    test trace update validate verify wire write
    """
)
WORDS = _words(
    """
    api archive backlog batch board boundary branch budget cache chapter checklist
    client codec config context contract dashboard dataset deadline draft edge editor
    endpoint epic error export field figure file filter folder frontmatter graph grant
    guide handler header import inbox index journal label layer layout ledger library
    limit loader manuscript metric migration model module notes outline parser path
    payload pipeline plan policy prompt proposal queue reader record release report
    request review roadmap schema script search server session signal snapshot source
    spec stage status storage summary survey table template thesis ticket timeline token
    tool tracker tree upload version workflow writer and for with before after across
    from into the each every new old stale missing slow shared local remote nightly
    weekly final broken clear small large first next last
    """
)
TAGS = _words(
    """
    admin backend data docs frontend infra ops perf planning release research security
    teaching testing writing
    """
)


@dataclass(frozen=True, slots=True)
class GeneratedTree:
    """What ``generate_tree`` wrote: counts only, so it stays small."""

    root: Path
    files: int
    projects: int
    by_status: tuple[tuple[str, int], ...]
    depends_on_edges: int
    cross_project_edges: int
    soft_depends_on_edges: int
    parent_edges: int
    max_depth: int
    bytes_written: int

    def status_counts(self) -> dict[str, int]:
        """``by_status`` as a dict, in ``STATUSES`` order."""
        return dict(self.by_status)


@dataclass(frozen=True, slots=True)
class _Task:
    """One generated task: the frontmatter fields plus its computed depth."""

    id: str
    title: str
    type: str
    status: str
    priority: int
    order: int
    parent: str | None
    depends_on: tuple[str, ...]
    soft_depends_on: tuple[str, ...]
    project: str
    tags: tuple[str, ...]
    created: str
    modified: str
    completed: str | None
    depth: int


@dataclass(slots=True)
class _State:
    """Tasks generated so far, indexed the ways the pickers need."""

    projects: tuple[str, ...]
    ids: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    members: list[list[str]] = field(default_factory=list)
    pools: list[list[list[str]]] = field(default_factory=list)
    children: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.members = [[] for _ in self.projects]
        self.pools = [[[] for _ in range(MAX_DEPTH)] for _ in self.projects]

    def record(self, task: _Task, slot: int) -> None:
        """Make ``task`` available as a parent and dependency for later tasks."""
        self.ids.append(task.id)
        self.members[slot].append(task.id)
        if task.depth < MAX_DEPTH and task.type in PARENT_TYPES:
            self.pools[slot][task.depth].append(task.id)

    def next_order(self, parent: str) -> int:
        """The sibling ``order`` of a new child of ``parent``: 0, 1, 2, ..."""
        order = self.children.get(parent, 0)
        self.children[parent] = order + 1
        return order


@dataclass(slots=True)
class _Tally:
    """Running counts, frozen into a ``GeneratedTree`` at the end."""

    by_status: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STATUSES, 0))
    files: int = 0
    hard: int = 0
    cross: int = 0
    soft: int = 0
    parents: int = 0
    max_depth: int = 0
    bytes_written: int = 0

    def add(self, task: _Task, size: int) -> None:
        self.by_status[task.status] = self.by_status.get(task.status, 0) + 1
        self.files += 1
        self.hard += len(task.depends_on)
        self.cross += sum(_project_of(dep) != task.project for dep in task.depends_on)
        self.soft += len(task.soft_depends_on)
        self.parents += task.parent is not None
        self.max_depth = max(self.max_depth, task.depth)
        self.bytes_written += size

    def freeze(self, root: Path, projects: int) -> GeneratedTree:
        return GeneratedTree(
            root=root,
            files=self.files,
            projects=projects,
            by_status=tuple(self.by_status.items()),
            depends_on_edges=self.hard,
            cross_project_edges=self.cross,
            soft_depends_on_edges=self.soft,
            parent_edges=self.parents,
            max_depth=self.max_depth,
            bytes_written=self.bytes_written,
        )


def generate_tree(root: Path, n: int, seed: int = 1, *, cycle: bool = False) -> GeneratedTree:
    """Write ``n`` task files under ``root`` and return their counts.

    With ``cycle``, every task also depends on the task made before it and the first on the
    last: the whole tree is one ``depends_on`` cycle of ``n`` tasks (every other choice, and so
    every other byte, as without it). Existing files with the same names are overwritten;
    other files are left alone.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    rng = random.Random(seed)
    state = _State(tuple(f"proj{i:02d}" for i in range(min(PROJECT_COUNT, n))))
    for project in state.projects:
        (root / project / "tasks").mkdir(parents=True, exist_ok=True)
    tally = _Tally()
    first: tuple[_Task, str] | None = None
    for index in range(n):
        task = _make_task(rng, state, index, n)
        body = _body(rng, task)
        if cycle and index == 0:
            first = (task, body)  # written last, once the last id is known
            continue
        if cycle:
            task = _also_on(task, state.ids[index - 1])
        _write(root, task, body, tally)
    if first is not None:
        _write(root, _also_on(first[0], state.ids[-1]), first[1], tally)
    return tally.freeze(root, len(state.projects))


def _also_on(task: _Task, dependency: str) -> _Task:
    """``task`` depending on ``dependency`` too (a self-link or one it has already left out)."""
    if dependency == task.id or dependency in task.depends_on:
        return task
    return replace(task, depends_on=(*task.depends_on, dependency))


def _write(root: Path, task: _Task, body: str, tally: _Tally) -> None:
    text = _to_markdown(task, body)
    path = root / task.project / "tasks" / f"{task.id}-{_slug(task.title)}.md"
    path.write_text(text, encoding="utf-8", newline="\n")
    tally.add(task, len(text.encode("utf-8")))


def _to_markdown(task: _Task, body: str) -> str:
    """The file text: frontmatter in the fixed key order, a blank line, then the body."""
    completed = f"completed: {task.completed}\n" if task.completed else ""
    return (
        f"---\nid: {task.id}\ntitle: {task.title}\ntype: {task.type}\n"
        f"status: {task.status}\npriority: {task.priority}\norder: {task.order}\n"
        f"parent: {task.parent or 'null'}\n"
        f"depends_on: {_flow(task.depends_on)}\n"
        f"soft_depends_on: {_flow(task.soft_depends_on)}\n"
        f"project: {task.project}\ntags: {_flow(task.tags)}\n"
        f"created: {task.created}\nmodified: {task.modified}\n"
        f"{completed}---\n\n{body}"
    )


def _make_task(rng: random.Random, state: _State, index: int, n: int) -> _Task:
    """Generate the task at position ``index`` and record it in ``state``."""
    slot = index % len(state.projects)
    task_id = _new_id(rng, state.projects[slot], state.seen)
    if index < len(state.projects):
        task = _project_task(rng, task_id, state.projects[slot], slot, n)
    else:
        task = _child_task(rng, state, task_id, index, n)
    state.record(task, slot)
    return task


def _project_task(rng: random.Random, task_id: str, project: str, slot: int, n: int) -> _Task:
    """The depth-0 root of one project: always active, priority 1."""
    created, modified, _ = _timestamps(rng, slot, n, done=False)
    return _Task(
        id=task_id,
        title=_title(rng),
        type="project",
        status="active",
        priority=1,
        order=slot,
        parent=None,
        depends_on=(),
        soft_depends_on=(),
        project=project,
        tags=(),
        created=created,
        modified=modified,
        completed=None,
        depth=0,
    )


def _child_task(rng: random.Random, state: _State, task_id: str, index: int, n: int) -> _Task:
    """A task below its project root, with links only to earlier tasks."""
    slot = index % len(state.projects)
    parent, depth = _pick_parent(rng, state.pools[slot])
    hard = _pick_links(rng, state, index, HARD_COUNTS, HARD_COUNT_CUM, (parent,))
    soft = _pick_links(rng, state, index, SOFT_COUNTS, SOFT_COUNT_CUM, (parent, *hard))
    status = _pick(rng, STATUSES, STATUS_CUM)
    created, modified, completed = _timestamps(rng, index, n, done=status == "done")
    return _Task(
        id=task_id,
        title=_title(rng),
        type=_pick_type(rng, depth),
        status=status,
        priority=_pick(rng, PRIORITIES, PRIORITY_CUM),
        order=state.next_order(parent),
        parent=parent,
        depends_on=hard,
        soft_depends_on=soft,
        project=state.projects[slot],
        tags=_tags(rng),
        created=created,
        modified=modified,
        completed=completed,
        depth=depth,
    )


def _pick(rng: random.Random, values: Sequence[_T], cum_weights: Sequence[int]) -> _T:
    """One weighted choice."""
    return rng.choices(values, cum_weights=cum_weights)[0]


def _pick_type(rng: random.Random, depth: int) -> str:
    """Mostly epics right under the project root, mostly plain tasks below."""
    if depth == 1:
        return _pick(rng, TOP_TYPES, TOP_TYPE_CUM)
    return _pick(rng, TYPES, TYPE_CUM)


def _project_of(task_id: str) -> str:
    """The project part of a generated ``<project>-<8 hex>`` id."""
    return task_id.rpartition("-")[0]


def _new_id(rng: random.Random, project: str, seen: set[str]) -> str:
    """A fresh ``<project>-<8 hex>`` id, redrawn on the rare collision."""
    while True:
        task_id = f"{project}-{rng.getrandbits(32):08x}"
        if task_id not in seen:
            seen.add(task_id)
            return task_id


def _pick_parent(rng: random.Random, pools: list[list[str]]) -> tuple[str, int]:
    """An earlier task of the project as parent, and the new task's depth (1..MAX_DEPTH)."""
    depth = _pick(rng, DEPTHS, DEPTH_CUM)
    while not pools[depth - 1]:
        depth -= 1
    return rng.choice(pools[depth - 1]), depth


def _pick_links(
    rng: random.Random,
    state: _State,
    index: int,
    counts: Sequence[int],
    cum_weights: Sequence[int],
    exclude: Sequence[str],
) -> tuple[str, ...]:
    """0..max(counts) distinct ids of earlier tasks, none of them in ``exclude``."""
    wanted = _pick(rng, counts, cum_weights)
    chosen: list[str] = []
    for _ in range(3 * wanted):
        if len(chosen) == wanted:
            break
        candidate = _link_candidate(rng, state, index)
        if candidate and candidate not in exclude and candidate not in chosen:
            chosen.append(candidate)
    return tuple(chosen)


def _link_candidate(rng: random.Random, state: _State, index: int) -> str | None:
    """An earlier non-root task: usually a recent one of the same project, sometimes another's."""
    project_count = len(state.projects)
    if project_count > 1 and rng.random() < CROSS_PROJECT_SHARE:
        other = rng.randrange(project_count, index) if index > project_count else index
        return state.ids[other] if other % project_count != index % project_count else None
    members = state.members[index % project_count]
    if len(members) < 2:
        return None
    low = max(1, len(members) - RECENT_WINDOW) if rng.random() < RECENT_SHARE else 1
    return members[rng.randrange(low, len(members))]


def _timestamps(
    rng: random.Random, index: int, n: int, *, done: bool
) -> tuple[str, str, str | None]:
    """``created`` grows with ``index`` over the year; ``modified`` and ``completed`` follow it."""
    created = int((index + rng.random()) * YEAR_SECONDS / n)
    modified = created + int((YEAR_SECONDS - created) * rng.random() ** 2)
    if not done:
        return _iso(created), _iso(modified), None
    completed = created + int((modified - created) * (0.6 + 0.4 * rng.random()))
    return _iso(created), _iso(modified), _iso(completed)


def _iso(seconds: int) -> str:
    """``START_DATE + seconds`` as an ISO datetime with a ``+00:00`` offset."""
    return (START_DATE + timedelta(seconds=seconds)).isoformat()


def _tags(rng: random.Random) -> tuple[str, ...]:
    return tuple(rng.sample(TAGS, _pick(rng, TAG_COUNTS, TAG_COUNT_CUM)))


def _title(rng: random.Random) -> str:
    """A capitalised verb and 2-6 plain words: reads back from YAML as a string."""
    words = " ".join(rng.choices(WORDS, k=rng.randint(2, 6)))
    return f"{rng.choice(VERBS).capitalize()} {words}"


def _slug(title: str) -> str:
    return "-".join(title.lower().split()[:6])[:48].rstrip("-")


def _flow(items: Sequence[str]) -> str:
    """A YAML flow list: ``[a, b]``, or ``[]`` when empty."""
    return f"[{', '.join(items)}]"


def _body(rng: random.Random, task: _Task) -> str:
    """A heading, prose and a checklist: 200-2,000 characters in all."""
    heading = f"# {task.title}\n\n"
    checklist = f"\n\n## Checklist\n\n{_checklist(rng, task.status)}"
    target = int(rng.triangular(BODY_LOW, BODY_HIGH, BODY_MODE))
    prose = _prose(rng, target - len(heading) - len(checklist))
    return f"{heading}{prose}{checklist}"


def _prose(rng: random.Random, budget: int) -> str:
    """Sentences until ``budget`` characters are reached, in paragraphs of 2-5 sentences."""
    sentences: list[str] = []
    size = 0
    while size < budget or not sentences:
        sentence = _sentence(rng)
        sentences.append(sentence)
        size += len(sentence) + 1
    paragraphs: list[str] = []
    while sentences:
        take = rng.randint(2, 5)
        paragraphs.append(" ".join(sentences[:take]))
        del sentences[:take]
    return "\n\n".join(paragraphs)


def _sentence(rng: random.Random) -> str:
    text = " ".join(rng.choices(WORDS, k=rng.randint(6, 16)))
    return f"{text[0].upper()}{text[1:]}."


def _checklist(rng: random.Random, status: str) -> str:
    """1-5 items; done tasks have them ticked, cancelled ones not, others a mix."""
    share = {"done": 1.0, "cancelled": 0.0}.get(status, 0.4)
    lines = []
    for _ in range(rng.randint(1, 5)):
        mark = "x" if rng.random() < share else " "
        lines.append(f"- [{mark}] {_title(rng)}\n")
    return "".join(lines)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench.generate",
        description="Write a seeded synthetic task tree.",
    )
    parser.add_argument("--n", type=int, default=10_000, help="number of task files")
    parser.add_argument("--seed", type=int, default=1, help="random seed")
    parser.add_argument("--out", type=Path, required=True, help="root folder to write into")
    parser.add_argument(
        "--cycle", action="store_true", help="make the whole tree one depends_on cycle"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Generate a tree and print its counts and the seconds taken, as JSON."""
    args = _parser().parse_args(argv)
    started = time.perf_counter()
    tree = generate_tree(args.out, args.n, args.seed, cycle=args.cycle)
    seconds = time.perf_counter() - started
    summary = asdict(tree) | {"root": str(tree.root), "by_status": tree.status_counts()}
    print(json.dumps(summary | {"seconds": round(seconds, 3)}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
