"""The engine process: HTTP API and signal intake, leadership, the runner hosting the
recovery controllers, metrics (`autorecover serve`; see docs/engine.md)."""
