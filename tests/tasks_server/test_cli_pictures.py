"""`export --format svg|png`: pictures rendered by Graphviz, read back as SVG."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import REPO

SCRIPT = Path(sys.executable).with_name("tasks-server")
SVG = "{http://www.w3.org/2000/svg}"
WX = 14  # tasks in the bundled tree's wx project


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, timeout=120, check=False, env=env
    )


def shapes(svg: bytes, kind: str) -> dict[str, ET.Element]:
    """The SVG's nodes or edges by their title (a task id, or `a->b` for an edge)."""
    found = {}
    for group in ET.fromstring(svg).iter(f"{SVG}g"):
        if group.get("class") == kind:
            title = group.find(f"{SVG}title")
            assert title is not None and title.text is not None
            found[title.text] = group
    return found


def texts(group: ET.Element) -> str:
    return " ".join(t.text or "" for t in group.iter(f"{SVG}text"))


def tasks_of(svg: bytes) -> set[str]:
    return {name for name in shapes(svg, "node") if not name.startswith("legend: ")}


def test_a_project_picture_has_one_node_per_task_and_a_legend(example_root: Path) -> None:
    done = run("export", "--root", str(example_root), "--format", "svg", "--project", "wx")
    assert done.returncode == 0, done.stderr
    nodes = shapes(done.stdout, "node")
    assert len(tasks_of(done.stdout)) == WX
    assert all(task.startswith("wx-") for task in tasks_of(done.stdout))
    legend = {name for name in nodes if name.startswith("legend: ")}
    assert {"legend: done", "legend: ready", "legend: blocked", "legend: in progress"} <= legend


def test_status_is_drawn_by_style_and_a_blocked_task_says_why(example_root: Path) -> None:
    done = run("export", "--root", str(example_root), "--format", "svg", "--project", "wx")
    nodes = shapes(done.stdout, "node")

    def fill(task: str) -> str:
        polygon = next(nodes[task].iter(f"{SVG}path"))
        return polygon.get("fill", "")

    assert fill("wx-ec7ac8ad") == fill("legend: blocked") != fill("legend: ready")
    assert "[blocked: waits on wx-2399d29d]" in texts(nodes["wx-ec7ac8ad"])
    assert "[ready]" in texts(nodes["wx-6ca4a1a9"])
    assert "[done]" in texts(nodes["wx-b61e6ba5"])
    assert "[in progress]" in texts(nodes["wx-2399d29d"])


def test_dependency_edges_are_dashed_and_parent_edges_are_not(example_root: Path) -> None:
    done = run("export", "--root", str(example_root), "--format", "svg", "--project", "wx")
    edges = shapes(done.stdout, "edge")

    def dashed(title: str) -> bool:
        return next(edges[title].iter(f"{SVG}path")).get("stroke-dasharray") is not None

    assert dashed("wx-ec7ac8ad->wx-2399d29d")  # depends on
    assert not dashed("wx-36824dd6->wx-ec7ac8ad")  # parent of


@pytest.mark.parametrize(
    ("selection", "expected"),
    [
        (["--subtree", "wx-2399d29d"], {"wx-2399d29d", "wx-1b2ba06b", "wx-6ae12c97"}),
        (
            ["--id", "wx-ec7ac8ad"],
            {"wx-ec7ac8ad", "wx-36824dd6", "wx-2399d29d", "vol-0db317d9"},  # parent, dep, dependent
        ),
    ],
)
def test_a_picture_of_a_subtree_or_neighbourhood_shows_just_those_tasks(
    selection: list[str], expected: set[str], example_root: Path
) -> None:
    done = run("export", "--root", str(example_root), "--format", "svg", *selection)
    assert done.returncode == 0, done.stderr
    assert tasks_of(done.stdout) == expected


def test_png_is_written_to_the_output_file(example_root: Path, tmp_path: Path) -> None:
    picture = tmp_path / "tree.png"
    done = run("export", "--root", str(example_root), "--format", "png", "-o", str(picture))
    assert done.returncode == 0 and done.stdout == b""
    assert picture.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_without_graphviz_the_export_says_how_to_install_it_and_exits_2(
    example_root: Path, tmp_path: Path
) -> None:
    env = {**os.environ, "PATH": str(tmp_path)}  # a PATH with no `dot` on it
    root = str(example_root)
    done = subprocess.run(
        [sys.executable, "-m", "tasks_server", "export", "--format", "svg", "--root", root],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "install Graphviz" in done.stderr and "apt-get install graphviz" in done.stderr


def test_the_readme_picture_is_this_command_on_the_bundled_tree(example_root: Path) -> None:
    shipped = (REPO / "docs" / "example.svg").read_bytes()
    done = run("export", "--root", str(example_root), "--format", "svg", "--project", "wx")
    assert tasks_of(shipped) == tasks_of(done.stdout)
    assert shapes(shipped, "edge").keys() == shapes(done.stdout, "edge").keys()
    assert len(shipped) < 40_000
