"""Bot folders written by the tests, in each shape a bot system writes its files.

The content is this project's own (a small "ship" bot); only the shapes follow the files
that bot systems write:

    own        action_config.json + instructions.json {description, steps, outputs}
               + trigger_words.json {patterns}, per action folder
    seed       base_actions/<N>_<action>/ with action_config.json and instructions.json
               {actionName, instructions[], templates?} and mostly no trigger_words.json
               (one intent-keyed: {intent: {patterns, priority}});
               behaviours with their own instructions.json (baseActionsPath "base_actions",
               read from the bot's folder) and trigger_words.json {description, patterns,
               priority}; a bot-level instructions.json {botName, description, goal,
               baseActionsPath, behaviors: {folder: line}, instructions} and trigger_words.json
               {description, patterns}; keys of the system's own beside ours in every file
    workflow   one behavior.json per behaviour: the behaviour's fields and
               actions_workflow {actions: [{name, order, next_action?, instructions}]}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

STEPS = ["initialize_project", "collect", "pack", "send"]


def put(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def bot_config(folder: Path, behaviors: list[str], description: str = "Ships parcels.") -> None:
    put(folder / "config" / "bot_config.json",
        {"name": folder.name, "description": description, "behaviors": behaviors})  # fmt: skip


def own_action(folder: Path, name: str, order: int | None, *, workflow: bool = True) -> None:
    config: dict[str, Any] = {"name": name, "workflow": workflow}
    if order is not None:
        config["order"] = order
    put(folder / "action_config.json", config)
    put(
        folder / "instructions.json",
        {"description": f"Do the {name} step.", "steps": [f"{name} it"], "outputs": ["a note"]},
    )
    put(folder / "trigger_words.json", {"patterns": [f"please {name}"]})  # fmt: skip


def own_bot(bots: Path, name: str, behaviors: dict[str, list[str]]) -> Path:
    """Our own layout: every action folder inside its behaviour, all three files."""
    folder = bots / name
    bot_config(folder, list(behaviors))
    for b, (behavior, actions) in enumerate(behaviors.items(), start=1):
        for n, action in enumerate(actions, start=1):
            own_action(folder / "behaviors" / f"{b}_{behavior}" / f"{n}_{action}", action, n)
    return folder


def seed_bot(bots: Path, name: str = "ship_bot", *, bot_instructions: bool = True) -> Path:
    """The base-action layout: shared actions with {actionName, instructions[]} and no
    trigger words (but one), behaviours describing themselves in their own files."""
    folder = bots / name
    bot_config(folder, ["1_prepare", "2_dispatch"])
    base = folder / "base_actions"
    for n, action in enumerate(STEPS, start=1):
        put(
            base / f"{n}_{action}" / "action_config.json",
            {"name": action, "workflow": True, "order": n, "auto_confirm": False},
        )
        text: dict[str, Any] = {"actionName": action, "instructions": [f"First {action}.",
                                f"Then check the {action} result."]}  # fmt: skip
        if action == "pack":
            text["templates"] = {"label": {"template": "label.md", "description": "A label",
                                           "location": "docs/"}}  # fmt: skip
        put(base / f"{n}_{action}" / "instructions.json", text)
    put(base / "2_collect" / "trigger_words.json",
        {"collect_parcels": {"patterns": ["gather the parcels"], "priority": 2},
         "count_parcels": {"patterns": ["count what came in"], "priority": 1}})  # fmt: skip
    for behavior, goal in (("prepare", "Parcels ready"), ("dispatch", "Parcels on their way")):
        put(folder / "behaviors" / behavior / "instructions.json", {
            "behaviorName": behavior, "description": f"The {behavior} stage of shipping.",
            "goal": goal, "inputs": ["orders"], "outputs": ["parcels"],
            "baseActionsPath": "base_actions", "instructions": [f"Keep {behavior} tidy."],
            "version": "1.0",
        })  # fmt: skip
        put(folder / "behaviors" / behavior / "trigger_words.json",
            {"description": f"Words for {behavior}", "patterns": [f"time to {behavior}"],
             "priority": 1})  # fmt: skip
        (folder / "behaviors" / behavior / "guardrails").mkdir()
    if bot_instructions:
        put(folder / "instructions.json", {
            "botName": name, "description": "Ships parcels from orders.", "goal": "Every order "
            "shipped", "baseActionsPath": "base_actions",
            "behaviors": {"1_prepare": "Get parcels ready", "2_dispatch": "Send them"},
            "instructions": ["Work one order at a time."],
        })  # fmt: skip
        put(folder / "trigger_words.json",
            {"description": "Shipping", "patterns": ["ship the orders"]})  # fmt: skip
    return folder


def workflow_bot(bots: Path, name: str = "crate_bot") -> Path:
    """The later layout: each behaviour's actions in its one behavior.json."""
    folder = bots / name
    bot_config(folder, ["1_load"])
    actions = [
        {"name": action, "order": n, "instructions": [f"Now {action}."],
         **({"next_action": STEPS[n]} if n < len(STEPS) else {})}
        for n, action in enumerate(STEPS, start=1)
    ]  # fmt: skip
    put(folder / "behaviors" / "1_load" / "behavior.json", {
        "behaviorName": "load", "description": "Load the crates.", "goal": "Crates loaded",
        "inputs": [], "outputs": ["manifest"], "instructions": ["Count twice."],
        "trigger_patterns": ["load the crates"], "actions_workflow": {"actions": actions},
    })  # fmt: skip
    return folder
