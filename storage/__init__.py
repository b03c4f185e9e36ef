"""Task files on disk: the model, the markdown+frontmatter codec, the repository, importers.

Imports no other package of this project.
"""
