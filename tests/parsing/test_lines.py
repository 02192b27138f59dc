"""Timestamps and prefixes of every log format a bundle may hold."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from autorecover.parsing.lines import find_embedded_time, parse_line, says_zone

REF = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


def at(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("line", "when", "message"),
    [
        (
            "Mar  2 11:31:52 gpu-a03 kernel: NVRM: Xid (PCI:0000:ba:00): 79, GPU has fallen",
            at(2026, 3, 2, 11, 31, 52),
            "NVRM: Xid (PCI:0000:ba:00): 79, GPU has fallen",
        ),
        (
            "[Sun Mar  8 03:19:41 2026] NVRM: Xid (PCI:0000:9a:00): 119, pid=57645",
            at(2026, 3, 8, 3, 19, 41),
            "NVRM: Xid (PCI:0000:9a:00): 119, pid=57645",
        ),
        (
            "2026-03-07T09:14:07.171845+00:00 gpu-a04 kernel: NVRM: Xid (PCI:0000:3a:00): 48",
            datetime(2026, 3, 7, 9, 14, 7, 171845, tzinfo=UTC),
            "NVRM: Xid (PCI:0000:3a:00): 48",
        ),
        (
            "2026-03-07T11:14:07+02:00 gpu-a04 kernel: mlx5_core 0000:5c:00.0: Link DOWN",
            at(2026, 3, 7, 9, 14, 7),
            "mlx5_core 0000:5c:00.0: Link DOWN",
        ),
        (
            "Mar  6 03:44:12 gpu-a01 slurmstepd[127755]: error: *** JOB 48502 CANCELLED",
            at(2026, 3, 6, 3, 44, 12),
            "error: *** JOB 48502 CANCELLED",
        ),
        (  # journalctl -o short-full
            "Mon 2026-03-02 11:31:52 UTC gpu-a03 kernel: NVRM: Xid (PCI:0000:ba:00): 79, GPU",
            at(2026, 3, 2, 11, 31, 52),
            "NVRM: Xid (PCI:0000:ba:00): 79, GPU",
        ),
        (  # dmesg -H: a new minute's first message, no seconds, no year
            "[Mar  2 11:31] NVRM: Xid (PCI:0000:ba:00): 79, GPU has fallen",
            at(2026, 3, 2, 11, 31, 0),
            "NVRM: Xid (PCI:0000:ba:00): 79, GPU has fallen",
        ),
        (  # dmesg -xT: the facility and level decoded before the stamp
            "kern  :err   : [Mon Mar  2 11:31:52 2026] NVRM: Xid (PCI:0000:ba:00): 79, GPU",
            at(2026, 3, 2, 11, 31, 52),
            "NVRM: Xid (PCI:0000:ba:00): 79, GPU",
        ),
    ],
)
def test_system_log_formats(line: str, when: datetime, message: str) -> None:
    parsed = parse_line(line, REF)
    assert parsed.at == when
    assert parsed.message == message


def test_dmesg_uptime_has_no_wall_time() -> None:
    parsed = parse_line("[ 1843.308145] NVRM: Xid (PCI:0000:3b:00): 13, pid=1", REF)
    assert parsed.at is None
    assert parsed.uptime_s == pytest.approx(1843.308145)
    assert parsed.message.startswith("NVRM: Xid")


def test_dmesg_lines_stamped_by_distance_or_with_a_priority_have_no_wall_time() -> None:
    # `dmesg -H` stamps a message by its distance from the one before: its neighbours place it
    delta = parse_line("[  +0.000123] NVRM: GPU at PCI:0000:ba:00: GPU-5f1c", REF)
    assert (delta.at, delta.uptime_s, delta.message) == (
        None,
        None,
        "NVRM: GPU at PCI:0000:ba:00: GPU-5f1c",
    )
    raw = parse_line("<4>[ 1843.308145] NVRM: Xid (PCI:0000:3b:00): 13, pid=1", REF)  # dmesg -r
    assert raw.uptime_s == pytest.approx(1843.308145) and raw.message.startswith("NVRM: Xid")


def test_a_journal_zone_other_than_utc_is_not_read_as_said() -> None:
    # short-full names the zone by its abbreviation: only UTC/GMT say an offset for certain
    utc = parse_line("Mon 2026-03-02 11:31:52 UTC gpu-a03 kernel: x", REF)
    local = parse_line("Mon 2026-03-02 13:31:52 CEST gpu-a03 kernel: x", REF)
    assert (utc.zoned, utc.host, local.zoned, local.host) == (True, "gpu-a03", False, "gpu-a03")


def test_srun_and_torchrun_prefixes() -> None:
    p = parse_line("3: RuntimeError: CUDA error: uncorrectable ECC error encountered", REF)
    assert (p.rank, p.message) == (
        3,
        "RuntimeError: CUDA error: uncorrectable ECC error encountered",
    )
    p = parse_line("[rank12]: torch.OutOfMemoryError: CUDA out of memory.", REF)
    assert (p.rank, p.message) == (12, "torch.OutOfMemoryError: CUDA out of memory.")
    p = parse_line("[default3]:Traceback (most recent call last):", REF)
    assert p.rank == 3


def test_collector_wrappers_around_a_programs_line() -> None:
    # Open MPI --tag-output, docker compose, Lightning's rank_zero prefix
    p = parse_line("[1,5]<stderr>:RuntimeError: CUDA error: an illegal memory access", REF)
    assert (p.rank, p.message) == (5, "RuntimeError: CUDA error: an illegal memory access")
    p = parse_line("trainer-1  | 2026-03-02 11:41:58,101 ERROR NCCL timeout", REF)
    assert p.at == datetime(2026, 3, 2, 11, 41, 58, 101000, tzinfo=UTC)
    assert p.message == "ERROR NCCL timeout"
    p = parse_line("[rank: 2] Seed set to 42", REF)
    assert (p.rank, p.message) == (2, "Seed set to 42")


def test_mpirun_and_horovodrun_timestamps_before_their_tags() -> None:
    # Open MPI (ORTE) --timestamp-output with and without --tag-output: ctime() before the tag
    p = parse_line("Fri Sep 28 11:14:00 2018[1,5]<stderr>:Horovod has been shut down.", REF)
    assert p.at == datetime(2018, 9, 28, 11, 14, tzinfo=UTC)
    assert (p.rank, p.message) == (5, "Horovod has been shut down.")
    p = parse_line("Mon Mar  2 11:41:58 2026<stdout>:step 10", REF)
    assert (p.at, p.rank, p.message) == (
        datetime(2026, 3, 2, 11, 41, 58, tzinfo=UTC),
        None,
        "step 10",
    )
    # horovodrun's gloo launcher: [rank]<stream>:, with --prefix-timestamp an asctime() first
    p = parse_line("[3]<stderr>:RuntimeError: Horovod has been shut down.", REF)
    assert (p.at, p.rank, p.message) == (None, 3, "RuntimeError: Horovod has been shut down.")
    p = parse_line("Tue Mar  3 09:00:01 2026[0]<stdout>:Epoch 1", REF)
    assert (p.at, p.rank, p.message) == (datetime(2026, 3, 3, 9, 0, 1, tzinfo=UTC), 0, "Epoch 1")
    # a ctime-shaped text followed by anything else is no prefix
    p = parse_line("Fri Sep 28 11:14:00 2018 was a Friday", REF)
    assert p.at is None and p.message == "Fri Sep 28 11:14:00 2018 was a Friday"


def test_cri_log_line_nests_srun_torchrun_and_ray_prefixes() -> None:
    # a container runtime's log file: the collector's time and stream, then the line as written
    p = parse_line(
        "2026-03-02T11:41:58.123456789Z stderr F 3: [rank3]: torch.OutOfMemoryError: CUDA", REF
    )
    assert p.at == datetime(2026, 3, 2, 11, 41, 58, 123456, tzinfo=UTC)
    assert (p.rank, p.message) == (3, "torch.OutOfMemoryError: CUDA")
    p = parse_line(
        "2026-03-02T11:41:58Z stdout F (RayTrainWorker pid=12, ip=10.0.0.7) E0302 11:41:57 x", REF
    )
    assert p.via == "10.0.0.7"
    assert p.at == datetime(2026, 3, 2, 11, 41, 58, tzinfo=UTC)  # the outermost time


def test_torch_cpp_log_line_inside_rank_prefix() -> None:
    p = parse_line(
        "[rank4]:[E302 11:41:53.327100192 ProcessGroupNCCL.cpp:616] [Rank 4] Watchdog caught", REF
    )
    assert p.rank == 4
    assert p.at == datetime(2026, 3, 2, 11, 41, 53, 327100, tzinfo=UTC)


def test_glog_line_and_srun_prefix_together() -> None:
    p = parse_line(
        "3: E0307 09:14:11.202000 79153 torch/distributed/elastic/api.py:869] failed", REF
    )
    assert p.rank == 3
    assert p.at == datetime(2026, 3, 7, 9, 14, 11, 202000, tzinfo=UTC)


def test_year_is_the_one_nearest_the_reference() -> None:
    new_year = datetime(2026, 1, 1, 0, 5, tzinfo=UTC)
    p = parse_line("Dec 31 23:59:58 gpu-a01 kernel: something", new_year)
    assert p.at == at(2025, 12, 31, 23, 59, 58)


def test_embedded_python_logging_stamp() -> None:
    msg = "[titan] 2026-03-04 02:04:06,844 - root - INFO - step: 50  loss:  2.3600"
    assert find_embedded_time(msg) == datetime(2026, 3, 4, 2, 4, 6, 844000, tzinfo=UTC)


def test_a_stamp_in_a_name_or_path_is_not_the_lines_time() -> None:
    path = "OSError: [Errno 121] Remote I/O error: 'logs/2019-07-01T17:49:45_coords_1/train'"
    assert find_embedded_time(path) is None
    assert find_embedded_time("saved ckpt-2024-05-01 12:00:00.pt") is None
    logfmt = 'time="2026-03-04T02:04:06Z" level=error msg="x"'
    assert find_embedded_time(logfmt) == datetime(2026, 3, 4, 2, 4, 6, tzinfo=UTC)
    later = "run_2024-05-01T00:00:00 failed at 2026-03-04 02:04:06"  # the free-standing one
    assert find_embedded_time(later) == datetime(2026, 3, 4, 2, 4, 6, tzinfo=UTC)


def test_impossible_dates_are_no_dates() -> None:
    assert parse_line("Feb 30 11:00:00 host kernel: x", REF).at is None
    assert parse_line("[Mon Feb 30 11:41:58 2026] x", REF).at is None


@given(st.text(max_size=300))
def test_never_raises_on_arbitrary_text(text: str) -> None:
    parsed = parse_line(text, REF)
    assert isinstance(parsed.message, str)
    assert parsed.at is None or parsed.at.tzinfo is not None


@pytest.mark.parametrize(
    ("line", "via", "message"),
    [
        ("(RayWorkerWrapper pid=2287, ip=10.244.6.9) ERROR 06-03 03:17:42 worker_base.py:145] x",
         "10.244.6.9", "ERROR 06-03 03:17:42 worker_base.py:145] x"),
        ("(pid=4121, ip=172.31.8.40) RuntimeError: boom", "172.31.8.40", "RuntimeError: boom"),
        ("(raylet, ip=10.0.0.7) [2026-06-03 01:00:02,118 E 77 77] node_manager.cc:1 died",
         "10.0.0.7", "node_manager.cc:1 died"),
        ("(RayTrainWorker pid=9, ip=10.0.0.8, actor_id=ab12) 2026-06-03 01:00:02,118 ok",
         "10.0.0.8", "ok"),
        ("(see the docs) ip=10.0.0.9", None, "(see the docs) ip=10.0.0.9"),
    ],
)  # fmt: skip
def test_ray_forwarding_prefix_says_where_a_line_came_from(
    line: str, via: str | None, message: str
) -> None:
    parsed = parse_line(line, datetime(2026, 6, 3, tzinfo=UTC))
    assert parsed.via == via
    assert parsed.message.strip().endswith(message.split("] ")[-1].split(" ")[-1])


def test_kubectl_prefix_and_pdsh_host_prefix_are_taken_off() -> None:
    # `kubectl logs --prefix`: the pod and container, then the line as written
    p = parse_line(
        "[pod/trainer-worker-1/pytorch] [rank3]:[E302 11:41:53.327100192 ProcessGroupNCCL.cpp:616]"
        " [Rank 3] Watchdog caught collective operation timeout",
        REF,
    )
    assert (p.rank, p.at) == (3, datetime(2026, 3, 2, 11, 41, 53, 327100, tzinfo=UTC))
    assert p.message.startswith("[E302 11:41:53") and p.via is None
    # pdsh (DeepSpeed's multi-node runner): the host, then a rank prefix, a time or an NCCL line
    p = parse_line("gpu-node-03: [rank9]:[E302 11:41:53.1 ProcessGroupNCCL.cpp:1] x", REF)
    assert (p.via, p.rank, p.at) == (
        "gpu-node-03",
        9,
        datetime(2026, 3, 2, 11, 41, 53, 100000, tzinfo=UTC),
    )
    p = parse_line("10.0.0.5: [2026-03-02 11:41:50,123] [INFO] [launch.py:319:main] x", REF)
    assert (p.via, find_embedded_time(p.message)) == (
        "10.0.0.5",
        datetime(2026, 3, 2, 11, 41, 50, 123000, tzinfo=UTC),
    )
    p = parse_line("worker-1: worker-1:2187:3287 [0] NCCL WARN NET/IB : Got completion", REF)
    assert (p.via, p.message) == (
        "worker-1",
        "worker-1:2187:3287 [0] NCCL WARN NET/IB : Got completion",
    )
    # Ray's prefix inside pdsh's: the worker's address is where the line ran
    p = parse_line("gpu-node-03: (RayWorker pid=12, ip=10.0.0.7) E0302 11:41:57 x", REF)
    assert (p.via, p.message) == ("10.0.0.7", "E0302 11:41:57 x")
    # before free text the same shape is the message's own words
    for line in (
        "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress",
        "ib0: 2026-03-02 link down",
        "RuntimeError: [rank3]: something",
        "cuda:0: [2026-03-02 11:00:00] hmm",
    ):
        p = parse_line(line, REF)
        assert p.via is None, line
    assert parse_line("nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 1", REF).message.startswith(
        "nvidia-nvswitch0: "
    )


def test_pdsh_prefix_naming_one_of_the_jobs_nodes_is_taken_before_any_text() -> None:
    """DeepSpeed's pdsh prints a worker's traceback as `worker-1: RuntimeError: ...`: with the
    job's nodes known, a known host's prefix is where the line ran, whatever follows."""
    hosts = frozenset({"worker-0", "worker-1", "gpu-a01"})
    p = parse_line("worker-1: RuntimeError: CUDA error: an illegal memory access", REF, hosts)
    assert (p.via, p.message) == ("worker-1", "RuntimeError: CUDA error: an illegal memory access")
    # the long name of a known short name
    p = parse_line("gpu-a01.cluster.local: Traceback (most recent call last):", REF, hosts)
    assert p.via == "gpu-a01.cluster.local"
    # a name the job does not have keeps its words, as without hosts
    for line in ("worker-7: RuntimeError: x", "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 1"):
        p = parse_line(line, REF, hosts)
        assert p.via is None and p.message == line, line
    # srun's rank prefix stays a rank even when a node is named like a number's start
    p = parse_line("10: RuntimeError: x", REF, frozenset({"10.0.0.7"}))
    assert (p.rank, p.via) == (10, None)


@pytest.mark.parametrize(
    ("line", "rank", "when", "message"),
    [
        ("    [rank3]:[E302 11:41:53.327 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught",
         3, at(2026, 3, 2, 11, 41, 53, 327000), "[E302 11:41:53.327 ProcessGroupNCCL.cpp:616]"),
        ("\t2026-03-02T11:41:58Z RuntimeError: boom", None, at(2026, 3, 2, 11, 41, 58),
         "RuntimeError: boom"),
        ("  Mar  2 11:31:52 gpu-a03 kernel: NVRM: Xid (PCI:0000:ba:00): 79", None,
         at(2026, 3, 2, 11, 31, 52), "NVRM: Xid (PCI:0000:ba:00): 79"),
        # blanks that are the line's own stay: a traceback's frame, an indented message
        ('  File "train.py", line 3, in <module>', None, None, '  File "train.py", line 3'),
        ('3:   File "train.py", line 3', 3, None, '  File "train.py", line 3'),
        ("    RuntimeError: boom", None, None, "    RuntimeError: boom"),
    ],
)  # fmt: skip
def test_a_log_pasted_indented_keeps_its_prefixes(
    line: str, rank: int | None, when: datetime | None, message: str
) -> None:
    parsed = parse_line(line, REF)
    assert (parsed.rank, parsed.at) == (rank, when)
    assert parsed.message.startswith(message)


@pytest.mark.parametrize(
    ("line", "when", "message"),
    [
        # vLLM's logger ("%(levelname)s %(asctime)s", datefmt "%m-%d %H:%M:%S": no year); the
        # line keeps its text, as glog's does
        (
            "ERROR 03-02 11:41:58 [core.py:586] EngineCore encountered a fatal error.",
            at(2026, 3, 2, 11, 41, 58),
            "ERROR 03-02 11:41:58 [core.py:586] EngineCore encountered a fatal error.",
        ),
        (
            "(VllmWorker rank=1 pid=2207) ERROR 03-02 11:41:58.123 [multiproc_executor.py:12] x",
            at(2026, 3, 2, 11, 41, 58, 123000),
            "(VllmWorker rank=1 pid=2207) ERROR 03-02 11:41:58.123 [multiproc_executor.py:12] x",
        ),
        # Go's log package (log.LstdFlags, with Lmicroseconds)
        ("2026/03/02 11:41:58 Loading NVML", at(2026, 3, 2, 11, 41, 58), "Loading NVML"),
        (
            "2026/03/02 11:41:58.250000 failed to start plugin",
            at(2026, 3, 2, 11, 41, 58, 250000),
            "failed to start plugin",
        ),
        # Hugging Face's example scripts (datefmt "%m/%d/%Y %H:%M:%S"); a day first past 12
        (
            "03/02/2026 11:41:58 - INFO - __main__ - Distributed environment: MULTI_GPU",
            at(2026, 3, 2, 11, 41, 58),
            "- INFO - __main__ - Distributed environment: MULTI_GPU",
        ),
        ("25/12/2025 08:00:01 - WARNING - x", at(2025, 12, 25, 8, 0, 1), "- WARNING - x"),
    ],
)
def test_vllm_go_and_hugging_face_stamps(line: str, when: datetime, message: str) -> None:
    p = parse_line(line, REF)
    assert (p.at, p.message) == (when, message)


@pytest.mark.parametrize(
    ("line", "when", "message"),
    [
        # hivemind's and other Python loggers' "%Y/%m/%d %H:%M:%S" in brackets
        (
            "[2026/08/29 09:10:04.211][INFO][root.<module>:41] Running 2 peers",
            at(2026, 8, 29, 9, 10, 4, 211000),
            "[INFO][root.<module>:41] Running 2 peers",
        ),
        # TensorRT's logger (TensorRT-LLM, trtexec)
        (
            "[08/28/2026-10:14:09] [TRT-LLM] [I] Starting server",
            at(2026, 8, 28, 10, 14, 9),
            "[TRT-LLM] [I] Starting server",
        ),
        # detectron2/fvcore ("[%(asctime)s %(name)s]: ", datefmt "%m/%d %H:%M:%S"), no year
        (
            "[07/31 20:09:00 d2.utils.events]:  eta: 9:21:24  iter: 20",
            at(2026, 7, 31, 20, 9, 0),
            " eta: 9:21:24  iter: 20",
        ),
        (
            "[07/12 04:22:50] train INFO: Epoch: [0]",
            at(2026, 7, 12, 4, 22, 50),
            "train INFO: Epoch: [0]",
        ),
        # mmengine's MMLogger
        ("08/05 21:10:31 - mmengine - INFO - x", at(2026, 8, 5, 21, 10, 31), "mmengine - INFO - x"),
        # glog with the year in its prefix
        (
            "I20240725 05:11:42 4020743 train.py:301] Starting",
            at(2024, 7, 25, 5, 11, 42),
            "I20240725 05:11:42 4020743 train.py:301] Starting",
        ),
        # lingua's LogFormatter (two-digit year first), after srun's rank
        (
            "12: INFO    26-11-20 09:00:14.012000 - 0:00:00 - Starting job: debug",
            at(2026, 11, 20, 9, 0, 14, 12000),
            "Starting job: debug",
        ),
        # the Neuron runtime's "%Y-%b-%d"
        (
            "2025-Jan-16 00:39:18.571107 31602:33782 ERROR   ENC:init_metaring_algorithm",
            at(2025, 1, 16, 0, 39, 18, 571107),
            "31602:33782 ERROR   ENC:init_metaring_algorithm",
        ),
        # lm-evaluation-harness's "%Y-%m-%d:%H:%M:%S"
        (
            "2026-06-09:13:00:41,118 INFO     [__main__.py:251] Verbosity set to INFO",
            at(2026, 6, 9, 13, 0, 41, 118000),
            "INFO     [__main__.py:251] Verbosity set to INFO",
        ),
        # DAOS's debug log, month first and no year
        (
            "05/19-10:01:02.60 x4616c3s3b0n0 DAOS[61822/61822/0] external ERR",
            at(2026, 5, 19, 10, 1, 2, 600000),
            "x4616c3s3b0n0 DAOS[61822/61822/0] external ERR",
        ),
        # SkyPilot's logger (the level's first letter) after Ray's prefix of a worker on the
        # driver's node (no address)
        (
            "(bert-qa pid=920210) I 05-04 00:52:46 controller.py:100] The cluster is preempted.",
            at(2026, 5, 4, 0, 52, 46),
            "I 05-04 00:52:46 controller.py:100] The cluster is preempted.",
        ),
        (
            "(run_on_pod_ray pid=101183) I0102 12:01:00.000000 139872 trainer.py:512] step 0",
            at(2026, 1, 2, 12, 1, 0),
            "I0102 12:01:00.000000 139872 trainer.py:512] step 0",
        ),
    ],
)
def test_more_programs_stamps(line: str, when: datetime, message: str) -> None:
    p = parse_line(line, REF)
    assert (p.at, p.message, p.zoned) == (when, message, False)


def test_date_commands_utc_stamp_says_its_zone() -> None:
    """`date` in a job script: `UTC` is its zone (a stamp in another zone's name is no time)."""
    p = parse_line("Thu May 11 02:40:02 UTC 2023 job 7731 on host", REF)
    assert (p.at, p.zoned, p.message) == (at(2023, 5, 11, 2, 40, 2), True, "job 7731 on host")
    assert parse_line("Thu May 11 02:40:02 PDT 2023 job 7731", REF).at is None


def test_rays_prefix_without_an_address_keeps_pdshs_host() -> None:
    p = parse_line("gpu-a01: (train_fn pid=77) 2026-03-02 11:41:58 x", REF)
    assert (p.via, p.at, p.message) == ("gpu-a01", at(2026, 3, 2, 11, 41, 58), "x")


def test_a_level_word_without_vllms_stamp_is_no_time() -> None:
    for line in ("INFO: 127.0.0.1:40220 - GET /metrics", "ERROR 13-45 11:41:58 x", "INFO 03-02"):
        assert parse_line(line, REF).at is None, line


def test_pdsh_prefix_before_vllm_go_and_hugging_face_stamps_is_taken_without_the_hosts() -> None:
    """Where the job's node names are not at hand (a neighbour's time, a file's first and last
    time), pdsh's host is still taken before the stamps these programs write."""
    for line, when in (
        ("spark-b: (RayWorkerWrapper pid=18240) INFO 08-10 08:00:41 [worker_base.py:611] x",
         at(2026, 8, 10, 8, 0, 41)),
        ("gpu-a01: ERROR 03-02 11:41:58 [core.py:586] EngineCore failed", at(2026, 3, 2, 11, 41, 58)),
        ("gpu-a01: 2026/03/02 11:41:58 Loading NVML", at(2026, 3, 2, 11, 41, 58)),
        ("gpu-a01: 03/02/2026 11:41:58 - INFO - x", at(2026, 3, 2, 11, 41, 58)),
    ):  # fmt: skip
        p = parse_line(line, REF)
        assert (p.via, p.at) == (line.split(":", 1)[0], when), line


@pytest.mark.parametrize(
    ("line", "host", "message"),
    [
        # rsyslog's ISO form: `<time> <host> <tag>: message`
        ("2026-04-20T08:30:06Z gpu-01 kernel: NVRM: Xid 79", "gpu-01", "NVRM: Xid 79"),
        # dash's "sh: 1: X: not found" after a container runtime's stamp: no host there, every
        # word kept (a host name never ends in a colon)
        (
            "2026-04-20T08:30:06.416112Z sh: 1: Leader_Node_Address: not found",
            None,
            "sh: 1: Leader_Node_Address: not found",
        ),
        (
            "2026-04-20T08:30:06Z srun: error: n1: task 0: Exited with exit code 1",
            None,
            "srun: error: n1: task 0: Exited with exit code 1",
        ),
    ],
)
def test_an_iso_stamp_takes_a_syslog_host_only_where_there_is_one(
    line: str, host: str | None, message: str
) -> None:
    parsed = parse_line(line, REF)
    assert (parsed.host, parsed.message) == (host, message)


@pytest.mark.parametrize(
    ("line", "when", "zoned"),
    [
        ("2026-03-02T11:41:58Z NCCL WARN x", at(2026, 3, 2, 11, 41, 58), True),
        ("2026-03-02T19:41:58+08:00 NCCL WARN x", at(2026, 3, 2, 11, 41, 58), True),
        # a zone after a blank (`2006-01-02 15:04:05.000 -07:00`, as some loggers write it)
        ("2026-03-02 19:41:58.043 +08:00 [x] NCCL WARN x", at(2026, 3, 2, 11, 41, 58, 43000), True),
        ("2026-03-02 04:41:58 -0700 NCCL WARN x", at(2026, 3, 2, 11, 41, 58), True),
        ("2026-03-02 11:41:58 NCCL WARN x", at(2026, 3, 2, 11, 41, 58), False),
        ("2026-03-02 11:41:58 -12345 bytes", at(2026, 3, 2, 11, 41, 58), False),  # no zone
        ("Mar  2 11:41:58 gpu-a03 kernel: x", at(2026, 3, 2, 11, 41, 58), False),
        ("E0302 11:41:58.000000 123 x.cpp:1] x", at(2026, 3, 2, 11, 41, 58), False),
    ],
)
def test_a_stamp_says_whether_it_carried_its_zone(line: str, when: datetime, zoned: bool) -> None:
    p = parse_line(line, REF)
    assert (p.at, p.zoned) == (when, zoned)
    assert says_zone(line, REF) is zoned


def test_says_zone_reads_a_stamp_inside_the_message_and_none_without_one() -> None:
    assert says_zone("[titan] 2026-03-04 02:04:06,844 - root - INFO - step 1", REF) is False
    assert says_zone("[titan] 2026-03-04T02:04:06Z - root - INFO - step 1", REF) is True
    assert says_zone("Traceback (most recent call last):", REF) is None
    assert says_zone("saved to ckpt-2026-03-04T02:04:06Z", REF) is None  # names a file
