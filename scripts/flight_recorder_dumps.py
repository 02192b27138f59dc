"""Real flight-recorder dumps of a stalled two-rank job, for the telemetry library's tests.

Two processes (torch.multiprocessing, gloo on CPU, the pinned torch) run a few all-reduces on
the default group, one on a subgroup and a send/recv pair; then rank 1 stalls outside any
collective (a sleep, as a stuck data loader would) while rank 0 enters the next all-reduce and
waits. While they are stalled, each rank dumps its flight recorder from a side thread with the
very call the library's watchdog makes (`_dump_fr_trace(True, False, False, "gloo")`); rank 1
then joins the all-reduce and both exit. The dumps (pickles, as torch returns them) are written
as JSON (tuples become lists) to `tests/telemetry/data/fr-gloo-stall.json`.

    /work/torchenv/bin/python scripts/flight_recorder_dumps.py

Needs torch in the interpreter that runs it; not a project dependency.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import socket
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "tests" / "telemetry" / "data" / "fr-gloo-stall.json"
TORCH_VERSION = "2.15.0"
STALL_S = 4.0
DUMP_AFTER_S = 1.5


def rank_main(rank: int, port: int, folder: str) -> None:
    """One rank: collectives, the stall, the dump from a side thread."""
    import torch
    import torch._C._distributed_c10d as c10d
    import torch.distributed as dist

    os.environ |= {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}
    dist.init_process_group("gloo", rank=rank, world_size=2, timeout=timedelta(seconds=60))
    pair = dist.new_group([0, 1], group_desc="pair")
    t = torch.ones(4)
    for _ in range(3):
        dist.all_reduce(t)
    dist.all_reduce(t, group=pair)
    if rank == 0:
        dist.send(t, dst=1)
    else:
        dist.recv(t, src=0)
    dist.barrier()

    def dump() -> None:
        raw = c10d._dump_fr_trace(True, False, False, "gloo")
        Path(folder, f"{rank}.pickle").write_bytes(raw)

    threading.Timer(DUMP_AFTER_S, dump).start()
    if rank == 1:
        time.sleep(STALL_S)  # outside any collective, as a stuck data loader
    dist.all_reduce(t)  # rank 0 waits here for rank 1
    dist.barrier()
    dist.destroy_process_group()


def _plain(value: Any) -> Any:
    """The dump as JSON values: tuples become lists."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def main() -> int:
    """Run the two ranks and write the fixture."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args()
    import tempfile

    import torch
    import torch.multiprocessing as mp

    version = torch.__version__.split("+", 1)[0]
    if version != TORCH_VERSION:
        print(f"torch is {version}, the pin is {TORCH_VERSION}", file=sys.stderr)
        return 2
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="fr-dumps-") as folder:
        mp.spawn(rank_main, args=(port, folder), nprocs=2)
        dumps = {
            str(r): _plain(pickle.loads(Path(folder, f"{r}.pickle").read_bytes())) for r in (0, 1)
        }
    fixture = {
        "generated_by": {"torch": TORCH_VERSION, "script": "scripts/flight_recorder_dumps.py"},
        "what": (
            "2 ranks, gloo on CPU: 3 all_reduce and a barrier on the default group, 1 all_reduce "
            "on a subgroup (desc 'pair'), a send/recv; then rank 1 sleeps outside any "
            "collective while rank 0 waits in the next all_reduce. Each rank dumped its flight "
            f"recorder {DUMP_AFTER_S} s into the stall, from a side thread, with "
            "_dump_fr_trace(True, False, False, 'gloo')."
        ),
        "dumps": dumps,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(fixture, indent=1, sort_keys=True) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
