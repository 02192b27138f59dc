"""One JSON request from the agent to the engine, for the clients that pull and post (orders,
pod logs); each maps the failures below to its own port's errors.

Raises `CredentialsError` (a token file being rewritten: try again later),
`urllib.error.HTTPError` (the engine answered with an error status) and `EngineUnreachableError`
(no answer, or an answer that is not JSON).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any

from autorecover import __version__
from autorecover.adapters.http.credentials import ClientCredentials

MAX_ANSWER = 8 << 20


class EngineUnreachableError(Exception):
    """The engine did not answer, or answered with something that is not JSON."""


def exchange(
    method: str,
    url: str,
    document: Mapping[str, Any] | None,
    credentials: ClientCredentials,
    timeout_s: float,
) -> Any:
    """Send `document` (if any) as JSON to `url` (its scheme already checked); the decoded
    answer, `{}` for an empty one."""
    headers = {
        "Accept": "application/json",
        "User-Agent": f"autorecover-agent/{__version__}",
        **credentials.headers(),
    }
    context = credentials.ssl_context()
    body = None
    if document is not None:
        body = json.dumps(document, separators=(",", ":")).encode("utf-8")
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(url, data=body, method=method, headers=headers)  # noqa: S310 - scheme checked
    try:
        opened = urllib.request.urlopen(request, timeout=timeout_s, context=context)  # noqa: S310 - scheme checked
        with opened as response:
            text = response.read(MAX_ANSWER)
    except urllib.error.HTTPError:
        raise
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise EngineUnreachableError(f"engine unreachable: {reason}") from None
    try:
        return json.loads(text) if text.strip() else {}
    except (ValueError, RecursionError):
        raise EngineUnreachableError("engine answered with something not JSON") from None
