"""The engine's signal intake over HTTP: `POST <engine>/api/v1/signals`, JSON, stdlib urllib.

The body is a batch in the wire format of `wire.py`, sent with the agent's credentials (a
bearer token, TLS trust, a client certificate: `credentials.py`). Transport failures map
once, here, to `EngineError(transient, retry_after_s)`. A 401 is transient: a rotated token
reaches the engine's tokens file or the agent's token file a little later than the other.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any

from autorecover import __version__
from autorecover.adapters.http.credentials import ClientCredentials, CredentialsError

SIGNALS_PATH = "/api/v1/signals"
TRANSIENT_STATUS = frozenset({401, 408, 425, 429, 500, 502, 503, 504})


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


def signals_url(base: str) -> str:
    """`http://engine:8080` -> `http://engine:8080/api/v1/signals`; only http(s) is accepted."""
    parsed = urllib.parse.urlsplit(base)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError(f"engine URL must be http(s)://host[:port], not {base!r}")
    return base.rstrip("/") + SIGNALS_PATH


class EngineClient:
    """Posts signal batches to the engine."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout_s: float = 10.0,
        credentials: ClientCredentials | None = None,
    ) -> None:
        self.url = signals_url(base_url)
        self.timeout_s = timeout_s
        self.credentials = credentials or ClientCredentials()

    def post(self, document: Mapping[str, Any]) -> None:
        """Send one batch; EngineError when it was not accepted."""
        body = json.dumps(document, separators=(",", ":")).encode("utf-8")
        try:
            auth = self.credentials.headers()
            context = self.credentials.ssl_context()
        except CredentialsError as exc:  # a token file being rewritten: try again later
            raise EngineError(str(exc), transient=True) from None
        request = urllib.request.Request(  # noqa: S310 - the scheme is checked in signals_url
            self.url,
            data=body,
            method="POST",
            headers={
                "Content-Type": "application/json",
                "User-Agent": f"autorecover-agent/{__version__}",
                **auth,
            },
        )
        try:
            opened = urllib.request.urlopen(request, timeout=self.timeout_s, context=context)  # noqa: S310 - scheme checked
            with opened as response:
                response.read(1 << 16)
        except urllib.error.HTTPError as exc:
            retry = retry_after_s(exc.headers.get("Retry-After") if exc.headers else None)
            transient = exc.code in TRANSIENT_STATUS
            raise EngineError(
                f"engine answered {exc.code}{response_detail(exc)}",
                transient=transient,
                status=exc.code,
                retry_after_s=retry,
            ) from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise EngineError(f"engine unreachable: {reason}", transient=True) from None


def response_detail(exc: urllib.error.HTTPError) -> str:
    """The engine's `detail` (why it refused), closing the response (it holds the socket)."""
    try:
        detail = json.loads(exc.read(4096)).get("detail")
    except (ValueError, AttributeError, OSError):
        detail = None
    finally:
        exc.close()
    return f": {str(detail)[:300]}" if isinstance(detail, str | list) else ""


def retry_after_s(value: str | None) -> float | None:
    """Retry-After in seconds (its HTTP-date form is ignored: the agent's own backoff applies)."""
    if not value or not value.strip().isdigit():
        return None
    return float(min(int(value.strip()), 3600))
