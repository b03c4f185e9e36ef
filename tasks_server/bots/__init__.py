"""Workflow bots: configs in folders become generated tools over one state file.

errors.py    the bot error tree (tool failures with their codes)
config.py    a loaded bot: behaviors, actions, instructions as frozen values
files.py     the JSON files of a bot folder, and the reader that stamps them
loader.py    a bot folder (ours, or the base_actions/ layout) read and validated whole
actions.py   its action folders (shared and a behaviour's own), read before they are bound
state.py     pure workflow transitions over the state
store.py     workflow_state.json on disk (atomic, locked, re-read on every call)
project.py   the workflow's project task in the task tree
runtime.py   one bot: cached config + state + the operations behind its tools
results.py   the result model and guidance built from config and state
catalog.py   every bot in a folder (a tree without one never imports the modules above)
generated.py the tool specs generated from a bot's config
"""
