"""The TokenReview adapter's pure parts: the cache never outlives a token (its `exp`).
Reviews themselves run on the real API server (tests/integration/kubernetes/)."""

from __future__ import annotations

import base64
import json

from autorecover.adapters.kubernetes.tokenreview import ReviewedUser, _expires_in


def jwt(claims: dict[str, object]) -> str:
    body = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return f"eyJhbGciOiJSUzI1NiJ9.{body}.c2ln"


def test_security_the_review_cache_ends_with_the_token() -> None:
    assert _expires_in(jwt({"exp": 1_000_600}), now=1_000_000.0) == 600.0
    assert _expires_in(jwt({"exp": 999_000}), now=1_000_000.0) == -1000.0
    assert _expires_in(jwt({"sub": "x"}), now=0.0) is None
    assert _expires_in("not-a-jwt", now=0.0) is None
    assert _expires_in("a.!!!.c", now=0.0) is None


def test_security_a_service_account_is_read_from_its_username() -> None:
    assert ReviewedUser("system:serviceaccount:ns:agent").service_account == ("ns", "agent")
    assert ReviewedUser("system:serviceaccount:ns").service_account is None
    assert ReviewedUser("alice").service_account is None
    assert ReviewedUser("u", extra={"k": ("a", "b")}).first("k") == "a"
    assert ReviewedUser("u").first("k") is None
