"""The `autorecover` command line: one module per command group, the root in `main.py`."""
