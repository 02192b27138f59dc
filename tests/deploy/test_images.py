"""The engine's and agent's images (deploy/docker/Dockerfile), checked against the repository.

No container runtime or registry is reachable here, so the images are never built by the
tests. What can drift without a build is checked instead: every file the build copies exists
and is in the build context, each image's command is the real CLI, the pinned Python is the one
the project supports and checks against, the chart names the images the Dockerfile builds, and
uv.lock has a wheel for both architectures of every compiled runtime dependency.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from packaging.markers import Marker
from packaging.specifiers import SpecifierSet

from autorecover.cli.main import main as cli

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "docker" / "Dockerfile"
CHART = ROOT / "deploy" / "helm" / "autorecover"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
LOCK = tomllib.loads((ROOT / "uv.lock").read_text(encoding="utf-8"))
# The CPython the images run (the test below ties it to the Dockerfile) and the glibc of its
# Debian release (bookworm ships glibc 2.36): a manylinux wheel newer than that cannot load.
PYTHON_TAG = "cp311"
GLIBC = {"bookworm": (2, 36)}
MACHINES = ("x86_64", "aarch64")  # linux/amd64 and linux/arm64


@dataclass
class Stage:
    """One `FROM ... AS name` stage: its base and instructions, continuation lines joined."""

    base: str
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def all(self, keyword: str) -> list[str]:
        return [rest for kw, rest in self.instructions if kw == keyword]

    def exec_form(self, keyword: str) -> list[str]:
        """The last ENTRYPOINT or CMD, which must be in exec (JSON) form: no shell between."""
        [*_, last] = self.all(keyword)
        value = json.loads(last)
        assert isinstance(value, list) and all(isinstance(v, str) for v in value), last
        return value


def parse(text: str) -> tuple[dict[str, str], dict[str, Stage]]:
    """The global ARG defaults and the stages by name."""
    args: dict[str, str] = {}
    stages: dict[str, Stage] = {}
    current: Stage | None = None
    for line in re.sub(r"\\\n", " ", text).splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keyword, _, rest = line.partition(" ")
        keyword, rest = keyword.upper(), rest.strip()
        if keyword == "FROM":
            base, _, name = rest.partition(" AS ")
            current = stages[name.strip()] = Stage(base.strip())
        elif current is None:
            assert keyword == "ARG", f"{keyword} before the first FROM"
            name, _, default = rest.partition("=")
            args[name] = default
        else:
            current.instructions.append((keyword, rest))
    return args, stages


ARGS, STAGES = parse(DOCKERFILE.read_text(encoding="utf-8"))


def test_images_both_targets_run_the_real_cli() -> None:
    [script] = PYPROJECT["project"]["scripts"]  # the one console script the wheel installs
    expected = {"engine": ["serve"], "agent": ["agent", "run"]}
    for target, path in expected.items():
        stage = STAGES[target]
        assert stage.exec_form("ENTRYPOINT") == [script]
        cmd = stage.exec_form("CMD")
        assert cmd[: len(path)] == path
        command: click.Command = cli
        for name in path:  # each word a real subcommand of the one before
            assert isinstance(command, click.Group), f"{command.name} has no subcommands"
            command = command.commands[name]
        assert set(cmd[len(path) :]) <= {"--help"}
        # The environment the build stage made, first on PATH.
        env = " ".join(stage.all("ENV"))
        assert "PATH=/opt/autorecover/bin:$PATH" in env
        assert stage.all("COPY") == ["--from=build /opt/autorecover /opt/autorecover"]
    # The chart's engine runs as 65532 (pod securityContext); the agent as root.
    assert STAGES["engine"].all("USER") == ["65532:65532"]
    assert STAGES["agent"].all("USER") == ["0:0"]


def test_images_install_no_dependency_group() -> None:
    """`--no-dev` alone would still install the other default groups (torch: ~5 GB)."""
    syncs = [run for run in STAGES["build"].all("RUN") if run.startswith("uv sync")]
    assert syncs
    for run in syncs:
        words = set(run.split())
        assert "--no-default-groups" in words and not {"--group", "--all-groups"} & words, run


def test_images_pin_the_python_the_project_supports_and_checks() -> None:
    image = ARGS["PYTHON_IMAGE"]
    match = re.fullmatch(r"python:(3\.\d+)-slim-(\w+)", image)
    assert match, f"PYTHON_IMAGE {image!r} is not an official python:X.Y-slim-<debian> image"
    version, debian = match.groups()
    assert SpecifierSet(PYPROJECT["project"]["requires-python"]).contains(f"{version}.0")
    assert version == PYPROJECT["tool"]["mypy"]["python_version"]
    assert "cp" + version.replace(".", "") == PYTHON_TAG
    assert debian in GLIBC
    # Every stage but uv's own starts from that one image, so the venv's interpreter link holds.
    assert {s.base for n, s in STAGES.items() if n != "uv"} == {"${PYTHON_IMAGE}"}


def test_images_copy_only_what_exists_and_is_in_the_build_context() -> None:
    allowed = [
        line[1:].rstrip("/")
        for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.startswith("!")
    ]
    sources = []
    for stage in STAGES.values():
        for copy in stage.all("COPY"):
            words = [w for w in copy.split() if not w.startswith("--")]
            if copy.startswith("--from="):
                continue  # from another stage or image, not the context
            sources += words[:-1]
    assert sources, "the build copies nothing from the repository"
    for source in sources:
        assert (ROOT / source).exists(), f"COPY {source}: not in the repository"
        assert source.rstrip("/") in allowed, f"COPY {source}: excluded by .dockerignore"


def test_images_are_the_ones_the_chart_runs() -> None:
    values = yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8"))
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text(encoding="utf-8"))
    header = DOCKERFILE.read_text(encoding="utf-8")
    for target in ("engine", "agent"):
        repository = values["image"][f"{target}Repository"]
        build = f"--target {target} -t {repository}:{chart['appVersion']}"
        assert build in re.sub(r"\s*\\\n#\s*", " ", header), f"no build command for {target}"
    assert chart["appVersion"] == PYPROJECT["project"]["version"]


# --- wheels for both architectures -------------------------------------------------------------


def _runtime_packages(machine: str) -> dict[str, dict[str, Any]]:
    """The lock's packages autorecover needs at run time on glibc Linux of this machine."""
    packages = {p["name"]: p for p in LOCK["package"]}
    root = packages[PYPROJECT["project"]["name"]]
    needed: dict[str, dict[str, Any]] = {}
    todo = list(root.get("dependencies", []))
    while todo:
        dep = todo.pop()
        if not _applies(dep, machine):
            continue
        package = packages[dep["name"]]
        # An extra (psycopg[binary]) brings the package's optional dependencies too.
        for extra in dep.get("extra", []):
            todo += package.get("optional-dependencies", {}).get(extra, [])
        if dep["name"] not in needed:
            needed[dep["name"]] = package
            todo += package.get("dependencies", [])
    return needed


def _applies(dep: dict[str, Any], machine: str) -> bool:
    """Whether a locked dependency's marker holds for CPython 3.11 on Linux of this machine."""
    env = {"platform_machine": machine, "sys_platform": "linux", "platform_system": "Linux",
           "implementation_name": "cpython", "platform_python_implementation": "CPython",
           "python_version": "3.11", "python_full_version": "3.11.0", "os_name": "posix"}  # fmt: skip
    return "marker" not in dep or Marker(dep["marker"]).evaluate(env)


def _wheel_fits(filename: str, machine: str) -> bool:
    """A wheel CPython 3.11 on glibc Linux of this machine installs (pure, abi3 or cp311)."""
    _name, _version, python, abi, platforms = filename.removesuffix(".whl").rsplit("-", 4)
    if platforms == "any":
        return True
    if not (PYTHON_TAG in python.split(".") or abi == "abi3"):
        return False
    for platform in platforms.split("."):
        legacy = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
        match = re.fullmatch(rf"manylinux_(\d+)_(\d+)_{machine}", platform)
        glibc = (int(match[1]), int(match[2])) if match else None
        prefix, _, arch = platform.partition("_")
        if glibc is None and arch == machine:
            glibc = legacy.get(prefix)
        if glibc is not None and glibc <= GLIBC["bookworm"]:
            return True
    return False


def test_images_have_wheels_for_amd64_and_arm64() -> None:
    needed = {machine: _runtime_packages(machine) for machine in MACHINES}
    assert {"fastapi", "psycopg-binary", "pydantic-core"} <= needed["aarch64"].keys()
    for machine, packages in needed.items():
        for name, package in sorted(packages.items()):
            wheels = [w["url"].rsplit("/", 1)[1] for w in package.get("wheels", [])]
            assert any(_wheel_fits(w, machine) for w in wheels), (
                f"{name} {package['version']}: no wheel for CPython 3.11 on {machine} with "
                f"glibc <= 2.36 in uv.lock (the image build would need a compiler)"
            )
    # The one package left out on arm64, by pyproject's marker: the scanner falls back to `re`.
    assert needed["x86_64"].keys() - needed["aarch64"].keys() == {"hyperscan"}
    assert needed["aarch64"].keys() <= needed["x86_64"].keys()


@pytest.mark.parametrize(
    ("filename", "machine", "fits"),
    [
        ("m-1-cp311-cp311-manylinux2014_aarch64.manylinux_2_17_aarch64.whl", "aarch64", True),
        ("m-1-cp311-cp311-manylinux_2_38_aarch64.whl", "aarch64", False),  # glibc too new
        ("m-1-cp311-cp311-manylinux2014_x86_64.whl", "aarch64", False),
        ("m-1-cp312-cp312-manylinux2014_aarch64.whl", "aarch64", False),
        ("m-1-cp38-abi3-manylinux_2_28_x86_64.whl", "x86_64", True),
        ("m-1-cp311-cp311-musllinux_1_2_x86_64.whl", "x86_64", False),  # Debian is glibc
        ("m-1-py3-none-any.whl", "aarch64", True),
    ],
)
def test_images_wheel_tags_are_read_right(filename: str, machine: str, fits: bool) -> None:
    assert _wheel_fits(filename, machine) is fits
