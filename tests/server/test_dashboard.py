"""The dashboard over HTTP (the served app, in process): sign-in with a token, the pages
from the store's records, operator actions recorded like the API's, refusals for a viewer,
a foreign origin or a missing CSRF token, evidence withheld without its role."""

from __future__ import annotations

import json
import re
import time
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import anyio
import pytest
from fastapi.testclient import TestClient

from autorecover.adapters.fakes.cluster import FakeClock, FakeNotifier
from autorecover.adapters.fakes.jobs import FakeJobScheduler
from autorecover.adapters.store.sqlite import SqliteJobStore, SqliteStore
from autorecover.controllers.jobs.controller import JobRecoveryController
from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.failure_domains import Topology
from autorecover.domain.hardware.lifecycle import NodeState
from autorecover.domain.jobs.policy import JobPolicy
from autorecover.server.dashboard.fleet import LETTER
from autorecover.server.dashboard.forms import FormError, parse_form, quote
from autorecover.server.dashboard.history import OutOfService
from autorecover.server.dashboard.live import PERIOD_S, Feed, stream
from autorecover.server.dashboard.routes import _back
from autorecover.server.dashboard.sessions import COOKIE
from autorecover.server.tokens import Role
from autorecover.server.wiring import JobsWiring, build_engine, fake_cluster
from server.support import SETTINGS, Fleet, Replica, RigClient, document, roomy, xid79

ORIGIN = "http://testserver"
FORM = {"Origin": ORIGIN, "Content-Type": "application/x-www-form-urlencoded"}


@pytest.fixture
def fleet() -> Fleet:
    return Fleet()


@pytest.fixture
def replica(fleet: Fleet, tmp_path: Path) -> Replica:
    r = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a")
    r.step()
    return r


def fault(fleet: Fleet, replica: Replica, node: str) -> None:
    """An XID 79 from `node`'s agent, and the passes that quarantine it."""
    answer = replica.client.post(
        "/api/v1/signals", json=document(node, xid79(node, fleet.clock), clock=fleet.clock)
    )
    assert answer.status_code == 202
    fleet.advance(1, replica)


def browser(replica: Replica, token: str) -> TestClient:
    """A browser signed in with `token` (its session cookie kept by the client)."""
    client = TestClient(replica.client.app, base_url=ORIGIN)
    answer = client.post("/ui/login", content=f"token={quote(token)}", headers=FORM,
                         follow_redirects=False)  # fmt: skip
    assert answer.status_code == 303, answer.text
    return client


def csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, "no CSRF field on the page"
    return found.group(1)


def test_dashboard_sign_in_sets_a_strict_httponly_cookie_and_never_shows_the_token(
    fleet: Fleet, replica: Replica
) -> None:
    token = fleet.tokens.operator
    client = TestClient(replica.client.app, base_url=ORIGIN)
    assert client.get("/ui/fleet", follow_redirects=False).headers["location"] == "/ui/login"
    answer = client.post("/ui/login", content=f"token={token}", headers=FORM,
                         follow_redirects=False)  # fmt: skip
    cookie = answer.headers["set-cookie"]
    assert answer.status_code == 303 and cookie.startswith(f"{COOKIE}=")
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/ui" in cookie
    assert token not in cookie
    fault(fleet, replica, "n1")
    incident = replica.client.get("/api/v1/incidents").json()[0]["id"]
    for path in ("/ui/fleet", "/ui/incidents", "/ui/jobs", "/ui/nodes/n1",
                 f"/ui/incidents/{quote(incident)}"):  # fmt: skip
        page = client.get(path)
        assert page.status_code == 200, path
        assert token not in page.text, path
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert "<script>" not in page.text and " style=" not in page.text, path


def test_dashboard_incident_list_says_when_it_shows_only_the_newest(
    fleet: Fleet, replica: Replica
) -> None:
    for node in ("n1", "n2"):
        fault(fleet, replica, node)
    client = browser(replica, fleet.tokens.operator)
    newest = client.get("/ui/incidents?limit=1").text
    assert "The newest 1 incidents" in newest and 'href="/ui/nodes/n2"' in newest
    assert 'href="/ui/nodes/n1"' not in newest
    every = client.get("/ui/incidents?limit=1&state=open").text  # every open one, unlimited
    assert 'href="/ui/nodes/n1"' in every and 'href="/ui/nodes/n2"' in every
    assert "The newest" not in every
    assert "The newest" not in client.get("/ui/incidents").text  # two, under the page's 500
    # the link to a longer list keeps the filters the page was narrowed by
    narrowed = client.get("/ui/incidents?limit=1&node=n2&cause=hardware").text
    assert 'href="/ui/incidents?limit=10&amp;cause=hardware&amp;node=n2"' in narrowed


def test_dashboard_refuses_a_bad_token_and_a_caller_without_the_viewer_role(
    fleet: Fleet, replica: Replica
) -> None:
    client = TestClient(replica.client.app, base_url=ORIGIN)
    assert client.post("/ui/login", content="token=nope", headers=FORM).status_code == 401
    agent = fleet.tokens.agent("n1")
    answer = client.post("/ui/login", content=f"token={agent}", headers=FORM)
    assert answer.status_code == 403 and "viewer role" in answer.text
    for _ in range(9):  # ten failed sign-ins a minute from one address, then a pause
        assert client.post("/ui/login", content="token=guess", headers=FORM).status_code == 401
    paused = client.post("/ui/login", content=f"token={fleet.tokens.operator}", headers=FORM)
    assert paused.status_code == 429 and int(paused.headers["retry-after"]) >= 1
    fleet.clock.advance(61)
    foreign = {**FORM, "Origin": "http://evil.example"}
    login = client.post("/ui/login", content=f"token={fleet.tokens.operator}", headers=foreign)
    assert login.status_code == 403 and COOKIE not in login.headers.get("set-cookie", "")


def test_dashboard_fleet_colours_a_quarantined_node_and_counts_states(tmp_path: Path) -> None:
    racks = {"n1": "r1", "n2": "r1", "n3": "r2"}
    topology = Topology.from_labels({n: {"rack": r} for n, r in racks.items()})
    fleet = Fleet(clock=(clock := FakeClock()),
                  cluster=replace(fake_cluster(clock), topology=topology, cliques=None))  # fmt: skip
    replica = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a")
    replica.step()
    client = browser(replica, fleet.tokens.operator)
    assert 'data-count="healthy">3<' in client.get("/ui/fleet").text  # the grid is kept ...
    fault(fleet, replica, "n2")
    time.sleep(PERIOD_S + 0.05)  # ... until the store's version is looked at again
    page = client.get("/ui/fleet").text
    cell = re.compile(r'<i class="(\w)[^"]*" title="([^"]+)"></i>')
    by_node = {node: letter for letter, node in cell.findall(page)}
    state = replica.client.get("/api/v1/nodes/n2").json()["state"]
    assert by_node == {"n1": "h", "n2": LETTER[NodeState(state)], "n3": "h"} and state != "healthy"
    assert f'data-count="{state}">1<' in page and 'data-count="healthy">2<' in page
    groups = re.findall(r"<h3>([^<]+) <small>(\d+)</small>", page)
    assert groups == [("rack:r1", "2"), ("rack:r2", "1")]
    assert re.findall(r'title="([^"]+)"></i>', client.get(f"/ui/fleet?state={state}").text) == [
        "n2"
    ]
    assert re.findall(r'title="([^"]+)"></i>', client.get("/ui/fleet?signal=xid.79").text) == ["n2"]
    assert re.findall(r'title="([^"]+)"></i>', client.get("/ui/fleet?domain=rack:r2").text) == [
        "n3"
    ]


def test_dashboard_release_is_recorded_as_the_api_records_it(
    fleet: Fleet, replica: Replica
) -> None:
    fault(fleet, replica, "n1")
    client = browser(replica, fleet.tokens.operator)
    page = client.get("/ui/nodes/n1").text
    assert 'data-action="release"' in page
    body = f"csrf={csrf(page)}&action=release&target=n1&back=nodes%2Fn1&why=cable+reseated"
    answer = client.post("/ui/act", content=body, headers=FORM, follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/ui/nodes/n1"
    via_api = replica.client.post("/api/v1/nodes/n1/release", json={"why": "by the API"})
    audit = replica.client.get("/api/v1/audit", params={"target": "n1"}).json()
    ui, api = (next(r for r in audit if r["why"] == w) for w in ("cable reseated", "by the API"))
    assert ui["kind"] == api["kind"] == "release" and ui["target"] == api["target"] == "n1"
    assert ui["by"] == api["by"] == "token:rig-operator"
    assert ui["source"] == api["source"] and ui["status"] == "pending"
    assert via_api.status_code == 202
    assert "release n1 recorded: pending" in client.get("/ui/nodes/n1").text  # the notice
    fleet.advance(1, replica)  # the leader's pass acts on the release
    assert replica.client.get("/api/v1/nodes/n1").json()["state"] == "healthy"


def test_dashboard_viewer_sees_no_buttons_no_evidence_and_is_refused_when_posting(
    fleet: Fleet, replica: Replica
) -> None:
    fault(fleet, replica, "n1")
    viewer = browser(replica, fleet.tokens.add("grafana", Role.VIEWER))
    node = viewer.get("/ui/nodes/n1").text
    incident = replica.client.get("/api/v1/incidents").json()[0]["id"]
    detail = viewer.get(f"/ui/incidents/{quote(incident)}").text
    fleet_page = viewer.get("/ui/fleet").text
    for page in (node, detail, fleet_page):
        assert 'class="act"' not in page
    assert "fallen off the bus" not in node + detail and "Evidence withheld" in detail
    body = f"csrf={csrf(node)}&action=release&target=n1&back=fleet&why=sneaky"
    answer = viewer.post("/ui/act", content=body, headers=FORM)
    assert answer.status_code == 403 and "operator role" in answer.text
    assert not [r for r in replica.client.get("/api/v1/audit").json() if r["why"] == "sneaky"]
    evidence = browser(replica, fleet.tokens.add("oncall", Role.EVIDENCE))
    lines = evidence.get(f"/ui/incidents/{quote(incident)}").text
    assert re.search(r'<li><a href="/ui/nodes/n1">n1</a> <code>[^<]*fallen off the bus', lines)


def test_dashboard_refuses_a_post_without_the_session_csrf_token_or_from_elsewhere(
    fleet: Fleet, replica: Replica
) -> None:
    client = browser(replica, fleet.tokens.operator)
    token = csrf(client.get("/ui/fleet").text)
    body = "action=pause_acting&target=&back=fleet&why=x"
    assert client.post("/ui/act", content=body, headers=FORM).status_code == 403
    wrong = client.post("/ui/act", content=f"csrf=A{token}&{body}", headers=FORM)
    assert wrong.status_code == 403
    other = {**FORM, "Origin": "http://evil.example"}
    assert client.post("/ui/act", content=f"csrf={token}&{body}", headers=other).status_code == 403
    no_origin = {"Content-Type": FORM["Content-Type"]}
    assert (
        client.post("/ui/act", content=f"csrf={token}&{body}", headers=no_origin).status_code == 403
    )
    referer = {"Content-Type": FORM["Content-Type"], "Referer": "http://evil.example/ui/fleet"}
    assert (
        client.post("/ui/act", content=f"csrf={token}&{body}", headers=referer).status_code == 403
    )
    assert replica.client.get("/api/v1/acting").json()["paused"] is False
    behind_tls = {**FORM, "Origin": "https://testserver"}  # a proxy ended TLS in front
    ok = client.post("/ui/act", content=f"csrf={token}&{body}", headers=behind_tls,
                     follow_redirects=False)  # fmt: skip
    assert ok.status_code == 303 and replica.client.get("/api/v1/acting").json()["paused"] is True
    body = "action=resume_acting&target=&back=fleet&why=x"
    ok = client.post(
        "/ui/act", content=f"csrf={token}&{body}", headers=FORM, follow_redirects=False
    )
    assert ok.status_code == 303 and replica.client.get("/api/v1/acting").json()["paused"] is False


def test_dashboard_session_ends_when_its_token_is_gone(fleet: Fleet, replica: Replica) -> None:
    token = fleet.tokens.add("temp", Role.VIEWER)
    client = browser(replica, token)
    assert client.get("/ui/fleet").status_code == 200
    fleet.tokens._entries.pop(token)  # the tokens file no longer has it
    fleet.tokens._table = None
    assert client.get("/ui/fleet", follow_redirects=False).headers["location"] == "/ui/login"


def test_dashboard_jobs_and_a_job_incident_with_its_breakdown(fleet: Fleet, tmp_path: Path) -> None:
    db = tmp_path / "engine.db"
    store, job_store = SqliteStore(db), SqliteJobStore(db)
    nodes = ["n0", "n1", "n2", "n3"]
    jobs = FakeJobScheduler(fleet.clock, nodes)
    wiring = JobsWiring(job_store, job_store, lambda: JobRecoveryController(
        job_store, jobs, job_store, fleet.clock, JobPolicy(), builtin_catalog(),
        notifier=FakeNotifier()))  # fmt: skip
    assert fleet.cluster is not None
    engine = build_engine(store, fleet.clock, fleet.cluster, roomy(), SETTINGS, replica="a",
                          jobs=wiring, background=False, owns_store=False)  # fmt: skip
    api = RigClient(fleet.app(engine), fleet.tokens)
    jobs.submit("train", nodes)
    engine.step()
    api.post("/api/v1/signals", json=document("n2", xid79("n2", fleet.clock), clock=fleet.clock))
    fleet.advance(1, engine)
    jobs.write("train", "n2", "RuntimeError: CUDA error: unspecified launch failure\n")
    jobs.fail("train", {n: (1 if n == "n2" else 143) for n in nodes})
    fleet.advance(10, engine)
    fleet.advance(1, engine)
    job_incident = next(i for i in api.get("/api/v1/incidents").json() if i["source"] == "jobs")
    client = browser(Replica(engine, api), fleet.tokens.operator)
    page = client.get("/ui/jobs").text
    assert ">train<" in page and 'href="/ui/nodes/n2"' in page  # n2 excluded
    assert "infrastructure 1 of 10, user 0 of 2" in page  # a hardware cause: not the user's
    detail = client.get(f"/ui/incidents/{quote(job_incident['id'])}").text
    assert "Recovery-time breakdown" in detail and "<rect" in detail and "detect" in detail
    listed = client.get("/ui/incidents?job=train").text
    assert quote(job_incident["id"]) in listed and "hw/" not in listed


def test_dashboard_form_parsing_and_return_paths() -> None:
    assert parse_form(b"why=a+b%2Fc&why=second&x=%E2%9C%93") == {"why": "a b/c", "x": "✓"}
    with pytest.raises(FormError):
        parse_form(b"why=%00")
    with pytest.raises(FormError):
        parse_form(b"x=%FF")
    assert quote("train#1/failure") == "train%231%2Ffailure"
    assert _back("nodes/n1") == "/ui/nodes/n1"
    for evil in ("//evil.example", "https://evil.example", "/api/v1", "../x", ""):
        assert _back(evil) == "/ui/fleet"


def test_dashboard_feed_moves_on_a_transition_and_is_looked_up_once_a_period(
    fleet: Fleet, replica: Replica
) -> None:
    ticks = [0.0]
    feed = Feed(replica.engine, period_s=0.25, monotonic=lambda: ticks[0])
    before, at = feed.version()
    fault(fleet, replica, "n1")
    assert feed.version() == (before, at) and feed.lookups == 1  # within the period: cached
    ticks[0] = 0.3
    after, moved_at = feed.version()
    assert after != before and moved_at > at and feed.lookups == 2
    state = replica.client.get("/api/v1/nodes/n1").json()["state"]
    assert feed.moves(at, moved_at) == {"n1": LETTER[NodeState(state)]}


def test_dashboard_stream_says_hello_then_sends_a_change_with_the_moved_cells(
    fleet: Fleet, replica: Replica
) -> None:
    ticks = [0.0]
    feed = Feed(replica.engine, period_s=0.0, monotonic=lambda: ticks[0])
    rounds = [0]

    async def gone() -> bool:
        rounds[0] += 1
        if rounds[0] == 1:
            fault(fleet, replica, "n2")  # recorded between two looks
        return rounds[0] >= 2

    async def read() -> list[bytes]:
        return [chunk async for chunk in stream(feed, None, gone, lifetime_s=30)]

    chunks = anyio.run(read)
    assert chunks[0].startswith(b"retry: ") and b"event: hello" in chunks[1]
    change = chunks[2].decode()
    assert "event: change" in change
    data = json.loads(change.split("data: ", 1)[1])
    assert list(data["nodes"]) == ["n2"] and data["nodes"]["n2"] != "h"


def test_dashboard_out_of_service_history_counts_leaving_and_returning(
    fleet: Fleet, replica: Replica
) -> None:
    history = OutOfService(replica.engine.store, window=timedelta(hours=1))
    start = fleet.clock.now()
    fault(fleet, replica, "n1")
    fault(fleet, replica, "n2")
    history.update(fleet.clock.now())
    assert history.slices(fleet.clock.now(), 4)[-1] == 2
    replica.client.post("/api/v1/nodes/n1/release", json={"why": "test"})
    fleet.advance(1, replica)
    assert replica.client.get("/api/v1/nodes/n1").json()["state"] == "healthy"
    fleet.advance(30 * 60, replica)  # half the window later
    now = fleet.clock.now()
    history.update(now)
    slices = history.slices(now, 4)
    assert slices[1] == 2 and slices[-1] == 1, slices  # both out then; n2 alone now
    assert history.slices(start + timedelta(hours=3), 4) == [1, 1, 1, 1]  # all before: level
    client = browser(replica, fleet.tokens.operator)
    assert "most at once: 2" in client.get("/ui/fleet").text


def test_dashboard_feed_moves_on_a_job_incident_without_any_node_transition(
    fleet: Fleet, tmp_path: Path
) -> None:
    db = tmp_path / "engine.db"
    store, job_store = SqliteStore(db), SqliteJobStore(db)
    jobs = FakeJobScheduler(fleet.clock, ["n0", "n1"])
    wiring = JobsWiring(job_store, job_store, lambda: JobRecoveryController(
        job_store, jobs, job_store, fleet.clock, JobPolicy(), builtin_catalog(),
        notifier=FakeNotifier()))  # fmt: skip
    assert fleet.cluster is not None
    engine = build_engine(store, fleet.clock, fleet.cluster, roomy(), SETTINGS, replica="a",
                          jobs=wiring, background=False, owns_store=False)  # fmt: skip
    jobs.submit("train", ["n0", "n1"])
    engine.step()
    feed = Feed(engine, period_s=0.0)
    before, at = feed.version()
    jobs.write(
        "train", "n0", "Traceback (most recent call last):\nZeroDivisionError: division by zero\n"
    )
    jobs.fail("train", {"n0": 1, "n1": 143})
    fleet.advance(10, engine)  # job recovery's pass opens the incident and acts on it
    assert [i.source for i in engine.jobs.incidents()] and not store.transitions()
    after, moved_at = feed.version()
    assert after != before and moved_at == at  # seen, though no node moved
