"""DCGM through `dcgmi`: `dcgmi health -c -j` and `dcgmi diag -r <level> -j`.

Run as argument lists with a timeout through an injectable runner, so tests replay recorded
outputs through the same parser. No dcgmi (or no host engine to talk to) means DCGM is not
here: the caller reports itself unavailable, never the node unhealthy.

`dcgmi diag -j` changed shape across releases: 3.x nests tests under "DCGM GPU Diagnostic" >
"test_categories" with `gpu_ids`; 4.2 keys the same tree "DCGM Diagnostic" and names entities
(`entity_group`, `entity_id`), with warnings that carry DCGM's numeric `error_severity`. Both
are read, and a leading non-JSON line (dcgmi prints warnings before the document) is skipped.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

DIAG_TIMEOUT_S = {1: 300.0, 2: 1200.0, 3: 3600.0, 4: 14400.0}
HEALTH_TIMEOUT_S = 60.0
MAX_OUTPUT = 16 << 20


class DcgmUnavailableError(Exception):
    """dcgmi or its host engine is not present: nothing to ask."""


class DcgmError(Exception):
    """dcgmi ran and did not answer usefully (bad output, timeout, watches not enabled)."""


@dataclass(frozen=True, slots=True)
class CommandResult:
    """What a command printed and how it exited."""

    returncode: int
    stdout: str
    stderr: str = ""


class Runner(Protocol):
    """Runs an argument list with a timeout (subprocess in production, recordings in tests)."""

    def __call__(self, args: Sequence[str], timeout_s: float) -> CommandResult:
        """Run and collect the output."""
        ...


def run_command(args: Sequence[str], timeout_s: float) -> CommandResult:
    """The production runner: subprocess with an argument list, never a shell."""
    try:
        done = subprocess.run(  # noqa: S603 - a fixed argument list; the level is an int
            list(args), capture_output=True, timeout=timeout_s, check=False
        )
    except FileNotFoundError:
        raise DcgmUnavailableError(f"{args[0]}: not installed") from None
    except subprocess.TimeoutExpired:
        raise DcgmError(f"{' '.join(args)}: no answer within {timeout_s:g} s") from None
    return CommandResult(
        done.returncode,
        done.stdout[:MAX_OUTPUT].decode("utf-8", "replace"),
        done.stderr[:MAX_OUTPUT].decode("utf-8", "replace"),
    )


@dataclass(frozen=True, slots=True)
class HealthIncident:
    """One entity's trouble in one DCGM health system."""

    entity_group: str  # "GPU", "Switch", "ConnectX", ...
    entity_id: str
    system: str  # "Memory system", "PCIe system", ...
    health: str  # "Warning" or "Failure"
    messages: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DcgmHealth:
    """`dcgmi health -c`: the overall verdict and the incidents behind it."""

    overall: str
    incidents: tuple[HealthIncident, ...] = ()


@dataclass(frozen=True, slots=True)
class DiagWarning:
    """A diagnostic's finding, with DCGM's own numbers when it gave them."""

    message: str
    error_id: int | None = None
    severity: int | None = None
    category: int | None = None


@dataclass(frozen=True, slots=True)
class DiagResult:
    """One test's result on one entity (or on all GPUs, for the software tests)."""

    category: str
    test: str
    entity: str  # "gpu0", or the 3.x CSV of GPU ids for deployment tests
    status: str  # "Pass", "Fail", "Warn", "Skip" (case varies by release)
    warnings: tuple[DiagWarning, ...] = ()


@dataclass(frozen=True, slots=True)
class DiagRun:
    """A whole `dcgmi diag` run."""

    version: str
    results: tuple[DiagResult, ...]
    runtime_error: str = ""


def parse_health_json(text: str) -> DcgmHealth:
    """Read `dcgmi health -c -j` (DcgmiOutputJson: header, body, children/value/overflow)."""
    doc = _document(text)
    body = doc.get("body")
    if not isinstance(body, dict):
        raise DcgmError("dcgmi health: no 'body' in the output")
    overall = _value(body.get("Overall Health"))
    incidents: list[HealthIncident] = []
    for group, node in body.items():
        if group == "Overall Health":
            continue
        for entity, enode in _children(node).items():
            errors = _children(enode).get("Errors")
            for system, snode in _children(errors).items():
                overflow = snode.get("overflow") if isinstance(snode, dict) else None
                lines = tuple(str(x) for x in overflow) if isinstance(overflow, list) else ()
                message = " ".join(lines)
                incidents.append(
                    HealthIncident(str(group), str(entity), str(system), _value(snode), (message,))
                )
    return DcgmHealth(overall, tuple(incidents))


def parse_diag_json(text: str) -> DiagRun:
    """Read `dcgmi diag -j` from DCGM 3.x or 4.x."""
    doc = _document(text)
    root = doc.get("DCGM Diagnostic", doc.get("DCGM GPU Diagnostic"))
    if not isinstance(root, dict):
        raise DcgmError("dcgmi diag: no 'DCGM Diagnostic' in the output")
    meta = doc.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    version = str(meta.get("version") or root.get("version") or "")
    results: list[DiagResult] = []
    for cat in _list(root.get("test_categories")):
        category = str(cat.get("category", ""))
        for test in _list(cat.get("tests")):
            name = str(test.get("name", ""))
            entries = _list(test.get("results"))
            if not entries and isinstance(test.get("test_summary"), dict):
                entries = [{**test["test_summary"], "entity_id": "all"}]
            for res in entries:
                results.append(
                    DiagResult(
                        category, name, _entity(res), str(res.get("status", "")), _warnings(res)
                    )
                )
    error = root.get("runtime_error") or doc.get("runtime_error") or ""
    return DiagRun(version, tuple(results), str(error))


class RecordedRunner:
    """Replays dcgmi output saved in a directory: `health.json`, `diag-r<level>.json`.

    Lets the whole agent run against a fixture directory; a missing recording reads as
    "no DCGM here", exactly like a node without dcgmi."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def __call__(self, args: Sequence[str], timeout_s: float) -> CommandResult:
        """The recorded output for this command."""
        if "health" in args:
            name = "health.json"
        elif "diag" in args and "-r" in args[:-1]:
            name = f"diag-r{args[args.index('-r') + 1]}.json"
        else:
            raise DcgmUnavailableError(f"no recording for {' '.join(args)}")
        path = self.directory / name
        try:
            return CommandResult(0, path.read_text(encoding="utf-8"))
        except OSError:
            raise DcgmUnavailableError(f"{path}: no recording") from None


class Dcgmi:
    """The two dcgmi commands the agent uses."""

    def __init__(self, runner: Runner = run_command, executable: str = "dcgmi") -> None:
        self.runner = runner
        self.executable = executable

    def health(self) -> DcgmHealth:
        """`dcgmi health -c -j`."""
        done = self.runner([self.executable, "health", "-c", "-j"], HEALTH_TIMEOUT_S)
        if "{" not in done.stdout:
            raise _failure("dcgmi health", done)
        return parse_health_json(done.stdout)

    def diag(self, level: int) -> DiagRun:
        """`dcgmi diag -r LEVEL -j` (it exits non-zero when a test fails: read its output)."""
        if level not in DIAG_TIMEOUT_S:
            raise ValueError(f"DCGM diagnostic level must be 1..4, not {level!r}")
        args = [self.executable, "diag", "-r", str(level), "-j"]
        done = self.runner(args, DIAG_TIMEOUT_S[level])
        if "{" not in done.stdout:
            raise _failure("dcgmi diag", done)
        return parse_diag_json(done.stdout)


def _failure(what: str, done: CommandResult) -> Exception:
    said = (done.stdout.strip() or done.stderr.strip()).splitlines()
    first = said[0][:200] if said else f"exit status {done.returncode}"
    lowered = first.lower()
    if "connect" in lowered or "host engine" in lowered:
        # No nv-hostengine to talk to: DCGM is not running on this node.
        return DcgmUnavailableError(f"{what}: {first}")
    return DcgmError(f"{what}: {first}")


def _document(text: str) -> dict[str, Any]:
    start = text.find("{")
    if start < 0:
        raise DcgmError("dcgmi: no JSON in the output")
    try:
        doc, _ = json.JSONDecoder().raw_decode(text[start:])
    except (ValueError, RecursionError) as exc:
        raise DcgmError(f"dcgmi: output is not valid JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise DcgmError("dcgmi: output is not a JSON object")
    return doc


def _list(value: Any) -> list[dict[str, Any]]:
    """A list's objects; DCGM 3.x puts nulls between tests."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _children(node: Any) -> dict[str, Any]:
    children = node.get("children") if isinstance(node, dict) else None
    return children if isinstance(children, dict) else {}


def _value(node: Any) -> str:
    return str(node.get("value", "")) if isinstance(node, dict) else ""


def _entity(res: dict[str, Any]) -> str:
    if "entity_id" in res:
        group = str(res.get("entity_group", "GPU")).lower()
        return str(res["entity_id"]) if res["entity_id"] == "all" else f"{group}{res['entity_id']}"
    ids = res.get("gpu_ids", res.get("gpu_id"))
    if isinstance(ids, int) or (isinstance(ids, str) and ids.isdigit()):
        return f"gpu{ids}"
    return "all" if ids is None else f"gpus {ids}"


def _warnings(res: dict[str, Any]) -> tuple[DiagWarning, ...]:
    out: list[DiagWarning] = []
    raw = res.get("warnings")
    for w in raw if isinstance(raw, list) else []:
        if isinstance(w, str):
            out.append(DiagWarning(w))
        elif isinstance(w, dict):
            out.append(
                DiagWarning(
                    str(w.get("warning", w.get("message", ""))),
                    _opt_int(w.get("error_id", w.get("error_code"))),
                    _opt_int(w.get("error_severity")),
                    _opt_int(w.get("error_category")),
                )
            )
    return tuple(out)


def _opt_int(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isdigit() and len(value) < 10:
        return int(value)
    return None
