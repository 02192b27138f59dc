"""Sending alerts: Alertmanager's API v2 and generic JSON webhooks, each behind a bounded queue
and its own sender thread, so a slow or absent receiver never holds up a controller pass."""
