"""The dashboard's routes under /ui: sign-in, the pages, operator actions, live updates.

Authentication here is the browser's: the auth table leaves /ui/ open to the middleware and
every handler asks `Dashboard.visitor` who is calling, from the session cookie, through the
same `Auth` (tokens file, TokenReview) and roles as the API. A page needs `viewer`; evidence
lines need `evidence`; the action forms are rendered for, and their POSTs accepted from, an
`operator` only, with the session's CSRF token and the page's own Origin. An action is
recorded by the same `operating.operator_request` and store call as the API's controls, so
its provenance (who, why, from where, when) is the same whichever way it came.
"""

from __future__ import annotations

import gzip
import math
from dataclasses import dataclass
from datetime import datetime
from importlib import resources

import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse, Response, StreamingResponse

from autorecover.adapters.store.base import ConflictError, EngineStore
from autorecover.controllers.ports import TransientError
from autorecover.controllers.requests import Control, RequestError, maintenance_target
from autorecover.server import views
from autorecover.server.auth import Auth, Caller, redact_evidence
from autorecover.server.dashboard import live, pages
from autorecover.server.dashboard.fleet import (
    Budget,
    Filters,
    GridCache,
    node_view,
    render_fleet,
    render_grid,
)
from autorecover.server.dashboard.forms import FormError, parse_form
from autorecover.server.dashboard.history import WINDOW, OutOfService, sparkline
from autorecover.server.dashboard.markup import (
    HEADERS,
    ROOT,
    action_form,
    esc,
    login_page,
    page,
)
from autorecover.server.dashboard.sessions import (
    COOKIE,
    LoginGuard,
    Session,
    Sessions,
    csrf_ok,
    same_origin,
)
from autorecover.server.engine import Engine
from autorecover.server.operating import operator_request
from autorecover.server.schemas import NodeDetail
from autorecover.server.tokens import Role

STATIC = {"dashboard.css": "text/css", "dashboard.js": "text/javascript"}
GZIP_OVER = 1024  # bytes: smaller pages are sent as they are
PAGE_INCIDENTS = 500  # the incident list's newest, unless the page asks for more (`limit`)


@dataclass(frozen=True, slots=True)
class Visitor:
    """Who is looking: their session and the caller its token names now."""

    session: Session
    caller: Caller

    @property
    def operator(self) -> bool:
        """Whether the action forms are theirs."""
        return self.caller.holds(Role.OPERATOR)

    @property
    def evidence(self) -> bool:
        """Whether evidence lines are shown to them."""
        return self.caller.holds(Role.EVIDENCE)


class DeniedError(Exception):
    """The request cannot be served to this browser: a response says why."""

    def __init__(self, response: Response) -> None:
        super().__init__(response.status_code)
        self.response = response


def html(request: Request, text: str, status: int = 200) -> Response:
    """A page with the dashboard's security headers, gzipped when the browser takes it."""
    body = text.encode()
    headers = dict(HEADERS)
    if len(body) > GZIP_OVER and "gzip" in request.headers.get("accept-encoding", ""):
        body = gzip.compress(body, compresslevel=5)
        headers["Content-Encoding"] = "gzip"
        headers["Vary"] = "Accept-Encoding"
    return Response(body, status, headers, media_type="text/html; charset=utf-8")


class Dashboard:
    """One engine's dashboard: its sessions, its live feed, and who is calling."""

    def __init__(self, engine: Engine, auth: Auth) -> None:
        self.engine, self.auth = engine, auth
        self.sessions = Sessions()
        self.feed = live.Feed(engine)
        window = max(WINDOW, engine.policies.hardware.breaker.window)  # removals counted too
        self.out_of_service = OutOfService(engine.store, window)
        self.grids = GridCache()
        self.logins = LoginGuard()

    def cookie(self, response: Response, request: Request, session: Session) -> None:
        """Put the session's id (and nothing else) in an HttpOnly, SameSite=Strict cookie."""
        response.set_cookie(
            COOKIE, session.id, httponly=True, samesite="strict", path=ROOT,
            secure=request.url.scheme == "https",
        )  # fmt: skip

    def visitor(self, request: Request) -> tuple[Visitor, Session | None]:
        """The signed-in visitor (and a session to set, when one was opened for them now);
        `DeniedError` with the sign-in page, or a refusal, otherwise."""
        now = self.engine.clock.now()
        session = self.sessions.get(request.cookies.get(COOKIE), now)
        opened = None
        if session is None and not self.auth.enabled:
            session = opened = self.sessions.open(None, now)  # no tokens: nothing to paste
        if session is None:
            raise DeniedError(RedirectResponse(f"{ROOT}/login", 303))
        try:
            found = self.auth.identify(
                f"Bearer {session.token}" if session.token is not None else None, None
            )
        except TransientError as exc:
            raise DeniedError(refusal(request, f"cannot authenticate now: {exc}", 503)) from None
        if not isinstance(found, Caller) or not found.holds(Role.VIEWER):
            self.sessions.close(session.id)  # the token was revoked, or lost its roles
            raise DeniedError(RedirectResponse(f"{ROOT}/login", 303))
        return Visitor(session, found), opened

    def frame(self, request: Request, v: Visitor, opened: Session | None, title: str,
              body: str, current: str, status: int = 200) -> Response:  # fmt: skip
        """A page in the shared frame, with a notice left by the last action, if any."""
        roles = ", ".join(sorted(r.value for r in v.caller.roles)) or "none"
        notice = self.sessions.take_notice(v.session.id)
        text = page(title, body, who=v.caller.name, roles=roles, session=v.session,
                    current=current, notice=notice)  # fmt: skip
        response = html(request, text, status)
        if opened is not None:
            self.cookie(response, request, opened)
        return response

    def form(self, v: Visitor, action: Control, target: str, label: str, back: str) -> str:
        """An action's form for an operator; nothing for anyone else."""
        return action_form(v.session, action.value, target, label, back) if v.operator else ""


def refusal(request: Request, text: object, status: int) -> Response:
    """A short page saying why a request was refused (the text escaped)."""
    return html(request, f'<!doctype html><meta charset="utf-8"><title>autorecover</title>'
                f"<p>{esc(text)}</p>", status)  # fmt: skip


def add_dashboard(app: FastAPI, engine: Engine, auth: Auth) -> Dashboard:
    """The dashboard's routes on the engine's app."""
    d = Dashboard(engine, auth)
    store = engine.store

    @app.exception_handler(DeniedError)
    def denied(request: Request, exc: DeniedError) -> Response:
        return exc.response

    @app.get("/", include_in_schema=False)
    def home() -> Response:
        return RedirectResponse(f"{ROOT}/fleet", 303)

    @app.get(f"{ROOT}/login", include_in_schema=False)
    def login_form(request: Request) -> Response:
        return html(request, login_page())

    # The POSTs read their form on the event loop, then do the rest on a worker thread: a
    # token may be checked over the network (TokenReview), a request recorded in the store.
    @app.post(f"{ROOT}/login", include_in_schema=False)
    async def login(request: Request) -> Response:
        return await anyio.to_thread.run_sync(sign_in, request, await request.body())

    @app.post(f"{ROOT}/logout", include_in_schema=False)
    async def logout(request: Request) -> Response:
        return await anyio.to_thread.run_sync(sign_out, request, await request.body())

    @app.post(f"{ROOT}/act", include_in_schema=False)
    async def act(request: Request) -> Response:
        return await anyio.to_thread.run_sync(acting, request, await request.body())

    def sign_in(request: Request, body: bytes) -> Response:
        _origin(request)
        try:
            token = parse_form(body).get("token", "").strip()
        except FormError as exc:
            return html(request, login_page(str(exc)), 400)
        if not token:
            return html(request, login_page("paste a token"), 400)
        client, now = request.client.host if request.client else "", engine.clock.now()
        wait_s = d.logins.wait_s(client, now)
        if wait_s > 0:
            response = html(request, login_page("too many failed sign-ins: wait a minute"), 429)
            response.headers["Retry-After"] = str(max(1, math.ceil(wait_s)))
            return response
        try:
            found = auth.identify(f"Bearer {token}", None)
        except TransientError as exc:
            return html(request, login_page(f"cannot authenticate now: {exc}"), 503)
        if not isinstance(found, Caller):
            d.logins.failed(client, now)
            return html(request, login_page("that token is not valid"), 401)
        if not found.holds(Role.VIEWER):
            return html(request, login_page(f"{found.name} may not read the dashboard "
                                            "(it needs the viewer role)"), 403)  # fmt: skip
        session = d.sessions.open(token if auth.enabled else None, engine.clock.now())
        response = RedirectResponse(f"{ROOT}/fleet", 303)
        d.cookie(response, request, session)
        return response

    def sign_out(request: Request, body: bytes) -> Response:
        v, _ = d.visitor(request)
        _checked_form(request, v, body)
        d.sessions.close(v.session.id)
        response = RedirectResponse(f"{ROOT}/login", 303)
        response.delete_cookie(COOKIE, path=ROOT)
        return response

    @app.get(f"{ROOT}/fleet", include_in_schema=False)
    def fleet(request: Request, state: str = "", domain: str = "", signal: str = "",
              group: str = "") -> Response:  # fmt: skip
        v, opened = d.visitor(request)
        f = Filters(state, domain, signal, group)
        controls = store.controls()
        version, _ = d.feed.version(fresh=True)  # the grid is kept per version: not a stale one
        maintenance = tuple(controls.maintenance)
        grid = d.grids.get(f"{version}/{'|'.join(maintenance)}", f, lambda: render_grid(
            store.node_views(), engine.topology, f, maintenance))  # fmt: skip
        limits = engine.policies.hardware.breaker
        dry = engine.settings.dry_run
        now = engine.clock.now()
        d.out_of_service.update(now)
        if dry:  # dry-run's would-have removals are kept apart from the transitions
            removed = len(store.load(now - limits.window).dry_run_removals)
        else:
            removed = d.out_of_service.removals(now - limits.window)
        budget = Budget(
            state=store.breaker_state(dry_run=dry), limits=limits,
            fleet_size=engine.settings.fleet_size or max(grid.nodes, 1), removed=removed,
            out_now=grid.out_now, paused=controls.paused is not None, maintenance=maintenance,
        )  # fmt: skip
        forms = ""
        if v.operator:
            toggle = (Control.RESUME_ACTING, "Resume acting") if budget.paused else (
                Control.PAUSE_ACTING, "Pause acting")  # fmt: skip
            forms = '<div class="controls">' + "".join((
                d.form(v, Control.RESET_BREAKER, "", "Reset breaker", "fleet"),
                d.form(v, toggle[0], "", toggle[1], "fleet"),
            )) + "</div>"  # fmt: skip
        forms += sparkline(d.out_of_service.slices(now), d.out_of_service.window)
        body = render_fleet(grid, budget, forms)
        return d.frame(request, v, opened, "Fleet", body, "fleet")

    @app.get(f"{ROOT}/incidents", include_in_schema=False)
    def incidents(request: Request, cause: str = "", node: str = "", job: str = "",
                  state: str = "", limit: int = PAGE_INCIDENTS) -> Response:  # fmt: skip
        v, opened = d.visitor(request)
        limit = min(max(limit, 1), views.INCIDENTS_MAX)
        wanted = state if state in ("open", "closed") else ""
        found = views.listed_incidents(store, engine.jobs, limit + 1, wanted)  # one more: cut?
        cut = wanted != "open" and len(found) > limit
        filters = pages.IncidentFilters(cause, node, job, state)
        shown = found[1:] if cut else found
        body = pages.render_incidents(shown, filters, limit if cut else None)
        return d.frame(request, v, opened, "Incidents", body, "incidents")

    @app.get(f"{ROOT}/incidents/{{incident:path}}", include_in_schema=False)
    def incident(request: Request, incident: str) -> Response:
        v, opened = d.visitor(request)
        found = views.hardware_incident(store, incident) or engine.jobs.incident(incident)
        if found is None:
            return d.frame(
                request,
                v,
                opened,
                "No such incident",
                f"<p>No incident {esc(incident)}.</p>",
                "incidents",
                404,
            )
        found = views.with_audit(store, found)
        provenance: dict[tuple[datetime, str, str], str] = {}
        line_nodes: dict[str, str] = {}  # a job incident's lines name their node themselves
        if found.source == "jobs":
            parts = pages.job_parts(engine.jobs.breakdown(incident))
            title = "Recovery-time breakdown"
        else:
            parts = pages.state_parts(found, engine.clock.now())
            title = "Time in each state"
            provenance, line_nodes = _trail_facts(store, incident)
        controls = d.form(v, Control.ACKNOWLEDGE, incident, "Acknowledge",
                          pages.path("incidents", incident))  # fmt: skip
        body = pages.render_incident(found, parts, title, provenance, line_nodes=line_nodes,
                                     evidence=v.evidence, controls=controls)  # fmt: skip
        return d.frame(request, v, opened, f"Incident {incident}", body, "incidents")

    @app.get(f"{ROOT}/jobs", include_in_schema=False)
    def jobs(request: Request) -> Response:
        v, opened = d.visitor(request)
        lost: dict[str, float] = {}
        for i in engine.jobs.incidents():
            part = (engine.jobs.breakdown(i.id) or {}).get("lost_work_s")
            job = i.id.split("#", 1)[0]
            if part is not None:
                lost[job] = lost.get(job, 0.0) + part
        policy = engine.policies.jobs
        budgets = {"infrastructure": policy.infrastructure_restarts, "user": policy.user_restarts}
        body = pages.render_jobs(engine.jobs.jobs(), lost, budgets)
        return d.frame(request, v, opened, "Jobs", body, "jobs")

    @app.get(f"{ROOT}/nodes/{{name}}", include_in_schema=False)
    def node(request: Request, name: str) -> Response:
        v, opened = d.visitor(request)
        view = node_view(store.node_views(), engine.topology, name)
        if view is None:
            return d.frame(
                request, v, opened, "No such node", f"<p>No node {esc(name)}.</p>", "fleet", 404
            )
        detail = views.node_detail(store, view, topology=engine.topology)
        if not v.evidence:  # the API's own redaction, for the same caller
            detail = NodeDetail.model_validate(redact_evidence(detail.model_dump(mode="json")))
        back = pages.path("nodes", name)
        held = Control.MAINTENANCE_OFF if detail.maintenance else Control.MAINTENANCE_ON
        controls = "".join((
            d.form(v, Control.RELEASE, name, "Release", back) if detail.state != "healthy"
            else "",
            d.form(v, held, f"node:{name}", "End maintenance" if detail.maintenance
                   else "Start maintenance", back),
        ))  # fmt: skip
        body = pages.render_node(detail, evidence=v.evidence,
                                 controls=f'<div class="controls">{controls}</div>')  # fmt: skip
        return d.frame(request, v, opened, f"Node {name}", body, "fleet")

    def acting(request: Request, body: bytes) -> Response:
        v, _ = d.visitor(request)
        fields = _checked_form(request, v, body)
        if not v.operator:
            who = v.caller.name
            return refusal(request, f"{who} may not act: it needs the operator role", 403)
        why = fields.get("why", "").strip()
        if not why or len(why) > 1000:
            return refusal(request, "a reason (1 to 1,000 characters) is needed", 422)
        try:
            kind = Control(fields.get("action", ""))
            target = _target(engine, kind, fields.get("target", ""))
        except (ValueError, RequestError) as exc:
            return refusal(request, exc, 422)
        asked = operator_request(engine, request, v.caller.name, kind, target, why)
        try:
            stored = store.submit(asked)
        except ConflictError as exc:
            return refusal(request, exc, 409)
        except TransientError as exc:
            return refusal(request, f"store: {exc}", 503)
        d.sessions.notice(v.session.id, f"{kind.value} {target or ''} recorded: {stored.status}")
        return RedirectResponse(_back(fields.get("back", "")), 303)

    @app.get(f"{ROOT}/events", include_in_schema=False)
    def events(request: Request) -> Response:
        d.visitor(request)
        body = live.stream(d.feed, request.headers.get("last-event-id"),
                           request.is_disconnected)  # fmt: skip
        return StreamingResponse(body, media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})  # fmt: skip

    @app.get(f"{ROOT}/static/{{name}}", include_in_schema=False)
    def static(name: str) -> Response:
        if name not in STATIC:
            return Response(status_code=404)
        data = resources.files("autorecover.server.dashboard").joinpath("static", name)
        return Response(
            data.read_bytes(),
            media_type=STATIC[name],
            headers={"Cache-Control": "public, max-age=86400", "X-Content-Type-Options": "nosniff"},
        )

    return d


def _checked_form(request: Request, v: Visitor, body: bytes) -> dict[str, str]:
    """A POSTed form from this dashboard's own page: same origin, this session's CSRF token."""
    _origin(request)
    try:
        fields = parse_form(body)
    except FormError as exc:
        raise DeniedError(refusal(request, exc, 400)) from None
    if not csrf_ok(v.session, fields.get("csrf")):
        raise DeniedError(refusal(request, "the form's CSRF token is not this session's", 403))
    return fields


def _origin(request: Request) -> None:
    if not same_origin(request.headers.get("origin"), request.headers.get("referer"),
                       request.headers.get("host"), request.url.scheme):  # fmt: skip
        raise DeniedError(refusal(request, "cross-origin form refused", 403))


def _target(engine: Engine, kind: Control, target: str) -> str:
    """The request's target as the API's route for `kind` would take it (ValueError else)."""
    if kind in (Control.RESET_BREAKER, Control.PAUSE_ACTING, Control.RESUME_ACTING):
        return ""
    if kind in (Control.MAINTENANCE_ON, Control.MAINTENANCE_OFF):
        return maintenance_target(target)
    if kind is Control.RELEASE:
        if not any(v.record.node == target for v in engine.store.node_views()):
            raise ValueError(f"no node {target!r}")
        return target
    if kind is Control.ACKNOWLEDGE:
        found = views.hardware_incident(engine.store, target) or engine.jobs.incident(target)
        if found is None:
            raise ValueError(f"no incident {target!r}")
        return target
    raise ValueError(f"{kind.value} is not a dashboard action")


def _back(path: str) -> str:
    """Where an action returns to: a dashboard page, never anywhere else."""
    if not path or path.startswith(("/", "\\")) or ":" in path.split("/", 1)[0] or ".." in path:
        return f"{ROOT}/fleet"
    return f"{ROOT}/{path}"


def _trail_facts(
    store: EngineStore, incident: str
) -> tuple[dict[tuple[datetime, str, str], str], dict[str, str]]:
    """Of a hardware incident's trail: who did each moment ((at, node, what) -> by), and the
    node each evidence line was recorded for (line -> node)."""
    transitions, actions = store.trail(incident)
    by = {(t.at, t.node, "transition"): t.by for t in transitions}
    for a in actions:
        by[(a.action.at, a.action.node, f"action {a.status}")] = a.action.by
    nodes: dict[str, str] = {}
    for t in transitions:
        for line in t.evidence:
            nodes.setdefault(line, t.node)
    return by, nodes
