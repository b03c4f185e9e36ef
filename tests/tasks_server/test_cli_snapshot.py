"""A fixed clock (`--now`, `$TASKS_NOW`), `tasks-server snapshot`, and the pytest plugin
that lets another project keep its own task tree under snapshot tests."""

from __future__ import annotations

import difflib
import json
import os
import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tasks_server.cli import main
from tasks_server.human.snapshot import by_id, rounded
from tests.conftest import DATA, REPO

SCRIPT = Path(sys.executable).with_name("tasks-server")
NOW = "2026-11-22T12:00:00Z"
LATER = "2026-12-22T12:00:00Z"


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "TASKS_NOW"} | env
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, timeout=120, check=False, env=environ
    )


def snapshot_of(root: Path, *args: str, **env: str) -> str:
    done = run("snapshot", "--root", str(root), *args, **env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def here(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """`tasks-server ARGS` through `main(argv)` in this process (the clock's handling is under
    test, not the process: `test_two_snapshots_at_the_same_now_are_byte_identical` and the
    serve test run real ones); its stdout."""
    assert main(list(args)) == 0
    return capsys.readouterr().out


def snapshot_here(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> str:
    return here(capsys, "snapshot", "--root", str(root), *args)


def ready_days(facts: dict[str, Any]) -> dict[str, Any]:
    return {i: row["ready_days"] for i, row in facts["topology"].items() if row["ready_days"]}


def test_two_snapshots_at_the_same_now_are_byte_identical(example_root: Path) -> None:
    first = snapshot_of(example_root, "--now", NOW)
    assert snapshot_of(example_root, "--now", NOW) == first
    facts = json.loads(first)
    assert facts["now"] == "2026-11-22T12:00:00+00:00"
    assert facts["metrics"]["total_tasks"] == 50 and len(facts["ready"]) == 5
    blocked = facts["blocked"]  # keyed by task id, as every per-task section
    assert list(blocked) == sorted(blocked)
    assert blocked["wx-ec7ac8ad"]["unmet_dependencies"] == ["wx-2399d29d"]
    assert len(facts["topology"]) == len(facts["scoring_factors"]) == 50
    assert set(facts["review"]) == {"since_days", "changes_since", "staleness", "velocity"}


def test_a_snapshot_does_not_depend_on_where_the_tree_lives_or_when_it_was_copied(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    near, far = tmp_path / "a", tmp_path / "b" / "deeper"
    shutil.copytree(DATA, near)
    shutil.copytree(DATA, far)
    assert snapshot_here(capsys, near, "--now", NOW) == snapshot_here(capsys, far, "--now", NOW)


def test_a_later_now_moves_every_time_relative_fact(
    example_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    now = json.loads(snapshot_here(capsys, example_root, "--now", NOW))
    later = json.loads(snapshot_here(capsys, example_root, "--now", LATER))
    assert ready_days(now) and ready_days(now).keys() == ready_days(later).keys()
    assert ready_days(later) == {i: pytest.approx(d + 30) for i, d in ready_days(now).items()}
    assert now["review"]["staleness"] != later["review"]["staleness"]


def test_tasks_now_in_the_environment_is_the_same_clock_as_the_flag(
    example_root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TASKS_NOW", raising=False)
    flagged = snapshot_here(capsys, example_root, "--now", NOW)
    monkeypatch.setenv("TASKS_NOW", NOW)
    assert snapshot_here(capsys, example_root) == flagged
    monkeypatch.setenv("TASKS_NOW", LATER)
    assert snapshot_here(capsys, example_root, "--now", NOW) == flagged


@pytest.mark.parametrize(("args", "env"), [(["--now", "soon"], {}), ([], {"TASKS_NOW": "soon"})])
def test_a_clock_that_is_not_iso_is_a_usage_error(
    args: list[str], env: dict[str, str], example_root: Path
) -> None:
    done = run("snapshot", "--root", str(example_root), *args, **env)
    assert done.returncode == 2 and done.stdout == ""
    assert "soon" in done.stderr


def test_call_takes_the_fixed_clock_too(
    example_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    done = here(
        capsys, "call", "get_tasks_with_topology", "--root", str(example_root), "--now", NOW
    )
    facts = json.loads(snapshot_here(capsys, example_root, "--now", NOW))
    rows = json.loads(done)["tasks"]
    assert ready_days({"topology": rounded(by_id(rows))}) == ready_days(facts)


@pytest.mark.anyio
async def test_serve_takes_the_fixed_clock(example_root: Path) -> None:
    params = StdioServerParameters(
        command=str(SCRIPT),
        args=["serve", "--root", str(example_root), "--now", LATER],
        env=dict(os.environ),  # the SDK passes a bare environment otherwise (no PYTHONPATH)
    )
    async with Client(params) as client:
        result = await client.call_tool("get_tasks_with_topology", {"limit": 100})
    assert result.structured_content is not None
    facts = json.loads(snapshot_of(example_root, "--now", LATER))
    rows = result.structured_content["tasks"]
    assert ready_days({"topology": rounded(by_id(rows))}) == ready_days(facts)


# --- the pytest plugin, used the way another project would use it ------------------------

OUTSIDE_TEST = """
    def test_our_tree_keeps_its_shape(task_tree_facts, snapshot):
        assert task_tree_facts == snapshot


    def test_the_fixture_loads_the_tree_once(task_tree_facts, load_task_tree_facts, request):
        root = request.config.rootpath / "tasks"
        assert load_task_tree_facts(root, "2026-11-22T12:00:00Z") is task_tree_facts
        assert task_tree_facts["metrics"]["total_tasks"] == 50
"""


def installed_entry_point(site: Path) -> None:
    """Metadata declaring pyproject's pytest11 entry point, as installing the project does
    (the venv may hold an older install of this project)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    entry = project["entry-points"]["pytest11"]
    info = site / "tasks_server_plugin_check-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tasks-server-plugin-check\n")
    lines = "".join(f"{name} = {module}\n" for name, module in entry.items())
    (info / "entry_points.txt").write_text(f"[pytest11]\n{lines}")


def outside_project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    project = tmp_path / "their-project"
    shutil.copytree(DATA, project / "tasks")
    (project / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\ntasks_root = "tasks"\ntasks_now = "2026-11-22T12:00:00Z"\n'
    )
    (project / "test_tree.py").write_text(textwrap.dedent(OUTSIDE_TEST))
    site = tmp_path / "site"
    installed_entry_point(site)
    path = os.pathsep.join([str(site), os.environ.get("PYTHONPATH", str(REPO))])
    env = {k: v for k, v in os.environ.items() if k not in ("TASKS_ROOT", "TASKS_NOW")}
    return project, {**env, "PYTHONPATH": path}


def pytest_in(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_another_project_keeps_its_tree_under_snapshot_tests_with_the_plugin(
    tmp_path: Path,
) -> None:
    project, env = outside_project(tmp_path)
    first = pytest_in(project, env, "--snapshot-update")
    assert first.returncode == 0, first.stdout + first.stderr
    again = pytest_in(project, env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "2 passed" in again.stdout
    task = next((project / "tasks" / "wx").rglob("wx-6ca4a1a9-*.md"))
    task.write_text(task.read_text().replace("status: active", "status: done"))
    changed = pytest_in(project, env)
    assert changed.returncode == 1 and "test_our_tree_keeps_its_shape" in changed.stdout
    assert "differ from the stored snapshot" in changed.stdout  # the semantic delta first
    assert 'topology.wx-6ca4a1a9.status: "active" → "done"' in changed.stdout
    assert "ready.wx-6ca4a1a9: gone" in changed.stdout


def test_one_priority_edit_on_a_600_task_tree_changes_at_most_12_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench.generate import generate_tree  # noqa: PLC0415 - the seeded generator

    root = tmp_path / "tree"
    generate_tree(root, 600)
    before = snapshot_here(capsys, root, "--now", NOW).splitlines()
    task = next(p for p in sorted(root.rglob("*.md")) if "\npriority: 2" in p.read_text())
    task.write_text(task.read_text().replace("\npriority: 2", "\npriority: 3", 1))
    after = snapshot_here(capsys, root, "--now", NOW).splitlines()
    changed = [
        line
        for line in difflib.unified_diff(before, after, lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert 0 < len(changed) <= 12, changed
    assert all("priority" in line for line in changed), changed


def test_the_plugin_without_a_configured_tree_says_what_to_set(tmp_path: Path) -> None:
    project, env = outside_project(tmp_path)
    (project / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    done = pytest_in(project, env)
    assert done.returncode != 0
    assert "tasks_root" in done.stdout + done.stderr
