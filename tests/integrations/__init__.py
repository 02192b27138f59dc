"""Telemetry with the real training libraries: torch, Lightning, transformers, accelerate."""
