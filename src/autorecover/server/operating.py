"""Operator controls over HTTP: release, maintenance, the breaker, pausing, acknowledgements,
retrying and stopping a job's recovery.

Every control is a non-GET route under /api/v1 taking a JSON body with a required `why` and
an optional `request_id`. The handler decides nothing and touches no cluster: it records the
request — who (the caller the authentication in front of it named, `request.state.caller`),
when, why, from where (the client's address) — in the store, on any replica. Switches
(maintenance, pausing) and acknowledgements are in force from that commit; a release or a
breaker reset waits, `pending` (202), for the leader's next hardware pass, which acts with
the usual provenance, dry-run and rate limits and settles the request in the same
transaction. The same `request_id` again is the same request: answered, not repeated.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.responses import JSONResponse

from autorecover.adapters.store.base import ConflictError
from autorecover.controllers.ports import TransientError
from autorecover.controllers.requests import (
    Control,
    OperatorRequest,
    RequestError,
    RequestStatus,
    maintenance_target,
)
from autorecover.server import views
from autorecover.server.engine import Engine
from autorecover.server.jobs_view import NotHostedError
from autorecover.server.schemas import (
    ActingOut,
    BreakersOut,
    ControlIn,
    Problem,
    ReleaseIn,
    RequestOut,
)
from autorecover.server.views import breaker_out, request_out

API = "/api/v1"
_F = TypeVar("_F", bound=Callable[..., Any])
ANONYMOUS = "anonymous"  # the caller when no authentication runs in front (local trials)
_ANSWERS: dict[int | str, dict[str, Any]] = {
    404: {"model": Problem, "description": "Unknown node or incident."},
    409: {"model": Problem, "description": "The request id was used for another request."},
    422: {"model": Problem, "description": "A field is missing or malformed."},
    503: {"model": Problem, "description": "The store is away: retry after Retry-After."},
}


def caller(http: Request) -> str:
    """Who calls: the name the authentication put on the request, else anonymous."""
    return str(getattr(http.state, "caller", None) or ANONYMOUS)


def operator_request(
    engine: Engine,
    http: Request,
    by: str,
    kind: Control,
    target: str,
    why: str,
    request_id: str | None = None,
    options: tuple[tuple[str, str], ...] = (),
) -> OperatorRequest:
    """A person's request as every control records it, from the API or the dashboard's
    buttons alike: who, why, from where (the client's address), when."""
    return OperatorRequest(
        request_id or uuid.uuid4().hex, kind, target, by, why,
        http.client.host if http.client else "", engine.clock.now(), options,
    )  # fmt: skip


def add_operator_routes(app: FastAPI, engine: Engine) -> None:
    """The operator controls of one engine, on its app."""
    store = engine.store
    router = _Routes(app)

    def new(
        http: Request,
        kind: Control,
        target: str,
        body: ControlIn,
        options: tuple[tuple[str, str], ...] = (),
    ) -> OperatorRequest:
        _text(target)
        return operator_request(engine, http, caller(http), kind, target, body.why,
                                body.request_id, options)  # fmt: skip

    def answer(submit: Any, request: OperatorRequest) -> JSONResponse:
        try:
            stored: OperatorRequest = submit(request)
        except ConflictError as exc:
            raise HTTPException(409, str(exc)) from None
        except TransientError as exc:
            retry = str(engine.settings.retry_after_s)
            raise HTTPException(503, f"store: {exc}", headers={"Retry-After": retry}) from None
        status = 202 if stored.status is RequestStatus.PENDING else 200
        return JSONResponse(request_out(stored).model_dump(mode="json"), status_code=status)

    def known_node(name: str) -> None:
        _text(name)
        if not any(v.record.node == name for v in store.node_views()):
            raise HTTPException(404, f"no node {name!r}")

    @router.post(
        "/nodes/{name}/release", status_code=202, response_model=RequestOut, responses=_ANSWERS
    )
    def release_node(name: str, body: ReleaseIn, http: Request) -> JSONResponse:
        """Hand a node back to service from any state of ours (needs_attention, quarantine,
        ...): the leader's next pass resumes it through the scheduler, or with
        `validate_first` (from needs_attention) validates it first."""
        known_node(name)
        options = (("validate", "true"),) if body.validate_first else ()
        return answer(store.submit, new(http, Control.RELEASE, name, body, options))

    @router.put("/maintenance/{target}", response_model=RequestOut, responses=_ANSWERS)
    def start_maintenance(target: str, body: ControlIn, http: Request) -> JSONResponse:
        """Put a node (`node:NAME` or `NAME`) or a failure domain (`rack:`, `nvlink:`,
        `ib_leaf:` NAME) into maintenance: the engine keeps its hands off it."""
        return answer(store.submit, new(http, Control.MAINTENANCE_ON, _target(target), body))

    @router.delete("/maintenance/{target}", response_model=RequestOut, responses=_ANSWERS)
    def end_maintenance(target: str, body: ControlIn, http: Request) -> JSONResponse:
        """Take a node or failure domain out of maintenance: the engine looks after it again."""
        return answer(store.submit, new(http, Control.MAINTENANCE_OFF, _target(target), body))

    @router.get("/maintenance", response_model=list[RequestOut])
    def get_maintenance() -> list[RequestOut]:
        """What is in maintenance, with who put it there and why."""
        return [request_out(r) for r in store.controls().maintenance.values()]

    @router.get("/breaker", response_model=BreakersOut)
    def get_breaker() -> BreakersOut:
        """The circuit breaker (and dry-run's would-have breaker), with who reset it last."""
        return BreakersOut(
            mode="dry_run" if engine.settings.dry_run else "live",
            live=breaker_out(store.breaker_state()),
            dry_run=breaker_out(store.breaker_state(dry_run=True)),
        )

    @router.post("/breaker/reset", status_code=202, response_model=RequestOut, responses=_ANSWERS)
    def reset_breaker(body: ControlIn, http: Request) -> JSONResponse:
        """Close the tripped breaker (dry-run's would-have one when the engine runs dry):
        new quarantines are allowed again from the leader's next pass."""
        return answer(store.submit, new(http, Control.RESET_BREAKER, "", body))

    @router.get("/acting", response_model=ActingOut)
    def get_acting() -> ActingOut:
        """Whether the engine acts, and what people hold in maintenance."""
        controls = store.controls()
        paused = controls.paused
        return ActingOut(
            paused=paused is not None,
            request=request_out(paused) if paused is not None else None,
            maintenance=[request_out(r) for r in controls.maintenance.values()],
        )

    @router.post("/acting/pause", response_model=RequestOut, responses=_ANSWERS)
    def pause_acting(body: ControlIn, http: Request) -> JSONResponse:
        """Pause all acting, without a restart: every pass still records, decisions are held,
        nothing is executed until acting resumes."""
        return answer(store.submit, new(http, Control.PAUSE_ACTING, "", body))

    @router.post("/acting/resume", response_model=RequestOut, responses=_ANSWERS)
    def resume_acting(body: ControlIn, http: Request) -> JSONResponse:
        """Resume acting: the next pass executes what waits and decides what was held."""
        return answer(store.submit, new(http, Control.RESUME_ACTING, "", body))

    @router.post(
        "/incidents/{incident:path}/acknowledge", response_model=RequestOut, responses=_ANSWERS
    )
    def acknowledge(incident: str, body: ControlIn, http: Request) -> JSONResponse:
        """Acknowledge an incident (hardware or job): a person has it. Recorded, and shown in
        the incident's audit and timeline."""
        _text(incident)
        found = views.hardware_incident(store, incident) or engine.jobs.incident(incident)
        if found is None:
            raise HTTPException(404, f"no incident {incident!r}")
        return answer(store.submit, new(http, Control.ACKNOWLEDGE, incident, body))

    def job_request(http: Request, kind: Control, job: str, body: ControlIn) -> JSONResponse:
        try:
            return answer(engine.jobs.submit, new(http, kind, job, body))
        except NotHostedError as exc:
            raise HTTPException(404, str(exc)) from None

    @router.post(
        "/jobs/{job:path}/retry", status_code=202, response_model=RequestOut, responses=_ANSWERS
    )
    def retry_job(job: str, body: ControlIn, http: Request) -> JSONResponse:
        """Requeue a job now (keeping its exclusions; no budget spent), and recover it again
        if it was stopped: job recovery's next pass does it, with its provenance, dry-run and
        rate limit."""
        return job_request(http, Control.RETRY_JOB, job, body)

    @router.post(
        "/jobs/{job:path}/stop", status_code=202, response_model=RequestOut, responses=_ANSWERS
    )
    def stop_job(job: str, body: ControlIn, http: Request) -> JSONResponse:
        """Stop recovering a job: job recovery's next pass drops what it had queued for it,
        closes its incident, and leaves the job alone until a retry is asked for."""
        return job_request(http, Control.STOP_JOB, job, body)

    @router.get("/requests/{request_id}", response_model=RequestOut, responses=_ANSWERS)
    def get_request(request_id: str) -> RequestOut:
        """One operator request: pending, done or refused, and why."""
        _text(request_id, "request_id")
        found = next((r for r in _audit(engine, None, 100_000) if r.id == request_id), None)
        if found is None:
            raise HTTPException(404, f"no request {request_id!r}")
        return request_out(found)

    @router.get("/audit", response_model=list[RequestOut])
    def get_audit(
        target: str | None = None, limit: int = Query(100, ge=1, le=10_000)
    ) -> list[RequestOut]:
        """Every operator request (who, when, why, from where, how it ended), newest last."""
        _text(target or "", "target", "query")
        return [request_out(r) for r in _audit(engine, target, limit)]


class _Routes:
    """The app's route decorators under /api/v1, in the operator controls' section."""

    def __init__(self, app: FastAPI) -> None:
        self._app = app

    def _route(self, method: str, path: str, **kw: Any) -> Callable[[_F], _F]:
        route: Callable[[_F], _F] = self._app.api_route(
            f"{API}{path}", methods=[method], tags=["operator controls"], **kw
        )
        return route

    def get(self, path: str, **kw: Any) -> Callable[[_F], _F]:
        return self._route("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> Callable[[_F], _F]:
        return self._route("POST", path, **kw)

    def put(self, path: str, **kw: Any) -> Callable[[_F], _F]:
        return self._route("PUT", path, **kw)

    def delete(self, path: str, **kw: Any) -> Callable[[_F], _F]:
        return self._route("DELETE", path, **kw)


def _audit(engine: Engine, target: str | None, limit: int) -> list[OperatorRequest]:
    found = engine.store.requests(target, limit=limit) + engine.jobs.requests(target, limit)
    return sorted(found, key=lambda r: r.at)[-limit:]


def _text(text: str, field: str = "target", where: str = "path") -> None:
    """A path or query value the store can keep: no NUL (PostgreSQL refuses it in text)."""
    if "\x00" in text:
        raise HTTPException(
            422, [{"loc": [where, field], "msg": "must not contain NUL", "type": "value_error"}]
        )


def _target(text: str) -> str:
    try:
        return maintenance_target(text)
    except RequestError as exc:
        raise HTTPException(
            422, [{"loc": ["path", "target"], "msg": str(exc), "type": "value_error"}]
        ) from None
