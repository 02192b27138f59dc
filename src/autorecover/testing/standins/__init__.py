"""Stand-in executables: recorded outputs replayed under the real command names.

There are no GPUs on the test machines, so `dcgmi`, `nvidia-smi`, `systemctl` and
`all_reduce_perf` are replaced by one small script installed under each name in a folder put
first on the `PATH` of the process under test. The real code builds the real argument list,
runs it, and parses what comes back; the stand-in records how it was called (argv, pid, time,
working folder, its SLURM*/NCCL*/CUDA*/AUTORECOVER* variables) as a JSON line in
`calls.jsonl`, then answers with the first rule whose pattern matches the arguments: a
recorded output file printed to stdout, an exit status, an optional delay (a long
diagnostic) and an optional file to touch (a "reboot" a test can see).

    kit = StandIns(tmp_path / "standins")
    kit.answer("nvidia-smi", r"--query-compute-apps", stdout=RECORDED / "apps-busy.csv")
    kit.answer("dcgmi", r"^diag -r 3 -j$", stdout=RECORDED / "diag-pass.json", sleep_s=1.0)
    env = {**os.environ, "PATH": f"{kit.bin}:{os.environ['PATH']}"}
    ...
    assert kit.calls("dcgmi")[0].argv == ["diag", "-r", "3", "-j"]

A name with no matching rule exits 127 with a message on stderr, like a missing command.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

SCRIPT = """#!{python}
import json, os, re, sys, time
name = os.path.basename(sys.argv[0])
root = {root!r}
KEPT = ("SLURM", "AUTORECOVER", "NCCL", "CUDA")
args = sys.argv[1:]
with open(os.path.join(root, "calls.jsonl"), "a") as f:
    f.write(json.dumps({{"name": name, "argv": args, "pid": os.getpid(),
                        "at": time.time(), "cwd": os.getcwd(),
                        "env": {{k: v for k, v in os.environ.items()
                                if k.startswith(KEPT)}}}}) + "\\n")
try:
    with open(os.path.join(root, "rules", name + ".json")) as f:
        rules = json.load(f)
except FileNotFoundError:
    rules = []
joined = " ".join(args)
for rule in rules:
    if re.search(rule["pattern"], joined):
        if rule.get("sleep_s"):
            time.sleep(rule["sleep_s"])
        if rule.get("touch"):
            with open(rule["touch"], "a") as f:
                f.write(joined + "\\n")
        if rule.get("stdout"):
            with open(rule["stdout"], "rb") as f:
                sys.stdout.buffer.write(f.read())
        if rule.get("stderr"):
            sys.stderr.write(rule["stderr"])
        sys.exit(rule.get("exit", 0))
sys.stderr.write(f"{{name}}: stand-in has no recorded answer for: {{joined}}\\n")
sys.exit(127)
"""


@dataclass(frozen=True, slots=True)
class Call:
    """One recorded invocation of a stand-in."""

    name: str
    argv: list[str]
    pid: int
    at: float
    cwd: str
    env: dict[str, str]  # the SLURM*, AUTORECOVER*, NCCL*, CUDA* variables it saw


class StandIns:
    """A folder of stand-in executables, their rules and the calls they recorded."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.bin = root / "bin"
        (root / "rules").mkdir(parents=True, exist_ok=True)
        self.bin.mkdir(parents=True, exist_ok=True)
        (root / "calls.jsonl").touch()

    def answer(
        self,
        name: str,
        pattern: str,
        *,
        stdout: Path | None = None,
        exit: int = 0,
        sleep_s: float = 0.0,
        touch: Path | None = None,
        stderr: str = "",
    ) -> None:
        """Add a rule for `name` (installing it): arguments matching `pattern` (a regular
        expression searched in the space-joined arguments) get this answer. Earlier rules
        win, so add the specific ones first."""
        self._install(name)
        path = self.root / "rules" / f"{name}.json"
        rules = json.loads(path.read_text()) if path.exists() else []
        rules.append(
            {
                "pattern": pattern,
                "stdout": str(stdout) if stdout else None,
                "exit": exit,
                "sleep_s": sleep_s,
                "touch": str(touch) if touch else None,
                "stderr": stderr,
            }
        )
        path.write_text(json.dumps(rules, indent=1))

    def clear(self, name: str) -> None:
        """Forget `name`'s rules (it then answers 127 to everything)."""
        (self.root / "rules" / f"{name}.json").unlink(missing_ok=True)

    def calls(self, name: str | None = None) -> list[Call]:
        """The recorded calls, oldest first (of `name` only, when given)."""
        out = []
        for line in (self.root / "calls.jsonl").read_text().splitlines():
            if line.strip():
                call = Call(**json.loads(line))
                if name is None or call.name == name:
                    out.append(call)
        return out

    def path(self, rest: Sequence[str] = ()) -> str:
        """A PATH with the stand-ins first, then `rest` (default: this process's PATH)."""
        parts = [str(self.bin), *(rest or os.environ.get("PATH", "").split(os.pathsep))]
        return os.pathsep.join(parts)

    def _install(self, name: str) -> None:
        exe = self.bin / name
        if not exe.exists():
            exe.write_text(SCRIPT.format(python=sys.executable, root=str(self.root)))
            exe.chmod(0o755)
