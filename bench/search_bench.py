"""`search_tasks` over a whole tree, beside the same search over bodies held in the clear.

    python -m bench.search_bench --sizes 10000,100000
    python -m bench.search_bench --root /work/trees/t100k      # a tree made beforehand

For each tree (generated with `bench.generate`, seed 1, in a temporary folder, or given with
`--root` and only read), load it as a cold start does (`TaskRepository.scan()`), build the
index, freeze the loaded heap (`gc.freeze()`, as a long-running server's heap is mostly
old), and print, per query, the median of `--runs` calls in milliseconds of

- `search`: `graph.query.search_tasks` as the server runs it, after an edit (nothing
  remembered);
- `clear`: the plain definition (`needle in title.casefold() or needle in body.casefold()`)
  over every body unpacked once beforehand: what a search cost when bodies were held in
  the clear, measured in the same process, so that the ratio survives a busy machine;

and the ratio of the two, and `again`: the same search asked again before any edit (the
next page of its answer), which the index remembers. The queries: a word of many titles
(most bodies never read), a word found only in bodies, a word found nowhere and a
non-ASCII one found nowhere (every body read: the worst case). Figures only, no
assertions.
"""

from __future__ import annotations

import argparse
import gc
import tempfile
from collections.abc import Sequence
from pathlib import Path

from bench.generate import generate_tree
from bench.timing import median_ms
from graph.index import TaskIndex
from graph.query import search_tasks
from storage.repository import TaskRepository

__all__ = ["QUERIES", "main"]

QUERIES = ("validate", "nightly", "zzqq", "straße")


def clear_search(texts: Sequence[tuple[str, str, str]], query: str) -> list[str]:
    """The plain definition over (id, title, body) triples held in the clear."""
    needle = query.casefold()
    return sorted(
        i for i, title, body in texts if needle in title.casefold() or needle in body.casefold()
    )


def fresh_search(index: TaskIndex, query: str) -> Sequence[str]:
    """`search_tasks` as after an edit: the answers remembered since the last one dropped
    (an empty `apply`, a few microseconds)."""
    index.apply()
    return search_tasks(index, query)


def bench_root(root: Path, runs: int) -> None:
    """Print one line per query for the tree at `root`."""
    index = TaskIndex.build(TaskRepository(root).scan().tasks())
    texts = [(t.id, t.title, t.body) for t in index.tasks()]
    gc.freeze()
    print(f"{len(texts)} tasks ({root})")
    print(f"{'query':>10}{'found':>8}{'search ms':>11}{'clear ms':>10}{'ratio':>7}{'again ms':>10}")
    for query in QUERIES:
        found = search_tasks(index, query)
        if list(found) != clear_search(texts, query):
            raise SystemExit(f"search_tasks and the plain definition differ on {query!r}")
        searched = median_ms(lambda q=query: fresh_search(index, q), runs)  # type: ignore[misc]
        clear = median_ms(lambda q=query: clear_search(texts, q), runs)  # type: ignore[misc]
        again = median_ms(lambda q=query: search_tasks(index, q), runs)  # type: ignore[misc]
        print(
            f"{query:>10}{len(found):>8}{searched:>11.1f}{clear:>10.1f}"
            f"{searched / clear:>7.2f}{again:>10.3f}"
        )
    gc.unfreeze()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000", help="comma-separated tree sizes")
    parser.add_argument("--root", action="append", type=Path, help="a tree made beforehand")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    for root in args.root or ():
        bench_root(root, args.runs)
    if args.root:
        return 0
    for size in (int(s) for s in args.sizes.split(",") if s.strip()):
        with tempfile.TemporaryDirectory() as folder:
            generate_tree(Path(folder), size, seed=1)
            bench_root(Path(folder), args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
