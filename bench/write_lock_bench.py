"""What the tree-wide write lock costs a write: the lock alone, and `update_task` run
in-process (`Toolset.run`) with the lock, as every write runs, and with the same call's
snapshot taken without it (what writers did before the lock). Works on a throw-away tree
of `--tasks` tasks; prints medians in ms and their ratio; asserts nothing.

Command line: ``python -m bench.write_lock_bench [--calls 500] [--tasks 1000]``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from bench.timing import median_ms
from tasks_server.toolset import open_toolset

__all__ = ["main"]

TASK = "---\nid: t{n}\ntitle: Task {n}\nstatus: active\n---\nBody {n}.\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--tasks", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "p").mkdir()
        for n in range(args.tasks):
            (root / "p" / f"t{n}.md").write_text(TASK.format(n=n))
        toolset = open_toolset(root)
        live = toolset.context.live
        spec = toolset.spec("update_task")
        counter = iter(range(10**9))

        def update(locked: bool) -> None:
            arguments = {"task_id": "t1", "tags": [f"x{next(counter)}"]}
            parsed = spec.input_model.model_validate(arguments)
            with live.snapshot(write=locked):
                spec.handler(toolset.context, parsed)

        def lock_alone() -> None:
            with live.repository.write_lock():
                pass

        alone = median_ms(lock_alone, args.calls)
        median_ms(lambda: update(False), 50)  # warm up
        laps: dict[bool, list[float]] = {False: [], True: []}
        for n in range(2 * args.calls):  # alternated, so drift hits both alike
            locked = bool(n % 2)
            laps[locked].append(median_ms(lambda locked=locked: update(locked), 1))
        without, with_lock = statistics.median(laps[False]), statistics.median(laps[True])
        toolset.context.close()
    print(f"write lock alone: {alone:.3f} ms (median of {args.calls})")
    print(f"update_task in-process, without the lock: {without:.3f} ms")
    print(
        f"update_task in-process, with the lock:    {with_lock:.3f} ms ({with_lock / without:.2f}x)"
    )


if __name__ == "__main__":
    main()
