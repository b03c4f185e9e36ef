"""The human face: the commands people run, drawn with rich, and the pytest plugin.

It calls the same tools agents call (`Toolset.run`) and never imports the MCP edge. See
docs/architecture.md.
"""
