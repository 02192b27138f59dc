"""Who may call what (docs/security.md): forged signals, agents and their nodes, viewers and
evidence, operator-only changes, routes added later, the open paths, the insecure mode."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi import Request

from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.cli.engine import serve_cmd
from autorecover.server.auth import (
    ANONYMOUS,
    DEFAULT_ROLE,
    TABLE,
    Auth,
    Caller,
    certificate_node,
    redact_evidence,
    required_role,
)
from autorecover.server.serving import check_listen
from autorecover.server.tokens import Role
from server.support import Fleet, Replica, document, xid79

SIGNALS = "/api/v1/signals"


@pytest.fixture
def fleet() -> Fleet:
    return Fleet()


@pytest.fixture
def replica(fleet: Fleet, tmp_path: Path) -> Replica:
    r = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a")
    r.step()
    return r


def quarantined(fleet: Fleet, replica: Replica, node: str = "n1") -> None:
    """One node quarantined by a real fault, posted by its own agent."""
    answer = replica.client.post(SIGNALS, json=document(node, xid79(node, fleet.clock),
                                                        clock=fleet.clock))  # fmt: skip
    assert answer.status_code == 202, answer.text
    fleet.advance(1, replica)


def untouched(fleet: Fleet, replica: Replica) -> None:
    """Nothing was recorded and no node was touched, even after the engine's passes."""
    assert replica.engine.store.waiting() == 0
    fleet.advance(10, replica)
    assert replica.engine.store.node_views() == []
    assert replica.engine.store.recent_actions(100) == []


# --- forged signals --------------------------------------------------------------------------


def test_security_a_forged_signal_without_a_token_is_401_and_touches_nothing(
    fleet: Fleet, replica: Replica
) -> None:
    nobody = fleet.client(replica, None)
    answer = nobody.post(SIGNALS, json=document("n1", xid79("n1", fleet.clock), clock=fleet.clock))
    assert answer.status_code == 401
    assert answer.headers["WWW-Authenticate"].startswith("Bearer")
    # An empty batch (a heartbeat) cannot make a node record appear either.
    assert nobody.post(SIGNALS, json=document("n9", clock=fleet.clock)).status_code == 401
    untouched(fleet, replica)


def test_security_a_bad_token_or_scheme_is_401(fleet: Fleet, replica: Replica) -> None:
    body = document("n1", xid79("n1", fleet.clock), clock=fleet.clock)
    bad = fleet.client(replica, "rig-rig-operator-0x").post(SIGNALS, json=body)
    assert bad.status_code == 401 and 'error="invalid_token"' in bad.headers["WWW-Authenticate"]
    basic = replica.client.post(SIGNALS, json=body, headers={"Authorization": "Basic YTpi"})
    assert basic.status_code == 401
    assert 'error="invalid_request"' in basic.headers["WWW-Authenticate"]
    two = fleet.client(replica, None).post(
        SIGNALS, json=body,
        headers=[("Authorization", f"Bearer {fleet.tokens.agent('n1')}"),
                 ("Authorization", "Bearer x")],
    )  # fmt: skip
    assert two.status_code == 401
    untouched(fleet, replica)


def test_security_an_agent_reports_only_for_its_own_node(fleet: Fleet, replica: Replica) -> None:
    n1 = fleet.client(replica, fleet.tokens.agent("n1"))
    forged = n1.post(SIGNALS, json=document("n2", xid79("n2", fleet.clock), clock=fleet.clock))
    assert forged.status_code == 403
    assert "token:agent-n1 may not report for n2" in forged.json()["detail"]
    # Its own batch carrying a signal about another node is refused as a whole.
    smuggled = document("n1", xid79("n1", fleet.clock), xid79("n2", fleet.clock), clock=fleet.clock)
    assert n1.post(SIGNALS, json=smuggled).status_code == 403
    untouched(fleet, replica)
    assert n1.post(SIGNALS, json=document("n1", clock=fleet.clock)).status_code == 202


def test_security_an_agents_malformed_batch_is_still_a_422(fleet: Fleet, replica: Replica) -> None:
    """Authorization comes first, then the intake's validation names the field."""
    agent = fleet.client(replica, fleet.tokens.agent("n1"))
    broken = agent.post(SIGNALS, content=b"{not json", headers={"Content-Type": "application/json"})
    assert broken.status_code == 422
    no_node = agent.post(SIGNALS, json={"signals": []})
    assert no_node.status_code == 422 and no_node.json()["detail"][0]["loc"] == ["body", "node"]
    assert replica.client.post(SIGNALS, content=b"[]").status_code == 422  # the rig's agent
    untouched(fleet, replica)


@pytest.mark.parametrize("role", [Role.OPERATOR, Role.VIEWER, Role.EVIDENCE])
def test_security_only_agents_post_signals(fleet: Fleet, replica: Replica, role: Role) -> None:
    client = fleet.client(replica, fleet.tokens.add(f"someone-{role}", role))
    answer = client.post(SIGNALS, json=document("n1", xid79("n1", fleet.clock), clock=fleet.clock))
    assert answer.status_code == 403 and "needs the agent role" in answer.json()["detail"]
    untouched(fleet, replica)


# --- reading -----------------------------------------------------------------------------------


def test_security_a_viewer_reads_states_but_not_evidence(fleet: Fleet, replica: Replica) -> None:
    quarantined(fleet, replica)
    viewer = fleet.client(replica, fleet.tokens.add("dashboard", Role.VIEWER))
    [node] = viewer.get("/api/v1/nodes").json()
    assert node["state"] == "quarantined" and node["evidence"] == []
    actions = viewer.get("/api/v1/actions").json()
    assert actions and all(a["evidence"] == [] for a in actions)
    [incident] = viewer.get("/api/v1/incidents").json()
    for path in ("/api/v1/nodes/n1", f"/api/v1/incidents/{incident['id']}"):
        refused = viewer.get(path)
        assert refused.status_code == 403, path
        assert "needs the evidence role" in refused.json()["detail"]
        assert "token:dashboard has viewer" in refused.json()["detail"]
    assert viewer.get("/metrics").status_code == 200
    # The evidence role reads what a viewer may not; the operator's client sees it all.
    reader = fleet.client(replica, fleet.tokens.add("sre", Role.EVIDENCE))
    detail = reader.get("/api/v1/nodes/n1").json()
    assert detail["evidence"] and any("Xid" in s["text"] for s in detail["signals"])
    assert any("Xid" in line for line in reader.get(f"/api/v1/incidents/{incident['id']}")
               .json()["evidence"])  # fmt: skip
    assert replica.client.get("/api/v1/nodes").json()[0]["evidence"]


def test_security_agents_and_strangers_read_nothing(fleet: Fleet, replica: Replica) -> None:
    quarantined(fleet, replica)
    agent = fleet.client(replica, fleet.tokens.agent("n1"))
    for path in ("/api/v1/nodes", "/api/v1/incidents", "/metrics", "/api/v1/policies"):
        answer = agent.get(path)
        assert answer.status_code == 403 and "needs the viewer role" in answer.json()["detail"]
        assert fleet.client(replica, None).get(path).status_code == 401


def test_security_health_and_the_api_document_are_open(fleet: Fleet, replica: Replica) -> None:
    nobody = fleet.client(replica, None)
    for path in ("/healthz", "/readyz", "/openapi.json"):
        assert nobody.get(path).status_code == 200, path
    document_ = nobody.get("/openapi.json").json()
    assert document_["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    post = document_["paths"][SIGNALS]["post"]
    assert post["security"] == [{"bearer": []}] and {"401", "403"} <= set(post["responses"])
    assert "agent" in post["description"]
    assert "security" not in document_["paths"]["/healthz"]["get"]


# --- changes: operator only, routes added later covered ---------------------------------------


def test_security_every_other_change_under_the_api_is_the_operators(
    fleet: Fleet, replica: Replica
) -> None:
    app = replica.client.app

    @app.post("/api/v1/test-only/later")  # type: ignore[attr-defined,untyped-decorator]
    def reset(request: Request) -> dict[str, Any]:
        return {"by": request.state.caller}

    @app.get("/api/v1/whoami")  # type: ignore[attr-defined,untyped-decorator]
    def whoami(request: Request) -> dict[str, Any]:
        return {"caller": request.state.caller}

    for who in (fleet.tokens.add("dashboard", Role.VIEWER), fleet.tokens.agent("n1"),
                fleet.tokens.add("sre", Role.EVIDENCE, Role.VIEWER)):  # fmt: skip
        client = fleet.client(replica, who)
        for method in ("POST", "PUT", "DELETE", "PATCH"):
            refused = client.request(method, "/api/v1/test-only/later", json={"why": "x"})
            assert refused.status_code == 403, (who, method)
            assert "needs the operator role" in refused.json()["detail"]
    assert fleet.client(replica, None).post("/api/v1/test-only/later").status_code == 401
    done = replica.client.post("/api/v1/test-only/later", json={"why": "fixed the PDU"})
    assert done.status_code == 200 and done.json() == {"by": "token:rig-operator"}
    viewer = fleet.client(replica, fleet.tokens.add("grafana", Role.VIEWER))
    assert viewer.get("/api/v1/whoami").json() == {"caller": "token:grafana"}


def test_security_the_table_decides_by_method_and_path() -> None:
    assert required_role("GET", "/healthz") is None
    assert required_role("POST", "/healthz") is Role.OPERATOR
    assert required_role("GET", "/metrics") is Role.VIEWER
    assert required_role("HEAD", "/api/v1/nodes") is Role.VIEWER
    assert required_role("GET", "/api/v1/nodes/n1") is Role.EVIDENCE
    assert required_role("GET", "/api/v1/incidents/hw/n1/1") is Role.EVIDENCE
    assert required_role("GET", "/api/v1/incidents/") is Role.EVIDENCE  # the folder itself
    assert required_role("POST", "/api/v1/signals") is Role.AGENT
    assert required_role("PUT", "/api/v1/signals") is Role.OPERATOR
    assert required_role("DELETE", "/api/v1/maintenance/rack-1") is Role.OPERATOR
    assert required_role("GET", "/api/v1/dead-letters") is Role.EVIDENCE  # bodies hold log text
    assert required_role("POST", "/api/v1/dead-letters/7/retry") is Role.OPERATOR
    assert required_role("GET", "/somewhere/else") is Role.OPERATOR  # unknown: deny by default
    assert TABLE[-1].role is Role.OPERATOR and not TABLE[-1].methods


def test_security_roles_include_lesser_ones() -> None:
    operator = Caller("token:o", frozenset({Role.OPERATOR}))
    assert all(operator.holds(r) for r in (Role.VIEWER, Role.EVIDENCE, Role.OPERATOR))
    assert not operator.holds(Role.AGENT) and not operator.may_report("n1")
    evidence = Caller("token:e", frozenset({Role.EVIDENCE}))
    assert evidence.holds(Role.VIEWER) and not evidence.holds(Role.OPERATOR)
    agent = Caller("token:a", frozenset({Role.AGENT}), "n1")
    assert agent.may_report("n1") and not agent.may_report("n2") and not agent.holds(Role.VIEWER)
    assert not Caller("sa", frozenset({Role.AGENT}), None).may_report("n1")
    assert ANONYMOUS.may_report("anything")


def test_security_redaction_empties_evidence_and_signal_text() -> None:
    doc = {"name": "n1", "evidence": ["NVRM: Xid 79"], "reason": "quarantine: xid.79",
           "signals": [{"probe": "kernel", "signal": "xid.79", "text": "NVRM...",
                        "details": [["a", "b"]]}],
           "timeline": [{"what": "transition", "text": "healthy -> suspect"}]}  # fmt: skip
    out = redact_evidence(doc)
    assert out["evidence"] == [] and out["reason"] == "quarantine: xid.79"
    assert out["signals"] == [{"probe": "kernel", "signal": "xid.79", "text": "", "details": []}]
    assert out["timeline"] == doc["timeline"]


def test_security_a_client_certificate_names_one_node() -> None:
    assert certificate_node("CN=gpu-01,O=autorecover-agents") == "gpu-01"
    assert certificate_node("O=x") is None
    assert certificate_node("CN=a,CN=b") is None
    assert certificate_node("CN=gpu\\,01") is None  # not a node name
    assert certificate_node("CN=../etc") is None


# --- the insecure mode -----------------------------------------------------------------------


def test_security_insecure_mode_is_loopback_only(fleet: Fleet, tmp_path: Path) -> None:
    check_listen("127.0.0.1", Auth.disabled())
    check_listen("::1", Auth.disabled())
    for host in ("0.0.0.0", "::", "10.0.0.5", "localhost", "engine.example"):
        with pytest.raises(ValueError, match="loopback"):
            check_listen(host, Auth.disabled())
    check_listen("0.0.0.0", fleet.tokens.auth())
    runner = CliRunner()
    db = f"sqlite:///{tmp_path / 'e.db'}"
    wide = runner.invoke(
        serve_cmd, ["--store", db, "--insecure-no-auth", "--listen", "0.0.0.0:8080"]
    )
    assert wide.exit_code == 1 and "loopback" in wide.output
    nothing = runner.invoke(serve_cmd, ["--store", db, "--listen", "127.0.0.1:8080"])
    assert nothing.exit_code == 1 and "credential source" in nothing.output
    assert not (tmp_path / "e.db").exists()  # refused before the store was opened


def test_security_insecure_mode_is_anonymous_with_every_role(fleet: Fleet, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from autorecover.server.app import create_app

    replica = fleet.replica(SqliteStore(tmp_path / "engine.db"), "a")
    client = TestClient(create_app(replica.engine, auth=Auth.disabled()))
    assert client.post(SIGNALS, json=document("n7", clock=fleet.clock)).status_code == 202
    # The intake still refuses a batch whose signals name another node.
    mixed = document("n1", xid79("n2", fleet.clock), clock=fleet.clock)
    answer = client.post(SIGNALS, json=mixed)
    assert answer.status_code == 422 and answer.json()["detail"][0]["loc"][-1] == "node"
    assert client.get("/api/v1/nodes").status_code == 200


def test_security_docs_show_the_table_as_it_is() -> None:
    """docs/security.md's table of who needs what is this module's TABLE, row for row."""
    doc = (Path(__file__).parents[2] / "docs" / "security.md").read_text()
    groups: list[tuple[str, list[str], str]] = []
    for rule in TABLE:
        methods = "any other" if not rule.methods else ", ".join(sorted(rule.methods, key=len))
        role = rule.role.value if rule.role else "nothing"
        if groups and groups[-1][0] == methods and groups[-1][2] == role:
            groups[-1][1].append(rule.path)
        else:
            groups.append((methods, [rule.path], role))
    rows = [f"| {m} | {', '.join(f'`{p}`' for p in paths)} | {role}" for m, paths, role in groups]
    rows.append(f"| any | anything else | {DEFAULT_ROLE.value}")
    for row in rows:
        assert row in doc, row


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        (b"text/plain", b"NVRM: Xid 79 on n1"),
        (b"application/json", b"{not json: NVRM"),
        (b"", b"x"),
    ],
)
def test_security_redaction_fails_closed_on_what_is_not_json(
    content_type: bytes, body: bytes
) -> None:
    import anyio

    from autorecover.server.guarding import WITHHELD, _redacting

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(dict(message))

    async def respond() -> None:
        redacting = _redacting(send)
        headers = [(b"content-type", content_type)] if content_type else []
        await redacting({"type": "http.response.start", "status": 200, "headers": headers})
        await redacting({"type": "http.response.body", "body": body[:4], "more_body": True})
        await redacting({"type": "http.response.body", "body": body[4:]})

    anyio.run(respond)
    start, out = sent
    assert start["status"] == 500 and json.loads(out["body"]) == {"detail": WITHHELD}
    assert b"NVRM" not in out["body"]
    assert (b"content-length", str(len(out["body"])).encode()) in start["headers"]
