#!/usr/bin/env python3
"""Benchmark: how long `autorecover explain BUNDLE` takes to start and answer.

    uv run python scripts/bench_cli.py                        # 11 runs, the xid79 sample
    uv run python scripts/bench_cli.py --runs 21 --json
    uv run python scripts/bench_cli.py -- catalog xids        # any other command line

Each run is the real console script (`autorecover` beside this interpreter, else on PATH) in
a fresh process, its output thrown away: wall clock around the process, and its CPU time
(user + system, from the kernel's rusage). One unmeasured run comes first. One more run,
`python -X importtime -m autorecover` with the same arguments, gives the import costs: the
slowest modules the command imported (cumulative, that is with what they imported), and the
modules it should never have (the server, the demo, the cluster and database clients).

Bytecode: the processes inherit this environment. Where PYTHONDONTWRITEBYTECODE is set and
nothing is compiled yet (as in this project's dev containers: `uv sync` does not compile),
every start compiles every module it imports from source. `--bytecode-cache` measures what a
normal installation sees: bytecode written on the unmeasured run, under a temporary
PYTHONPYCACHEPREFIX (the tree is not touched), and read on every measured one.

Target (issue 11): median wall time under 0.25 s for `explain` on one sample bundle.
Exit 0 when the median meets it, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_ARGS = ("explain", "tests/samples/xid79-fell-off-bus")
TARGET_S = 0.25
# What a command that does not serve, demo or touch a cluster must never import.
HEAVY = (
    "fastapi", "uvicorn", "starlette", "pydantic", "lightkube", "psycopg", "prometheus_client",
    "autorecover.server", "autorecover.demo",
)  # fmt: skip
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


@dataclass(frozen=True, slots=True)
class ImportCost:
    """One line of `-X importtime`: microseconds in the module alone and with its imports."""

    module: str
    self_us: int
    cumulative_us: int
    depth: int  # 0: imported by the script itself, 1: by one of those, ...


def parse_importtime(text: str) -> list[ImportCost]:
    """The import costs `python -X importtime` wrote to stderr, in its order."""
    costs = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            costs.append(ImportCost(m[4], int(m[1]), int(m[2]), (len(m[3]) - 1) // 2))
    return costs


def heavy_imported(costs: list[ImportCost]) -> list[str]:
    """The entries of `HEAVY` that were imported (themselves, or a module inside them)."""
    return [h for h in HEAVY if any(c.module == h or c.module.startswith(h + ".") for c in costs)]


def console_script() -> str:
    """The `autorecover` script of this environment, else the one on PATH."""
    beside = Path(sys.executable).parent / "autorecover"
    found = str(beside) if beside.exists() else shutil.which("autorecover")
    if found is None:
        raise SystemExit("no `autorecover` script: run `uv sync` first")
    return found


def timed_run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s) of one process, its output thrown away; a failure stops the bench."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        argv, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def import_costs(args: list[str], env: dict[str, str]) -> list[ImportCost]:
    """What one run of the command imports, from `python -X importtime -m autorecover`."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "autorecover", *args],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        check=False,
    )  # fmt: skip
    return parse_importtime(done.stderr)


def child_env(cache: str | None) -> dict[str, str]:
    """This environment; with `cache`, bytecode written and read under that folder."""
    env = dict(os.environ)
    if cache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = cache
    return env


def bytecode(env: dict[str, str]) -> str:
    """How the processes get their bytecode, in words."""
    if env.get("PYTHONPYCACHEPREFIX"):
        return "cached"
    return "not written" if env.get("PYTHONDONTWRITEBYTECODE") else "written and read"


def main(argv: list[str] | None = None) -> int:
    """Run the command `--runs` times, print the numbers; exit 1 when the target is missed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--top", type=int, default=12, help="import costs listed")
    parser.add_argument("--target-s", type=float, default=TARGET_S)
    parser.add_argument("--bytecode-cache", action="store_true", help="see the module help")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("args", nargs="*", help=f"the command line (default: {DEFAULT_ARGS})")
    opts = parser.parse_args(argv)
    args = opts.args or list(DEFAULT_ARGS)
    command = [console_script(), *args]
    with tempfile.TemporaryDirectory(prefix="bench-cli-pyc-") as cache:
        env = child_env(cache if opts.bytecode_cache else None)
        timed_run(command, env)  # warms the page cache (and writes the bytecode); not counted
        runs = [timed_run(command, env) for _ in range(opts.runs)]
        costs = import_costs(args, env)
    walls = [w for w, _ in runs]
    top = sorted(costs, key=lambda c: -c.cumulative_us)[: opts.top]
    summary = {
        "command": " ".join(["autorecover", *args]),
        "runs": len(runs),
        "bytecode": bytecode(env),
        "wall_s_median": round(statistics.median(walls), 3),
        "wall_s_min": round(min(walls), 3),
        "wall_s_max": round(max(walls), 3),
        "cpu_s_median": round(statistics.median(c for _, c in runs), 3),
        "imports_s": round(sum(c.self_us for c in costs) / 1e6, 3),
        "modules_imported": len(costs),
        "heavy_imported": heavy_imported(costs),
        "target_s": opts.target_s,
        "python": platform.python_version(),
        "nproc": os.cpu_count(),
    }
    if opts.json:
        print(json.dumps({"summary": summary, "top_imports": [asdict(c) for c in top]}, indent=2))
    else:
        print(f"{summary['command']}: {len(runs)} runs, bytecode {summary['bytecode']}")
        print(
            f"wall median {summary['wall_s_median']:.3f} s (min {summary['wall_s_min']:.3f}, "
            f"max {summary['wall_s_max']:.3f}); CPU median {summary['cpu_s_median']:.3f} s; "
            f"target median < {opts.target_s} s"
        )
        print(f"imports: {summary['imports_s']:.3f} s in {len(costs)} modules; slowest:")
        for c in top:
            print(f"  {c.cumulative_us / 1000:7.1f} ms  {'  ' * c.depth}{c.module}")
        print(f"heavy modules imported: {', '.join(summary['heavy_imported']) or 'none'}")
    return 0 if statistics.median(walls) < opts.target_s else 1


if __name__ == "__main__":
    sys.exit(main())
