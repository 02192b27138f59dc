"""The agent's side of pod logs read at the node: which containers to follow, and the excerpts.

`GET /api/v1/agent/logs/sources?node=NODE` names the containers of watched jobs' pods on the
node (namespace, pod, uid, container) and where the engine's copy of each ends (the file's
inode and offset the last excerpt it took was read to), so an agent that restarts resumes
there instead of shipping the log again. `POST /api/v1/agent/logs` ships excerpts
(`agent/logs/excerpts.py`). Same base URL, token and TLS settings as the signals and orders
(`engine_client.py`); errors map as the orders' do: `LogsUnavailableError` (try again later,
with the engine's Retry-After) and `LogsRefusedError` (asking again will not help; a 404 means
this engine takes no pod logs: a Slurm engine, or an older one).
"""

from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from autorecover.adapters.http.credentials import ClientCredentials, CredentialsError
from autorecover.adapters.http.engine_client import (
    TRANSIENT_STATUS,
    response_detail,
    retry_after_s,
    signals_url,
)
from autorecover.adapters.http.exchange import EngineUnreachableError, exchange
from autorecover.controllers.ports import PermanentError, TransientError

LOGS_PATH = "/api/v1/agent/logs"
FORMAT = "autorecover.podlogs/1"
# The contract's bounds (the engine's schema states the same).
MAX_PODS, MAX_TEXT = 256, 512 << 10  # excerpts in one post; bytes of one excerpt
# Excerpt bytes in one post: JSON escapes may double them, and the engine refuses a body over
# its --max-body-bytes (4 MiB by default) with 413.
MAX_DOCUMENT_TEXT = 1536 << 10


class LogsUnavailableError(TransientError):
    """The engine could not take it now (unreachable, busy, a standby, a token being rotated)."""

    def __init__(self, message: str, *, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class LogsRefusedError(PermanentError):
    """The engine refused for good (400, 403, 404, 422)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class LogTarget:
    """A container the engine wants read, and where its copy ends."""

    namespace: str
    pod: str
    uid: str
    container: str
    inode: int = 0
    offset: int = 0

    @property
    def key(self) -> str:
        """The container's identity in documents: `<pod uid>/<container>`."""
        return f"{self.uid}/{self.container}"


def target_from_dict(data: Any) -> LogTarget | None:
    """One SOURCE object, or None when it does not have the contract's shape."""
    if not isinstance(data, dict):
        return None
    names = [data.get(k) for k in ("namespace", "pod", "uid", "container")]
    inode, offset = data.get("inode", 0), data.get("offset", 0)
    if not all(isinstance(n, str) for n in names):
        return None
    if not isinstance(inode, int) or not isinstance(offset, int) or inode < 0 or offset < 0:
        return None
    ns, pod, uid, container = (str(n) for n in names)
    return LogTarget(ns, pod, uid, container, inode, offset)


class PodLogsClient:
    """Asks the engine what to follow on this node and posts what was read."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout_s: float = 10.0,
        credentials: ClientCredentials | None = None,
    ) -> None:
        signals_url(base_url)  # the same check as the signals: http(s)://host[:port]
        self.base = base_url.rstrip("/") + LOGS_PATH
        self.timeout_s = timeout_s
        self.credentials = credentials or ClientCredentials()
        self.malformed = 0  # sources in answers without the contract's shape

    def sources(self, node: str) -> list[LogTarget]:
        """The containers of watched jobs on `node` (malformed entries counted, skipped)."""
        url = f"{self.base}/sources?{urllib.parse.urlencode({'node': node})}"
        answer = self._call("GET", url, None)
        raw = answer.get("sources") if isinstance(answer, dict) else None
        if not isinstance(raw, list):
            raise LogsUnavailableError("engine answered without a 'sources' list")
        out = []
        for item in raw:
            target = target_from_dict(item)
            if target is None:
                self.malformed += 1
            else:
                out.append(target)
        return out

    def ship(self, document: Mapping[str, Any]) -> None:
        """Post one document of excerpts."""
        self._call("POST", self.base, document)

    def _call(self, method: str, url: str, document: Mapping[str, Any] | None) -> Any:
        try:
            return exchange(method, url, document, self.credentials, self.timeout_s)
        except CredentialsError as exc:  # a token file being rewritten: try again later
            raise LogsUnavailableError(str(exc)) from None
        except urllib.error.HTTPError as exc:
            message = f"engine answered {exc.code}{response_detail(exc)}"
            if exc.code in TRANSIENT_STATUS:
                wait = retry_after_s(exc.headers.get("Retry-After") if exc.headers else None)
                raise LogsUnavailableError(message, retry_after_s=wait) from None
            raise LogsRefusedError(message, status=exc.code) from None
        except EngineUnreachableError as exc:
            raise LogsUnavailableError(str(exc)) from None
