"""deploy/slurm/slurm.conf.snippet on a real Slurm 22.05: every line is accepted and in force.

A cluster of its own is started with the snippet's lines appended to its slurm.conf (the
programs pointed at recording stand-ins: the real wrapper would run the agent, or reboot this
machine). `scontrol show config` must report each setting, slurmctld must not complain about
any of them, and slurmd must really run the HealthCheckProgram and the Prolog.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from autorecover.testing.slurm.cluster import ClusterError, SlurmTestCluster

SNIPPET = Path(__file__).parents[3] / "deploy" / "slurm" / "slurm.conf.snippet"
PROGRAMS = ("HealthCheckProgram", "Prolog", "RebootProgram")


def snippet_lines() -> list[tuple[str, str]]:
    """The snippet's `Key=value` lines, comments and blanks left out."""
    pairs = []
    for line in SNIPPET.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            key, _, value = line.partition("=")
            pairs.append((key, value))
    return pairs


def stand_in(path: Path, record: Path, what: str) -> Path:
    path.write_text(f'#!/bin/sh\necho "{what} $(date +%s) $SLURM_JOB_ID" >> {record}\nexit 0\n')
    path.chmod(0o755)
    return path


def show_config(cluster: SlurmTestCluster) -> dict[str, str]:
    done = subprocess.run(["scontrol", "show", "config"], capture_output=True, text=True,
                          env=cluster.env, check=True, timeout=30)  # fmt: skip
    pairs = (re.match(r"^(\S+)\s+= (.*)$", line) for line in done.stdout.splitlines())
    return {m.group(1): m.group(2).strip() for m in pairs if m}


def test_slurm_site_conf_snippet_is_accepted_and_in_force() -> None:
    # In /tmp itself, like the session's cluster: munged wants every folder on its socket's
    # path searchable, which pytest's tmp_path is not.
    tmp_path = Path(tempfile.mkdtemp(prefix="ar-slurm-site-"))
    tmp_path.chmod(0o755)
    ran = tmp_path / "ran.txt"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    base = tmp_path / "cluster"
    # Point the programs at stand-ins; RebootProgram at the cluster's own recording script.
    programs = {"HealthCheckProgram": stand_in(bin_dir / "autorecover-check", ran, "healthcheck"),
                "Prolog": stand_in(bin_dir / "autorecover-prolog", ran, "prolog"),
                "RebootProgram": base / "etc" / "reboot.sh"}  # fmt: skip
    lines = snippet_lines()
    keys = [k for k, _ in lines]
    assert {"HealthCheckProgram", "HealthCheckInterval", "HealthCheckNodeState", "RebootProgram",
            "ResumeTimeout", "JobRequeue", "SchedulerParameters", "PrologFlags",
            "Prolog"} <= set(keys)  # fmt: skip
    extra = []
    for key, value in lines:
        if key in PROGRAMS:
            value = str(programs[key])
        elif key == "SchedulerParameters":  # one list: keep the cluster's own entry too
            value = f"batch_sched_delay=0,{value}"
        extra.append(f"{key}={value}")
    cluster = SlurmTestCluster(base, nodes=2, extra_conf=tuple(extra))
    try:
        try:
            cluster.start()  # its warm-up job runs on both nodes: the Prolog must pass
        except ClusterError as exc:
            pytest.fail(f"the cluster did not start with the snippet's lines: {exc}", pytrace=False)
        config = show_config(cluster)
        wanted = dict(lines)
        assert config["HealthCheckProgram"] == str(programs["HealthCheckProgram"])
        assert config["HealthCheckInterval"] == f"{wanted['HealthCheckInterval']} sec"
        states = set(config["HealthCheckNodeState"].split(","))
        assert states == set(wanted["HealthCheckNodeState"].split(","))  # printed CYCLE,ANY
        assert config["Prolog"] == str(programs["Prolog"])
        assert config["PrologFlags"] == wanted["PrologFlags"]
        assert config["RebootProgram"] == str(programs["RebootProgram"])
        assert config["ResumeTimeout"] == f"{wanted['ResumeTimeout']} sec"
        assert config["JobRequeue"] == wanted["JobRequeue"]
        assert "nohold_on_prolog_fail" in config["SchedulerParameters"].split(",")
        log = (base / "log" / "slurmctld.log").read_text()
        # The test cluster writes its own SchedulerParameters and RebootProgram lines first, so
        # Slurm says those two were given twice (the later value is used: checked above).
        twice = re.compile(r"(SchedulerParameters|RebootProgram) 1 specified more than once")
        complaints = [line for line in log.splitlines()
                      if re.search(r"error|invalid|unknown|fatal", line, re.I)
                      and any(k in line for k in keys) and not twice.search(line)]  # fmt: skip
        assert complaints == []
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not ran.exists():
            time.sleep(0.1)
        seen = ran.read_text() if ran.exists() else ""
        assert "healthcheck" in seen, "slurmd never ran the HealthCheckProgram"
        assert "prolog" in seen, "slurmd never ran the Prolog for the warm-up job"
    finally:
        cluster.stop()
    shutil.rmtree(tmp_path, ignore_errors=True)  # kept, with the logs, when the test failed
