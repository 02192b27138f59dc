"""One HTTP POST with the standard library, its failures mapped once to the ports' words.

Refused for now (a connection error, a timeout, 408, 425, 429, 5xx) is `RetryLaterError`, a
`TransientError` that carries the receiver's Retry-After when it sent one; any other answer
outside 2xx is a `PermanentError` (the same request would be refused again). Credentials in
a URL (`https://user:pass@host/`) become a basic Authorization header and never reach a log:
`redact` is what names a receiver.
"""

from __future__ import annotations

import base64
import http.client
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping

from autorecover.controllers.ports import PermanentError, TransientError

_RETRIED = frozenset({408, 425, 429})
_READ_LIMIT = 64 * 1024  # of an answer body: we only need to know it arrived


class RetryLaterError(TransientError):
    """The receiver could not take it now; try again, not before `retry_after_s` if given."""

    def __init__(self, message: str, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


def check_url(url: str, what: str) -> str:
    """The URL if it is an absolute http(s) URL with a host; else ValueError naming `what`."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{what} {redact(url)!r}: expected an http:// or https:// URL with a host")
    if parts.fragment:
        raise ValueError(f"{what} {redact(url)!r}: a URL fragment (#...) is not sent: remove it")
    return url


def redact(url: str) -> str:
    """The URL without credentials or query: safe for logs and metric labels."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def joined(url: str, path: str) -> str:
    """`path` appended to the URL's own path (an Alertmanager behind a path prefix)."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(
        (parts.scheme, parts.netloc, parts.path.rstrip("/") + path, parts.query, "")
    )


def post(url: str, body: bytes, headers: Mapping[str, str], timeout_s: float) -> int:
    """POST `body`; the status (2xx), or RetryLaterError / PermanentError."""
    parts = urllib.parse.urlsplit(url)
    sent = dict(headers)
    if parts.username is not None:
        user = urllib.parse.unquote(parts.username)
        password = urllib.parse.unquote(parts.password or "")
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        sent["Authorization"] = f"Basic {token}"
        host = parts.hostname or ""
        netloc = (f"[{host}]" if ":" in host else host) + (f":{parts.port}" if parts.port else "")
        url = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))
    check_url(url, "alert receiver")
    request = urllib.request.Request(url, data=body, headers=sent, method="POST")  # noqa: S310 (scheme checked)
    name = redact(url)
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310
            response.read(_READ_LIMIT)
            return int(response.status)
    except urllib.error.HTTPError as exc:
        detail = exc.read(500).decode("utf-8", "replace").strip()
        message = f"{name} answered {exc.code}: {detail}"
        if exc.code in _RETRIED or exc.code >= 500:
            raise RetryLaterError(message, _retry_after(exc.headers.get("Retry-After"))) from None
        raise PermanentError(message) from None
    except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
        raise RetryLaterError(f"{name}: {exc}") from None


def _retry_after(value: str | None) -> float | None:
    if value is None or not value.strip().isdigit():
        return None  # an HTTP date, or nothing: our own backoff decides
    return float(value.strip())
