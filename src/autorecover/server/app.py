"""The engine's HTTP API (FastAPI): intake, agents' orders, read views, dead letters, health,
metrics, OpenAPI.

Handlers are plain functions (FastAPI runs them on its thread pool) over the `Engine`'s
parts; none decides anything. The lifespan starts the runner's threads and, on shutdown,
lets them finish their passes and gives the lease up before the store is closed. Around the
routes, `limiting` refuses oversized bodies (413) and clients over their rate (429) before
any JSON is read; a 422 names the bad field and never echoes the input back (so a NaN or a
megabyte string cannot turn the error itself into a 500).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, HTTPException, Path, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from autorecover import __version__
from autorecover.adapters.store.base import NodeView
from autorecover.controllers.ports import ActionStatus
from autorecover.domain.hardware.records import NodeRecord
from autorecover.server import views
from autorecover.server.auth import Auth, foreign_nodes
from autorecover.server.dashboard import add_dashboard
from autorecover.server.engine import Engine
from autorecover.server.guarding import caller_of, guard
from autorecover.server.intake import Invalid, Kept
from autorecover.server.limiting import BodyLimit, RateLimit
from autorecover.server.operating import add_operator_routes
from autorecover.server.orders import add_order_routes
from autorecover.server.pod_logs import add_pod_log_routes
from autorecover.server.policies import policies_json
from autorecover.server.schemas import (
    Accepted,
    ActionOut,
    BatchIn,
    DeadLetterOut,
    Health,
    IncidentDetail,
    IncidentOut,
    NodeDetail,
    NodeOut,
    Problem,
    Retried,
    RetryIn,
)

API = "/api/v1"
_REFUSED: dict[int | str, dict[str, Any]] = {
    413: {"model": Problem, "description": "The body is over the engine's limit (4 MiB)."},
    429: {
        "model": Problem,
        "description": "The inbox is full, or this client is over its rate: retry after "
        "Retry-After.",
    },
    503: {"model": Problem, "description": "Busy or the store is away: retry after Retry-After."},
}
_NOT_YOURS: dict[int | str, dict[str, Any]] = {
    403: {"model": Problem, "description": "An agent may report for its own node only."}
}
_MISSING: dict[int | str, dict[str, Any]] = {404: {"model": Problem, "description": "Unknown."}}


def create_app(engine: Engine, *, auth: Auth) -> FastAPI:
    """The ASGI app for one engine; every request passes `auth` (server/auth.py)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine.start()
        try:
            yield
        finally:
            engine.stop()

    app = FastAPI(
        title="autorecover engine",
        version=__version__,
        description="Hardware and job recovery for GPU training clusters.",
        lifespan=lifespan,
    )
    store = engine.store
    s = engine.settings
    app.add_middleware(BodyLimit, max_bytes=s.max_body_bytes)  # inner: after the rate limit
    app.add_middleware(RateLimit, clock=engine.clock, per_s=s.rate_per_s, burst=s.rate_burst)

    @app.exception_handler(RequestValidationError)
    def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": problems(exc.errors())}, status_code=422)

    @app.post(f"{API}/signals", status_code=202, response_model=Accepted,
              responses={**_REFUSED, **_NOT_YOURS})  # fmt: skip
    def post_signals(batch: BatchIn, request: Request) -> Any:
        """Take a batch of signals from a node agent (format autorecover.signals/1)."""
        caller = caller_of(request.state)  # an agent: the auth table lets no one else here
        nodes = [batch.node, *(s.node for s in batch.signals)]
        foreign = foreign_nodes(caller, nodes) if caller else sorted(set(nodes))
        if foreign:  # an agent reports for its own node only; refused before anything is kept
            who = caller.name if caller else "an unidentified caller"
            return JSONResponse({"detail": f"{who} may not report for {', '.join(foreign)}"},
                                status_code=403)  # fmt: skip
        result = engine.intake.take(batch)
        if isinstance(result, Kept):
            return Accepted(batch=result.batch, signals=result.signals, waiting=result.waiting)
        if isinstance(result, Invalid):
            detail = [{"loc": list(result.loc), "msg": result.msg, "type": "value_error"}]
            return JSONResponse({"detail": detail}, status_code=422)
        return JSONResponse(
            {"detail": result.reason},
            status_code=result.status,
            headers={"Retry-After": str(result.retry_after_s)},
        )

    @app.get(f"{API}/nodes", response_model=list[NodeOut])
    def get_nodes() -> list[NodeOut]:
        """Every node hardware recovery knows, with its state and why."""
        return [views.node_out(v) for v in store.node_views()]

    @app.get(f"{API}/nodes/{{name}}", response_model=NodeDetail, responses=_MISSING)
    def get_node(name: str) -> NodeDetail:
        """One node: state, reason, evidence, transitions, actions, events, signals."""
        view = next((v for v in store.node_views() if v.record.node == name), None)
        if view is None and store.node_signals(name, 1):
            # Reported, never acted on (reports make no node record): healthy, as far as
            # hardware recovery knows, with what its agent sent.
            view = NodeView(NodeRecord(name), None)
        if view is None:
            raise HTTPException(404, f"no node {name!r}")
        return views.node_detail(store, view, topology=engine.topology)

    @app.get(f"{API}/actions", response_model=list[ActionOut])
    def get_actions(
        node: str | None = None,
        status: ActionStatus | None = None,
        limit: int = Query(100, ge=1, le=10_000),
    ) -> list[ActionOut]:
        """Recorded actions, newest last (intended, done, failed, or would-have in dry-run)."""
        found = store.actions(node) if node else store.recent_actions(limit)
        return [views.action_out(a) for a in found if status is None or a.status is status][-limit:]

    @app.get(f"{API}/policies")
    def get_policies() -> dict[str, Any]:
        """The merged hardware and job policies in force."""
        return policies_json(engine.policies)

    @app.get(f"{API}/jobs")
    def get_jobs() -> list[dict[str, Any]]:
        """Jobs job recovery watches and remembers."""
        return engine.jobs.jobs()

    @app.get(f"{API}/incidents", response_model=list[IncidentOut])
    def get_incidents(
        limit: int = Query(views.INCIDENTS_LIMIT, ge=1, le=views.INCIDENTS_MAX),
        state: str = Query("", pattern="^(open|closed)?$"),
    ) -> list[IncidentOut]:
        """Incidents, hardware and job, oldest first: the newest `limit`; with `state=open`
        every open one however old, with `state=closed` the closed ones among the newest."""
        return views.listed_incidents(store, engine.jobs, limit, state)

    @app.get(
        f"{API}/incidents/{{incident:path}}", response_model=IncidentDetail, responses=_MISSING
    )
    def get_incident(incident: str) -> IncidentDetail:
        """One incident with its evidence and timeline."""
        found = views.hardware_incident(store, incident) or engine.jobs.incident(incident)
        if found is None:
            raise HTTPException(404, f"no incident {incident!r}")
        return views.with_audit(store, found)

    add_operator_routes(app, engine)
    add_order_routes(app, engine)
    add_pod_log_routes(app, engine)

    @app.get(f"{API}/dead-letters", response_model=list[DeadLetterOut])
    def get_dead_letters(limit: int = Query(100, ge=1, le=10_000)) -> list[DeadLetterOut]:
        """Agent batches a pass could not record, set aside with their error, oldest first."""
        return [views.dead_letter_out(d) for d in store.dead_letters(limit)]

    @app.post(
        f"{API}/dead-letters/{{letter}}/retry",
        status_code=202,
        response_model=Retried,
        responses=_MISSING,
    )
    def retry_dead_letter(
        request: Request, body: RetryIn, letter: int = Path(ge=1, le=2**62)
    ) -> Retried:
        """Put a dead letter back at the end of the inbox (noted on its node's events)."""
        by = str(getattr(request.state, "caller", "anonymous"))
        batch = store.retry_dead_letter(letter, now=engine.clock.now(), by=by, why=body.why)
        if batch is None:
            raise HTTPException(404, f"no dead letter {letter}")
        return Retried(batch=batch)

    @app.get("/healthz", response_model=Health)
    def healthz() -> Health:
        """Alive: the process answers."""
        return engine.health(check_store=False)

    @app.get("/readyz", response_model=Health, responses={503: {"model": Health}})
    def readyz() -> Any:
        """Ready, as leader or standby: the store answers."""
        health = engine.health(check_store=True)
        if health.status != "ok":
            return JSONResponse(health.model_dump(), status_code=503)
        return health

    @app.get("/metrics", response_class=Response)
    def metrics() -> Response:
        """Prometheus metrics (text exposition format)."""
        return Response(engine.metrics.render(), media_type="text/plain; version=0.0.4")

    add_dashboard(app, engine, auth)  # /ui: sessions of its own (server/dashboard/)
    guard(app, auth)
    return app


def problems(errors: Sequence[Any]) -> list[dict[str, Any]]:
    """Validation errors as JSON can carry them: where and what, never the input itself."""
    return [
        {"loc": [p if isinstance(p, (int, str)) else str(p) for p in e.get("loc", ())],
         "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
        for e in errors
    ]  # fmt: skip
