"""Jobs that need whole NVLink cliques: what excluding a suspect means for them.

A job placed by clique (a GB200 NVL72 job whose ranks fill whole NVLink domains; the job says
so with the `whole_cliques=true` setting) cannot run on a clique that lost a node unless the
clique has a spare. So, per suspect: when its clique has a node the job neither runs on nor
avoids, only the suspect is excluded and the scheduler takes the spare; when it has none, the
whole clique is excluded, so the job is placed on another clique instead of waiting,
unschedulable, for a node that will not come back. A suspect of no known clique is excluded
alone. Pure: the topology, the job's nodes and what it avoids in, exclusions out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from autorecover.domain.failure_domains import Topology


@dataclass(frozen=True, slots=True)
class Widened:
    """Per suspect, the nodes the job must avoid for it, and a line saying why."""

    exclude: Mapping[str, tuple[str, ...]]
    notes: tuple[str, ...] = ()


def widen_to_cliques(
    suspects: Iterable[str],
    topology: Topology,
    job_nodes: Iterable[str],
    avoided: Iterable[str] = (),
) -> Widened:
    """Each suspect alone where its clique has a spare; its whole clique where it has none."""
    names = tuple(dict.fromkeys(suspects))
    busy = set(job_nodes) | set(avoided) | set(names)
    out: dict[str, tuple[str, ...]] = {}
    notes: list[str] = []
    for node in names:
        clique = topology.nvlink_of(node)
        if clique is None:
            out[node] = (node,)
            continue
        members = topology.members(clique)
        spares = sorted(members - busy)
        if spares:
            out[node] = (node,)
            notes.append(f"{node}: clique {clique.name} has a spare ({', '.join(spares[:3])})")
        else:
            out[node] = tuple(sorted(members))
            notes.append(
                f"{node}: no spare in clique {clique.name}: the job avoids all "
                f"{len(members)} of its nodes"
            )
    return Widened(MappingProxyType(out), tuple(notes))
