"""Merge semantics of the knowledge catalog: operator documents override the built-in by key."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

import pytest

from autorecover.domain.catalog import (
    EMPTY,
    Catalog,
    CatalogError,
    build_catalog,
    builtin_catalog,
    builtin_documents,
    parse_document,
)
from autorecover.domain.records import Blame, NodeAction, Source

ORIGIN = "site.toml"
BUILTIN = builtin_catalog()

NEW_XID = {
    "mnemonic": "SITE_SPECIFIC",
    "blame": "hardware",
    "node_action": "inspect",
    "weight": 70,
    "immediate": "CHECK_MECHANICALS",
    "investigatory": "CONTACT_SUPPORT",
}
NEW_SIGNATURE = {
    "pattern": r"lustre: (?P<target>\S+) evicted",
    "anchors": ["lustre:"],
    "blame": "transient",
    "weight": 40,
    "description": "The Lustre client was evicted by a server.",
}


def merged(document: Mapping[str, Any], base: Catalog = BUILTIN) -> Catalog:
    return base.merged(document, ORIGIN)


def from_toml(text: str) -> Catalog:
    return merged(parse_document(text, ORIGIN))


def error_message(document: Mapping[str, Any]) -> str:
    with pytest.raises(CatalogError) as info:
        merged(document)
    return str(info.value)


# --- the built-in documents ---------------------------------------------------------------------


def test_builtin_documents_are_named_and_merge_cleanly() -> None:
    origins = [origin for origin, _ in builtin_documents()]
    assert origins[:2] == ["builtin:xids.toml", "builtin:signatures.toml"]
    assert all("version" not in doc for _, doc in builtin_documents()[2:])  # one version
    catalog = build_catalog(builtin_documents())
    assert catalog.xids == BUILTIN.xids
    assert catalog.signatures == BUILTIN.signatures
    assert BUILTIN.version == "2026.11.1"


def test_merging_onto_empty_builds_from_nothing() -> None:
    catalog = EMPTY.merged({"version": "1", "xid": {"7": NEW_XID}}, ORIGIN)
    assert set(catalog.xids) == {7}
    assert catalog.version == "1"


# --- partial overrides keep everything else -----------------------------------------------------


def test_partial_xid_override_changes_only_that_field() -> None:
    catalog = from_toml("[xid.79]\nweight = 50\n")
    before, after = BUILTIN.xids[79], catalog.xids[79]
    assert after.weight == 50
    assert dataclasses.replace(after, weight=before.weight) == before
    assert {n: e for n, e in catalog.xids.items() if n != 79} == {
        n: e for n, e in BUILTIN.xids.items() if n != 79
    }
    assert catalog.signatures == BUILTIN.signatures


def test_partial_signature_override_changes_only_that_field() -> None:
    catalog = from_toml('[signature."cuda.oom"]\nweight = 10\nnode_action = "monitor"\n')
    before, after = BUILTIN.signatures["cuda.oom"], catalog.signatures["cuda.oom"]
    assert (after.weight, after.node_action) == (10, NodeAction.MONITOR)
    assert (
        dataclasses.replace(after, weight=before.weight, node_action=before.node_action) == before
    )
    assert len(catalog.signatures) == len(BUILTIN.signatures)
    assert catalog.xids == BUILTIN.xids


def test_override_of_a_pattern_is_recompiled_and_checked() -> None:
    catalog = merged({"signature": {"cuda.oom": {"pattern": "CUDA OOM"}}})
    assert catalog.signatures["cuda.oom"].compiled().search("hit CUDA OOM here")
    assert catalog.signatures["cuda.oom"].anchors == BUILTIN.signatures["cuda.oom"].anchors


def test_list_and_table_fields_are_converted() -> None:
    catalog = merged(
        {
            "xid": {"13": {"rules": ["app_if_all_nodes", "sympathetic"]}},
            "signature": {
                "cuda.oom": {"sources": ["logs", "job"], "expect": {"x": 1}, "anchors": ["OOM"]}
            },
        }
    )
    assert catalog.xids[13].rules == frozenset({"app_if_all_nodes", "sympathetic"})
    sig = catalog.signatures["cuda.oom"]
    assert sig.sources == frozenset({Source.LOGS, Source.JOB})
    assert sig.expect == (("x", "1"),)
    assert sig.anchors == ("OOM",)


def test_later_documents_win() -> None:
    catalog = build_catalog(
        [
            *builtin_documents(),
            ("a.toml", {"xid": {"79": {"weight": 10}}}),
            ("b.toml", {"xid": {"79": {"weight": 20}}}),
        ]
    )
    assert catalog.xids[79].weight == 20


def test_version_records_every_override() -> None:
    assert merged({"version": "site.3"}).version == "2026.11.1+site.3"
    assert merged({"version": BUILTIN.version}).version == BUILTIN.version
    assert merged({}).version == BUILTIN.version


def test_merge_does_not_touch_the_base_catalog() -> None:
    merged({"xid": {"79": {"weight": 1}}, "signature": {"cuda.oom": {"enabled": False}}})
    assert BUILTIN.xids[79].weight == 100
    assert BUILTIN.signatures["cuda.oom"].enabled


# --- new keys add, enabled = false disables -----------------------------------------------------


def test_new_xid_adds_an_entry() -> None:
    catalog = merged({"xid": {"999": {**NEW_XID, "rules": ["registers"]}}})
    entry = catalog.xid(999)
    assert entry is not None
    assert (entry.blame, entry.node_action, entry.weight) == (
        Blame.HARDWARE,
        NodeAction.INSPECT,
        70,
    )
    assert entry.description == ""
    assert entry.rules == frozenset({"registers"})
    assert set(catalog.xids) == set(BUILTIN.xids) | {999}


def test_new_signature_adds_an_entry_with_defaults() -> None:
    catalog = merged({"signature": {"lustre.evicted": NEW_SIGNATURE}})
    sig = catalog.signatures["lustre.evicted"]
    assert sig.blame is Blame.TRANSIENT
    assert sig.node_action is NodeAction.NONE
    assert sig.sources == frozenset({Source.SYSTEM, Source.LOGS})
    assert sig.enabled and not sig.ignore_case
    match = sig.compiled().search("LustreError: lustre: scratch-OST0001 evicted")
    assert match is not None
    assert match["target"] == "scratch-OST0001"
    assert sig in catalog.active_signatures()


def test_disabled_xid_is_hidden_but_kept() -> None:
    catalog = from_toml("[xid.79]\nenabled = false\n")
    assert catalog.xid(79) is None
    assert catalog.xids[79].enabled is False
    assert catalog.xids[79].weight == BUILTIN.xids[79].weight
    assert catalog.xid(48) is not None


def test_disabled_signature_leaves_the_active_set() -> None:
    catalog = from_toml('[signature."python.exception"]\nenabled = false\n')
    active = {sig.key for sig in catalog.active_signatures()}
    assert "python.exception" not in active
    assert active == {key for key in BUILTIN.signatures if key != "python.exception"}
    assert "python.exception" in catalog.signatures


def test_a_later_document_can_enable_again() -> None:
    catalog = build_catalog(
        [
            *builtin_documents(),
            ("off.toml", {"xid": {"45": {"enabled": False}}}),
            ("on.toml", {"xid": {"45": {"enabled": True}}}),
        ]
    )
    assert catalog.xid(45) is not None


def test_active_signatures_are_in_key_order() -> None:
    keys = [sig.key for sig in BUILTIN.active_signatures()]
    assert keys == sorted(BUILTIN.signatures)


# --- bad input names the origin, the key and the field -------------------------------------------


@pytest.mark.parametrize(
    ("document", "fragments"),
    [
        pytest.param(
            {"xid": {"79": {"colour": "red"}}},
            ["site.toml", "[xid.79]", "unknown field 'colour'"],
            id="xid-unknown-field",
        ),
        pytest.param(
            {"signature": {"cuda.oom": {"severity": "high"}}},
            ["site.toml", '[signature."cuda.oom"]', "unknown field 'severity'"],
            id="signature-unknown-field",
        ),
        pytest.param(
            {"xid": {"79": {"weight": "high"}}},
            ["site.toml", "[xid.79]", "field 'weight'", "int"],
            id="weight-not-int",
        ),
        pytest.param(
            {"xid": {"79": {"weight": True}}},
            ["site.toml", "[xid.79]", "field 'weight'", "int"],
            id="weight-bool",
        ),
        pytest.param(
            {"xid": {"79": {"weight": 101}}},
            ["site.toml", "[xid.79]", "field 'weight'", "between 0 and 100"],
            id="weight-range",
        ),
        pytest.param(
            {"xid": {"79": {"mnemonic": 79}}},
            ["site.toml", "[xid.79]", "field 'mnemonic'", "str"],
            id="xid-mnemonic-not-str",
        ),
        pytest.param(
            {"signature": {"cuda.oom": {"anchors": "CUDA out of memory"}}},
            ["site.toml", '[signature."cuda.oom"]', "field 'anchors'", "list"],
            id="anchors-not-list",
        ),
        pytest.param(
            {"signature": {"cuda.oom": {"anchors": []}}},
            ["site.toml", '[signature."cuda.oom"]', "field 'anchors'"],
            id="anchors-empty",
        ),
        pytest.param(
            {"signature": {"cuda.oom": {"ignore_case": "yes"}}},
            ["site.toml", '[signature."cuda.oom"]', "field 'ignore_case'", "bool"],
            id="ignore-case-not-bool",
        ),
        pytest.param(
            {"signature": {"cuda.oom": {"expect": ["x"]}}},
            ["site.toml", '[signature."cuda.oom"]', "field 'expect'", "dict"],
            id="expect-not-table",
        ),
        pytest.param(
            {"xid": {"79": {"blame": "cosmic"}}},
            ["site.toml", "[xid.79]", "field 'blame'", "'cosmic'", "hardware"],
            id="bad-blame",
        ),
        pytest.param(
            {"xid": {"79": {"node_action": "pray"}}},
            ["site.toml", "[xid.79]", "field 'node_action'", "'pray'", "reboot"],
            id="bad-node-action",
        ),
        pytest.param(
            {"signature": {"cuda.oom": {"sources": ["dmesg"]}}},
            ["site.toml", '[signature."cuda.oom"]', "field 'sources'", "'dmesg'"],
            id="bad-source",
        ),
        pytest.param(
            {"xid": {"13": {"rules": ["always_blame_gpu"]}}},
            ["site.toml", "[xid.13]", "field 'rules'", "'always_blame_gpu'"],
            id="unknown-rule",
        ),
        pytest.param(
            {"signature": {"cuda.oom": {"pattern": "CUDA (out of memory"}}},
            ["site.toml", '[signature."cuda.oom"]', "field 'pattern'", "regex"],
            id="bad-regex-override",
        ),
        pytest.param(
            {"signature": {"site.new": {**NEW_SIGNATURE, "pattern": "[unclosed"}}},
            ["site.toml", '[signature."site.new"]', "field 'pattern'", "regex"],
            id="bad-regex-new",
        ),
        pytest.param(
            {"xid": {"seventy-nine": {"weight": 1}}},
            ["site.toml", "[xid.seventy-nine]", "XID must be a number"],
            id="non-numeric-xid",
        ),
        pytest.param(
            {"xid": {"999": {k: v for k, v in NEW_XID.items() if k != "mnemonic"}}},
            ["site.toml", "[xid.999]", "new entry lacks field 'mnemonic'"],
            id="new-xid-missing-field",
        ),
        pytest.param(
            {"signature": {"site.new": {k: v for k, v in NEW_SIGNATURE.items() if k != "pattern"}}},
            ["site.toml", '[signature."site.new"]', "new entry lacks field 'pattern'"],
            id="new-signature-missing-field",
        ),
        pytest.param(
            {"xids": {"79": {"weight": 1}}},
            ["site.toml", "unknown field 'xids'"],
            id="unknown-section",
        ),
        pytest.param(
            {"xid": {"79": 5}},
            ["site.toml", "[xid.79]", "must be a table"],
            id="entry-not-table",
        ),
        pytest.param(
            {"signature": ["cuda.oom"]},
            ["site.toml", "[signature]", "table of tables"],
            id="section-not-table",
        ),
        pytest.param(
            {"schema": 2},
            ["site.toml", "schema 2"],
            id="unsupported-schema",
        ),
    ],
)
def test_bad_input_names_origin_key_and_field(
    document: Mapping[str, Any], fragments: list[str]
) -> None:
    message = error_message(document)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


def test_invalid_toml_names_the_origin() -> None:
    with pytest.raises(CatalogError, match=re.escape("site.toml: not valid TOML")):
        parse_document("[xid.79\nweight = 1\n", ORIGIN)


def test_a_bad_document_leaves_no_partial_merge() -> None:
    document = {"xid": {"79": {"weight": 1}, "48": {"blame": "cosmic"}}}
    with pytest.raises(CatalogError):
        merged(document)
    assert BUILTIN.xids[79].weight == 100


def test_builtin_catalog_reads_every_family_file_after_the_core() -> None:
    from importlib import resources

    from autorecover.domain.catalog import builtin_documents

    data = resources.files("autorecover.domain") / "data"
    families = sorted(
        e.name
        for e in data.iterdir()
        if e.name.startswith("signatures-") and e.name.endswith(".toml")
    )
    origins = [origin for origin, _ in builtin_documents()]
    assert origins == [f"builtin:{n}" for n in ("xids.toml", "signatures.toml", *families)]
