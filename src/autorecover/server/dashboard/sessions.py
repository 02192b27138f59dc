"""Browser sessions of the dashboard: a bearer token pasted once becomes a session cookie.

The cookie carries only a random session id (HttpOnly, SameSite=Strict, Secure over HTTPS);
the token stays in this process's memory and is checked again on every request through the
same `Auth` the API uses, so a token removed from the tokens file (or a role taken away)
ends its sessions at the next page. Each session has its own CSRF token, put in every form
and compared on every POST, and a POST must come from the page's own origin. Sessions live
in memory: a restart, or another replica behind a load balancer, asks for the token again.
"""

from __future__ import annotations

import hmac
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

COOKIE = "autorecover_session"
IDLE = timedelta(hours=8)  # a session unused this long is forgotten
MAX_SESSIONS = 10_000  # the oldest is forgotten past this: memory stays bounded


@dataclass(frozen=True, slots=True)
class Session:
    """One signed-in browser: the token it pasted (never rendered), its CSRF token."""

    id: str
    token: str | None  # None: the engine runs without authentication (loopback trials)
    csrf: str
    used_at: datetime


class Sessions:
    """The sessions of one dashboard, in memory, bounded in number and idle time."""

    def __init__(self, idle: timedelta = IDLE, limit: int = MAX_SESSIONS) -> None:
        self._idle, self._limit = idle, limit
        self._by_id: OrderedDict[str, Session] = OrderedDict()
        self._notices: dict[str, str] = {}
        self._lock = threading.Lock()

    def open(self, token: str | None, now: datetime) -> Session:
        """A new session for `token` (its id and CSRF token fresh random values)."""
        session = Session(secrets.token_urlsafe(32), token, secrets.token_urlsafe(32), now)
        with self._lock:
            self._by_id[session.id] = session
            while len(self._by_id) > self._limit:
                gone, _ = self._by_id.popitem(last=False)
                self._notices.pop(gone, None)
        return session

    def get(self, session_id: str | None, now: datetime) -> Session | None:
        """The live session with this id (its idle time restarted), or None."""
        if not session_id:
            return None
        with self._lock:
            found = self._by_id.get(session_id)
            if found is None:
                return None
            if now - found.used_at > self._idle:
                del self._by_id[session_id]
                return None
            found = replace(found, used_at=now)
            self._by_id[session_id] = found
            self._by_id.move_to_end(session_id)
            return found

    def close(self, session_id: str | None) -> None:
        """Forget a session (sign-out, or a token no longer valid)."""
        with self._lock:
            self._by_id.pop(session_id or "", None)
            self._notices.pop(session_id or "", None)

    def notice(self, session_id: str, text: str) -> None:
        """Leave a line for the session's next page (what its last action did)."""
        with self._lock:
            if session_id in self._by_id:
                self._notices[session_id] = text

    def take_notice(self, session_id: str) -> str:
        """The line left for this page, once."""
        with self._lock:
            return self._notices.pop(session_id, "")


def csrf_ok(session: Session, sent: str | None) -> bool:
    """Whether a form's CSRF field is this session's (constant-time comparison)."""
    return bool(sent) and hmac.compare_digest(session.csrf.encode(), (sent or "").encode())


def same_origin(origin: str | None, referer: str | None, host: str | None, scheme: str) -> bool:
    """Whether a POST comes from the dashboard's own origin: its Origin header (or, where a
    browser sends none, its Referer) names this Host, by this scheme or by HTTPS (a proxy in
    front that ends TLS passes plain HTTP on). Neither header: refused."""
    if not host:
        return False
    own = {f"{scheme}://{host}", f"https://{host}"}
    if origin:
        return origin in own
    if referer:
        return any(referer == o or referer.startswith(o + "/") for o in own)
    return False


class LoginGuard:
    """Failed sign-ins per client address: past `limit` within `window`, that address is
    refused (429) until the window has passed, before its token is checked (a token guessed
    at, or TokenReview called, a few times a minute at most). Bounded in memory."""

    def __init__(
        self, limit: int = 10, window: timedelta = timedelta(minutes=1), clients: int = 10_000
    ) -> None:
        self.limit, self.window, self._clients = limit, window, clients
        self._failed: OrderedDict[str, list[datetime]] = OrderedDict()
        self._lock = threading.Lock()

    def wait_s(self, client: str, now: datetime) -> float:
        """0 when `client` may try to sign in; else the seconds until it may."""
        with self._lock:
            recent = [at for at in self._failed.get(client, ()) if now - at < self.window]
            if len(recent) < self.limit:
                return 0.0
            return (recent[0] + self.window - now).total_seconds()

    def failed(self, client: str, now: datetime) -> None:
        """Count one failed sign-in."""
        with self._lock:
            recent = [at for at in self._failed.pop(client, ()) if now - at < self.window]
            self._failed[client] = [*recent, now][-self.limit :]
            while len(self._failed) > self._clients:
                self._failed.popitem(last=False)
