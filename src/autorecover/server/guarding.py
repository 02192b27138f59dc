"""The auth table applied to the whole app: a pure ASGI middleware, and the OpenAPI security.

`AuthMiddleware` runs before routing, so every route, present and future, is covered: it
authenticates the caller (`auth.Auth`), answers 401 (with `WWW-Authenticate: Bearer`) or 403
(naming the missing role) itself, and otherwise puts the caller in `request.state.caller`
(its name) and `request.state.identity` (the `Caller`), emptying evidence fields of the
response for a caller without the `evidence` role. A client certificate reaches it as the
ASGI TLS extension (`scope["extensions"]["tls"]["client_cert_name"]`, set by `serving`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import anyio.to_thread
from fastapi import FastAPI

from autorecover.controllers.ports import TransientError
from autorecover.server.auth import Auth, Caller, Refusal, redact_evidence, redacts, required_role

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

log = logging.getLogger(__name__)
RETRY_AFTER_S = 5
# What a caller without the evidence role gets instead of a response that is not JSON (or not
# readable as JSON): evidence cannot be removed from it, so none of it leaves.
WITHHELD = "response withheld: it could not be checked for evidence"


class AuthMiddleware:
    """Authenticate and authorize every HTTP request before the app sees it."""

    def __init__(self, app: ASGIApp, auth: Auth) -> None:
        self.app = app
        self.auth = auth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)  # lifespan
            return
        method = scope.get("method", "GET")
        path = route_path(scope)
        authorization = _header(scope, b"authorization")
        if isinstance(authorization, list):
            await _refuse(scope, send, _TWO_HEADERS)
            return
        tls = scope.get("extensions", {}).get("tls") or {}
        cert = tls.get("client_cert_name") or None
        try:
            if self.auth.blocks and authorization is not None:
                result = await anyio.to_thread.run_sync(
                    self.auth.check, method, path, authorization, cert
                )
            else:
                result = self.auth.check(method, path, authorization, cert)
        except TransientError as exc:
            log.warning("cannot authenticate now: %s", exc)
            unavailable = Refusal(503, f"cannot authenticate now: {exc}",
                                  {"Retry-After": str(RETRY_AFTER_S)})  # fmt: skip
            await _refuse(scope, send, unavailable)
            return
        if result is None:  # an open path
            await self.app(scope, receive, send)
            return
        if isinstance(result, Refusal):
            await _refuse(scope, send, result)
            return
        state = scope.setdefault("state", {})
        state["caller"] = result.name
        state["identity"] = result
        if redacts(method, path, result):
            send = _redacting(send)
        await self.app(scope, receive, send)


def caller_of(state: Any) -> Caller | None:
    """The authenticated caller in a request's state (None on an open path)."""
    identity = getattr(state, "identity", None)
    return identity if isinstance(identity, Caller) else None


def route_path(scope: Scope) -> str:
    """The path routes match on: the request's path without the app's root path."""
    path: str = scope.get("path", "/")
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :] or "/"
    return path


def _header(scope: Scope, name: bytes) -> str | list[str] | None:
    found = [v.decode("latin-1") for k, v in scope.get("headers", ()) if k.lower() == name]
    if not found:
        return None
    return found[0] if len(found) == 1 else found


_TWO_HEADERS = Refusal(401, "more than one Authorization header", {
    "WWW-Authenticate": 'Bearer realm="autorecover", error="invalid_request"'})  # fmt: skip


async def _refuse(scope: Scope, send: Send, refusal: Refusal) -> None:
    if scope["type"] == "websocket":  # no WebSocket routes today; refuse one all the same
        await send({"type": "websocket.close", "code": 1008, "reason": refusal.detail[:120]})
        return
    body = json.dumps({"detail": refusal.detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode(), v.encode("latin-1")) for k, v in refusal.headers.items()]
    await send({"type": "http.response.start", "status": refusal.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _redacting(send: Send) -> Send:
    """A `send` that empties evidence fields of a JSON response before it leaves."""
    start: Message | None = None
    chunks: list[bytes] = []

    async def redacting(message: Message) -> None:
        nonlocal start
        if message["type"] == "http.response.start":
            start = message
            return
        if message["type"] != "http.response.body" or start is None:
            await send(message)
            return
        chunks.append(message.get("body", b""))
        if message.get("more_body", False):
            return
        body = b"".join(chunks)
        headers = list(start.get("headers", []))
        content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
        if body:
            doc, readable = None, False
            if content_type.startswith(b"application/json"):
                try:
                    doc, readable = json.loads(body), True
                except ValueError:
                    readable = False
            if readable:
                body = json.dumps(redact_evidence(doc), ensure_ascii=False, allow_nan=False,
                                  separators=(",", ":")).encode()  # fmt: skip
            else:  # fail closed: what cannot be read cannot be cleaned of evidence
                log.error("withheld a %s response that could not be checked for evidence",
                          content_type.decode("latin-1") or "typeless")  # fmt: skip
                start = {**start, "status": 500}
                body = json.dumps({"detail": WITHHELD}).encode()
                headers = [(k, v) for k, v in headers if k.lower() != b"content-type"]
                headers.append((b"content-type", b"application/json"))
            headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode()))
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return redacting


_UNAUTHORIZED = {
    "description": "No valid credentials (see the WWW-Authenticate header).",
    "content": {"application/json": {"schema": {
        "type": "object", "properties": {"detail": {"type": "string"}}}}},
}  # fmt: skip
_FORBIDDEN = {
    "description": "The caller lacks the role this needs (the detail names it).",
    "content": _UNAUTHORIZED["content"],
}


def guard(app: FastAPI, auth: Auth) -> None:
    """Put the middleware on the app and state the security in its OpenAPI document."""
    app.add_middleware(AuthMiddleware, auth=auth)
    app.state.auth = auth
    plain = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = plain()
        if not auth.enabled:
            return schema
        schemes = schema.setdefault("components", {}).setdefault("securitySchemes", {})
        schemes["bearer"] = {
            "type": "http",
            "scheme": "bearer",
            "description": "A token from the tokens file, or a Kubernetes ServiceAccount "
            "token (TokenReview). Agents may use a client certificate instead.",
        }
        for path, operations in schema.get("paths", {}).items():
            for method, operation in operations.items():
                role = required_role(method, path)
                if role is None:
                    continue
                operation["security"] = [{"bearer": []}]
                responses = operation.setdefault("responses", {})
                responses.setdefault("401", _UNAUTHORIZED)
                responses.setdefault("403", _FORBIDDEN)
                note = f"Needs the `{role.value}` role."
                described = operation.get("description", "")
                operation["description"] = f"{described}\n\n{note}" if described else note
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
