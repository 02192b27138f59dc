"""The engine's HTTP API for the CLI (its views and operator controls), stdlib urllib; errors
mapped once.

Requests carry the caller's credentials (`credentials.py`): a bearer token, the CA to verify
an https engine by, a client certificate.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from autorecover.adapters.http.credentials import ClientCredentials, CredentialsError

DEFAULT_ENGINE = "http://127.0.0.1:8080"


class EngineApiError(Exception):
    """The engine could not be read: unreachable, or it answered with an error."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class EngineApi:
    """GETs JSON documents from an engine, and sends it operator requests."""

    def __init__(
        self,
        base_url: str = DEFAULT_ENGINE,
        timeout_s: float = 10.0,
        credentials: ClientCredentials | None = None,
    ) -> None:
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise EngineApiError(f"engine URL must be http(s)://host[:port], not {base_url!r}")
        self.base = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self.credentials = credentials or ClientCredentials()

    def get(self, path: str) -> Any:
        """The JSON document at `path` (e.g. `/api/v1/nodes`)."""
        return self._call(urllib.request.Request(self.base + path))  # noqa: S310 - scheme checked

    def send(self, method: str, path: str, body: Any) -> Any:
        """`method` (POST, PUT, DELETE) a JSON body to `path`; the JSON answer."""
        request = urllib.request.Request(  # noqa: S310 - the scheme is checked in __init__
            self.base + path,
            data=json.dumps(body).encode("utf-8"),
            method=method,
            headers={"Content-Type": "application/json"},
        )
        return self._call(request)

    def _call(self, request: urllib.request.Request) -> Any:
        url = request.full_url
        try:
            for name, value in self.credentials.headers().items():
                request.add_header(name, value)
            context = self.credentials.ssl_context()
        except CredentialsError as exc:
            raise EngineApiError(str(exc)) from None
        try:
            opened = urllib.request.urlopen(request, timeout=self.timeout_s, context=context)  # noqa: S310 - scheme checked
            with opened as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            body = exc.read(4096).decode("utf-8", "replace")
            exc.close()
            try:
                detail = json.loads(body).get("detail", body)
            except (ValueError, AttributeError):
                detail = body
            hint = _HINTS.get(exc.code, "")
            raise EngineApiError(f"{url}: {exc.code} {detail}{hint}", exc.code) from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise EngineApiError(f"{url}: engine unreachable: {reason}") from None
        except ValueError as exc:
            raise EngineApiError(f"{url}: not JSON: {exc}") from None


_HINTS = {
    401: " (give a token: --token-file or AUTORECOVER_TOKEN; docs/security.md)",
}


def quoted(segment: str) -> str:
    """A path segment made safe, keeping `/` (incident ids contain it)."""
    return urllib.parse.quote(segment, safe="/")
