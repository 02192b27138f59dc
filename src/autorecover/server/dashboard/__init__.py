"""The engine's web dashboard, served by `autorecover serve` under /ui (docs/dashboard.md):
fleet, incidents, jobs and node pages, operator actions, live updates. Every asset is in
this package (`static/`): no CDN, nothing fetched from elsewhere."""

from autorecover.server.dashboard.routes import add_dashboard

__all__ = ["add_dashboard"]
