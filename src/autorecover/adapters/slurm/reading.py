"""Reading jobs and nodes from Slurm: `--json` where it exists, `scontrol show -o` where not.

`transport="auto"` tries `squeue`/`sinfo --json` first and falls back to `scontrol show -o`
for good once a command says it does not know `--json` (Slurm before 21.08, or built without
the openapi plugin). From 23.02 `sinfo --json` lists sinfo's grouped lines instead of nodes;
the first such answer switches node lists to `scontrol show node --json` (23.02+), which
prints every node with every field. One job or one node is read with `scontrol show job|node
-o ID`, which asks the controller for that one alone (`--json` in 22.05 ignores `-j` and `-n`).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import TypeVar

from autorecover.adapters.slurm import names
from autorecover.adapters.slurm.commands import Commands
from autorecover.adapters.slurm.errors import SlurmNotFoundError, SlurmPermanentError
from autorecover.adapters.slurm.parsing import (
    GroupedSinfoError,
    SlurmParseError,
    parse_scontrol_jobs,
    parse_scontrol_nodes,
    parse_sinfo_json,
    parse_squeue_json,
)
from autorecover.adapters.slurm.records import SlurmJob, SlurmNode

_T = TypeVar("_T")
_NO_JSON = ("unrecognized option", "invalid option", "unknown option", "plugin")


class Transport(StrEnum):
    """How jobs and nodes are listed."""

    AUTO = "auto"
    JSON = "json"
    SCONTROL = "scontrol"


class Reader:
    """Jobs and nodes as records, through one `Commands`."""

    def __init__(self, commands: Commands, transport: Transport = Transport.AUTO) -> None:
        self.commands = commands
        self.transport = transport
        self.node_list_argv = ["sinfo", "--json"]  # ["scontrol", "show", "node", "--json"]: 23.02+

    @property
    def uses_json(self) -> bool:
        """True while lists come from `--json`."""
        return self.transport is not Transport.SCONTROL

    def jobs(self) -> list[SlurmJob]:
        """Every job the controller still knows (running, pending, recently ended)."""
        if self.uses_json:
            text = self._json(["squeue", "--json"])
            if text is not None:
                return _parsed(parse_squeue_json, text, "squeue --json")
        done = self.commands.read(["scontrol", "show", "job", "--oneliner"])
        return _parsed(parse_scontrol_jobs, done.stdout, "scontrol show job")

    def nodes(self) -> list[SlurmNode]:
        """Every node."""
        if self.uses_json:
            text = self._json(self.node_list_argv)
            if text is not None:
                try:
                    return _unique(parse_sinfo_json(text))
                except GroupedSinfoError:
                    if self.node_list_argv[0] == "scontrol":
                        raise SlurmPermanentError("scontrol show node --json: no nodes") from None
                    self.node_list_argv = ["scontrol", "show", "node", "--json"]
                    return self.nodes()
                except SlurmParseError as exc:
                    what = " ".join(self.node_list_argv)
                    raise SlurmPermanentError(f"{what}: cannot read the answer: {exc}") from None
        done = self.commands.read(["scontrol", "show", "node", "--oneliner"])
        return _parsed(parse_scontrol_nodes, done.stdout, "scontrol show node")

    def job(self, job_id: str | int) -> SlurmJob:
        """One job; `SlurmNotFoundError` when the controller does not know it (any more)."""
        jid = names.job_id(job_id)
        done = self.commands.read(["scontrol", "show", "job", "--oneliner", jid])
        found = [j for j in _parsed(parse_scontrol_jobs, done.stdout, "scontrol show job")
                 if j.job_id == jid]  # fmt: skip
        if not found:
            raise SlurmNotFoundError(f"job {jid}: not found", done.argv)
        return found[0]

    def node(self, name: str) -> SlurmNode:
        """One node; `SlurmNotFoundError` when there is no such node."""
        node = names.node_name(name)
        done = self.commands.read(["scontrol", "show", "node", "--oneliner", node])
        found = [n for n in _parsed(parse_scontrol_nodes, done.stdout, "scontrol show node")
                 if n.name == node]  # fmt: skip
        if not found:
            raise SlurmNotFoundError(f"node {node}: not found", done.argv)
        return found[0]

    def _json(self, argv: list[str]) -> str | None:
        try:
            return self.commands.read(argv).stdout
        except SlurmPermanentError as exc:
            if self.transport is Transport.AUTO and any(w in exc.stderr.lower() for w in _NO_JSON):
                self.transport = Transport.SCONTROL
                return None
            raise


def _parsed(parse: Callable[[str], list[_T]], text: str, what: str) -> list[_T]:
    try:
        return parse(text)
    except SlurmParseError as exc:
        raise SlurmPermanentError(f"{what}: cannot read the answer: {exc}") from None


def _unique(nodes: list[SlurmNode]) -> list[SlurmNode]:
    """sinfo lists a node once per partition it is in; keep the first."""
    seen: dict[str, SlurmNode] = {}
    for node in nodes:
        seen.setdefault(node.name, node)
    return list(seen.values())
