"""What each order kind runs, step by step, and what its outputs mean: pure decisions.

`plan(order, done, commands)` looks at the steps already run (their argument lists and
results) and answers the next `Step` to run, an `Outcome` to report, or `AWAIT_REBOOT`. The
actor runs the steps (detached, journaled) and calls `plan` again; nothing here runs a
process, so every decision is tested on recorded outputs.

- diagnose: `dcgmi diag -r N -j`, parsed by adapters/host/dcgm.py: verdict pass/fail/error
  with DCGM's warnings as evidence.
- reset_gpu: (the GPU list, when the order names none) -> who holds the GPUs -> refused
  while any process holds one of them, else `nvidia-smi --gpu-reset -i BUS` per GPU.
- reboot: `systemctl reboot`; done only once the boot id changed.
- collect_bundle: kernel log of the window, `nvidia-smi -q`, `dcgmi health -c -j`; a
  collector that fails is noted, not fatal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from autorecover.adapters.host.dcgm import DIAG_TIMEOUT_S, DcgmError, parse_diag_json
from autorecover.adapters.host.detached import RunResult
from autorecover.adapters.http.orders_client import AgentOrder, tail_bytes
from autorecover.agent.acting.commands import (
    MAX_GPUS,
    Argv,
    CommandError,
    Commands,
    command_line,
    valid_bus_id,
)
from autorecover.agent.acting.journal import Outcome
from autorecover.agent.acting.outputs import (
    OutputError,
    busy_reason,
    compute_apps,
    gpu_bus_ids,
    holders,
    window,
    words,
)

KINDS = ("diagnose", "reset_gpu", "reboot", "collect_bundle")
QUERY_TIMEOUT_S, RESET_TIMEOUT_S, REBOOT_TIMEOUT_S, COLLECT_TIMEOUT_S = 60.0, 300.0, 120.0, 120.0
ATTACHMENT_BYTES = 256 * 1024
MAX_WINDOW = timedelta(days=31)
BUNDLE = ("kernel.log", "nvidia-smi-q.txt", "dcgm-health.json")


@dataclass(frozen=True, slots=True)
class Step:
    """The next command to run for an order."""

    argv: Argv
    timeout_s: float
    announce: bool = False  # report `running` before it starts (a reboot ends the agent)


class _AwaitReboot:
    def __repr__(self) -> str:
        return "AWAIT_REBOOT"


AWAIT_REBOOT: Final = _AwaitReboot()
Done = Sequence[tuple[Argv, RunResult]]


def screen(order: AgentOrder, node: str, *, enabled: bool, now: datetime) -> Outcome | None:
    """A refusal before anything runs, or None when the order may go ahead."""
    if order.node != node:
        return Outcome("refused", f"order for node {order.node!r}; this agent is {node!r}")
    if not enabled:
        return Outcome("refused", "actions disabled on this node")
    if order.kind not in KINDS:
        return Outcome("refused", f"unknown order kind {order.kind[:40]!r}")
    if order.deadline is not None and now > order.deadline:
        return Outcome("refused", "the order's deadline passed before the agent could start it")
    return None


def plan(order: AgentOrder, done: Done, commands: Commands) -> Step | Outcome | _AwaitReboot:
    """The next step of `order` after `done`, or its outcome."""
    try:
        if order.kind == "diagnose":
            return _diagnose(order, done, commands)
        if order.kind == "reset_gpu":
            return _reset(_gpus(order.args), done, commands)
        if order.kind == "reboot":
            return _reboot(done, commands)
        if order.kind == "collect_bundle":
            since, until = _window(order.args)
            return _bundle(since, until, done, commands)
    except CommandError as exc:
        return Outcome("refused", f"invalid arguments: {exc}")
    return Outcome("refused", f"unknown order kind {order.kind[:40]!r}")


def intended(order: AgentOrder, commands: Commands) -> list[Argv]:
    """The commands an order would run (for dry-run), without running any."""
    try:
        if order.kind == "diagnose":
            return [commands.diag(order.args.get("level"))]
        if order.kind == "reset_gpu":
            gpus = _gpus(order.args)
            first = [] if gpus else [commands.gpu_list()]
            resets = [commands.gpu_reset(g) for g in gpus] or [
                (*commands.gpu_reset("0000:00:00.0")[:-1], "<each GPU>")
            ]
            return [*first, commands.compute_apps(), *resets]
        if order.kind == "reboot":
            return [commands.reboot()]
        if order.kind == "collect_bundle":
            since, until = _window(order.args)
            kernel = commands.kernel_log(since, until)
            return [kernel, commands.nvidia_smi_q(), commands.dcgm_health()]
    except CommandError as exc:
        raise ValueError(str(exc)) from None
    return []


def dry_run(order: AgentOrder, commands: Commands) -> Outcome:
    """`done` with what would have run; nothing runs."""
    try:
        argvs = intended(order, commands)
    except ValueError as exc:
        return Outcome("refused", f"invalid arguments: {exc}")
    return Outcome("done", "dry-run: would run " + "; ".join(command_line(a) for a in argvs))


def _failed_to_run(what: str, res: RunResult) -> str:
    if res.error:
        return f"{what}: {res.error}"
    if res.timed_out:
        return f"{what}: timed out"
    return f"{what} exited {res.rc}: {words(res.stdout, res.stderr) or 'no output'}"


def _diagnose(order: AgentOrder, done: Done, commands: Commands) -> Step | Outcome:
    level = order.args.get("level")
    argv = commands.diag(level)
    if not done:
        return Step(argv, DIAG_TIMEOUT_S[int(str(level))] + 60.0)
    argv, res = done[0]
    what = f"dcgmi diag -r {level}"
    if res.error or res.timed_out or "{" not in res.stdout:
        return Outcome("failed", _failed_to_run(what, res), verdict="error")
    try:
        run = parse_diag_json(res.stdout)
    except DcgmError as exc:
        return Outcome("failed", f"{what}: {exc}", verdict="error")
    if run.runtime_error:
        return Outcome("failed", f"{what}: {run.runtime_error[:500]}", verdict="error")
    if not run.results:
        return Outcome("failed", f"{what}: DCGM reported no test results", verdict="error")
    failed = [r for r in run.results if r.status.lower() == "fail"]
    evidence = tuple(
        f"{r.test} {r.entity} {r.status.lower()}: {w.message}".strip()
        for r in run.results
        for w in r.warnings
        if w.message
    )
    verdict = "fail" if failed else "pass"
    tests = sorted({f"{r.test} ({r.entity})" for r in failed})
    detail = f"{what}: {verdict}, {len(run.results)} result(s)"
    if tests:
        detail += f", failed: {', '.join(tests)}"
    if run.version:
        detail += f" (DCGM {run.version})"
    return Outcome("done", detail, verdict=verdict, evidence=evidence[:50])


def _gpus(args: Any) -> tuple[str, ...]:
    gpus = args.get("gpus", [])
    if not isinstance(gpus, list) or len(gpus) > MAX_GPUS:
        raise CommandError(f"gpus must be a list of at most {MAX_GPUS} PCI bus ids")
    for g in gpus:
        if not valid_bus_id(g):
            raise CommandError(f"{str(g)[:40]!r} is not a PCI bus id like 0000:18:00.0")
    return tuple(dict.fromkeys(gpus))


def _reset(gpus: tuple[str, ...], done: Done, commands: Commands) -> Step | Outcome:
    i = 0
    if not gpus:  # "all GPUs of the node": name each, so each reset is one journaled step
        if len(done) == i:
            return Step(commands.gpu_list(), QUERY_TIMEOUT_S)
        res = done[i][1]
        if res.rc != 0 or res.error:
            return Outcome("failed", _failed_to_run("listing the GPUs (nvidia-smi)", res))
        try:
            gpus = gpu_bus_ids(res.stdout)
        except OutputError as exc:
            return Outcome("failed", str(exc))
        if not gpus:
            return Outcome("failed", "nvidia-smi lists no GPU on this node")
        i += 1
    if len(done) == i:
        return Step(commands.compute_apps(), QUERY_TIMEOUT_S)
    res = done[i][1]
    if res.rc != 0 or res.error:
        why = _failed_to_run("nvidia-smi --query-compute-apps", res)
        return Outcome("failed", f"could not tell which processes hold the GPUs: {why}")
    try:
        held = holders(compute_apps(res.stdout), gpus)
    except OutputError as exc:
        return Outcome("failed", f"could not tell which processes hold the GPUs: {exc}")
    if held:
        return Outcome("refused", busy_reason(held))
    resets = done[i + 1 :]
    said: list[str] = []
    for gpu, (_, r) in zip(gpus, resets, strict=False):
        text = words(r.stdout, r.stderr)
        if r.rc != 0 or r.error:
            before = f" (reset before it: {', '.join(said)})" if said else ""
            status = "refused" if "in use" in text.lower() else "failed"
            return Outcome(status, _failed_to_run(f"nvidia-smi --gpu-reset -i {gpu}", r) + before)
        said.append(text or f"GPU {gpu} reset")
    if len(resets) < len(gpus):
        return Step(commands.gpu_reset(gpus[len(resets)]), RESET_TIMEOUT_S)
    return Outcome("done", f"reset {len(gpus)} GPU(s): " + "; ".join(said))


def _reboot(done: Done, commands: Commands) -> Step | Outcome | _AwaitReboot:
    if not done:
        return Step(commands.reboot(), REBOOT_TIMEOUT_S, announce=True)
    res = done[0][1]
    if res.rc != 0 or res.error:
        return Outcome("failed", _failed_to_run("systemctl reboot", res))
    return AWAIT_REBOOT


def _window(args: Any) -> tuple[datetime, datetime]:
    try:
        since = datetime.fromisoformat(str(args.get("since")))
        until = datetime.fromisoformat(str(args.get("until")))
    except ValueError:
        raise CommandError("since and until must be ISO 8601 times") from None
    if since.tzinfo is None or until.tzinfo is None:
        raise CommandError("since and until need a UTC offset")
    if not since <= until or until - since > MAX_WINDOW:
        raise CommandError("the window must run forwards and span at most 31 days")
    return since, until


def _bundle(since: datetime, until: datetime, done: Done, commands: Commands) -> Step | Outcome:
    collectors = (
        lambda: commands.kernel_log(since, until),
        commands.nvidia_smi_q,
        commands.dcgm_health,
    )
    if len(done) < len(collectors):
        return Step(collectors[len(done)](), COLLECT_TIMEOUT_S)
    attachments: dict[str, str] = {}
    notes: list[str] = []
    for name, (argv, res) in zip(BUNDLE, done, strict=True):
        text = res.stdout
        if name == "kernel.log" and "--time-format" in argv:
            text = window(text, since, until)
        ran = not res.error and not res.timed_out
        # dcgmi health exits non-zero for an unhealthy node: its document is what counts
        health = name == "dcgm-health.json"
        usable = ran and ("{" in text if health else res.rc == 0)
        if usable:
            attachments[name] = tail_bytes(text, ATTACHMENT_BYTES)
            cut = " (tail kept)" if len(text.encode()) > ATTACHMENT_BYTES else ""
            notes.append(f"{name} {len(attachments[name].encode()) // 1024} KiB{cut}")
        else:
            notes.append(f"{name} not collected: {_failed_to_run(command_line(argv), res)}")
    status = "done" if attachments else "failed"
    return Outcome(status, "bundle: " + "; ".join(notes), attachments=attachments)
