"""TLS and mutual TLS on the real listener (uvicorn), with certificates made by `openssl`
(`autorecover.testing.kubernetes.pki`): the happy paths and the refused ones."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import uvicorn

from autorecover.adapters.http.credentials import ClientCredentials
from autorecover.adapters.http.engine_api import EngineApi, EngineApiError
from autorecover.adapters.http.engine_client import EngineClient, EngineError
from autorecover.adapters.store.sqlite import SqliteStore
from autorecover.server.serving import ServerTls, TlsFiles, rfc4514, server_config
from autorecover.server.tokens import Role
from autorecover.testing.kubernetes.pki import TestPki
from server.support import Fleet, document, free_port, xid79


@dataclass
class Served:
    url: str
    fleet: Fleet
    pki: TestPki  # the CA that signs the server's certificate and agents' client certificates
    stranger: TestPki  # another CA: its certificates must not be accepted


@pytest.fixture(scope="module")
def pkis(tmp_path_factory: pytest.TempPathFactory) -> tuple[TestPki, TestPki]:
    ours, stranger = (TestPki(tmp_path_factory.mktemp(n)) for n in ("pki", "stranger"))
    ours.create()
    stranger.create()
    return ours, stranger


def serve_tls(tls: TlsFiles, fleet: Fleet, tmp: Path) -> Iterator[str]:
    replica = fleet.replica(SqliteStore(tmp / "engine.db"), "a")
    replica.step()
    port = free_port()
    config = server_config(replica.engine, "127.0.0.1", port, "warning",
                           auth=fleet.tokens.auth(client_certs=True), tls=tls,
                           lifespan="off")  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.01)
    yield f"https://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture
def served(pkis: tuple[TestPki, TestPki], tmp_path: Path) -> Iterator[Served]:
    """HTTPS with client certificates from our CA (mutual TLS for agents)."""
    ours, stranger = pkis
    fleet = Fleet()
    tls = TlsFiles(ours.path("apiserver.crt"), ours.path("apiserver.key"), ours.path("ca.crt"))
    for url in serve_tls(tls, fleet, tmp_path):
        yield Served(url, fleet, ours, stranger)


def agent_cert(pki: TestPki, node: str) -> ClientCredentials:
    cert, key = pki.user(node, ["autorecover-agents"])
    return ClientCredentials(ca_file=pki.path("ca.crt"), cert_file=cert, key_file=key)


def test_security_https_with_a_token_and_the_ca(served: Served) -> None:
    ca = served.pki.path("ca.crt")
    api = EngineApi(served.url, credentials=ClientCredentials(token=served.fleet.tokens.operator,
                                                             ca_file=ca))  # fmt: skip
    assert api.get("/api/v1/nodes") == []
    assert api.get("/healthz")["status"] == "ok"
    # A token alone is not enough to trust a server we cannot verify ...
    untrusted = EngineApi(served.url, credentials=ClientCredentials(token="x"))
    with pytest.raises(EngineApiError, match="CERTIFICATE_VERIFY_FAILED"):
        untrusted.get("/healthz")
    # ... and the listener speaks nothing but TLS.
    with pytest.raises(EngineApiError, match="unreachable"):
        EngineApi(served.url.replace("https", "http")).get("/healthz")
    nobody = EngineApi(served.url, credentials=ClientCredentials(ca_file=ca))
    with pytest.raises(EngineApiError, match="401"):
        nobody.get("/api/v1/nodes")


def test_security_mtls_a_certificate_is_its_nodes_agent(served: Served) -> None:
    fleet = served.fleet
    n1 = EngineClient(served.url, credentials=agent_cert(served.pki, "n1"))
    n1.post(document("n1", xid79("n1", fleet.clock), clock=fleet.clock))  # 202: no error
    with pytest.raises(EngineError, match="403") as refused:
        n1.post(document("n2", xid79("n2", fleet.clock), clock=fleet.clock))
    assert refused.value.status == 403 and not refused.value.transient
    assert "cert:n1 may not report for n2" in str(refused.value)
    # An agent's certificate reads nothing.
    reader = EngineApi(served.url, credentials=agent_cert(served.pki, "n1"))
    with pytest.raises(EngineApiError, match="403"):
        reader.get("/api/v1/nodes")
    # A bearer token, when given, is who the caller is (the certificate only opens TLS).
    viewer = fleet.tokens.add("grafana", Role.VIEWER)
    both = agent_cert(served.pki, "n1")
    with_token = ClientCredentials(token=viewer, ca_file=both.ca_file, cert_file=both.cert_file,
                                   key_file=both.key_file)  # fmt: skip
    assert EngineApi(served.url, credentials=with_token).get("/api/v1/nodes") == []


def test_security_mtls_a_strangers_certificate_is_refused(served: Served) -> None:
    fleet = served.fleet
    stranger = agent_cert(served.stranger, "n1")
    forged = ClientCredentials(ca_file=served.pki.path("ca.crt"), cert_file=stranger.cert_file,
                               key_file=stranger.key_file)  # fmt: skip
    with pytest.raises(EngineError) as refused:
        EngineClient(served.url, credentials=forged).post(
            document("n1", xid79("n1", fleet.clock), clock=fleet.clock)
        )
    assert refused.value.status is None  # the handshake failed: no HTTP answer at all
    # Without a certificate or a token: 401 (and a 401 is retried: tokens rotate).
    with pytest.raises(EngineError, match="401") as anonymous:
        EngineClient(served.url, credentials=ClientCredentials(ca_file=served.pki.path("ca.crt"))
                     ).post(document("n1", clock=fleet.clock))  # fmt: skip
    assert anonymous.value.transient


def test_security_without_a_client_ca_certificates_identify_nobody(
    pkis: tuple[TestPki, TestPki], tmp_path: Path
) -> None:
    ours, _ = pkis
    fleet = Fleet()
    tls = TlsFiles(ours.path("apiserver.crt"), ours.path("apiserver.key"))
    for url in serve_tls(tls, fleet, tmp_path):
        with pytest.raises(EngineError, match="401"):
            EngineClient(url, credentials=agent_cert(ours, "n1")).post(
                document("n1", clock=fleet.clock)
            )


def test_security_a_renewed_certificate_is_loaded_for_new_connections(
    pkis: tuple[TestPki, TestPki], tmp_path: Path
) -> None:
    ours, stranger = pkis
    cert, key = tmp_path / "tls.crt", tmp_path / "tls.key"
    cert.write_bytes(ours.path("apiserver.crt").read_bytes())
    key.write_bytes(ours.path("apiserver.key").read_bytes())
    now = [0.0]
    tls = ServerTls(TlsFiles(cert, key), monotonic=lambda: now[0])
    cert.write_bytes(stranger.path("apiserver.crt").read_bytes())
    key.write_bytes(stranger.path("apiserver.key").read_bytes())
    tls.refresh()
    assert tls.reloads == 0  # looked at most every RECHECK_S
    now[0] += 60
    tls.refresh()
    assert tls.reloads == 1
    key.write_text("not a key")  # mid-rewrite: the old pair stays
    now[0] += 60
    tls.refresh()
    assert tls.reloads == 1


def test_security_subjects_are_written_as_rfc4514() -> None:
    subject = ((("organizationName", "autorecover-agents"),), (("commonName", "gpu-01"),))
    assert rfc4514(subject) == "CN=gpu-01,O=autorecover-agents"
    assert rfc4514(((("commonName", "a,b=c"),),)) == "CN=a\\,b\\=c"
