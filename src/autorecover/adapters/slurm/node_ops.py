"""Node operations: drain with the incident in the reason, resume only ours, reboot.

Ownership lives in Slurm itself: every reason autorecover sets starts with `autorecover:`
(then the incident and a short why), so `sinfo -R` shows who drained a node and why, and a
restarted engine still knows which drains are its own. A node drained by anybody else keeps
its drain and its reason: `drain` leaves it as it is, `resume` and `reboot` refuse it, and the
result says so. Each operation reads the node first and acts only when something is to be
done, so repeating one (after a crash, under the same action id) does nothing twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from autorecover.adapters.slurm import names
from autorecover.adapters.slurm.commands import Commands, MutationRecord
from autorecover.adapters.slurm.errors import SlurmConflictError
from autorecover.adapters.slurm.reading import Reader
from autorecover.adapters.slurm.records import SlurmNode
from autorecover.adapters.slurm.states import REASON_PREFIX, NodeCondition, node_status
from autorecover.adapters.slurm.timing import Timer
from autorecover.controllers.ports import Provenance

NEXT_STATES = ("RESUME", "DOWN")  # what `scontrol reboot ... nextstate=` accepts in 22.05


class Change(StrEnum):
    """What an operation did (persisted in journals: never rename a value)."""

    DONE = "done"  # the command ran (or, in dry-run, was recorded)
    ALREADY = "already"  # the node was already as asked, by us: nothing to do
    NOT_NEEDED = "not_needed"  # nothing of ours to undo
    NOT_OURS = "not_ours"  # somebody else's drain: left alone


@dataclass(frozen=True, slots=True)
class NodeResult:
    """The outcome of one node operation, with what the node looked like before."""

    node: str
    operation: str
    change: Change
    detail: str
    before: SlurmNode | None = None
    record: MutationRecord | None = None


def reason_for(provenance: Provenance, why: str | None = None) -> str:
    """`autorecover: <incident> <short why>`, cleaned to the strict character set."""
    head = names.clean_text(provenance.incident or provenance.action_id, 64).replace(" ", "_")
    body = names.clean_text(why if why is not None else provenance.why, 120)
    return names.text(f"{REASON_PREFIX} {head} {body}", "reason")


def own_reason(reason: str) -> str:
    """A caller's reason, cleaned and given our prefix when it lacks it."""
    text = names.clean_text(reason)
    if not text.startswith(REASON_PREFIX):
        text = f"{REASON_PREFIX} {text}"
    return names.text(text[: names.MAX_TEXT], "reason")


class NodeOps:
    """Drain, resume and reboot Slurm nodes, recognising our own work by the reason prefix."""

    def __init__(self, commands: Commands, reader: Reader, timer: Timer) -> None:
        self.commands = commands
        self.reader = reader
        self.timer = timer

    def drain(self, node: str, reason: str | None, provenance: Provenance) -> NodeResult:
        """Drain the node (running jobs finish, no new ones start) with our reason."""
        name = names.node_name(node)
        text = own_reason(reason) if reason else reason_for(provenance)
        before = self.reader.node(name)
        status = node_status(before)
        if status.drain or status.condition is NodeCondition.REBOOTING:
            if status.ours:
                return NodeResult(name, "drain", Change.ALREADY, before.reason, before)
            return self._not_ours(name, "drain", before)
        op = self.commands.operation("drain", name, provenance)
        op.run(["scontrol", "update", f"NodeName={name}", "State=DRAIN", f"Reason={text}"])
        record = op.finish(f"done: {text}", self.timer.now())
        return NodeResult(name, "drain", Change.DONE, text, before, record)

    def resume(self, node: str, provenance: Provenance) -> NodeResult:
        """Return the node to service, if autorecover took it out; anybody else's stays."""
        name = names.node_name(node)
        before = self.reader.node(name)
        status = node_status(before)
        out = status.drain or status.condition in (NodeCondition.DOWN, NodeCondition.REBOOTING)
        if not out:
            return NodeResult(name, "resume", Change.NOT_NEEDED, "in service", before)
        if not status.ours:
            return self._not_ours(name, "resume", before)
        op = self.commands.operation("resume", name, provenance)
        if "REBOOT_REQUESTED" in before.flags:
            op.run(["scontrol", "cancel_reboot", name])
        try:
            op.run(["scontrol", "update", f"NodeName={name}", "State=RESUME"])
        except SlurmConflictError:
            # "Invalid node state specified": it is in service already (a cancelled reboot
            # lifts the drain it set, or somebody resumed it meanwhile).
            if node_status(self.reader.node(name)).drain:
                op.finish("failed: Slurm refused to resume", self.timer.now())
                raise
        record = op.finish(f"done: was {before.state} {'+'.join(sorted(before.flags))}",
                           self.timer.now())  # fmt: skip
        return NodeResult(name, "resume", Change.DONE, before.reason, before, record)

    def reboot(
        self,
        node: str,
        provenance: Provenance,
        *,
        next_state: str = "RESUME",
        reason: str | None = None,
    ) -> NodeResult:
        """`scontrol reboot ASAP nextstate=... reason=... NODE`: drain now, reboot when idle.

        `next_state="RESUME"` returns the node to service after the reboot; `"DOWN"` keeps it
        out (with our reason) so that a validation can run before `resume`.
        """
        name = names.node_name(node)
        if next_state not in NEXT_STATES:
            raise ValueError(f"next_state must be one of {NEXT_STATES}, not {next_state!r}")
        text = own_reason(reason) if reason else reason_for(provenance, f"reboot: {provenance.why}")
        before = self.reader.node(name)
        status = node_status(before)
        if status.condition is NodeCondition.REBOOTING and status.ours:
            return NodeResult(name, "reboot", Change.ALREADY, before.reason, before)
        if (status.drain or status.condition is NodeCondition.REBOOTING) and not status.ours:
            return self._not_ours(name, "reboot", before)
        op = self.commands.operation("reboot", name, provenance)
        op.run(["scontrol", "reboot", "ASAP", f"nextstate={next_state}", f"reason={text}", name])
        record = op.finish(f"done: {text}", self.timer.now())
        return NodeResult(name, "reboot", Change.DONE, text, before, record)

    def _not_ours(self, name: str, operation: str, before: SlurmNode) -> NodeResult:
        who = before.reason_user or "somebody"
        detail = f"left alone: {who} took it out ({before.reason or 'no reason'})"
        return NodeResult(name, operation, Change.NOT_OURS, detail, before)
