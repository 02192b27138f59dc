"""Wording drift across Slurm 17.11-25.05, pyxis 0.1-0.24 and enroot 1.0-4.1: each line is
rendered from an older (or newer) format string of a message the catalog already reads, or of a
failure message it did not read before, with the release, file and function it comes from beside
it. The catalog must read every release's wording, not only the one an entry was written from, and
must keep leaving alone the look-alikes listed at the end."""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame
from domain.golden import scanned_blames as found
from domain.golden import scanned_details as details


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        # rendered: slurm slurm-19-05-8-1 src/srun/libsrun/allocate.c _timeout_handler
        ("srun: Force Terminated job 4021", "slurm.step_aborted", Blame.SYMPTOM),
        # rendered: slurm slurm-20-02-7-1 src/api/step_launch.c slurm_step_launch_wait_finish
        ("srun: Force Terminated job step 4021.0", "slurm.step_aborted", Blame.SYMPTOM),
        # rendered: slurm slurm-25-05-8-1 src/srun/allocate.c _timeout_handler (%ps of a job)
        ("srun: Force Terminated JobId=4021", "slurm.step_aborted", Blame.SYMPTOM),
        # rendered: slurm slurm-20-02-7-1 src/plugins/launch/slurm/launch_slurm.c launch_p_step_launch
        (
            "srun: Job step 4021.0 aborted before step completely launched.",
            "slurm.step_terminating",
            Blame.SYMPTOM,
        ),
        # rendered: slurm slurm-25-05-8-1 src/srun/launch.c launch_g_step_launch
        (
            "srun: StepId=4021.0 aborted before step completely launched.",
            "slurm.step_terminating",
            Blame.SYMPTOM,
        ),
        # rendered: slurm slurm-25-05-8-1 src/srun/launch.c _handle_openmpi_port_error (%ps)
        ("srun: Terminating job step StepId=4021.0", "slurm.step_terminating", Blame.SYMPTOM),
        # rendered: slurm slurm-25-05-8-1 src/srun/launch.c launch_g_step_launch
        (
            "srun: error: Application launch failed: Communication connection failure",
            "slurm.step_terminating",
            Blame.SYMPTOM,
        ),
        # rendered: slurm slurm-25-05-8-1 src/slurmd/slurmstepd/step_terminate_monitor.c _monitor
        (
            "slurmstepd: error: *** STEP 4021.0 STEPD TERMINATED ON gpu-a03 AT 2026-03-06T03:44:12 "
            "DUE TO JOB NOT RUNNING ***",
            "slurm.unkillable_step",
            Blame.HARDWARE,
        ),
        # rendered: slurm slurm-17-11-13-2 src/slurmd/slurmstepd/task.c exec_task
        (
            "slurmstepd: error: execve(): bad interpreter(/usr/bin/python4): No such file or "
            "directory",
            "slurm.task_exec_failed",
            Blame.APPLICATION,
        ),
        # rendered: slurm slurm-25-05-8-1 src/plugins/job_container/tmpfs/job_container_tmpfs.c _create_ns
        (
            "slurmstepd: error: _create_ns: open failed /var/opt/slurm/localstorage/4021/.ns: "
            "No such file or directory",
            "slurm.job_container_join_failed",
            Blame.TRANSIENT,
        ),
        # rendered: slurm slurm-25-05-8-1 src/plugins/job_container/tmpfs/job_container_tmpfs.c container_p_join
        (
            "slurmstepd: error: container_p_join: setns failed for "
            "/var/opt/slurm/localstorage/4021/.ns: Invalid argument",
            "slurm.job_container_join_failed",
            Blame.TRANSIENT,
        ),
        # rendered: slurm slurm-25-05-8-1 src/plugins/job_container/tmpfs/job_container_tmpfs.c _create_ns
        (
            "slurmstepd: error: _create_ns: mkdir /var/opt/slurm/localstorage/4021 failed: No space "
            "left on device",
            "slurm.job_container_join_failed",
            Blame.TRANSIENT,
        ),
        # rendered: slurm slurm-25-05-8-1 src/slurmctld/job_mgr.c job_epilog_complete
        (
            "[2026-03-06T03:44:12.118] error: job_epilog_complete: JobId=4021 epilog error on "
            "gpu-a03, draining the node",
            "slurm.epilog_failed",
            Blame.HARDWARE,
        ),
        # rendered: slurm slurm-17-11-13-2 src/slurmctld/job_mgr.c job_epilog_complete
        (
            "[2026-03-06T03:44:12.118] error: job_epilog_complete: JobID=4021 State=0x8003 "
            "NodeCnt=1 epilog error on gpu-a03, draining the node",
            "slurm.epilog_failed",
            Blame.HARDWARE,
        ),
        # rendered: slurm slurm-20-11-9-1 src/slurmctld/step_mgr.c kill_step_on_node (%pS)
        (
            "[2026-03-06T03:44:12.118] Killing JobId=4021 StepId=4021.0 on failed node node03",
            "slurm.node_set_down",
            Blame.SYMPTOM,
        ),
        # rendered: slurm slurm-20-11-9-1 src/slurmctld/step_mgr.c kill_step_on_node
        (
            "[2026-03-06T03:44:12.118] Killing JobId=4021 StepId=4021.0 due to failed node node03",
            "slurm.node_set_down",
            Blame.SYMPTOM,
        ),
        # rendered: slurm slurm-25-05-8-1 src/interfaces/gres.c gres_node_config_validate
        (
            "   Reason=gres/gpu count too low (7 < 8) [slurm@2026-03-06T03:44:12]",
            "slurm.gpu_count_dropped",
            Blame.HARDWARE,
        ),
        # rendered: slurm slurm-25-05-8-1 src/interfaces/gres.c _valid_gres_types (typed GPUs)
        (
            "[2026-03-06T03:44:12.118] error: Setting node gpu-a03 state to INVAL with reason:"
            "gpu:a100 count too low (3 < 4)",
            "slurm.gpu_count_dropped",
            Blame.HARDWARE,
        ),
        # rendered: slurm slurm-17-11-13-2 src/common/gres.c _node_config_validate (no GPU seen)
        (
            "   Reason=gres/gpu count too low (0 < 4) [slurm@2026-03-06T03:44:12]",
            "slurm.gpu_count_none",
            Blame.HARDWARE,
        ),
        # rendered: slurm slurm-17-11-13-2 src/slurmctld/node_mgr.c validate_node_specs
        (
            "slurmctld: error: Node cn1 has low socket*core count (16 < 32)",
            "slurm.node_resources_low",
            Blame.HARDWARE,
        ),
        # rendered: slurm slurm-22-05-11-1 src/common/slurm_errno.c ESLURM_INSUFFICIENT_GRES
        (
            "srun: error: Unable to create step for job 4021: Insufficient GRES available in "
            "allocation",
            "slurm.request_rejected",
            Blame.APPLICATION,
        ),
        # rendered: slurm slurm-18-08-9-1 src/common/slurm_errno.c ESLURM_INVALID_GRES_TYPE
        (
            "sbatch: error: Batch job submission failed: Invalid GRES specification (with and "
            "without type identification)",
            "slurm.request_rejected",
            Blame.APPLICATION,
        ),
        # rendered: slurm slurm-17-11-13-2 src/common/slurm_errno.c ESLURM_DUPLICATE_GRES
        (
            "sbatch: error: Batch job submission failed: Duplicate generic resource (gres) "
            "specification",
            "slurm.request_rejected",
            Blame.APPLICATION,
        ),
        # rendered: slurm slurm-25-05-8-1 src/common/slurm_errno.c ESLURM_MISSING_TIME_LIMIT
        (
            "salloc: error: Job submit/allocate failed: Time limit specification required, but "
            "not provided",
            "slurm.request_rejected",
            Blame.APPLICATION,
        ),
        # rendered: slurm slurm-25-05-8-1 src/api/step_launch.c _print_launch_msg (ESLURMD_INVALID_JOB_CREDENTIAL)
        (
            "srun: error: Task launch for StepId=4021.0 failed on node cn131: Invalid job "
            "credential",
            "slurm.task_launch_failed",
            Blame.TRANSIENT,
        ),
        # rendered: pyxis v0.1.0 pyxis_slurmstepd.c enroot_import
        (
            "slurmstepd: error: pyxis: enroot import failed",
            "slurm.pyxis_start_failed",
            Blame.SYMPTOM,
        ),
        # rendered: pyxis v0.24.0 pyxis_slurmstepd.c enroot_container_start
        (
            "slurmstepd: error: pyxis: failed to start container",
            "slurm.pyxis_start_failed",
            Blame.SYMPTOM,
        ),
        # rendered: pyxis v0.24.0 pyxis_slurmstepd.c enroot_container_start
        (
            "slurmstepd: error: pyxis: container exited too soon",
            "slurm.pyxis_start_failed",
            Blame.SYMPTOM,
        ),
        # rendered: pyxis v0.24.0 pyxis_slurmstepd.c slurm_spank_task_init (another task's setup)
        (
            "slurmstepd: error: pyxis: container was not started successfully by another task",
            "slurm.pyxis_start_failed",
            Blame.SYMPTOM,
        ),
        # rendered: pyxis v0.24.0 enroot.c pyxis_enroot_wait (an enroot child killed)
        (
            "slurmstepd: error: pyxis: child 52178 terminated with signal 9",
            "slurm.pyxis_start_failed",
            Blame.SYMPTOM,
        ),
        # rendered: pyxis v0.24.0 pyxis_slurmstepd.c (image named since 0.20)
        (
            "slurmstepd: error: pyxis: failed to import docker image: nvcr.io#nvidia/pytorch:24.05-py3",
            "slurm.pyxis_start_failed",
            Blame.SYMPTOM,
        ),
        # rendered: pyxis v0.1.0 pyxis_slurmstepd.c enroot_create
        (
            "slurmstepd: error: pyxis: enroot create failed",
            "slurm.pyxis_create_failed",
            Blame.HARDWARE,
        ),
        # rendered: pyxis v0.24.0 pyxis_slurmstepd.c (image named since 0.20)
        (
            "slurmstepd: error: pyxis: failed to create container filesystem for image: "
            "nvcr.io#nvidia/pytorch:24.05-py3",
            "slurm.pyxis_create_failed",
            Blame.HARDWARE,
        ),
        # rendered: enroot v2.0.0 bin/enroot-unshare.c main
        (
            "enroot-unshare: failed to unshare user namespace: Operation not permitted",
            "slurm.enroot_userns_denied",
            Blame.HARDWARE,
        ),
        # rendered: enroot v4.1.2 bin/enroot-aufs2ovlfs.c main
        (
            "slurmstepd: error: pyxis:     enroot-aufs2ovlfs: failed to create user namespace: "
            "Permission denied",
            "slurm.enroot_userns_denied",
            Blame.HARDWARE,
        ),
        # rendered: slurm slurm-25-05-8-1 src/slurmd/slurmstepd/req.c _handle_signal_container (SIG_UME)
        (
            "slurmstepd: error: *** STEP 4021.0 ON nid00042 UNCORRECTABLE MEMORY ERROR AT "
            "2026-03-06T03:44:12 ***",
            "slurm.step_uncorrectable_memory",
            Blame.HARDWARE,
        ),
        # rendered: slurm slurm-25-05-8-1 src/slurmd/slurmstepd/req.c _handle_signal_container
        (
            "slurmstepd: error: *** JOB 4021 ON gpu-a01 CANCELLED AT 2026-03-06T03:44:12 DUE to "
            "SIGNAL Killed ***",
            "slurm.cancelled_by_signal",
            Blame.SYMPTOM,
        ),
        # rendered: slurm slurm-17-11-13-2 src/slurmd/slurmstepd/req.c _handle_signal_container (SIG_FAILURE)
        (
            "slurmstepd: error: *** JOB 4021 ON gpu-a01 FAILED (non-zero exit code or other failure "
            "mode) ***",
            "slurm.step_failed_notice",
            Blame.SYMPTOM,
        ),
        # rendered: slurm slurm-17-11-13-2 src/common/slurm_jobacct_gather.c jobacct_gather_handle_mem_limit
        (
            "slurmstepd: error: Step 4021.0 exceeded memory limit (41943040 > 33554432), being "
            "killed",
            "slurm.memory_limit_killed",
            Blame.APPLICATION,
        ),
        # rendered: slurm slurm-17-11-13-2 src/common/slurm_jobacct_gather.c jobacct_gather_handle_mem_limit
        (
            "slurmstepd: error: Job 4021 exceeded virtual memory limit (41943040 > 33554432), being "
            "killed",
            "slurm.memory_limit_killed",
            Blame.APPLICATION,
        ),
        # rendered: slurm slurm-25-05-8-1 src/interfaces/jobacct_gather.c jobacct_gather_handle_mem_limit
        (
            "slurmstepd: error: StepId=4021.batch exceeded memory limit (41943040 > 33554432), being "
            "killed",
            "slurm.memory_limit_killed",
            Blame.APPLICATION,
        ),
        # rendered: slurm slurm-17-02-11-1 src/plugins/task/cgroup/task_cgroup_memory.c task_cgroup_memory_check_oom
        (
            "slurmstepd: error: Exceeded job memory limit at some point.",
            "slurm.memory_limit_hit",
            Blame.APPLICATION,
        ),
        # rendered: slurm slurm-25-05-8-1 src/plugins/auth/munge/auth_munge.c (munge 0.5.18 m_msg_client.c)
        (
            'srun: error: Munge encode failed: Failed to access "/var/run/munge/munge.socket.2": No '
            "such file or directory (Did you start munged?)",
            "slurm.munge_unreachable",
            Blame.SYMPTOM,
        ),
        # rendered: slurm slurm-17-11-13-2 src/plugins/auth/munge/auth_munge.c (munge 0.5.13 m_msg_client.c)
        (
            'slurmd[2211]: error: Munge decode failed: Failed to connect to "/run/munge/munge.socket.2":'
            " Resource temporarily unavailable",
            "slurm.munge_unreachable",
            Blame.SYMPTOM,
        ),
        # rendered: slurm slurm-17-11-13-2 src/plugins/auth/munge/auth_munge.c (munge_strerror EMUNGE_SOCKET)
        (
            "srun: error: Munge encode failed: Socket communication error",
            "slurm.munge_unreachable",
            Blame.SYMPTOM,
        ),
        # rendered: slurm slurm-20-02-7-1 src/srun/libsrun/opt.c _opt_verify
        (
            "srun: error: invalid MPI type 'pmix', --mpi=list for acceptable types",
            "slurm.mpi_type_invalid",
            Blame.APPLICATION,
        ),
        # rendered: slurm slurm-25-05-8-1 src/srun/srun_job.c
        (
            "srun: error: Invalid MPI type 'pmix_v4', --mpi=list for acceptable types",
            "slurm.mpi_type_invalid",
            Blame.APPLICATION,
        ),
        # rendered: pyxis v0.24.0 args.c add_mount_entry
        (
            "srun: error: pyxis: --container-mounts: source path does not exist: /scratch/data",
            "slurm.pyxis_option_invalid",
            Blame.APPLICATION,
        ),
        # rendered: pyxis v0.7.0 args.c spank_option_container_mounts
        (
            "srun: error: pyxis: --container-mounts: invalid format: /data:/data:rw:x",
            "slurm.pyxis_option_invalid",
            Blame.APPLICATION,
        ),
        # rendered: pyxis v0.1.0 args.c spank_option_image
        (
            "srun: error: pyxis: --container-image specified multiple times",
            "slurm.pyxis_option_invalid",
            Blame.APPLICATION,
        ),
        # rendered: pyxis v0.11.0 args.c pyxis_args_check
        (
            "srun: error: pyxis: both --container-writable and --container-readonly were specified",
            "slurm.pyxis_option_invalid",
            Blame.APPLICATION,
        ),
        # rendered: slurm slurm-25-05-8-1 src/slurmd/slurmstepd/mgr.c _fork_all_tasks
        (
            "slurmstepd: error: Failed to invoke task plugins: one of task_p_pre_setuid functions "
            "returned error",
            "slurm.task_plugin_failed",
            Blame.SYMPTOM,
        ),
        # rendered: slurm slurm-25-05-8-1 src/slurmd/slurmstepd/task.c exec_task
        (
            "slurmstepd: error: Failed to invoke task plugins: task_p_pre_launch error",
            "slurm.task_plugin_failed",
            Blame.SYMPTOM,
        ),
        # rendered: slurm slurm-17-11-13-2 src/slurmd/slurmstepd/io.c _init_task_stdio_fds
        (
            "slurmstepd: error: Could not open stderr file /scratch/u/run7/err-4021.log: "
            "Permission denied",
            "slurm.stdio_file_unopenable",
            Blame.APPLICATION,
        ),
        # rendered: slurm slurm-25-05-8-1 src/slurmd/slurmstepd/io.c _init_task_stdio_fds
        (
            "slurmstepd: error: _init_task_stdio_fds: Could not open stdout file "
            "'/home/u/logs/slurm-4021.out': 'No such file or directory'. Recursive path creation "
            "failed: 'Permission denied'.",
            "slurm.stdio_file_unopenable",
            Blame.APPLICATION,
        ),
        # rendered: slurm slurm-20-11-9-1 src/plugins/gpu/nvml/gpu_nvml.c _nvml_get_handle
        (
            "slurmd: error: NVML: Failed to get device handle for GPU 3: GPU requires reset",
            "slurm.gpu_nvml_handle_failed",
            Blame.HARDWARE,
        ),
        # rendered: slurm slurm-25-05-8-1 src/plugins/gpu/nvml/gpu_nvml.c _nvml_get_handle
        (
            "[2026-03-06T03:44:12.118] error: Failed to get device handle for GPU 3: Unknown Error",
            "slurm.gpu_nvml_handle_failed",
            Blame.HARDWARE,
        ),
        # rendered: slurm slurm-17-11-13-2 src/slurmd/slurmd/req.c _run_spank_job_script
        (
            "[2026-03-06T03:44:12.118] error: spank/prolog returned status 0x0100",
            "slurm.prolog_failed",
            Blame.TRANSIENT,
        ),
        # rendered: slurm slurm-21-08-8-2 src/plugins/prep/script/prep_script_slurmd.c _run_spank_job_script
        (
            "[2026-03-06T03:44:12.118] [4021.extern] error: spank/epilog timed out after 300 secs",
            "slurm.epilog_failed",
            Blame.HARDWARE,
        ),
        # rendered: slurm slurm-25-05-8-1 src/plugins/prep/script/prep_script_slurmd.c _run_spank_job_script
        (
            "[2026-03-06T03:44:12.118] error: spank/prolog returned status 0x0100 response=(null)",
            "slurm.prolog_failed",
            Blame.TRANSIENT,
        ),
    ],
)
def test_every_release_wording_is_read(line: str, signal: str, blame: Blame) -> None:
    assert found(line).get(signal) == blame


@pytest.mark.parametrize(
    ("line", "signal", "expected"),
    [
        ("srun: Terminating job step StepId=4021.0", "slurm.step_terminating", {"step": "4021.0"}),
        (
            "srun: Job step 4021.0 aborted before step completely launched.",
            "slurm.step_terminating",
            {"aborted": "4021.0"},
        ),
        ("srun: Force Terminated job 4021", "slurm.step_aborted", {"step": "4021"}),
        (
            "slurmstepd: error: execve(): bad interpreter(/usr/bin/python4): No such file or "
            "directory",
            "slurm.task_exec_failed",
            {"interpreter": "/usr/bin/python4", "error": "No such file or directory"},
        ),
        (
            "[2026-03-06T03:44:12.118] Killing JobId=4021 StepId=4021.0 on failed node node03",
            "slurm.node_set_down",
            {"failed_host": "node03"},
        ),
        (
            "   Reason=gres/gpu count too low (7 < 8) [slurm@2026-03-06T03:44:12]",
            "slurm.gpu_count_dropped",
            {"reported": "7", "configured": "8"},
        ),
        (
            "slurmstepd: error: *** JOB 4021 ON gpu-a01 CANCELLED AT 2026-03-06T03:44:12 DUE to "
            "SIGNAL Killed ***",
            "slurm.cancelled_by_signal",
            {"host": "gpu-a01", "signal": "Killed"},
        ),
        (
            'srun: error: Munge encode failed: Failed to access "/var/run/munge/munge.socket.2": No '
            "such file or directory (Did you start munged?)",
            "slurm.munge_unreachable",
            {"socket": "/var/run/munge/munge.socket.2", "error": "No such file or directory"},
        ),
        (
            "slurmstepd: error: _init_task_stdio_fds: Could not open stdout file "
            "'/home/u/logs/slurm-4021.out': 'No such file or directory'. Recursive path creation "
            "failed: 'Permission denied'.",
            "slurm.stdio_file_unopenable",
            {
                "stream": "stdout",
                "path": "/home/u/logs/slurm-4021.out",
                "error": "No such file or directory",
            },
        ),
    ],
)
def test_captures_survive_the_widening(line: str, signal: str, expected: dict[str, str]) -> None:
    got = details(line, signal)
    for key, value in expected.items():
        assert got.get(key) == value


@pytest.mark.parametrize(
    ("signal", "line"),
    [
        # a munge credential the peer rejected is munge.credential_rejected, not munged unreachable
        ("slurm.munge_unreachable", "error: Munge decode failed: Expired credential"),
        # the retry before giving up is debug-level and says so
        (
            "slurm.munge_unreachable",
            "debug:  Munge encode failed: Socket communication error (retrying ...)",
        ),
        # the 25.05 cancel with no reason is not a time limit, a requeue or a node failure
        (
            "slurm.time_limit",
            "slurmstepd: error: *** JOB 4021 ON gpu-a01 CANCELLED AT "
            "2026-03-06T03:44:12 DUE to SIGNAL Terminated ***",
        ),
        (
            "slurm.node_fail",
            "slurmstepd: error: *** JOB 4021 ON gpu-a01 CANCELLED AT "
            "2026-03-06T03:44:12 DUE to SIGNAL Terminated ***",
        ),
        # a GRES other than a GPU whose count is low is not a GPU lost
        ("slurm.gpu_count_dropped", "   Reason=gres/mps count too low (50 < 100)"),
        ("slurm.gpu_count_none", "   Reason=gres/shard count too low (0 < 8)"),
        # the accounting debug line is not the kill
        (
            "slurm.memory_limit_killed",
            "debug:  StepId=4021.0 memory used:41943040 limit:33554432 B",
        ),
        # srun's verbose "First task exited. Terminating job in 30s" is not a step torn down
        ("slurm.step_terminating", "srun: First task exited. Terminating job in 30s"),
        # enroot-nsenter joining (not creating) a namespace of a running container
        (
            "slurm.enroot_userns_denied",
            "enroot-nsenter: failed to join user namespace: Operation not permitted",
        ),
        # pyxis telling the user it ignores an option is not an error of the job
        (
            "slurm.pyxis_option_invalid",
            "srun: pyxis: ignoring --container-mounts because "
            "neither --container-image nor --container-name is set",
        ),
        # an exit code of 0 is fine: the FAILED notice needs its own words
        (
            "slurm.step_failed_notice",
            "slurmstepd: error: *** JOB 4021 ON gpu-a01 CANCELLED AT 2026-03-06T03:44:12 ***",
        ),
        # pyxis' info line when it cleans up is not a failed start
        (
            "slurm.pyxis_start_failed",
            "slurmstepd: pyxis: failed to remove container filesystem: pyxis_4021.0",
        ),
        # a file system's I/O error on the output path is not the job's path
        (
            "slurm.stdio_file_unopenable",
            "slurmstepd: error: Could not open stdout file /lustre/u/out.log: Input/output error",
        ),
        # "GPU is lost" is nvml.gpu_is_lost's; this entry keeps to the other two errors
        (
            "slurm.gpu_nvml_handle_failed",
            "slurmd: error: Failed to get device handle for GPU 3: GPU is lost",
        ),
    ],
)
def test_look_alikes_do_not_match(signal: str, line: str) -> None:
    assert signal not in found(line)
