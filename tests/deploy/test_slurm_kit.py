"""What a Slurm site installs (deploy/slurm/, examples/policy-slurm.toml) is well-formed.

The systemd units pass `systemd-analyze verify`, every flag their command lines give is one
the CLI knows, the wrapper scripts are valid shell calling known commands, and the policy
example loads with the engine's own loader. (The slurm.conf lines are checked on the real
cluster: tests/integration/slurm/test_slurm_cluster_site_conf.py.)
"""

from __future__ import annotations

import itertools
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from autorecover.cli.main import main
from autorecover.server.policies import load_policies

ROOT = Path(__file__).parents[2]
KIT = ROOT / "deploy" / "slurm"
BINARY = "/opt/autorecover/bin/autorecover"


def unit(name: str) -> dict[str, dict[str, list[str]]]:
    """A systemd unit file as {section: {key: [values]}}, continuation lines joined."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] = {}
    logical = re.sub(r"\\\n\s*", " ", (KIT / name).read_text())
    for line in logical.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key, []).append(value)
    return sections


def command(path: tuple[str, ...]) -> click.Command:
    """The click command at `autorecover <path...>`."""
    cmd: click.Command = main
    for name in path:
        assert isinstance(cmd, click.Group)
        cmd = cmd.commands[name]
    return cmd


def check_flags(argv: list[str], path: tuple[str, ...]) -> list[str]:
    """Flags `autorecover <path>` does not know (or values its choices refuse)."""
    options = {o: p for p in command(path).params if isinstance(p, click.Option) for o in p.opts}
    problems, i = [], 0
    while i < len(argv):
        flag = argv[i]
        i += 1
        if not flag.startswith("--"):
            continue
        option = options.get(flag)
        if option is None:
            problems.append(f"unknown flag {flag}")
            i += 1
            continue
        if option.is_flag:
            continue
        value = argv[i] if i < len(argv) else ""
        i += 1
        choice = option.type
        refused = isinstance(choice, click.Choice) and value not in choice.choices
        if refused and "$" not in value:
            problems.append(f"{flag} {value}: not one of {list(choice.choices)}")
    return problems


def exec_argv(name: str) -> list[str]:
    (line,) = unit(name)["Service"]["ExecStart"]
    return shlex.split(line)


def test_slurm_engine_unit_runs_serve_on_slurm_with_hardening() -> None:
    service = unit("autorecover-engine.service")["Service"]
    argv = exec_argv("autorecover-engine.service")
    assert argv[:2] == [BINARY, "serve"]
    assert check_flags(argv[2:], ("serve",)) == []
    given = dict(itertools.pairwise(argv))
    assert given["--scheduler"] == "slurm" and given["--node-actions"] == "agent"
    assert given["--store"] == "${AUTORECOVER_STORE}"
    assert given["--tokens-file"].startswith("/etc/autorecover/")
    assert given["--policy"] == "/etc/autorecover/policy.toml"
    assert service["User"] == ["autorecover"]
    assert service["EnvironmentFile"] == ["/etc/autorecover/engine.env"]
    assert service["Restart"] == ["on-failure"]
    for key, value in {"NoNewPrivileges": "yes", "ProtectSystem": "strict", "PrivateTmp": "yes",
                       "ReadWritePaths": "/var/lib/autorecover"}.items():  # fmt: skip
        assert service[key] == [value], key


def test_slurm_agent_unit_runs_as_root_for_its_own_node() -> None:
    service = unit("autorecover-agent.service")["Service"]
    argv = exec_argv("autorecover-agent.service")
    assert argv[:3] == [BINARY, "agent", "run"]
    assert check_flags(argv[3:], ("agent", "run")) == []
    given = dict(itertools.pairwise(argv))
    assert given["--node"] == "%H" and given["--engine"].startswith("https://")
    assert given["--token-file"] == "/etc/autorecover/agent.token"
    assert service["User"] == ["root"] and service["Restart"] == ["on-failure"]
    assert service["KillMode"] == ["process"]  # an action's child outlives an agent restart


def test_slurm_env_example_extra_flags_are_known() -> None:
    text = (KIT / "engine.env.example").read_text()
    (extra,) = re.findall(r"^#?AUTORECOVER_EXTRA_ARGS=(.*)$", text, re.M)
    assert check_flags(shlex.split(extra), ("serve",)) == []
    assert check_flags(["--bogus", "x", "--scheduler", "slurmish"], ("serve",)) == [
        "unknown flag --bogus",
        "--scheduler slurmish: not one of ['auto', 'fake', 'local', 'kubernetes', 'slurm']",
    ]
    assert "PASSWORD" not in text and "@" in text.split("AUTORECOVER_STORE=")[1].split()[0]


def test_slurm_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.fail("systemd-analyze is missing (Debian package systemd)", pytrace=False)
    binary = Path(sys.executable).parent / "autorecover"
    assert binary.exists(), binary
    names = ["autorecover-engine.service", "autorecover-agent.service"]
    for name in names:
        text = (KIT / name).read_text().replace(BINARY, str(binary))
        (tmp_path / name).write_text(text)
    done = subprocess.run(
        [analyze, "verify", "--man=no", *(str(tmp_path / n) for n in names)],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    said = [line for line in (done.stdout + done.stderr).splitlines()
            if any(n in line for n in names)]  # fmt: skip
    assert done.returncode == 0 and said == [], done.stdout + done.stderr


@pytest.mark.parametrize("script", ["autorecover-check", "autorecover-reboot"])
def test_slurm_wrapper_scripts_are_valid_shell(script: str) -> None:
    path = KIT / script
    assert path.stat().st_mode & 0o111, f"{script} is not executable"
    assert path.read_text().startswith("#!/bin/sh\n")
    done = subprocess.run(["/bin/sh", "-n", str(path)], capture_output=True, text=True,
                          check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_slurm_healthcheck_wrapper_runs_a_known_command() -> None:
    last = (KIT / "autorecover-check").read_text().strip().splitlines()[-1]
    argv = shlex.split(last)
    assert argv[:4] == ["exec", BINARY, "agent", "check"]
    assert check_flags(argv[4:], ("agent", "check")) == []
    assert "--drain" in argv and "--once" in argv
    reboot = (KIT / "autorecover-reboot").read_text().strip().splitlines()[-1]
    assert reboot == "exec systemctl reboot"


def test_slurm_policy_example_loads_with_the_engines_loader() -> None:
    path = ROOT / "examples" / "policy-slurm.toml"
    policies = load_policies([(str(path), path.read_text())])
    assert policies.hardware.timeouts.drain.total_seconds() == 7200
    assert policies.hardware.breaker.max_nodes == 16
    assert policies.jobs.user_restarts == 1
    assert policies.jobs.transient_backoff_s == (30.0, 90.0, 270.0)
    assert policies.origins == (str(path),)


def test_slurm_install_guide_shows_the_snippet_and_the_units_as_shipped() -> None:
    guide = (ROOT / "docs" / "slurm.md").read_text()
    for line in (KIT / "slurm.conf.snippet").read_text().splitlines():
        setting = line.split("#", 1)[0].strip()
        if setting:
            assert setting in guide, f"docs/slurm.md does not show {setting!r}"
    for name in ("autorecover-engine.service", "autorecover-agent.service", "engine.env.example",
                 "autorecover-check", "autorecover-reboot", "slurm.conf.snippet"):  # fmt: skip
        assert name in guide, name
    assert "examples/policy-slurm.toml" in guide
