"""The operators' webhook key pair is placed once, and a torn one replaced
(testing/kubernetes/cluster.py `place_webhook_certs`)."""

from __future__ import annotations

from pathlib import Path

from autorecover.testing.kubernetes.cluster import place_webhook_certs
from autorecover.testing.kubernetes.pki import TestPki


def _pki(folder: Path) -> TestPki:
    pki = TestPki(folder)
    pki.create()
    return pki


def test_a_pair_in_place_is_kept_and_a_torn_one_replaced(tmp_path: Path) -> None:
    first, second = _pki(tmp_path / "a"), _pki(tmp_path / "b")
    into = tmp_path / "serving-certs"
    place_webhook_certs(first.path("apiserver.crt"), first.path("apiserver.key"), into)
    assert (into / "tls.crt").read_bytes() == first.path("apiserver.crt").read_bytes()

    # A second control plane leaves a running operator's pair alone.
    place_webhook_certs(second.path("apiserver.crt"), second.path("apiserver.key"), into)
    assert (into / "tls.crt").read_bytes() == first.path("apiserver.crt").read_bytes()
    assert (into / "tls.key").read_bytes() == first.path("apiserver.key").read_bytes()

    # A pair torn by an older writer (one cluster's certificate, another's key) is replaced.
    (into / "tls.key").write_bytes(second.path("apiserver.key").read_bytes())
    place_webhook_certs(second.path("apiserver.crt"), second.path("apiserver.key"), into)
    assert (into / "tls.crt").read_bytes() == second.path("apiserver.crt").read_bytes()
    assert (into / "tls.key").read_bytes() == second.path("apiserver.key").read_bytes()
    assert sorted(p.name for p in into.iterdir()) == ["tls.crt", "tls.key"]  # no leftovers
