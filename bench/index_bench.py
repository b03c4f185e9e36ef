"""The graph index benchmark: build, one-edit refresh, every query, and memory, per tree size.

For each size it generates a synthetic tree (``bench.generate``) in a temporary folder, loads
it with ``TaskRepository.scan()``, then times (median of ``--runs``, in milliseconds):

- ``TaskIndex.build`` over every task;
- ``apply`` after one edit made with ``dataclasses.replace``: a status change of a random task,
  a new dependency, a reparent (edits that would close a cycle are skipped, as a writer would
  refuse them), and, as a worst case, blocking a project root (its whole subtree changes);
- each metric function, and the single-task queries (facts, neighbourhood, decomposition
  context, ``would_create_cycle``);
- peak RSS after loading the tasks and after building the index.

With ``--gc-freeze`` the loaded heap is frozen (``gc.freeze()``) before the queries: at 100k
tasks the cyclic GC otherwise rescans millions of objects while a query allocates its rows.

It prints one table with a column per size and the ratio of each refresh to a full build.
Not a test: nothing is asserted about time.

Command line: ``python -m bench.index_bench --sizes 1000,10000,100000 [--runs 15] [--gc-freeze]``.
"""

from __future__ import annotations

import argparse
import gc
import random
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from bench.generate import generate_tree
from bench.search_bench import fresh_search
from bench.timing import median_ms
from graph.cycle_check import would_create_cycle
from graph.index import TaskIndex
from graph.metrics import graph_metrics
from graph.neighborhood import decomposition_context, neighborhood
from graph.query import list_tasks, tree
from graph.readiness import blocked_tasks, ready_tasks
from graph.review import review_snapshot
from graph.signals import structural_signals
from graph.topology import scoring_factors, topology_rows
from storage.model import Task
from storage.repository import TaskRepository

__all__ = ["bench_size", "main"]

NOW = datetime(2026, 11, 22, tzinfo=UTC)
Results = dict[str, float]
EDIT_ROWS = ("apply: status change", "apply: new dependency", "apply: reparent")


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MB (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load_tasks(size: int, seed: int) -> list[Task]:
    """Generate a tree of `size` tasks in a temporary folder and load it the server's way."""
    with tempfile.TemporaryDirectory() as folder:
        generate_tree(Path(folder), size, seed)
        return TaskRepository(Path(folder)).scan().tasks()


def timed_edits(
    index: TaskIndex, make: Callable[[random.Random], Task | None], runs: int, seed: int
) -> float:
    """Median ms of `apply` for `runs` edits from `make`, each undone (untimed) afterwards."""
    rng = random.Random(seed)
    timings: list[float] = []
    while len(timings) < runs:
        edited = make(rng)
        if edited is None:
            continue
        before = index.require(edited.id)
        started = time.perf_counter()
        index.apply([edited])
        timings.append(time.perf_counter() - started)
        index.apply([before])
    return statistics.median(timings) * 1000


def status_edit(index: TaskIndex, ids: Sequence[str]) -> Callable[[random.Random], Task | None]:
    def make(rng: random.Random) -> Task:
        task = index.require(rng.choice(ids))
        return replace(task, status="active" if task.status == "done" else "done")

    return make


def dependency_edit(index: TaskIndex, ids: Sequence[str]) -> Callable[[random.Random], Task | None]:
    def make(rng: random.Random) -> Task | None:
        task, target = index.require(rng.choice(ids)), rng.choice(ids)
        if would_create_cycle(index, task.id, depends_on=[target]) is not None:
            return None
        return replace(task, depends_on=(*task.depends_on, target))

    return make


def reparent_edit(index: TaskIndex, ids: Sequence[str]) -> Callable[[random.Random], Task | None]:
    def make(rng: random.Random) -> Task | None:
        task, parent = index.require(rng.choice(ids)), rng.choice(ids)
        if would_create_cycle(index, task.id, parent=parent) is not None:
            return None
        return replace(task, parent=parent)

    return make


def block_root_edit(
    index: TaskIndex, roots: Sequence[str]
) -> Callable[[random.Random], Task | None]:
    def make(rng: random.Random) -> Task:
        return replace(index.require(rng.choice(roots)), status="blocked")

    return make


def edit_results(index: TaskIndex, runs: int, seed: int) -> Results:
    ids = index.ids()
    roots = [i for i in ids if index.facts(i).is_root]
    makers = {
        "apply: status change": status_edit(index, ids),
        "apply: new dependency": dependency_edit(index, ids),
        "apply: reparent": reparent_edit(index, ids),
        "apply: block a project root": block_root_edit(index, roots),
    }
    return {name: timed_edits(index, make, runs, seed) for name, make in makers.items()}


def query_results(index: TaskIndex, runs: int, seed: int) -> Results:
    rng = random.Random(seed)
    some = rng.choice(index.ids())
    project = index.require(some).project
    root = next(i for i in index.project_ids(project) if index.facts(i).is_root)
    slow = max(3, runs // 5)
    calls: dict[str, tuple[Callable[[], object], int]] = {
        "graph_metrics all": (lambda: graph_metrics(index), runs),
        "graph_metrics project": (lambda: graph_metrics(index, "project", project), slow),
        "graph_metrics subtree": (lambda: graph_metrics(index, "subtree", root), slow),
        "ready_tasks": (lambda: ready_tasks(index), slow),
        "ready_tasks project": (lambda: ready_tasks(index, project=project), slow),
        "blocked_tasks": (lambda: blocked_tasks(index), slow),
        "structural_signals": (lambda: structural_signals(index), slow),
        "topology_rows": (lambda: topology_rows(index, now=NOW), slow),
        "scoring_factors": (lambda: scoring_factors(index, now=NOW), slow),
        "review_snapshot": (lambda: review_snapshot(index, since_days=7, now=NOW), slow),
        "list_tasks project": (lambda: list_tasks(index, project=project), slow),
        "search_tasks (after an edit)": (lambda: fresh_search(index, "parser"), slow),
        "tree project": (lambda: tree(index, project=project), slow),
        "facts (one task)": (lambda: index.facts(some), runs),
        "neighborhood (one task)": (lambda: neighborhood(index, index.require(some)), runs),
        "decomposition_context": (
            lambda: decomposition_context(index, index.require(some)),
            runs,
        ),
        "would_create_cycle": (lambda: would_create_cycle(index, some, depends_on=[root]), runs),
    }
    return {name: median_ms(call, count) for name, (call, count) in calls.items()}


def bench_size(size: int, runs: int, seed: int, *, freeze: bool = False) -> Results:
    """Every measure for one tree size (`freeze`: move the loaded heap out of the cyclic GC's
    reach with `gc.freeze()` before timing the queries, as a long-running server may)."""
    tasks = load_tasks(size, seed)
    results: Results = {"peak RSS after load (MB)": peak_rss_mb()}
    results["TaskIndex.build"] = median_ms(lambda: TaskIndex.build(tasks), max(1, runs // 5))
    index = TaskIndex.build(tasks)
    if freeze:
        gc.collect()
        gc.freeze()
    results["peak RSS after build (MB)"] = peak_rss_mb()
    results |= edit_results(index, runs, seed)
    results |= query_results(index, runs, seed)
    for name in EDIT_ROWS:
        results[f"ratio {name[7:]} / build"] = results[name] / results["TaskIndex.build"]
    return results


def render(sizes: Sequence[int], table: dict[int, Results]) -> str:
    """A markdown table: one row per measure, one column per size (ms unless named)."""
    header = "| measure (median ms) | " + " | ".join(f"{s:,}" for s in sizes) + " |"
    lines = [header, "|---|" + "---:|" * len(sizes)]
    for name in table[sizes[0]]:
        cells = [_cell(table[s][name], name) for s in sizes]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(value: float, name: str) -> str:
    return f"{value:.5f}" if name.startswith("ratio") else f"{value:.3f}"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.index_bench", description=__doc__)
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated tree sizes")
    parser.add_argument("--runs", type=int, default=15, help="repetitions per measure")
    parser.add_argument("--seed", type=int, default=1, help="tree and edit seed")
    parser.add_argument(
        "--gc-freeze", action="store_true", help="gc.freeze() after the build, before queries"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    table: dict[int, Results] = {}
    for size in sizes:
        print(f"benchmarking {size:,} tasks ...", file=sys.stderr)
        table[size] = bench_size(size, args.runs, args.seed, freeze=args.gc_freeze)
    print(render(sizes, table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
