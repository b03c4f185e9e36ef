"""Pictures of large selections: past `SUMMARY_ABOVE` tasks, `export` draws a summary that
says how to draw a part in full; mermaid text stays within mermaid's default limits or is
refused in one line; Graphviz's warnings reach stderr."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from bench.generate import generate_tree
from tasks_server.human import pictures
from tasks_server.human.interop import MERMAID_CHARS, MERMAID_EDGES
from tests.conftest import REPO, write

SCRIPT = Path(sys.executable).with_name("tasks-server")
SVG = "{http://www.w3.org/2000/svg}"
BRANCHES = ("big-a", "big-b", "big-c")
PER_BRANCH = 40  # 1 + 3 * (1 + 40) = 124 tasks: past the summary size


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, timeout=120, check=False
    )


def nodes(svg: str) -> dict[str, str]:
    """The SVG's nodes: their title (the node's name), and the text in them."""
    found = {}
    for group in ET.fromstring(svg).iter(f"{SVG}g"):
        if group.get("class") == "node":
            title = group.find(f"{SVG}title")
            assert title is not None and title.text is not None
            found[title.text] = " ".join(t.text or "" for t in group.iter(f"{SVG}text"))
    return found


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """400 tasks in 20 projects of 20 (bench/generate.py's seeded tree; the 2,000-task
    picture is timed by hand, as the README says, never in a test)."""
    root = tmp_path_factory.mktemp("generated")
    generate_tree(root, 400, seed=1)
    return root


@pytest.fixture(scope="module")
def one_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One project: a top task with three branches of 41 tasks."""
    root = tmp_path_factory.mktemp("one")
    write(root, "top.md", "---\nid: big-top\ntitle: The top\nstatus: active\nproject: big\n---\n")
    for branch in BRANCHES:
        write(root, f"{branch}.md", f"---\nid: {branch}\ntitle: Branch {branch}\n"
              "status: active\nparent: big-top\nproject: big\n---\n")  # fmt: skip
        for n in range(PER_BRANCH):
            write(root, f"{branch}-{n}.md", f"---\nid: {branch}-{n}\ntitle: Leaf {n}\n"
                  f"status: done\nparent: {branch}\nproject: big\n---\n")  # fmt: skip
    return root


def test_a_large_tree_is_drawn_as_one_box_per_project_with_counts(projects: Path) -> None:
    done = run("export", "--root", str(projects), "--format", "svg")
    assert done.returncode == 0
    assert done.stderr.splitlines() == [
        "tasks-server export: 400 tasks, more than a picture keeps readable "
        f"({pictures.SUMMARY_ABOVE}): each project is a box with its counts; draw one in full "
        "with --project P, or everything with --full"
    ]
    boxes = nodes(done.stdout)
    assert sorted(boxes) == [f"project proj{n:02}" for n in range(20)]
    for name, text in boxes.items():
        project = name.removeprefix("project ")
        assert text.startswith(f"{project} 20 tasks: ")
        assert f"draw it: --project {project}" in text


def test_one_project_of_the_large_tree_is_drawn_task_by_task(projects: Path) -> None:
    done = run("export", "--root", str(projects), "--format", "svg", "--project", "proj03")
    assert done.returncode == 0 and done.stderr == ""
    assert len([n for n in nodes(done.stdout) if n.startswith("proj03-")]) == 20


def test_a_large_project_is_its_top_task_over_a_box_per_branch(one_project: Path) -> None:
    done = run("export", "--root", str(one_project), "--format", "svg", "--project", "big")
    assert done.returncode == 0
    assert "each subtree under big-top is a box" in done.stderr
    assert "--subtree ID" in done.stderr
    drawn = nodes(done.stdout)
    assert sorted(drawn) == ["big-a", "big-b", "big-c", "big-top"]
    assert drawn["big-b"] == (
        f"big-b Branch big-b {PER_BRANCH + 1} tasks: {PER_BRANCH} done, 1 ready "
        "draw it: --subtree big-b"
    )


def test_full_draws_every_task_and_json_always_lists_every_task(one_project: Path) -> None:
    full = run("export", "--root", str(one_project), "--format", "svg", "--full")
    assert full.returncode == 0 and full.stderr == ""
    assert len([n for n in nodes(full.stdout) if not n.startswith("legend: ")]) == 124
    listed = run("export", "--root", str(one_project), "--format", "json")
    assert len(json.loads(listed.stdout)["nodes"]) == 124


def test_a_summary_in_mermaid_stays_within_mermaids_defaults(projects: Path) -> None:
    done = run("export", "--root", str(projects), "--format", "mermaid")
    assert done.returncode == 0
    text = done.stdout
    assert len(text) <= MERMAID_CHARS and text.count("-->") <= MERMAID_EDGES
    assert text.count('["') == 20 and "draw it: --project proj00" in text


def test_mermaid_past_its_default_limits_is_refused_in_one_line(projects: Path) -> None:
    done = run("export", "--root", str(projects), "--format", "mermaid", "--full")
    assert (done.returncode, done.stdout) == (1, "")
    (line,) = done.stderr.splitlines()
    assert "past mermaid's defaults (500 edges, 50,000 characters)" in line
    assert "--project P or --subtree ID" in line


def test_graphviz_warnings_reach_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    picture = pictures.render('digraph { a [shape="no-such-shape"]; }\n', "svg")
    assert picture.startswith(b"<?xml")
    warned = capsys.readouterr().err
    assert warned.startswith("graphviz: Warning: ") and "no-such-shape" in warned


def test_the_cli_page_documents_the_summary_size() -> None:
    readme = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    assert f"more than {pictures.SUMMARY_ABOVE} tasks is drawn as a summary" in readme
