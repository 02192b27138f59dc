"""Kubernetes names are held to the API's own rules before any request is made."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.adapters.kubernetes.names import (
    InvalidName,
    InvalidNameError,
    job_key,
    parse_job_key,
    valid_namespace,
    valid_node_name,
    valid_object_name,
)


@pytest.mark.parametrize(
    "name",
    ["gpu-node-01", "ip-10-0-3-17.ec2.internal", "a", "0", "n" * 253, "a.b.c", "x1-y2"],
)
def test_kubernetes_valid_node_and_object_names_pass(name: str) -> None:
    assert valid_node_name(name) == name
    assert valid_object_name(name) == name


@pytest.mark.parametrize(
    "name",
    ["", "GPU-node", "-gpu", "gpu-", "gpu_node", "gpu..node", ".gpu", "gpu.", "gpu/node",
     "n" * 254, "gpu node", "gpu\nnode", "ünïcode", "../etc"],
)  # fmt: skip
def test_kubernetes_invalid_node_names_name_the_value_and_the_rule(name: str) -> None:
    with pytest.raises(InvalidNameError) as err:
        valid_node_name(name)
    assert "node name" in str(err.value) and "DNS-1123 subdomain" in str(err.value)
    assert repr(name)[:40] in str(err.value)
    with pytest.raises(InvalidNameError, match="object name"):
        valid_object_name(name)


def test_kubernetes_namespaces_are_labels_not_subdomains() -> None:
    assert valid_namespace("research") == "research"
    assert valid_namespace("a" * 63) == "a" * 63
    for bad in ("a" * 64, "team.a", "Team", "", "-a", "a-"):
        with pytest.raises(InvalidNameError, match=r"namespace.*DNS-1123 label"):
            valid_namespace(bad)


def test_kubernetes_non_strings_are_invalid_not_a_crash() -> None:
    for bad in (None, 3, b"gpu"):
        with pytest.raises(InvalidNameError):
            valid_node_name(bad)  # type: ignore[arg-type]
        with pytest.raises(InvalidNameError):
            valid_namespace(bad)  # type: ignore[arg-type]


def test_kubernetes_job_key_round_trips_and_validates_its_parts() -> None:
    assert job_key("research", "llama-7b") == "research/llama-7b"
    assert parse_job_key("research/llama-7b") == ("research", "llama-7b")
    with pytest.raises(InvalidNameError, match="namespace"):
        job_key("Research", "llama-7b")
    with pytest.raises(InvalidNameError, match="object name"):
        job_key("research", "llama_7b")
    for bad in ("llama-7b", "a/b/c", "/llama", "research/", "", "team.a/x"):
        with pytest.raises(InvalidNameError):
            parse_job_key(bad)


def test_kubernetes_long_values_are_cut_short_in_messages() -> None:
    with pytest.raises(InvalidNameError) as err:
        valid_node_name("X" * 10_000)
    assert len(str(err.value)) < 400


def test_kubernetes_invalid_name_is_a_value_error_under_both_names() -> None:
    assert InvalidName is InvalidNameError and issubclass(InvalidNameError, ValueError)


_label = st.from_regex(r"[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?", fullmatch=True)


@given(st.lists(_label, min_size=1, max_size=4).map(".".join), _label)
def test_kubernetes_job_keys_of_valid_parts_parse_back(name: str, namespace: str) -> None:
    assert parse_job_key(job_key(namespace, name)) == (namespace, name)


@given(st.text(max_size=300))
def test_kubernetes_any_text_is_accepted_only_if_it_fits_the_rule(text: str) -> None:
    try:
        valid_node_name(text)
    except InvalidNameError:
        return
    assert 0 < len(text) <= 253 and text == text.lower() and text[0].isalnum()
    assert set(text) <= set("abcdefghijklmnopqrstuvwxyz0123456789-.")
