"""The engine's signal intake over HTTP: `POST <engine>/api/v1/signals`, JSON, stdlib urllib.

Also the wire format of a signal batch, kept beside the client that speaks it so the server
(which may import adapters, not the agent) can read exactly what the agent writes. Transport
failures map once, here, to `EngineError(transient, retry_after_s)`.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from autorecover import __version__
from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.signals import NodeSignal, Probe

SIGNALS_PATH = "/api/v1/signals"
BATCH_FORMAT = "autorecover.signals/1"
TRANSIENT_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})


class EngineError(Exception):
    """The engine did not take a batch: `transient` ones are retried, others are dropped."""

    def __init__(
        self,
        message: str,
        *,
        transient: bool,
        status: int | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.transient = transient
        self.status = status
        self.retry_after_s = retry_after_s


class WireError(ValueError):
    """A batch or signal on the wire is malformed."""


def signal_to_dict(s: NodeSignal) -> dict[str, Any]:
    """One signal as JSON (persisted on the wire: never rename a key)."""
    return {
        "node": s.node,
        "probe": str(s.probe),
        "signal": s.signal,
        "blame": str(s.blame),
        "weight": s.weight,
        "node_action": str(s.node_action),
        "at": s.at.isoformat(),
        "count": s.count,
        "component": s.component,
        "text": s.text,
        "details": [[k, v] for k, v in s.details],
        "incident": s.incident,
    }


def signal_from_dict(d: Mapping[str, Any]) -> NodeSignal:
    """A signal back from its JSON form; WireError names the bad field."""
    try:
        at = datetime.fromisoformat(str(d["at"]))
        details = tuple((str(k), str(v)) for k, v in d.get("details", []))
        signal = NodeSignal(
            node=str(d["node"]),
            probe=Probe(d["probe"]),
            signal=str(d["signal"]),
            blame=Blame(d["blame"]),
            weight=int(d["weight"]),
            node_action=NodeAction(d["node_action"]),
            at=at,
            count=int(d.get("count", 1)),
            component=None if d.get("component") is None else str(d["component"]),
            text=str(d.get("text", "")),
            details=details,
            incident=None if d.get("incident") is None else str(d["incident"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise WireError(f"malformed signal: {exc!r}") from None
    if at.tzinfo is None:
        raise WireError("malformed signal: 'at' has no time zone")
    return signal


def batch_document(
    node: str, signals: Sequence[NodeSignal], *, sent_at: datetime, dropped: int
) -> dict[str, Any]:
    """The POST body: who sends, when, how many signals it had to drop, and the signals."""
    return {
        "format": BATCH_FORMAT,
        "node": node,
        "agent": __version__,
        "sent_at": sent_at.isoformat(),
        "dropped": dropped,
        "signals": [signal_to_dict(s) for s in signals],
    }


def signals_url(base: str) -> str:
    """`http://engine:8080` -> `http://engine:8080/api/v1/signals`; only http(s) is accepted."""
    parsed = urllib.parse.urlsplit(base)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError(f"engine URL must be http(s)://host[:port], not {base!r}")
    return base.rstrip("/") + SIGNALS_PATH


class EngineClient:
    """Posts signal batches to the engine."""

    def __init__(self, base_url: str, *, timeout_s: float = 10.0) -> None:
        self.url = signals_url(base_url)
        self.timeout_s = timeout_s

    def post(self, document: Mapping[str, Any]) -> None:
        """Send one batch; EngineError when it was not accepted."""
        body = json.dumps(document, separators=(",", ":")).encode("utf-8")
        request = urllib.request.Request(  # noqa: S310 - the scheme is checked in signals_url
            self.url,
            data=body,
            method="POST",
            headers={
                "Content-Type": "application/json",
                "User-Agent": f"autorecover-agent/{__version__}",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:  # noqa: S310
                response.read(1 << 16)
        except urllib.error.HTTPError as exc:
            retry = _retry_after(exc.headers.get("Retry-After") if exc.headers else None)
            exc.close()  # it holds the connection open
            transient = exc.code in TRANSIENT_STATUS
            raise EngineError(
                f"engine answered {exc.code}",
                transient=transient,
                status=exc.code,
                retry_after_s=retry,
            ) from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise EngineError(f"engine unreachable: {reason}", transient=True) from None


def _retry_after(value: str | None) -> float | None:
    """Retry-After in seconds (its HTTP-date form is ignored: the agent's own backoff applies)."""
    if not value or not value.strip().isdigit():
        return None
    return float(min(int(value.strip()), 3600))
