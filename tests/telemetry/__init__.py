"""Tests for autorecover.telemetry (a package, so its conftest does not shadow tests/conftest.py)."""
