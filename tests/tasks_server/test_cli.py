"""The human command line, run as a real process on real trees."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import DATASETS, datasets

SCRIPT = Path(sys.executable).with_name("tasks-server")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_call_prints_the_structured_result_of_a_tool(example_root: Path) -> None:
    done = run("call", "get_ready_tasks", "--root", str(example_root), "--args", '{"limit": 2}')
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["count"] == 2 and data["total"] == 5


def test_call_of_a_failing_tool_exits_non_zero_with_the_error(example_root: Path) -> None:
    done = run("call", "get_task", "--root", str(example_root), "--args", '{"task_id": "nope"}')
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"]["code"] == "TASK_NOT_FOUND"


def test_call_with_arguments_that_are_not_json_is_a_usage_error(example_root: Path) -> None:
    done = run("call", "get_task", "--root", str(example_root), "--args", "{oops")
    assert done.returncode == 2 and "not JSON" in done.stderr


def test_check_passes_a_clean_tree_and_fails_the_odd_one(
    example_root: Path, odd_root: Path
) -> None:
    clean = run("check", "--root", str(example_root))
    odd = run("check", "--root", str(odd_root))
    assert (clean.returncode, clean.stdout.strip()) == (0, "no problems found")
    assert odd.returncode == 1
    for fragment in ("odd-cycle-a", "does-not-exist", "dup-a.md", "bad-yaml.md", "odd-self"):
        assert fragment in odd.stdout


@datasets
def test_import_writes_a_tree_the_server_can_read(tmp_path: Path) -> None:
    root = tmp_path / "imported"
    done = run(
        "import", "beads", str(DATASETS / "beads" / "NVIDIA__skyhook.jsonl"), "--root", str(root)
    )
    assert done.returncode == 0, done.stderr
    metrics = run("call", "get_graph_metrics", "--root", str(root))
    assert json.loads(metrics.stdout)["total_tasks"] == 7


@datasets
def test_import_into_a_tree_that_already_has_the_ids_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "imported"
    source = str(DATASETS / "beads" / "NVIDIA__skyhook.jsonl")
    run("import", "beads", source, "--root", str(root))
    before = sorted(p.read_bytes() for p in root.rglob("*.md"))
    again = run("import", "beads", source, "--root", str(root))
    assert again.returncode == 1 and again.stderr
    assert sorted(p.read_bytes() for p in root.rglob("*.md")) == before


def test_export_draws_dependencies_dashed_and_parents_solid(example_root: Path) -> None:
    done = run("export", "--root", str(example_root), "--format", "dot", "--id", "pipe-a84567f9")
    assert done.returncode == 0
    assert '"pipe-a84567f9" -> "pipe-778e6176" [style=dashed];' in done.stdout
    assert '"pipe-2052e52b" -> "pipe-a84567f9";' in done.stdout


def test_bots_prints_the_generated_catalog_with_triggers_and_parameters(
    example_root: Path,
) -> None:
    done = run("bots", "--root", str(example_root))
    assert done.returncode == 0, done.stderr
    catalog = {entry["name"]: entry for entry in json.loads(done.stdout)}
    assert len(catalog) == 35 + 25  # story_bot and triage_bot
    gather = catalog["story_bot_shape_gather_context"]
    assert gather["trigger_patterns"] and gather["parameters"]["type"] == "object"
