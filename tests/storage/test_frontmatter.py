"""The frontmatter reader in a real process: files parsed on threads that come and go, as a
server's worker threads do."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.conftest import REPO

# An entry point imports the codec on its main thread; each file is then parsed on a worker
# thread that ends before the next starts (anyio's workers expire after 10 s idle).
PARSE_ON_THREADS_THAT_END = textwrap.dedent("""
    import threading
    from storage import codec

    titles = []

    def parse(n):
        text = f"---\\nid: t-{n}\\ntitle: Task {n}\\ntags: [a, b]\\n---\\nBody\\n"
        titles.append(codec.loads(text, path=f"t-{n}.md").title)

    for n in range(3):
        worker = threading.Thread(target=parse, args=(n,))
        worker.start()
        worker.join()
    print(titles)
""")


def test_files_parse_on_a_thread_after_the_thread_of_the_first_parse_has_ended() -> None:
    # yaml_rs 0.1.6 segfaulted here when its first load was on the first worker thread.
    done = subprocess.run(
        [sys.executable, "-c", PARSE_ON_THREADS_THAT_END],
        capture_output=True, text=True, cwd=REPO, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[0] == "['Task 0', 'Task 1', 'Task 2']"
