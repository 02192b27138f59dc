"""Who this process is: job, rank, node and restart count, detected from the launcher's environment.

Pure: ``detect_identity`` reads only the mapping and hostname it is given. Three launchers:

* torchrun / torchelastic: ``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``GROUP_RANK``,
  ``TORCHELASTIC_RUN_ID``, ``TORCHELASTIC_RESTART_COUNT``;
* Slurm: ``SLURM_PROCID``, ``SLURM_LOCALID``, ``SLURM_NTASKS``, ``SLURM_JOB_ID`` (or
  ``SLURM_ARRAY_JOB_ID``/``SLURM_ARRAY_TASK_ID``), ``SLURMD_NODENAME``, ``SLURM_RESTART_COUNT``;
* Kubeflow ``PyTorchJob`` (training-operator v1): ``RANK``, ``WORLD_SIZE``, ``MASTER_ADDR`` and
  ``PET_NNODES``/``PET_NPROC_PER_NODE``/``PET_NODE_RANK``/``PET_MASTER_ADDR``; pods are named
  ``<job>-master-0`` and ``<job>-worker-N``, and the pod name is the container's hostname.

Launchers nest (torchrun inside a Slurm step or a Kubeflow pod), so each field takes the
innermost launcher that knows it: rank, local rank and world size come from torchelastic
first (it sets them per worker process), the job name from Slurm or Kubeflow first (the
torchelastic run id is only a rendezvous key). Restart counts of different layers add up.
"""

from __future__ import annotations

import platform
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

_T = TypeVar("_T")
_POD_RE = re.compile(r"(?P<job>.+)-(?P<role>master|worker)-(?P<index>\d{1,9})")
_MASTER_RE = re.compile(r"(?P<job>.+)-master-0(?:\..*)?")


@dataclass(frozen=True, slots=True)
class Identity:
    """This process's place in the job; ``launcher`` names what it was detected from."""

    job: str | None = None
    rank: int = 0
    local_rank: int = 0
    world_size: int = 1
    node: str | None = None
    restart_count: int = 0
    launcher: str = "none"


@dataclass(frozen=True, slots=True)
class _View:
    """What one launcher's variables say; None where they say nothing."""

    job: str | None = None
    rank: int | None = None
    local_rank: int | None = None
    world_size: int | None = None
    node: str | None = None
    restart_count: int | None = None


def detect_identity(env: Mapping[str, str], hostname: str | None = None) -> Identity:
    """Detect the identity from launcher variables in ``env`` (never raises)."""
    host = hostname or _text(env, "HOSTNAME") or _hostname()
    views = {
        "torchelastic": _torchelastic(env),
        "slurm": _slurm(env),
        "kubeflow": _kubeflow(env, host),
    }
    found = {name: view for name, view in views.items() if view is not None}
    by_rank = [found[n] for n in ("torchelastic", "slurm", "kubeflow") if n in found]
    by_job = [found[n] for n in ("slurm", "kubeflow", "torchelastic") if n in found]
    restarts = [v.restart_count for v in found.values() if v.restart_count is not None]
    return Identity(
        job=_first(v.job for v in by_job),
        rank=_first_or((v.rank for v in by_rank), 0),
        local_rank=_first_or((v.local_rank for v in by_rank), 0),
        world_size=_first_or((v.world_size for v in by_rank), 1),
        node=_first(v.node for v in by_job) or host,
        restart_count=sum(restarts),
        launcher="+".join(sorted(found)) or "none",
    )


def _torchelastic(env: Mapping[str, str]) -> _View | None:
    """torchrun sets these on every worker it starts."""
    if "TORCHELASTIC_RUN_ID" not in env and not ("LOCAL_RANK" in env and "GROUP_RANK" in env):
        return None
    run_id = _text(env, "TORCHELASTIC_RUN_ID")
    return _View(
        job=None if run_id in (None, "none") else run_id,  # "none" is torchrun's default
        rank=_int(env, "RANK"),
        local_rank=_int(env, "LOCAL_RANK"),
        world_size=_int(env, "WORLD_SIZE"),
        restart_count=_int(env, "TORCHELASTIC_RESTART_COUNT"),
    )


def _slurm(env: Mapping[str, str]) -> _View | None:
    """Slurm sets these in every task of a step (``srun``) and in batch scripts."""
    job = _text(env, "SLURM_JOB_ID") or _text(env, "SLURM_JOBID")
    if job is None:
        return None
    array_job, array_task = _text(env, "SLURM_ARRAY_JOB_ID"), _text(env, "SLURM_ARRAY_TASK_ID")
    if array_job and array_task:
        job = f"{array_job}_{array_task}"  # how squeue and sacct name an array task
    return _View(
        job=job,
        rank=_int(env, "SLURM_PROCID"),
        local_rank=_int(env, "SLURM_LOCALID"),
        world_size=_int(env, "SLURM_NTASKS") or _int(env, "SLURM_NPROCS"),
        node=_text(env, "SLURMD_NODENAME"),
        restart_count=_int(env, "SLURM_RESTART_COUNT"),
    )


def _kubeflow(env: Mapping[str, str], host: str | None) -> _View | None:
    """The training operator's variables, and the pod names it gives."""
    pod = _POD_RE.fullmatch(host) if host else None
    pet = any(k in env for k in ("PET_NNODES", "PET_NODE_RANK", "PET_MASTER_ADDR"))
    if not pet and not (pod and "MASTER_ADDR" in env):
        return None
    job = pod.group("job") if pod else None
    if job is None:
        master = _text(env, "PET_MASTER_ADDR") or _text(env, "MASTER_ADDR") or ""
        match = _MASTER_RE.fullmatch(master)
        job = match.group("job") if match else None
    rank = _int(env, "RANK")
    if rank is None and pod is not None:
        # the operator numbers workers after the single master
        index = int(pod.group("index"))
        rank = index if pod.group("role") == "master" else index + 1
    return _View(
        job=job,
        rank=rank,
        local_rank=_int(env, "LOCAL_RANK"),
        world_size=_int(env, "WORLD_SIZE"),
        node=_text(env, "NODE_NAME"),  # only when the pod spec maps spec.nodeName into it
    )


def _text(env: Mapping[str, str], key: str) -> str | None:
    """Return a stripped, non-empty string value of ``env[key]``, else None."""
    value = env.get(key)
    if not isinstance(value, str):
        return None
    value = value.strip()
    return value or None


def _int(env: Mapping[str, str], key: str) -> int | None:
    """Return ``env[key]`` as a non-negative int, else None."""
    text = _text(env, key)
    if text is None or not (text.isascii() and text.isdigit()) or len(text) > 9:
        return None
    return int(text)


def _first(values: Iterable[_T | None]) -> _T | None:
    """Return the first value that is not None."""
    for value in values:
        if value is not None:
            return value
    return None


def _first_or(values: Iterable[_T | None], default: _T) -> _T:
    """Return the first value that is not None, else ``default``."""
    found = _first(values)
    return default if found is None else found


def _hostname() -> str | None:
    """The machine's network name, or None where it has none."""
    try:
        return platform.node() or None
    except Exception:  # a missing uname must not break init()
        return None
