"""Nodes that restarted under the job: a crash or a power loss, unless they were shut down.

A boot banner (`kernel.boot`: the kernel's "Linux version ...", journalctl's "-- Reboot --" or
"-- Boot <id> --") in a node's system log while the job ran means the node restarted under it.
What came before the banner says how:

- an orderly shutdown (`kernel.shutdown`: logind's "The system will reboot now!", systemd reaching
  its reboot or shutdown target, the kernel's "reboot: Restarting system") means someone or
  something rebooted it: an operator, maintenance, an upgrade. The job failed because its node
  went away on purpose; that is no fault of the node, and a retry gets past it (transient);
- no shutdown at all means the node went down hard: its log stops (often mid-line) and the
  next line is a boot. A kernel crash, a hardware watchdog, a power supply or a fuse did that,
  or a host the provider restarted, or a kernel bug the job met. Hardware evidence on that
  node, below the naming weight: with a second pointer (its output stopping first, a peer
  blaming it, another hardware line) it is named, alone it is not. Naming it alone was tried:
  right on the tuning split, it isolated healthy nodes on the held-out one;
- one node going down hard in a job the scheduler ended because it lost a node (Slurm's
  NODE_FAIL, Kubernetes' NodeLost) is that node: the scheduler's loss and the node's own log
  are two independent pointers at it, and no other node went down (thirty-third session: the
  corpus's tuning split had three such bundles, all that node's hardware), so it is named;
- several nodes of one job going down hard during its run share a cause far more often than
  each failed on its own: their power or the site (an outage, a breaker, the rack's cooling),
  or a kernel fault the job's work meets on every node. None of them is named: retry.

Banners without a time, restarts outside the job's run, and a boot before the node's first line
of the job's output (a node started for the job) decide nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from autorecover.domain.records import Activity, Blame, Finding, JobRecord, NodeAction, Source
from autorecover.domain.shape import NODE_FAILED_STATES

BOOT = "kernel.boot"
SHUTDOWN = "kernel.shutdown"
HARD_RESTART = "node.hard_restart"
RESTARTED = "node.rebooted"
RESTARTED_TOGETHER = "node.restarted_together"
# How far before a boot an orderly shutdown's lines may stand (a slow shutdown, a firmware
# update on the way down).
SHUTDOWN_LEAD = timedelta(minutes=30)
# Slurm records NODE_FAIL when the node comes back or its timeout runs out: the boot may follow
# the job's end by that long.
AFTER_END = timedelta(minutes=10)
HARD_WEIGHT = 45  # below naming: a node that went down hard needs a second pointer
LOST_WEIGHT = 60  # ... such as the scheduler ending the job because it lost a node: named
TOGETHER_WEIGHT = 60
ORDERLY_WEIGHT = 50


def restarts(
    job: JobRecord, findings: Sequence[Finding], activity: Sequence[Activity]
) -> list[Finding]:
    """A finding for each node of the job whose system log shows it booting while the job ran
    on it: an orderly reboot (transient), a hard restart (weak hardware evidence on that node),
    or hard restarts of several nodes together (transient, their shared power or site)."""
    end = (job.ended if job.ended is not None else job.collected) + AFTER_END
    # The job ran on the node before it booted: its output began before the boot. A node that
    # boots for the job (Slurm's power saving, a cloud node started for it) writes the job's
    # first line after its boot, and that is no restart.
    began = {
        a.node: a.first_at
        for a in activity
        if a.source is Source.LOGS and a.present and a.first_at is not None
    }
    boots: dict[str, Finding] = {}
    for f in findings:
        if f.signal != BOOT or f.source is not Source.SYSTEM or f.node not in began:
            continue
        if f.at is None or not job.started < f.at <= end or not began[f.node] < f.at:
            continue
        if f.node not in boots or f.at < (boots[f.node].at or f.at):
            boots[f.node] = f
    if not boots:
        return []
    orderly = {
        node
        for node, boot in boots.items()
        if boot.at is not None
        and any(
            s.signal == SHUTDOWN
            and s.node == node
            and s.at is not None
            and boot.at - SHUTDOWN_LEAD <= s.at <= boot.at
            for s in findings
        )
    }
    out = [_finding(boots[n], RESTARTED, Blame.TRANSIENT, ORDERLY_WEIGHT) for n in sorted(orderly)]
    hard = sorted((b for n, b in boots.items() if n not in orderly), key=lambda b: (b.at, b.node))
    for boot in hard:
        if len(hard) > 1:
            out.append(_finding(boot, RESTARTED_TOGETHER, Blame.TRANSIENT, TOGETHER_WEIGHT))
        elif job.state in NODE_FAILED_STATES:
            out.append(
                _finding(boot, HARD_RESTART, Blame.HARDWARE, LOST_WEIGHT, NodeAction.INSPECT)
            )
        else:
            out.append(
                _finding(boot, HARD_RESTART, Blame.HARDWARE, HARD_WEIGHT, NodeAction.MONITOR)
            )
    return out


def _finding(
    boot: Finding,
    signal: str,
    blame: Blame,
    weight: int,
    action: NodeAction = NodeAction.NONE,
) -> Finding:
    return Finding(
        signal=signal,
        node=boot.node,
        source=boot.source,
        line=boot.line,
        text=boot.text,
        blame=blame,
        weight=weight,
        node_action=action,
        at=boot.at,
    )
