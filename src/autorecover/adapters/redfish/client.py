"""A small Redfish client: session-less basic auth over HTTPS, JSON in and out, stdlib urllib.

Every request carries the BMC account's credentials (HTTP basic; no session to leak or expire),
verifies TLS against the system's trust store or the inventory's CA file (verification can be
turned off per BMC, never silently), and is bounded in time and size. Failures map once, here:
an unreachable BMC, a timeout, 5xx, 408 and 429 are `TransientError` (the action stays
intended); refused credentials (401/403), an untrusted certificate, a missing resource (404),
a refused request (400, 405, ...) and an answer that is not JSON are `PermanentError`.
Messages name the URL, never the password.
"""

from __future__ import annotations

import base64
import json
import ssl
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from http.client import HTTPMessage
from pathlib import Path
from typing import IO, Any

from autorecover import __version__
from autorecover.controllers.ports import PermanentError, TransientError

TRANSIENT_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
MAX_BODY = 4 << 20  # a Redfish resource is small; a log page stays well under this


class NotFoundError(PermanentError):
    """The BMC has no such resource (404)."""


class RedfishClient:
    """GET and POST on one BMC's Redfish service."""

    def __init__(
        self,
        url: str,
        user: str,
        password: str,
        *,
        verify: bool = True,
        ca_file: Path | None = None,
        timeout_s: float = 10.0,
    ) -> None:
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"a BMC URL must be http(s)://host[:port], not {url!r}")
        self.base = f"{parsed.scheme}://{parsed.netloc}"
        self.timeout_s = timeout_s
        token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
        self._auth = {"Authorization": f"Basic {token}"}
        handlers: list[urllib.request.BaseHandler] = [_SameBmc(self.base)]
        if parsed.scheme == "https":
            handlers.append(urllib.request.HTTPSHandler(context=_context(verify, ca_file)))
        self._opener = urllib.request.build_opener(*handlers)

    def get(self, path: str) -> dict[str, Any]:
        """The JSON resource at `path` (an `@odata.id`, absolute or relative to the BMC)."""
        body = self._send("GET", path, None)
        try:
            value = json.loads(body or b"null")
        except ValueError:
            raise PermanentError(f"BMC {self._url(path)}: the answer is not JSON") from None
        if not isinstance(value, dict):
            raise PermanentError(f"BMC {self._url(path)}: the answer is not a JSON object")
        return value

    def post(self, path: str, body: Mapping[str, Any]) -> None:
        """POST a JSON body (an action); any 2xx is success."""
        self._send("POST", path, json.dumps(body).encode("utf-8"))

    def _url(self, path: str) -> str:
        if path.startswith(("http://", "https://")):
            return path
        return self.base + "/" + path.lstrip("/")

    def _send(self, method: str, path: str, data: bytes | None) -> bytes:
        url = self._url(path)
        if not url.startswith(self.base + "/"):
            raise PermanentError(f"BMC {self.base}: refusing to follow a link off the BMC: {url}")
        headers = {"Accept": "application/json", "User-Agent": f"autorecover/{__version__}"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(  # noqa: S310 - the scheme is checked in __init__
            url, data=data, method=method, headers={**headers, **self._auth}
        )
        try:
            with self._opener.open(request, timeout=self.timeout_s) as response:
                return bytes(response.read(MAX_BODY))
        except urllib.error.HTTPError as exc:
            raise _mapped(exc, method, url) from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, ssl.SSLCertVerificationError):  # not fixed by waiting
                raise PermanentError(f"BMC {url}: TLS certificate not trusted: {reason}") from None
            raise TransientError(f"BMC {url} unreachable: {reason}") from None


class _SameBmc(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only within the BMC: the credentials never go anywhere else."""

    def __init__(self, base: str) -> None:
        self.base = base

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        if not newurl.startswith(self.base + "/"):
            raise urllib.error.HTTPError(newurl, code, f"redirect off the BMC: {msg}", headers, fp)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _context(verify: bool, ca_file: Path | None) -> ssl.SSLContext:
    if not verify:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE  # the operator's explicit `verify = false`
        return context
    return ssl.create_default_context(cafile=str(ca_file) if ca_file else None)


def _mapped(exc: urllib.error.HTTPError, method: str, url: str) -> Exception:
    try:
        detail = _message(exc.read(8192))
    except OSError:
        detail = ""
    finally:
        exc.close()
    what = f"BMC {method} {url}: {exc.code}{f' {detail}' if detail else ''}"
    if exc.code in (401, 403):
        return PermanentError(f"{what} (the BMC refused the inventory's credentials)")
    if exc.code == 404:
        return NotFoundError(what)
    if exc.code in TRANSIENT_STATUS:
        return TransientError(what)
    return PermanentError(what)


def _message(body: bytes) -> str:
    """A Redfish error's message (`error.message` or its first extended info), bounded."""
    try:
        error = json.loads(body).get("error") or {}
        info = error.get("@Message.ExtendedInfo") or [{}]
        text = str(error.get("message") or info[0].get("Message") or "")
    except (ValueError, AttributeError, IndexError, TypeError):
        text = ""
    return text[:300]
