"""Text to signals: timestamps, prefixes, signatures, telemetry records. Pure."""
