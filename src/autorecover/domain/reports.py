"""What other nodes, the scheduler and relays say about a node.

* **Named failures.** Slurm's `srun: error: Node failure on X` counts against X, and so does a
  node of the job that SageMaker HyperPod's auto-resume leaves out of the nodes it kept.
* **Peers.** Network errors that name a peer's address count (weakly) against the node that
  announced that address (NCCL's bootstrap lines, Ray's banner: the address book).
* **Forwarded lines.** A line one node's output relays from another's process (Ray's
  `(Worker pid=N, ip=A)` prefix) belongs to the node with that address; the relaying node's
  own re-raise of it is a restatement.
* **Labelled lines.** `srun --label` puts each task's number before its lines (`8: ...`), and a
  batch script's output file, on the first node, gathers every task's: srun's own reports in
  the same file (`srun: error: gpu-d03: tasks 8-11: Exited with exit code 255`) say which node
  ran which task, so a labelled line of task 8 belongs to gpu-d03.
* **Lines about a named node.** A daemon's log names the node a line is about (slurmctld's
  "Setting node X state to INVAL with reason:..."): it counts for X when X is the job's, and for
  no node otherwise, never for the node whose file holds it (a controller's log names the whole
  cluster).

Pure functions of the findings; `domain/attribution.py` uses them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from autorecover.domain.hostlists import HostlistError, expand_hostlist
from autorecover.domain.records import Blame, Finding, JobRecord

POD_ADDED = "kubelet.pod_added"  # a pod's name (and so its hostname) is its node's address
ADDRESS_SIGNALS = frozenset({"nccl.bootstrap", "ray.node_ip", POD_ADDED})  # lines announcing them
# the random suffix Kubernetes' generateName puts after a Job's pod name (apimachinery's
# names.SimpleNameGenerator: five characters of "bcdfghjklmnpqrstvwxz2456789"; any five letters
# or digits are taken, as a paste may carry them retyped)
_GENERATED_SUFFIX = re.compile(r"-[a-z0-9]{5}$")
NAMED_FAILURE_WEIGHT = 70  # the scheduler itself says this node failed
PEER_BLAME_WEIGHT = 35  # other nodes' NCCL errors name this node's address


def named_failures(findings: Iterable[Finding], job: JobRecord) -> list[Finding]:
    """A node another node's log names as failed (`srun: error: Node failure on X`), or that
    a platform resuming the job left out of the nodes it kept (SageMaker HyperPod's
    auto-resume: "shrink job to retain healthy nodes <hostlist>")."""
    out = []
    for f in findings:
        host = job.node_named(f.detail("failed_host"))
        if host is not None:
            out.append(_about(host, f, "node.reported_failed", NAMED_FAILURE_WEIGHT, f.node))
        for host in _left_out(f.detail("healthy_hosts"), job):
            out.append(_about(host, f, "node.reported_failed", NAMED_FAILURE_WEIGHT, f.node))
    return out


def _left_out(kept: str | None, job: JobRecord) -> list[str]:
    """The job's nodes a list of kept nodes leaves out: only when every kept name is one of the
    job's nodes (a list in other names says nothing about these) and some but not all are."""
    if not kept:
        return []
    try:
        names = expand_hostlist(kept)
    except HostlistError:
        return []
    nodes = [job.node_named(n) for n in names]
    if not nodes or any(n is None for n in nodes):
        return []
    left = [n for n in job.nodes if n not in nodes]
    return left if len(left) < len(job.nodes) else []


def _about(node: str, f: Finding, signal: str, weight: int, reported_by: str) -> Finding:
    """Hardware evidence against `node` from a line in another node's file."""
    return Finding(
        signal=signal,
        node=node,
        source=f.source,
        line=f.line,
        text=f.text,
        blame=Blame.HARDWARE,
        weight=weight,
        at=f.at,
        origin=f.node,
        details=(("reported_by", reported_by),),
    )


def address_book(everything: Iterable[Finding], job: JobRecord) -> dict[str, str]:
    """Address -> node, from the lines in which nodes announce their address (NCCL's bootstrap
    lines, Ray's banner; at start-up, so any time counts), and each node's own name."""
    owner: dict[str, str] = {node: node for node in job.nodes}
    hostnames: dict[str, set[str]] = {}
    for f in everything:
        address = f.detail("address") if f.signal in ADDRESS_SIGNALS else None
        if address is not None:
            # a banner pdsh printed for another node (`gpu-a02: Local node IP: A`) is that node's
            node = job.node_named(f.detail("via")) or f.node
            owner.setdefault(address, node)
            if f.signal == POD_ADDED:  # a Job's pod is named its hostname plus a random suffix
                hostnames.setdefault(_GENERATED_SUFFIX.sub("", address), set()).add(node)
    for hostname, nodes in hostnames.items():
        if len(nodes) == 1:  # a name that several nodes' pods share names none of them
            owner.setdefault(hostname, next(iter(nodes)))
    return owner


def forwarded(findings: Sequence[Finding], job: JobRecord) -> list[Finding]:
    """Lines one node's output forwards from another's process (Ray's `(Worker pid=N, ip=A)`
    prefix) belong to the node with that address; the file that holds them is the origin."""
    if not any(f.detail("via") for f in findings):
        return list(findings)
    owner = address_book(findings, job)
    out: list[Finding] = []
    relayed: set[tuple[str, str]] = set()  # (file's node, signal) forwarded from elsewhere
    own: set[int] = set()  # indexes of lines that ran on the file's node (pdsh names it too)
    for f in findings:
        via = f.detail("via")
        named = job.node_named(via) if via else None  # pdsh's `<host>: ` names the node
        node = (owner.get(via) or named) if via else None
        if node is not None and node != f.node and node in job.nodes and f.origin is None:
            # Only a worker forwarded by its address (Ray's `ip=`) has a driver that re-raises
            # its error; pdsh's `<host>: ` naming another node is that node's own output, and
            # the file's node printing the same error is its own failure, not a restatement.
            if named is None:
                relayed.add((f.node, f.signal))
            f = replace(f, node=node, origin=f.node)
        elif not via or node == f.node:
            own.add(len(out))
        out.append(f)
    # The driver re-raises a worker's error in its own traceback, unprefixed (or under pdsh's
    # prefix naming the driver's own node): a restatement.
    return [
        replace(f, blame=Blame.SYMPTOM)
        if i in own and f.origin is None and (f.node, f.signal) in relayed
        and f.blame is not Blame.INFO
        else f
        for i, f in enumerate(out)
    ]  # fmt: skip


# srun --label's prefix (Slurm src/srun: "%*d: ", padded, before each line of a task's output),
# itself perhaps behind a collector's prefix (a CRI time, mpirun's tag, pdsh's host); never a
# number inside a word or brackets (torchrun's `[rank3]:`, a `[1,3]` tag)
_SRUN_LABEL = r"(?:^|(?<=[\s:>|]))\s{{0,6}}{rank}: "
_TASK_RANGE = re.compile(r"(\d{1,6})(?:-(\d{1,6}))?")
MAX_TASKS = 100_000  # a task list naming more than this is not read


def labelled(findings: Sequence[Finding], job: JobRecord) -> list[Finding]:
    """Lines `srun --label` numbered by task, in a file that gathers several nodes' tasks, move
    to the node srun's own reports in that file name for the task (`srun: error: <node>:
    tasks 8-11: ...`, the `host` and `task` captures); the file's node is kept as their origin.
    Only a line that carries the label is moved (torchrun's `[rank3]:` numbers ranks, not
    srun's tasks)."""
    tasks: dict[tuple[str, object], dict[int, str]] = {}
    for f in findings:
        node = job.node_named(f.detail("host"))
        listed = f.detail("task")
        if node is None or listed is None or f.origin is not None:
            continue
        mapping = tasks.setdefault((f.node, f.source), {})
        for task in task_numbers(listed):
            mapping.setdefault(task, node)
    if not tasks:
        return list(findings)
    out = []
    for f in findings:
        mapping = tasks.get((f.node, f.source), {})
        node = mapping.get(f.rank) if f.rank is not None and f.origin is None else None
        if node is not None and node != f.node and _srun_labelled(f.text, f.rank):
            f = replace(f, node=node, origin=f.node)
        out.append(f)
    return out


def _srun_labelled(text: str, rank: int | None) -> bool:
    return rank is not None and re.search(_SRUN_LABEL.format(rank=rank), text) is not None


def task_numbers(listed: str) -> list[int]:
    """srun's task list (`8-11`, `0,2,4-5`) as numbers; [] where it names implausibly many."""
    numbers: list[int] = []
    for part in listed.split(","):
        m = _TASK_RANGE.fullmatch(part.strip())
        if m is None:
            return []
        low = int(m.group(1))
        high = int(m.group(2)) if m.group(2) else low
        if high < low or len(numbers) + high - low + 1 > MAX_TASKS:
            return []
        numbers.extend(range(low, high + 1))
    return numbers


def about_named(findings: Sequence[Finding], job: JobRecord) -> list[Finding]:
    """Findings whose line names the node it is about (the `about` capture: the node's name, or
    a pod's or an address the node announced) move to that node, the file's node kept as their
    origin; those about a node outside the job are dropped."""
    if not any(f.detail("about") for f in findings):
        return list(findings)
    owner = address_book(findings, job)
    out: list[Finding] = []
    for f in findings:
        about = f.detail("about")
        if about is None:
            out.append(f)
            continue
        node = job.node_named(about) or owner.get(about)
        if node is not None:
            out.append(f if node == f.node else replace(f, node=node, origin=f.node))
    return out


def blamed_peers(
    everything: Sequence[Finding], seen: Iterable[Finding], job: JobRecord
) -> list[Finding]:
    """Network errors name a peer; NCCL's bootstrap lines (or the node's own name) say whose.

    NCCL IB errors, gloo's lost-pair errors and TCPStore socket errors capture `peer`: an
    address NCCL's bootstrap lines map to a node, or a host name that is the node's. A peer
    named by the errors of other nodes is a weak hardware suspect: alone it decides nothing
    (two nodes of a broken link blame each other), with its own evidence it adds up.
    """
    owner = address_book(everything, job)
    reporters: dict[str, set[str]] = {}
    first: dict[str, Finding] = {}
    # the earliest report speaks for them all (ties by node: not by the node list's order)
    for f in sorted(seen, key=lambda f: (f.at.timestamp() if f.at else 0.0, f.node, f.line)):
        peer = f.detail("peer")
        address = peer.split("<", 1)[0] if peer else None
        node = (owner.get(address) or job.node_named(address)) if address else None
        if node is None or node == f.node or node not in job.nodes:
            continue
        reporters.setdefault(node, set()).add(f.node)
        first.setdefault(node, f)
    out = []
    for node, by in reporters.items():
        f = first[node]
        weight = PEER_BLAME_WEIGHT + (10 if len(by) > 1 else 0)
        out.append(_about(node, f, "nccl.peer_blamed", weight, ",".join(sorted(by))))
    return out
