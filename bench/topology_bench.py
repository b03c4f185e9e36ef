"""The cost of one `get_tasks_with_topology` page at scale, graph side: the ids in task order
and the rows of one page (what the tool's handler and paging do), on a generated tree built
in memory (`bench.generate`'s choices, no files).

    python -m bench.topology_bench [--n 100000] [--runs 9] [--page 100] [--pages-only]

Prints medians in ms: a page read again (nothing changed in between), a page after an edit
(the index's kept answers dropped: the first call of a new generation), and every row
(`topology_rows`, the whole tree). Figures only.
"""

from __future__ import annotations

import argparse
import random
from dataclasses import replace
from datetime import UTC, datetime

from bench import generate as gen
from bench.timing import median_ms
from graph.index import TaskIndex
from graph.topology import topology_ids, topology_row, topology_rows
from storage.model import Task

NOW = datetime(2026, 11, 27, tzinfo=UTC)


def tasks_of(n: int, seed: int = 1) -> list[Task]:
    """`n` generated tasks, as `bench.generate` would write them (bodies left out)."""
    rng = random.Random(seed)
    state = gen._State(tuple(f"proj{i:02d}" for i in range(min(gen.PROJECT_COUNT, n))))
    made = (gen._make_task(rng, state, i, n) for i in range(n))
    return [
        Task(id=t.id, title=t.title, path=f"{t.id}.md", type=t.type, status=t.status,
             priority=t.priority, parent=t.parent, depends_on=t.depends_on,
             soft_depends_on=t.soft_depends_on, project=t.project)
        for t in made
    ]  # fmt: skip


def page(index: TaskIndex, size: int) -> None:
    ids = topology_ids(index)
    for task_id in ids[:size]:
        topology_row(index, index.require(task_id), NOW)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--page", type=int, default=100)
    parser.add_argument("--pages-only", action="store_true", help="skip every-row timing")
    args = parser.parse_args()
    index = TaskIndex.build(tasks_of(args.n))
    some = index.ids()[len(index) // 2]

    def edited_page() -> None:
        task = index.require(some)
        index.apply([replace(task, priority=(task.priority + 1) % 5)])
        page(index, args.page)

    again = median_ms(lambda: page(index, args.page), args.runs, warm=True)
    after_edit = median_ms(edited_page, args.runs)
    every = 0.0 if args.pages_only else median_ms(lambda: topology_rows(index, now=NOW), 3)
    print(f"| {args.n:,} tasks | median ms |\n|---|---:|")
    print(f"| page of {args.page}, read again | {again:.1f} |")
    print(f"| page of {args.page}, after an edit | {after_edit:.1f} |")
    print(f"| topology_rows (every row) | {every:.1f} |")


if __name__ == "__main__":
    main()
