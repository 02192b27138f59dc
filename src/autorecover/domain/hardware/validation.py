"""Validation under load: an NCCL all-reduce between a node and a known-good peer, judged.

A node about to return runs `all_reduce_perf` (nccl-tests) with a peer in its failure
domain, through the scheduler, as a job would use it. What the test printed is read at the
edge (`adapters/host/nccl.py`) into an `NcclReport`; `judge` decides here, purely, from the
report, the failure domain the two nodes share and the policy's expected bus bandwidth for
that kind of domain (`[validation.nccl]` in the hardware policy):

- a failure the test itself reported (`Test NCCL failure`, `Test CUDA failure`, a task that
  exited non-zero) or any out-of-bounds value (`#wrong` > 0): FAIL;
- no table, or no row as large as `min_bytes`: ERROR (the check broke or stopped early:
  that says nothing about the node);
- the best bus bandwidth at sizes >= `min_bytes` below `min_fraction` of the expected: FAIL;
- else PASS. NCCL's own `NCCL WARN` lines are kept as evidence but decide nothing: NCCL
  prints them on healthy fallbacks too (nccl-tests issue #131).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from autorecover.domain.failure_domains import DomainKind, FailureDomain
from autorecover.domain.hardware.remediation import Verdict

CLUSTER = "cluster"  # the expectation for a peer that shares no failure domain with the node
MAX_EVIDENCE = 300  # characters per evidence line
MAX_LINES = 50  # lines of errors or warnings kept from one output
_BINARY = re.compile(r"(?:/[A-Za-z0-9._-]+)+|[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
GIB = 1 << 30


@dataclass(frozen=True, slots=True)
class PerfCell:
    """One half of a row (out-of-place or in-place); None where the test printed N/A."""

    time_us: float | None
    algbw: float | None  # GB/s
    busbw: float | None  # GB/s
    wrong: int | None  # values out of bounds; None: not checked (N/A)


@dataclass(frozen=True, slots=True)
class PerfRow:
    """One message size of the table."""

    size: int  # bytes
    count: int  # elements
    dtype: str
    redop: str
    root: int
    out_of_place: PerfCell
    in_place: PerfCell

    @property
    def busbw(self) -> float | None:
        """The better of the two bus bandwidths (finite ones only)."""
        seen = [c.busbw for c in (self.out_of_place, self.in_place)
                if c.busbw is not None and math.isfinite(c.busbw)]  # fmt: skip
        return max(seen) if seen else None

    @property
    def wrong(self) -> int:
        """Out-of-bounds values in both halves."""
        return sum(c.wrong or 0 for c in (self.out_of_place, self.in_place))


@dataclass(frozen=True, slots=True)
class RankInfo:
    """One `#  Rank  N Group G Pid P on HOST device D [BUS] NAME` line."""

    rank: int
    host: str
    device: int
    bus_id: str
    name: str
    pid: int | None = None


@dataclass(frozen=True, slots=True)
class NcclReport:
    """What one `all_reduce_perf` output says (several launches' outputs are merged)."""

    rows: tuple[PerfRow, ...] = ()
    ranks: tuple[RankInfo, ...] = ()
    runs: int = 0  # `nThread ... nGpus ...` headers seen
    avg_busbw: float | None = None  # the lowest `# Avg bus bandwidth` printed
    out_of_bounds: int | None = None  # the highest `# Out of bounds values` printed
    failures: tuple[str, ...] = ()  # the test's own failure lines, srun errors, exit status
    warnings: tuple[str, ...] = ()  # NCCL WARN lines
    exit_status: int | None = None

    @property
    def wrong(self) -> int:
        """Out-of-bounds values over every row."""
        return sum(r.wrong for r in self.rows)

    @property
    def hosts(self) -> tuple[str, ...]:
        """The hosts ranks ran on, in rank order, once each."""
        return tuple(dict.fromkeys(r.host for r in sorted(self.ranks, key=lambda r: r.rank)))

    @property
    def devices(self) -> tuple[str, ...]:
        """`host:device name` per rank."""
        return tuple(f"{r.host}:{r.device} {r.name}".strip() for r in self.ranks)


def _default_busbw() -> Mapping[str, float]:
    # Ours, for 8-GPU nodes: NVLink domains (GB200 NVL72-class) and 8x400 Gb/s InfiniBand
    # (a pair of H100 nodes reaches ~340 GB/s all-reduce busbw at 8 GiB). Set your own.
    return MappingProxyType({DomainKind.NVLINK.value: 600.0, DomainKind.IB_LEAF.value: 340.0,
                             DomainKind.RACK.value: 340.0})  # fmt: skip


@dataclass(frozen=True, slots=True)
class NcclSettings:
    """`[validation.nccl]`: how the pair test runs and what it must reach."""

    busbw_gbps: Mapping[str, float] = field(default_factory=_default_busbw)
    min_fraction: float = 0.8  # of the expected busbw
    min_bytes: int = GIB  # rows below this size say little about bandwidth
    begin_bytes: int = 8  # -b
    end_bytes: int = 8 * GIB  # -e
    factor: int = 2  # -f
    gpus_per_node: int = 8  # -g, one task per node
    iters: int = 20  # -n
    warmup_iters: int = 5  # -w
    binary: str = "all_reduce_perf"  # a bare name (PATH) or an absolute path
    timeout_s: float = 1800.0  # the pair job's time limit, and our patience
    reservation_min: int = 60  # the maintenance reservation's length

    def argv(self) -> tuple[str, ...]:
        """`all_reduce_perf -b .. -e .. -f .. -g .. -n .. -w .. -c 1`: numbers only."""
        return (self.binary, "-b", str(self.begin_bytes), "-e", str(self.end_bytes),
                "-f", str(self.factor), "-g", str(self.gpus_per_node), "-n", str(self.iters),
                "-w", str(self.warmup_iters), "-c", "1")  # fmt: skip

    def expected(self, domain: FailureDomain | None) -> float | None:
        """The expected busbw for a pair within `domain` (None: no shared domain)."""
        return self.busbw_gbps.get(domain.kind.value if domain else CLUSTER)


@dataclass(frozen=True, slots=True)
class Judgement:
    """The verdict on one pair test, with the evidence for it."""

    verdict: Verdict
    evidence: tuple[str, ...]


def shared_domain(
    mine: tuple[FailureDomain, ...], theirs: tuple[FailureDomain, ...]
) -> FailureDomain | None:
    """The tightest failure domain two nodes share: NVLink, then IB leaf, then rack."""
    common = set(mine) & set(theirs)
    for kind in (DomainKind.NVLINK, DomainKind.IB_LEAF, DomainKind.RACK):
        for domain in sorted(common, key=str):
            if domain.kind is kind:
                return domain
    return None


def _where(domain: FailureDomain | None) -> str:
    return f"within {domain.kind} {domain.name}" if domain else "across the cluster"


def _line(text: str) -> str:
    return " ".join(text.split())[:MAX_EVIDENCE]


def judge(
    report: NcclReport | None,
    domain: FailureDomain | None,
    settings: NcclSettings,
    *,
    peer: str = "",
) -> Judgement:
    """PASS, FAIL or ERROR for one pair test's report, with evidence lines."""
    with_peer = f" with {peer}" if peer else ""
    if report is None:
        return Judgement(Verdict.ERROR, (f"no all_reduce_perf output{with_peer}",))
    context = [f"all_reduce_perf{with_peer}: {report.runs} run(s), hosts "
               f"{', '.join(report.hosts) or 'unknown'}"]  # fmt: skip
    context += [_line(f"NCCL warning: {w}") for w in report.warnings[:5]]
    if report.failures:
        lines = [_line(f"test failure: {f}") for f in report.failures[:10]]
        return Judgement(Verdict.FAIL, (*lines, *context))
    bad = max(report.wrong, report.out_of_bounds or 0)
    if bad > 0:
        hit = [r.size for r in report.rows if r.wrong > 0]
        sizes = ", ".join(str(s) for s in hit[:5]) + (", ..." if len(hit) > 5 else "")
        return Judgement(Verdict.FAIL, (
            f"wrong all-reduce results: out of bounds values {report.out_of_bounds}, "
            f"#wrong {report.wrong} over {len(hit)} sizes ({sizes or 'summary only'})",
            *context,
        ))  # fmt: skip
    if not report.rows:
        return Judgement(Verdict.ERROR, ("all_reduce_perf printed no result table", *context))
    big = [b for r in report.rows if r.size >= settings.min_bytes and (b := r.busbw) is not None]
    if not big:
        largest = max(r.size for r in report.rows)
        return Judgement(
            Verdict.ERROR,
            (f"no result at {settings.min_bytes} bytes or more (largest {largest})", *context),
        )
    expected = settings.expected(domain)
    if expected is None:
        key = domain.kind.value if domain else CLUSTER
        return Judgement(
            Verdict.ERROR,
            (f"no expected bus bandwidth for {key} in [validation.nccl] busbw_gbps", *context),
        )
    best = max(big)
    pct = round(settings.min_fraction * 100)
    avg = f"; avg busbw {report.avg_busbw:g} GB/s" if report.avg_busbw is not None else ""
    if best < settings.min_fraction * expected:
        return Judgement(Verdict.FAIL, (
            f"busbw {best:.1f} GB/s < {pct}% of {expected:g} GB/s expected {_where(domain)}"
            f" (sizes >= {settings.min_bytes} B){avg}", *context))  # fmt: skip
    return Judgement(Verdict.PASS, (
        f"busbw {best:.1f} GB/s >= {pct}% of {expected:g} GB/s expected {_where(domain)}"
        f" (sizes >= {settings.min_bytes} B){avg}", *context))  # fmt: skip


# --- policy data --------------------------------------------------------------------------

_INTS = {"min_bytes": 1, "begin_bytes": 1, "end_bytes": 1, "factor": 2, "gpus_per_node": 1,
         "iters": 1, "warmup_iters": 0, "reservation_min": 1}  # fmt: skip
_NCCL_FIELDS = {*_INTS, "busbw_gbps", "min_fraction", "binary", "timeout_s"}
_KINDS = {*(k.value for k in DomainKind), CLUSTER}


def _positive(raw: Any, where: str) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw) \
            or raw <= 0:  # fmt: skip
        raise ValueError(f"{where}: must be a positive number")
    return float(raw)


def nccl_settings(base: NcclSettings, table: Any, where: str) -> NcclSettings:
    """`base` with one `[validation.nccl]` table merged in (by key); ValueError names the field."""
    if not isinstance(table, dict):
        raise ValueError(f"{where}: must be a table")
    out: dict[str, Any] = {}
    for name, raw in table.items():
        at = f"{where}: field {name!r}"
        if name not in _NCCL_FIELDS:
            raise ValueError(f"{where}: unknown field {name!r} "
                             f"(allowed: {', '.join(sorted(_NCCL_FIELDS))})")  # fmt: skip
        if name in _INTS:
            low = _INTS[name]
            if isinstance(raw, bool) or not isinstance(raw, int) or not low <= raw < 1 << 50:
                raise ValueError(f"{at}: must be an integer >= {low}")
            out[name] = raw
        elif name == "busbw_gbps":
            if not isinstance(raw, dict):
                raise ValueError(f"{at}: must be a table of domain kind = GB/s")
            merged = dict(base.busbw_gbps)
            for kind, value in raw.items():
                if kind not in _KINDS:
                    raise ValueError(f"{at}: {kind!r} is not one of {', '.join(sorted(_KINDS))}")
                merged[kind] = _positive(value, f"{at}.{kind}")
            out[name] = MappingProxyType(merged)
        elif name == "min_fraction":
            if _positive(raw, at) > 1:
                raise ValueError(f"{at}: must be a fraction in (0, 1]")
            out[name] = float(raw)
        elif name == "timeout_s":
            out[name] = _positive(raw, at)
        else:  # binary
            if not isinstance(raw, str) or not _BINARY.fullmatch(raw) or ".." in raw.split("/"):
                raise ValueError(f"{at}: must be a command name or an absolute path "
                                 "(letters, digits, . _ - /)")  # fmt: skip
            out[name] = raw
    merged_settings = NcclSettings(**{**_as_dict(base), **out})
    if merged_settings.begin_bytes > merged_settings.end_bytes:
        raise ValueError(f"{where}: begin_bytes must not exceed end_bytes")
    if merged_settings.min_bytes > merged_settings.end_bytes:
        raise ValueError(f"{where}: min_bytes must not exceed end_bytes (no row would count)")
    return merged_settings


def _as_dict(settings: NcclSettings) -> dict[str, Any]:
    return {name: getattr(settings, name) for name in NcclSettings.__slots__}


@dataclass(frozen=True, slots=True)
class ValidationPolicy:
    """`[validation]`: the tests a node passes before it returns."""

    nccl: NcclSettings = field(default_factory=NcclSettings)


def validation_policy(base: ValidationPolicy, table: Any, origin: str) -> ValidationPolicy:
    """`base` with one `[validation]` table merged in; ValueError names the table and field."""
    where = f"{origin}: [validation]"
    if not isinstance(table, dict):
        raise ValueError(f"{where}: must be a table")
    unknown = sorted(set(table) - {"nccl"})
    if unknown:
        raise ValueError(f"{where}: unknown table {unknown[0]!r} (allowed: nccl)")
    if "nccl" in table:
        nccl = nccl_settings(base.nccl, table["nccl"], f"{origin}: [validation.nccl]")
        return ValidationPolicy(nccl)
    return base
