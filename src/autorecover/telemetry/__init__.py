"""The telemetry library training scripts import (standard library only)."""
