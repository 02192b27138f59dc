"""Lines that healthy runs print must not read as a failure (issue 14).

`tests/domain/data/healthy/*.txt` holds real lines from runs shown to have worked (each group
cites its public source): NCCL's INFO and routine WARN lines across versions, torchrun and c10d
start-up and shutdown, framework and serving start-up, Slurm's and the kernel's routine lines,
Kubernetes (kubelet, containerd, the device plugin, DCGM exporter, node-problem-detector), Ray,
JAX, MPI, AMD's driver and RCCL, storage clients, a GPU server's system services and BMC event
log, TensorFlow and Keras, the tools SREs paste (nvidia-smi -q, dcgmi diag, ibstat, lspci),
the job's outside services, the package and artifact tools a job runs (pip, conda, git, the
Hub, object-store and container CLIs), a node's system daemons (read as its system log), and
the routine lines of Ascend, Tenstorrent, Gaudi and other accelerators' stacks, NVLink
fabrics, Kubernetes workload controllers, ML platforms, parallel file systems, serving stacks,
RDMA fabric managers, and NCCL 2.27-2.29,
RCCL, aws-ofi-nccl and UCX at INFO.
Each file goes through the scanner as a job would (the kernel and daemons files as a node's system log, the
others as job output): no finding may blame a cause, and no symptom may weigh as much as a
collective complaint (20: what the cascade rules count). A lighter symptom is context that decides
nothing: a BMC's record of an ordinary power-off, kept to explain a node that left a job. A
catalog entry that reads one of these lines as a failure would decide verdicts for lines every
healthy run prints.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

import pytest

from autorecover.domain.context import COMPLAINT_WEIGHT
from autorecover.domain.records import Blame, Source
from autorecover.parsing.scanning import Scanner

DATA = Path(__file__).parent / "data" / "healthy"
FILES = sorted(DATA.glob("*.txt"))
SYSTEM_FILES = {"kernel.txt", "daemons.txt"}


def _lines(path: Path) -> list[str]:
    return [
        line
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]


def test_there_are_enough_healthy_lines() -> None:
    assert len(FILES) >= 41
    assert sum(len(_lines(p)) for p in FILES) >= 4700


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_healthy_lines_blame_nothing(path: Path, scanner: Scanner) -> None:
    source = Source.SYSTEM if path.name in SYSTEM_FILES else Source.LOGS
    text = "\n".join(_lines(path)) + "\n"
    result = scanner.scan(
        io.BytesIO(text.encode()),
        node="healthy-node",
        source=source,
        reference=datetime(2026, 1, 1, tzinfo=UTC),
    )
    blamed = [
        f"{f.signal} ({f.blame.value} {f.weight}): {f.text}"
        for f in result.findings
        if f.blame is not Blame.INFO
        and not (f.blame is Blame.SYMPTOM and f.weight < COMPLAINT_WEIGHT)
    ]
    assert not blamed, "\n".join(blamed)
