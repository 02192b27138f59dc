#!/usr/bin/env python3
"""Benchmark: is the fleet simulator fast enough (issue 18)?

    uv run python scripts/bench_simulate.py              # both targets
    uv run python scripts/bench_simulate.py --only llama3

Targets, every policy of `autorecover simulate` in one run on this machine's one core:
`--gpus 16384 --days 54` (Llama 3's fleet and period) under 60 s, and `--gpus 131072 --days 30`
under 10 minutes, with memory bounded (peak RSS printed). Exits non-zero when a target is
missed. Each case runs in a child process, so its peak RSS is its own.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

CASES = {
    "llama3": (["--gpus", "16384", "--days", "54"], 60.0),
    "large": (["--gpus", "131072", "--days", "30"], 600.0),
}


def run(name: str) -> dict[str, object]:
    """Run one case in a child process: its wall time, peak RSS and ETTRs."""
    args, limit = CASES[name]
    command = [sys.executable, "-m", "autorecover", "simulate", *args, "--json", "--no-progress"]
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=limit * 2)
    wall = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{name}: exit {done.returncode}: {done.stderr[-2000:]}")
    doc = json.loads(done.stdout)
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {
        "case": name,
        "command": "autorecover simulate " + " ".join(args),
        "wall_s": round(wall, 1),
        "limit_s": limit,
        "ok": wall < limit,
        "peak_rss_mb": round(peak_kb / 1024, 1),
        "events": sum(p["events"] for p in doc["policies"].values()),
        "ettr": {k: p["ettr"] for k, p in doc["policies"].items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(CASES), help="run one case")
    options = parser.parse_args()
    results = [run(name) for name in ([options.only] if options.only else list(CASES))]
    for r in results:
        print(json.dumps(r))
    missed = [r["case"] for r in results if not r["ok"]]
    if missed:
        print(f"missed: {', '.join(map(str, missed))}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
