"""The human command line, run as a real process on real trees."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import DATASETS, datasets, write

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


def test_check_passes_a_clean_tree_saying_how_much_it_checked(example_root: Path) -> None:
    clean = run("check", "--root", str(example_root))
    assert (clean.returncode, clean.stdout.strip()) == (
        0,
        "checked 50 tasks in 50 files: no problems found",
    )


def test_check_lists_errors_by_file_and_line_under_a_counted_heading(odd_root: Path) -> None:
    odd = run("check", "--root", str(odd_root))
    assert odd.returncode == 1
    lines = [line.strip() for line in odd.stdout.splitlines() if line.strip()]
    assert lines[0] == "checked 16 tasks in 23 files: 10 errors, 2 warnings"  # unknown statuses
    assert lines[1] == "errors (10)"
    for where in (
        "cycle-a.md",
        "dangling.md:7",
        "dup-a.md:3",
        "bad-yaml.md:5",
        "self-dependency.md:6",
    ):
        assert any(line.startswith(where + " ") for line in lines), where


def test_check_puts_finished_tasks_with_open_children_under_warnings_and_exits_0(
    tmp_path: Path,
) -> None:
    write(tmp_path, "a.md", "---\nid: a\ntitle: Done parent\nstatus: done\n---\n")
    write(tmp_path, "b.md", "---\nid: b\ntitle: Open child\nstatus: active\nparent: a\n---\n")
    done = run("check", "--root", str(tmp_path))
    assert done.returncode == 0, done.stdout
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    assert lines[0] == "checked 2 tasks in 2 files: 0 errors, 2 warnings"
    assert lines[1] == "warnings (2)" and "errors (" not in done.stdout
    assert any(line.startswith("a.md ") and "open children: b" in line for line in lines)


def test_check_of_named_files_reports_only_their_problems(odd_root: Path) -> None:
    clean = run("check", "--root", str(odd_root), str(odd_root / "emoji.md"))
    assert clean.returncode == 0 and "no problems found" in clean.stdout
    broken = run("check", "--root", str(odd_root), str(odd_root / "dangling.md"))
    assert broken.returncode == 1
    assert "2 errors" in broken.stdout and "bad-yaml" not in broken.stdout


def test_check_with_an_unknown_option_is_a_usage_error(example_root: Path) -> None:
    done = run("check", "--root", str(example_root), "--nope")
    assert done.returncode == 2 and "--nope" in done.stderr


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
    dependency = next(line for line in done.stdout.splitlines() if '-> "pipe-778e6176"' in line)
    parent = next(line for line in done.stdout.splitlines() if '-> "pipe-a84567f9"' in line)
    assert (
        dependency.startswith('  "pipe-a84567f9" -> "pipe-778e6176" [') and "dashed" in dependency
    )
    assert parent.startswith('  "pipe-2052e52b" -> "pipe-a84567f9" [') and "dashed" not in parent


def test_bots_prints_the_generated_catalog_with_triggers_and_parameters(
    example_root: Path,
) -> None:
    done = run("bots", "--root", str(example_root), "--json")
    assert done.returncode == 0, done.stderr
    catalog = {entry["name"]: entry for entry in json.loads(done.stdout)}
    assert len(catalog) == 35 + 25  # story_bot and triage_bot
    gather = catalog["story_bot_shape_gather_context"]
    assert gather["trigger_patterns"] and gather["parameters"]["type"] == "object"


def test_check_ignores_a_file_outside_the_root_and_says_so_when_verbose(
    example_root: Path, tmp_path: Path
) -> None:
    stray = write(tmp_path, "elsewhere/a.md", "---\nid: a\ntitle: A\ndepends_on: [gone]\n---\n")
    quiet = run("check", "--root", str(example_root), str(stray))
    assert (quiet.returncode, quiet.stderr) == (0, "")
    assert quiet.stdout.strip() == "checked 50 tasks in 50 files: no problems found"
    told = run("check", "-v", "--root", str(example_root), str(stray))
    assert told.returncode == 0 and told.stdout == quiet.stdout
    assert told.stderr.splitlines() == [
        f"tasks-server check: ignoring {stray}: not under the task root {example_root}"
    ]


def test_check_reports_the_named_files_inside_the_root_beside_ones_outside(
    odd_root: Path, tmp_path: Path
) -> None:
    readme = write(tmp_path, "README.md", "# not a task\n")
    done = run("check", "--root", str(odd_root), str(readme), str(odd_root / "dangling.md"))
    assert done.returncode == 1 and "dangling.md:7" in done.stdout


def test_titles_with_brackets_are_printed_as_written(example_root: Path) -> None:
    title = "Fix [bold]this[/bold] and [link=x]that[/link]"
    made = run("new", title, "--project", "wx", "--root", str(example_root))
    task_id = Path(made.stdout.strip()).name.split("-fix")[0]
    shown = run("show", task_id, "--root", str(example_root))
    assert shown.returncode == 0 and title in shown.stdout
