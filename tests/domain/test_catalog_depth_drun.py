"""Depth review of the runtime and launch families (s22): entries that split a lumped failure by
the code or errno its emitter prints, each read from the emitter's source.

- c10d.store_port_denied (signatures-pytorch.toml): the store's bind refused with EACCES
  (torch/csrc/distributed/c10d/socket.cpp, TCPStoreLibUvBackend.cpp): a privileged MASTER_PORT.
- lammps.cuda_build_mismatch (signatures-hpcruntime.toml): geryon's CU_SAFE_CALL with a build or
  driver-compatibility CUresult (cuda.h: 34, 209, 221, 222, 803, 804).
- flux.task_start_failed (signatures-schedulers.toml): the Flux shell's "start failed" with an
  execvp errno (flux-core src/shell/shell.c).
- ompi.daemon_not_found (signatures-mpi.toml): an Open MPI daemon's exit status 127 (ORTE's
  errmgr, help-plm-base.txt [daemon-died-no-signal], the troubleshooting pages).
- mpich.execvp_failed (signatures-mpi.toml): Hydra's HYDU_create_process execvp failure.
- ray.worker_module_missing (signatures-launchers.toml): a ModuleNotFoundError Ray wrapped in
  RaySystemError while unpickling on a worker (python/ray/_private/serialization.py).
- gfortran.os_io_error (signatures-hpcruntime.toml): libgfortran's bare strerror for a unit's
  failed read or write (EIO, ESTALE, ENOTCONN): the file system's, which gfortran.runtime_error
  (narrowed) read as the program's.

Lines marked "rendered" are the emitter's format with invented names and numbers: no public
line was found for them.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import CATALOG, found, hits

NEW: dict[str, Blame] = {
    "c10d.store_port_denied": Blame.APPLICATION,
    "lammps.cuda_build_mismatch": Blame.APPLICATION,
    "flux.task_start_failed": Blame.APPLICATION,
    "ompi.daemon_not_found": Blame.APPLICATION,
    "mpich.execvp_failed": Blame.APPLICATION,
    "gfortran.os_io_error": Blame.SYMPTOM,
    "ray.worker_module_missing": Blame.APPLICATION,
}

# The lumped entries each new one splits, which still read the same lines (weaker): the libuv
# backend's "failed to bind. port:" is signatures-ncclnew.toml's c10d.store_libuv_bind_failed.
LUMPED: dict[str, tuple[str, ...]] = {
    "c10d.store_port_denied": ("c10d.store_listen_failed", "c10d.store_libuv_bind_failed"),
    "lammps.cuda_build_mismatch": ("lammps.cuda_driver_error",),
    "ompi.daemon_not_found": ("ompi.daemon_failed",),
    "ray.worker_module_missing": ("ray.system_error",),
}

# (line, key, captures)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # rendered from socket.cpp's format (torch 1.13-2.2: every address tried, errno 13)
    ("RuntimeError: The server socket has failed to listen on any local network address. The "
     "server socket has failed to bind to [::]:98 (errno: 13 - Permission denied). The server "
     "socket has failed to bind to 0.0.0.0:98 (errno: 13 - Permission denied).",
     "c10d.store_port_denied", {"legacy_port": "98"}),
    # rendered from TCPStoreLibUvBackend.cpp's formats (torch 2.4+, libuv's UV_EACCES)
    ("torch.distributed.DistNetworkError: The server socket has failed to listen on any local "
     "network address. port: 80, useIpv6: 0, code: -13, name: EACCES, message: permission denied",
     "c10d.store_port_denied", {"port": "80"}),
    ("torch.distributed.DistNetworkError: The server socket has failed to bind. port: 443, "
     "useIpv6: 1, code: -13, name: EACCES, message: permission denied",
     "c10d.store_port_denied", {"port": "443"}),
    # rendered from geryon's CU_SAFE_CALL (lib/gpu/geryon/nvd_macros.h)
    ("Cuda driver error 222 in call at file '/opt/lammps/lib/gpu/geryon/nvd_kernel.h' in line "
     "154.", "lammps.cuda_build_mismatch", {"code": "222"}),
    ("Cuda driver error 209 in call at file '/opt/lammps/lib/gpu/geryon/nvd_kernel.h' in line "
     "154.", "lammps.cuda_build_mismatch", {"code": "209"}),
    ("Cuda driver error 803 in call at file '/opt/lammps/lib/gpu/geryon/nvd_device.h' in line "
     "298.", "lammps.cuda_build_mismatch", {"code": "803"}),
    # rendered from flux-core src/shell/shell.c as flux job attach prints the shell's fatal log,
    # and as the exec exception's note
    ("0.037s: flux-shell[0]: FATAL: task 0 (host tioga12): start failed: ./a.out: Permission "
     "denied", "flux.task_start_failed",
     {"host": "tioga12", "program": "./a.out", "error": "Permission denied"}),
    ("0.912s: job.exception type=exec severity=0 task 0 (host tioga12): start failed: stress: No "
     "such file or directory", "flux.task_start_failed",
     {"program": "stress", "error": "No such file or directory"}),
    # open-mpi/ompi docs/launching-apps/troubleshooting.rst (PRRTE's daemon, after "prted: error
    # while loading shared libraries: libimf.so")
    ("A daemon (pid 11893) died unexpectedly with status 127 while", "ompi.daemon_not_found", {}),
    # rendered from ORTE's help-plm-base.txt [daemon-died-no-signal]
    ("A daemon died unexpectedly with status 127 while attempting", "ompi.daemon_not_found", {}),
    # rendered from Hydra's HYDU_create_process (the proxy launching a rank; mpiexec its ssh)
    ("[proxy:0@node01] HYDU_create_process (lib/utils/launch.c:73): execvp error on file "
     "./train_mpi (No such file or directory)", "mpich.execvp_failed",
     {"program": "./train_mpi", "error": "No such file or directory"}),
    ("[mpiexec@login01] HYDU_create_process (lib/utils/launch.c:73): execvp error on file ssh (No "
     "such file or directory)", "mpich.execvp_failed", {"program": "ssh"}),
    ("[proxy:0:1@gpu-b07] HYDU_create_process (utils/launch/launch.c:75): execvp error on file "
     "/home/u/bin/solver (Permission denied)", "mpich.execvp_failed",
     {"error": "Permission denied"}),
    # rendered from libgfortran's generate_error (LIBERROR_OS, no message)
    ("Fortran runtime error: Input/output error", "gfortran.os_io_error",
     {"error": "Input/output error"}),
    ("Fortran runtime error: Stale file handle", "gfortran.os_io_error",
     {"error": "Stale file handle"}),
    ("Fortran runtime error: Transport endpoint is not connected", "gfortran.os_io_error", {}),
    # verl-project/verl issue #4482 (title); ray-project/ray issue #27015; modin-project/modin
    # issue #2985
    ("ray.exceptions.RaySystemError: System error: No module named 'transformers_modules'",
     "ray.worker_module_missing", {"module": "transformers_modules"}),
    ("(TemporaryActor pid=4301) ray.exceptions.RaySystemError: System error: No module named "
     "'policy'", "ray.worker_module_missing", {"module": "policy"}),
    ("E                       ray.exceptions.RaySystemError: System error: No module named "
     "'modin'", "ray.worker_module_missing", {"module": "modin"}),
]  # fmt: skip

# (key, a line it must not read): the codes the review left with the lumped entry, and the
# look-alikes of other programs
NEGATIVE: list[tuple[str, str]] = [
    # a port in use: a second run or a leftover process, c10d.store_listen_failed alone
    # (showlab/Tune-A-Video#90)
    ("c10d.store_port_denied",
     "RuntimeError: The server socket has failed to listen on any local network address. The "
     "server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). The "
     "server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use)."),
    ("c10d.store_port_denied",
     "torch.distributed.DistNetworkError: The server socket has failed to listen on any local "
     "network address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address "
     "already in use"),
    # the client side's refusal is not the store's bind (a sandbox; pinned as info elsewhere)
    ("c10d.store_port_denied",
     "c10d: The client socket cannot be initialized to connect to localhost:0 (errno: 1 - "
     "Operation not permitted)."),
    # MySQL prints the same errno wording about its files
    ("c10d.store_port_denied",
     "/usr/local/mysql/bin/mysqld: Can't find file: './mysql/plugin.frm' (errno: 13 - "
     "Permission denied)"),
    # other CUresults stay lammps.cuda_driver_error's (lammps/lammps issue #2684; rendered)
    ("lammps.cuda_build_mismatch",
     "Cuda driver error 4 in call at file '/home/osc111station/lammps/lib/gpu/geryon/"
     "nvd_timer.h' in line 98."),
    ("lammps.cuda_build_mismatch",
     "Cuda driver error 214 in call at file '/opt/lammps/lib/gpu/geryon/nvd_timer.h' in line 98."),
    ("lammps.cuda_build_mismatch",
     "Cuda driver error 2090 in call at file 'nvd_kernel.h' in line 1."),
    # the NVHPC runtime's own wording is not split (its rendered 209 line is pinned elsewhere)
    ("lammps.cuda_build_mismatch", "call to cuModuleLoadData returned error 209: No binary for GPU"),
    # fork's errno is not the job's command (rendered); the pre-0.38 wording stays
    # flux.job_exception's (flux-framework/flux-core issue #4195)
    ("flux.task_start_failed",
     "1.204s: job.exception type=exec severity=0 task 3 (host tioga12): start failed: python3: "
     "Resource temporarily unavailable"),
    ("flux.task_start_failed",
     "0.784s: job.exception type=exec severity=0 task 0: start failed: stress: No such file or "
     "directory"),
    # other programs' "start failed"
    ("flux.task_start_failed", "05-15 16:22:21.631: E/MediaRecorder(9265): start failed: -19"),
    # another status or a signal: ompi.daemon_failed alone
    ("ompi.daemon_not_found", "A daemon died unexpectedly with status 1 while attempting"),
    ("ompi.daemon_not_found", "A daemon died unexpectedly with status 1270 while attempting"),
    ("ompi.daemon_not_found", "A daemon died unexpectedly on signal 9  while attempting to"),
    # Hydra's other failures, and the 2009 wording without the file
    ("mpich.execvp_failed",
     "[mpiexec@h] HYDU_create_process (lib/utils/launch.c:73): execvp error on file ./a.out "
     "(Argument list too long)"),
    ("mpich.execvp_failed", "HYDU_create_process (70): execvp error (No such file or directory)"),
    # the job's own space and input stay the program's (storage.no_space, gfortran.runtime_error)
    ("gfortran.os_io_error", "Fortran runtime error: No space left on device"),
    ("gfortran.os_io_error",
     "Fortran runtime error: Cannot open file 'input.nml': No such file or directory"),
    # (OpenFAST/openfast issue #133) a bounds check
    ("gfortran.os_io_error",
     "Fortran runtime error: Index '7' of dimension 1 of array 'p%qp%mmm' above upper bound of 6"),
    # the narrowed catch-all no longer reads the file system's errnos as the program's
    ("gfortran.runtime_error", "Fortran runtime error: Input/output error"),
    ("gfortran.runtime_error", "Fortran runtime error: Stale file handle"),
    # Ray's other system errors stay ray.system_error's (verl-project/verl #1299; ray-project/ray
    # #20520)
    ("ray.worker_module_missing",
     "ray.exceptions.RaySystemError: System error: Failed to unpickle serialized exception"),
    ("ray.worker_module_missing",
     "RaySystemError: System error: Ray has not been started yet. You can start Ray with "
     "'ray.init()'."),
]  # fmt: skip


@pytest.mark.parametrize(("line", "key", "captures"), GOLDEN)
def test_golden_line_yields_its_entry(line: str, key: str, captures: dict[str, str]) -> None:
    found_hits = hits(line)
    assert key in found_hits, f"{key} should match {line!r}; got {sorted(found_hits)}"
    assert {name: found_hits[key].get(name) for name in captures} == captures


@pytest.mark.parametrize(("line", "key", "captures"), GOLDEN)
def test_a_full_scan_reads_the_line_with_its_blame(
    line: str, key: str, captures: dict[str, str]
) -> None:
    signals = {signal: blame for signal, blame, _ in found(line, Source.LOGS)}
    assert signals.get(key) is NEW[key], signals


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_look_alikes_and_unsplit_codes_are_not_read(key: str, line: str) -> None:
    assert key not in hits(line), f"{key} must not match {line!r}"


@pytest.mark.parametrize(("key", "blame"), sorted(NEW.items()))
def test_blame_and_weight_and_no_node_action(key: str, blame: Blame) -> None:
    sig = CATALOG.signatures[key]
    assert sig.blame is blame
    if blame is Blame.APPLICATION:
        assert sig.weight >= 50, "a split code the source makes clear decides on its own"
    else:  # the file system's errno: weighed as storage.eio, never alone
        assert sig.weight == CATALOG.signatures["storage.eio"].weight < 50
    assert sig.node_action.value == "none"


def test_every_new_entry_has_a_golden_line() -> None:
    assert set(NEW) == {key for _, key, _ in GOLDEN}


@pytest.mark.parametrize(("key", "lumped"), sorted(LUMPED.items()))
def test_the_lumped_entry_still_reads_the_split_code_and_stays_below_it(
    key: str, lumped: tuple[str, ...]
) -> None:
    # (PRRTE's "A daemon (pid N) died ..." wording is read by ompi.daemon_not_found alone)
    lines = [line for line, k, _ in GOLDEN if k == key]
    assert any(set(lumped) & set(hits(line)) for line in lines), key
    for old in lumped:
        assert CATALOG.signatures[old].weight < 50 <= CATALOG.signatures[key].weight, old


def test_the_narrowed_fortran_catch_all_still_reads_the_programs_errors() -> None:
    for line in (
        "Fortran runtime error: Index '7' of dimension 1 of array 'p%qp%mmm' above upper bound of 6",
        "Fortran runtime error: Cannot open file 'input.nml': No such file or directory",
        "Fortran runtime error: Input/output error on unit 10 while reading",
    ):
        assert "gfortran.runtime_error" in hits(line), line
    eio = {s: b for s, b, _ in found("Fortran runtime error: Input/output error", Source.LOGS)}
    assert Blame.APPLICATION not in eio.values(), eio


def test_a_build_mismatch_code_weighs_as_the_core_reads_its_name() -> None:
    ours = CATALOG.signatures["lammps.cuda_build_mismatch"]
    core = CATALOG.signatures["cuda.environment"]
    assert (ours.blame, ours.weight) == (core.blame, core.weight)


def test_a_port_in_use_still_does_not_decide_but_a_privileged_port_does() -> None:
    in_use = found(
        "torch.distributed.DistNetworkError: The server socket has failed to listen on any local "
        "network address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address "
        "already in use",
        Source.LOGS,
    )
    privileged = found(
        "torch.distributed.DistNetworkError: The server socket has failed to listen on any local "
        "network address. port: 80, useIpv6: 0, code: -13, name: EACCES, message: permission "
        "denied",
        Source.LOGS,
    )
    assert all(b is not Blame.APPLICATION for _, b, _ in in_use), in_use
    assert any(s == "c10d.store_port_denied" and w >= 50 for s, _, w in privileged)
