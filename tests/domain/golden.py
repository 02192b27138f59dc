"""What every catalog golden-test file needs: the built-in catalog, the scanner's own verdict on
a line, and the keys of one family file (`signatures-<family>.toml`)."""

from __future__ import annotations

import io
import tomllib
from datetime import UTC, datetime
from importlib import resources

from autorecover.domain.catalog import builtin_catalog
from autorecover.domain.records import Blame, Source
from autorecover.parsing.scanning import Scanner

CATALOG = builtin_catalog()
SCANNER = Scanner(CATALOG)
DATA = resources.files("autorecover.domain") / "data"
T0 = datetime(2026, 3, 4, tzinfo=UTC)


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
