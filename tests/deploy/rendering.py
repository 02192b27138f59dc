"""Building helm (scripts/helm-binary) and rendering the chart into manifests to inspect."""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "deploy" / "helm" / "autorecover"
HELM_BINARY_SCRIPT = ROOT / "scripts" / "helm-binary"
KUBE_VERSION = "1.35.0"
RELEASE = "ar"
NAMESPACE = "ops"
# A cold build on 2 cores takes minutes; a warm call prints the cached path at once.
BUILD_TIMEOUT_S = 1800.0
RENDER_TIMEOUT_S = 120.0

Manifest = dict[str, Any]


class HelmError(Exception):
    """helm could not be built, or refused to render."""


def build_helm() -> Path:
    """The helm binary scripts/helm-binary builds (or finds cached); its path is the last line."""
    try:
        done = subprocess.run(
            [str(HELM_BINARY_SCRIPT)],
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HelmError(f"scripts/helm-binary did not run: {exc}") from None
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise HelmError(
            f"scripts/helm-binary exited {done.returncode}\n"
            f"stdout:\n{done.stdout[-4000:]}\nstderr:\n{done.stderr[-4000:]}"
        )
    helm = Path(lines[-1])
    if not helm.is_file():
        raise HelmError(f"scripts/helm-binary printed {helm}, which is not a file")
    return helm


def render(helm: Path, values: Mapping[str, Any], namespace: str = NAMESPACE) -> list[Manifest]:
    """`helm template` of the chart with these values: every non-empty document."""
    with tempfile.TemporaryDirectory() as tmp:
        # JSON is YAML, and keeps the values exactly as given (no --set string parsing).
        values_file = Path(tmp) / "values.yaml"
        values_file.write_text(json.dumps(values), encoding="utf-8")
        done = subprocess.run(
            [
                str(helm),
                "template",
                RELEASE,
                str(CHART),
                "--namespace",
                namespace,
                "--kube-version",
                KUBE_VERSION,
                "--values",
                str(values_file),
            ],
            capture_output=True,
            text=True,
            timeout=RENDER_TIMEOUT_S,
            check=False,
        )
    if done.returncode != 0:
        raise HelmError(done.stderr.strip())
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


def lint(helm: Path, values: Mapping[str, Any]) -> str:
    """`helm lint --strict` of the chart with these values: its output, or HelmError."""
    with tempfile.TemporaryDirectory() as tmp:
        values_file = Path(tmp) / "values.yaml"
        values_file.write_text(json.dumps(values), encoding="utf-8")
        done = subprocess.run(
            [str(helm), "lint", "--strict", str(CHART), "--values", str(values_file)],
            capture_output=True,
            text=True,
            timeout=RENDER_TIMEOUT_S,
            check=False,
        )
    if done.returncode != 0:
        raise HelmError(done.stdout + done.stderr)
    return done.stdout


def helm_run(helm: Path, args: list[str], values: Mapping[str, Any] | None = None) -> str:
    """Run helm with these arguments (and a values file, if given): its stdout, or HelmError."""
    with tempfile.TemporaryDirectory() as tmp:
        extra: list[str] = []
        if values is not None:
            values_file = Path(tmp) / "values.yaml"
            values_file.write_text(json.dumps(values), encoding="utf-8")
            extra = ["--values", str(values_file)]
        done = subprocess.run(
            [str(helm), *args, *extra],
            capture_output=True,
            text=True,
            timeout=RENDER_TIMEOUT_S,
            check=False,
        )
    if done.returncode != 0:
        raise HelmError(f"helm {args[0]} exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


@dataclass(frozen=True, slots=True)
class Rendered:
    """One rendering of the chart, with lookups by kind and name."""

    manifests: tuple[Manifest, ...]

    def of_kind(self, kind: str) -> list[Manifest]:
        """Every manifest of this kind."""
        return [m for m in self.manifests if m["kind"] == kind]

    def one(self, kind: str, name: str | None = None) -> Manifest:
        """The single manifest of this kind (and name); fails if there is not exactly one."""
        found = [m for m in self.of_kind(kind) if name is None or m["metadata"]["name"] == name]
        assert len(found) == 1, f"want one {kind} {name or ''}, got {len(found)}"
        return found[0]

    def pod_specs(self) -> Iterator[tuple[str, Manifest]]:
        """(workload name, pod spec) of every Deployment and DaemonSet."""
        for m in self.manifests:
            if m["kind"] in ("Deployment", "DaemonSet"):
                yield m["metadata"]["name"], m["spec"]["template"]["spec"]


def container(workload: Manifest) -> Manifest:
    """The workload's only container."""
    containers = workload["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    result: Manifest = containers[0]
    return result


def argv(workload: Manifest) -> list[str]:
    """The container's command and args, as the kubelet runs them."""
    c = container(workload)
    return [str(a) for a in [*c.get("command", []), *c.get("args", [])]]


def flag_values(args: list[str], flag: str) -> list[str]:
    """Every value given to `flag` (as `--flag VALUE`)."""
    return [args[i + 1] for i, a in enumerate(args[:-1]) if a == flag]


def env(workload: Manifest) -> dict[str, Manifest]:
    """The container's env entries by name."""
    return {e["name"]: e for e in container(workload).get("env", [])}
