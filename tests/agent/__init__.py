"""The node agent's tests (a package, so its conftest does not shadow the root one)."""
