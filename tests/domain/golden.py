"""What every catalog golden-test file needs: the built-in catalog, the scanner's own verdict on
a line, and the keys of one family file (`signatures-<family>.toml`)."""

from __future__ import annotations

import io
import tomllib
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime, timedelta
from importlib import resources

import pytest

from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.records import Blame, Finding, JobRecord, Source
from autorecover.parsing.scanning import Scanner

CATALOG = builtin_catalog()
SCANNER = Scanner(CATALOG)
DATA = resources.files("autorecover.domain") / "data"
T0 = datetime(2026, 3, 4, tzinfo=UTC)
SHAPE_T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)  # the shape tests' job starts here
SHAPE_NODES = ("n1", "n2", "n3", "n4")


def shape_job() -> JobRecord:
    """A failed two-hour Slurm job on SHAPE_NODES, collected five minutes after it ended."""
    return JobRecord(
        scheduler="slurm",
        job="1",
        nodes=SHAPE_NODES,
        started=SHAPE_T0,
        ended=SHAPE_T0 + timedelta(hours=2),
        collected=SHAPE_T0 + timedelta(hours=2, minutes=5),
        state="FAILED",
    )


def shape_finding(key: str, node: str, minutes: float, source: Source) -> Finding:
    """A finding as the scanner would make it from `key`'s catalog entry, `minutes` into the job."""
    sig = CATALOG.signatures[key]
    return Finding(
        signal=key,
        node=node,
        source=source,
        line=1,
        text=sig.example,
        blame=sig.blame,
        weight=sig.weight,
        at=SHAPE_T0 + timedelta(minutes=minutes),
        node_action=sig.node_action,
    )


def timeouts(key: str, but: str) -> list[Finding]:
    """`key` (a collective timeout) at minute 70 on every node but `but`: the survivors' cascade."""
    return [shape_finding(key, n, 70, Source.LOGS) for n in SHAPE_NODES if n != but]


def family_keys(file: str) -> frozenset[str]:
    """The signature keys one catalog file defines."""
    return frozenset(tomllib.loads((DATA / file).read_text(encoding="utf-8"))["signature"])


CORE_KEYS = family_keys("signatures.toml")


def hits(line: str) -> dict[str, dict[str, str]]:
    """The matcher's verdict on one line: key -> named captures (the generic entry included)."""
    return {
        sig.key: {k: v for k, v in m.groupdict().items() if v is not None}
        for sig, m in SCANNER.match_line(line)
    }


def found(line: str, source: Source = Source.SYSTEM) -> list[tuple[str, Blame, int]]:
    """What a full scan of the line as one file of `source` finds: (signal, blame, weight),
    after the scanner's own steps (XIDs read through their catalog, the generic entry dropped)."""
    result = SCANNER.scan(io.BytesIO(line.encode() + b"\n"), node="n1", source=source,
                          reference=T0)  # fmt: skip
    return [(f.signal, f.blame, f.weight) for f in result.findings]


def scanned_blames(line: str, source: Source = Source.LOGS) -> dict[str, Blame]:
    """A full scan of the line as one file of `source` (job output by default): signal -> blame."""
    result = SCANNER.scan(io.BytesIO(line.encode() + b"\n"), node="n1", source=source,
                          reference=T0)  # fmt: skip
    return {f.signal: f.blame for f in result.findings}


def scanned_details(line: str, signal: str, source: Source = Source.LOGS) -> dict[str, str]:
    """The details the scanner keeps on `signal`'s finding from the line (its captures, after
    the scanner's own steps)."""
    result = SCANNER.scan(io.BytesIO(line.encode() + b"\n"), node="n1", source=source,
                          reference=T0)  # fmt: skip
    return next(dict(f.details) for f in result.findings if f.signal == signal)


# The family files' golden tests assert the same things; each file brings its own lines.


def assert_family_keys(file: str, keys: frozenset[str], namespaces: frozenset[str]) -> None:
    """A family file defines signatures, none of them a core key, each in its namespaces."""
    assert keys, f"{file} holds no signature"
    assert not keys & CORE_KEYS, "a family file must not silently override a core key"
    for key in keys:
        assert key.split(".", 1)[0] in namespaces, key


def family_contract(
    files: Mapping[str, frozenset[str]], required: Mapping[str, Blame]
) -> tuple[Callable[[], None], Callable[[str, Blame], None], Callable[[], None]]:
    """The three tests every family file's golden tests hold: its keys are new and in its
    namespaces (`files`: family file -> namespaces), each key's blame is the one `required`
    pins, and every key of the family is pinned there. Assign them to module-level `test_`
    names, where pytest collects them."""
    keys = frozenset().union(*(family_keys(file) for file in files))

    def test_family_keys_are_new_and_namespaced() -> None:
        for file, namespaces in files.items():
            assert_family_keys(file, family_keys(file), namespaces)

    @pytest.mark.parametrize(("key", "blame"), sorted(required.items()))
    def test_required_signature_and_blame(key: str, blame: Blame) -> None:
        assert key in keys
        assert CATALOG.signatures[key].blame is blame

    def test_every_family_signature_is_pinned() -> None:
        assert set(required) == keys, "pin the blame of every signature of the family here"

    return (
        test_family_keys_are_new_and_namespaced,
        test_required_signature_and_blame,
        test_every_family_signature_is_pinned,
    )


def assert_no_node_action(keys: Iterable[str]) -> None:
    """None of `keys` may act on the node its line was printed on (the software's, the job's)."""
    for key in sorted(keys):
        assert CATALOG.signatures[key].node_action.value == "none", key


Golden = list[tuple[str, str, dict[str, str]]]  # (real line, key, captures)


def golden_line_checks(
    golden: Golden, negative: list[tuple[str, str]], blame: Mapping[str, Blame]
) -> tuple[Callable[..., None], ...]:
    """The five tests a file of real lines holds: each line yields its key (the generic Python
    entry beside it only when the key is the application's), reads as the application's only
    when the key is, each look-alike (`negative`: key, line) is not the key's, each key's blame
    is the one `blame` pins, and every pinned key has a line. Assign them to module-level
    `test_` names, where pytest collects them."""

    @pytest.mark.parametrize(("line", "key", "captures"), golden)
    def test_golden_line_yields_its_signal(line: str, key: str, captures: dict[str, str]) -> None:
        found = assert_matches(key, line, captures)
        assert "python.exception" not in found or CATALOG.signatures[key].blame is Blame.APPLICATION

    @pytest.mark.parametrize(("line", "key", "captures"), golden)
    def test_only_application_lines_read_as_the_application(
        line: str, key: str, captures: dict[str, str]
    ) -> None:
        assert_application_only_if_meant(key, line)

    @pytest.mark.parametrize(("key", "line"), negative)
    def test_negative_line(key: str, line: str) -> None:
        assert key not in hits(line), f"{key} must not match {line!r}"

    @pytest.mark.parametrize(("key", "pinned"), sorted(blame.items()))
    def test_blame(key: str, pinned: Blame) -> None:
        assert CATALOG.signatures[key].blame is pinned

    def test_every_entry_pinned_here_has_a_golden_line() -> None:
        assert set(blame) == {key for _, key, _ in golden}

    return (
        test_golden_line_yields_its_signal,
        test_only_application_lines_read_as_the_application,
        test_negative_line,
        test_blame,
        test_every_entry_pinned_here_has_a_golden_line,
    )


def assert_matches(key: str, line: str, captures: dict[str, str]) -> dict[str, dict[str, str]]:
    """`key` matches `line` with these captures; every signature that matched, for more checks."""
    found = hits(line)
    assert key in found, f"{key} should match {line!r}; got {sorted(found)}"
    assert {name: found[key].get(name) for name in captures} == captures
    return found


def assert_no_match(key: str, line: str, family: frozenset[str]) -> None:
    """`key` does not match `line`; `*` means no signature of the family does."""
    found = set(hits(line))
    if key == "*":
        assert not found & family, f"{sorted(found & family)} must not match {line!r}"
    else:
        assert key not in found, f"{key} must not match {line!r}"


def assert_application_only_if_meant(key: str, line: str) -> None:
    """Some signature reads `line` as the application's exactly when `key` is the application's."""
    blames = {k: CATALOG.signatures[k].blame for k in hits(line)}
    wanted = CATALOG.signatures[key].blame is Blame.APPLICATION
    assert (Blame.APPLICATION in blames.values()) is wanted, f"{line!r}: {blames}"
