"""The editor face: a language server for task files (`tasks-server lsp`), over the same
core and the same live tree as the MCP edge and the human commands. It imports neither of
them, and the MCP SDK never loads in its process."""
