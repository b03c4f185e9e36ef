"""Tool modules; every module here is imported by `registry.discover()`."""
