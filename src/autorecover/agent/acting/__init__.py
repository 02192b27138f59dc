"""Node actions the engine orders and the agent runs: allow-listed commands, run exactly once."""
