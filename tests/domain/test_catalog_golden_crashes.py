"""Golden tests for the runtimes' crash handlers (signatures-crashes.toml) and what the engine
makes of them.

A process that dies often leaves only its runtime's handler banner: glog's and abseil's failure
signal handlers, PaddlePaddle's, bash's report of a killed child, Julia's and Go's signal
reports, a Rust panic. A signal the process raised on itself is a crash whose cause is not in the
line (a symptom, never a node); a kill from outside says who died, not why; a runtime's verdict on
the program (a Go runtime error, a Rust panic) and a host allocation failure are the job's.
"""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from autorecover.domain.attribution import attribute
from autorecover.domain.early import before_it_ran
from autorecover.domain.records import Blame, Cause, Finding, JobRecord, Source
from autorecover.domain.shape import is_complaint, missing_from_cascade
from domain.golden import (
    SCANNER,
    assert_matches,
    assert_no_match,
    assert_no_node_action,
    family_contract,
    family_keys,
    found,
)

FAMILY_FILE = "signatures-crashes.toml"
NAMESPACES = frozenset({"process", "julia", "go", "rust"})

REQUIRED: dict[str, Blame] = {
    "process.failure_signal": Blame.SYMPTOM,
    "process.failure_banner": Blame.SYMPTOM,
    "process.terminated": Blame.SYMPTOM,
    "julia.signal": Blame.SYMPTOM,
    "go.fatal_signal": Blame.SYMPTOM,
    "go.runtime_error": Blame.APPLICATION,
    "go.out_of_memory": Blame.APPLICATION,
    "rust.panic": Blame.APPLICATION,
}

FAMILY_KEYS = family_keys(FAMILY_FILE)

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, REQUIRED)


def test_a_crash_handler_names_no_node() -> None:
    """A crash on one node stays unexplained: no entry may act on the node it was printed on."""
    assert_no_node_action(FAMILY_KEYS)


POSITIVE: list[tuple[str, str, dict[str, str]]] = [
    (  # PaddlePaddle/models issue #4064 (glog through Paddle's init.cc, 4 trainers)
        "process.failure_signal",
        "W1212 04:02:33.403934 24044 init.cc:205] *** SIGSEGV (@0x0) received by PID 24044 (TID "
        "0x7f6406bd7740) from PID 0; stack trace: ***",
        {"signal": "SIGSEGV"},
    ),
    (  # PaddlePaddle/Paddle issue #15355 (mpirun's prefix, rank 17 of an MPI cluster)
        "process.failure_signal",
        "Wed Jan 16 12:50:13 2019[1,17]<stderr>:*** SIGSEGV (@0x8) received by PID 51898 (TID "
        "0x7faae0dfa700) from PID 8; stack trace: ***",
        {"signal": "SIGSEGV"},
    ),
    (  # flashlight/wav2letter issue #277 (after std::bad_alloc under mpirun -n 4)
        "process.failure_signal",
        "*** SIGABRT (@0x3e900001ae5) received by PID 6885 (TID 0x7fa44a355ac0) from PID 6885; "
        "stack trace: ***",
        {"signal": "SIGABRT"},
    ),
    (  # abseil's handler in a Ray worker (forwarded by the driver with the worker's prefix)
        "process.failure_signal",
        "(EngineCore_DP0 pid=742) (RayWorkerWrapper pid=233, ip=10.20.1.125) *** SIGSEGV received "
        "at time=1762945937 on cpu 6 ***",
        {"signal": "SIGSEGV"},
    ),
    (  # abseil absl/debugging/failure_signal_handler.cc WriteSignalMessage, an unnamed signal
        "process.failure_signal",
        "*** Signal 7 received at time=1634878627 ***",
        {"number": "7"},
    ),
    (  # horovod/horovod issue #3952 (TensorFlow's stacktrace_handler.cc under mpirun: SIGBUS)
        "process.failure_signal",
        "Tue Jun 27 22:49:58 2023[1,3]<stderr>:*** Received signal 7 ***",
        {"number": "7"},
    ),
    (  # PaddlePaddle/PaddleOCR issue #1637 (Paddle's SignalHandle, then glog's lines wrapped)
        "process.failure_signal",
        "FatalError: `Segmentation fault` is detected by the operating system.",
        {"fatal": "Segmentation fault"},
    ),
    (  # the same report's wrapped glog line: no "; stack trace:"
        "process.failure_signal",
        "  [SignalInfo: *** SIGSEGV (@0x0) received by PID 18581 (TID 0x7f103bc4a700) from PID 0 ***]",
        {"signal": "SIGSEGV"},
    ),
    (  # PaddlePaddle/Paddle issue #13558 (an MPI training job)
        "process.failure_banner",
        'Mon Sep 24 14:28:29 2018[1,0]<stderr>:*** Aborted at 1537770509 (unix time) try "date -d '
        '@1537770509" if you are using GNU date ***',
        {},
    ),
    (  # PaddlePaddle/PaddleSpeech issue #123 (glog: a SIGTERM from another process)
        "process.terminated",
        "*** SIGTERM (@0x297b) received by PID 18396 (TID 0x7f2c8c464700) from PID 10619; stack "
        "trace: ***",
        {"signal": "SIGTERM"},
    ),
    (  # abseil under srun -l (vLLM's benchmark torn down at the end)
        "process.terminated",
        "0: *** SIGTERM received at time=1759954468 on cpu 5 ***",
        {"signal": "SIGTERM"},
    ),
    (  # ArjunaCluster/ArjunaUsers issue #52 (bash in the batch script; slurmstepd's oom-kill after)
        "process.terminated",
        "/var/spool/slurmd/job00191/slurm_script: line 28:  8156 Killed                  python3 "
        "main.py --prop hform --epochs 400 --lr_milestones 50 100 200 --gamma 0.25",
        {"signal": "Killed"},
    ),
    (  # spine-generic/spine-generic issue #108 (a batch script's child)
        "process.terminated",
        "/home/jcohen/code/spine-generic/spine-generic/processing/process_data.sh: line 76:  4663 "
        "Killed                  sct_deepseg_sc -i ${file}.nii.gz -c $contrast",
        {"signal": "Killed"},
    ),
    (  # ArjunaCluster/ArjunaUsers issue #52 (the same job run interactively)
        "process.terminated",
        "Killed",
        {"signal": "Killed"},
    ),
    (  # bash jobs.c, a launcher's rank prefix before the interactive form
        "process.terminated",
        "0: Terminated",
        {"signal": "Terminated"},
    ),
    (  # JuliaParallel/MPI.jl issue #616 (Cray MPICH on an XC50)
        "julia.signal",
        "signal (11): Segmentation fault",
        {"number": "11", "signal": "Segmentation fault"},
    ),
    (  # JuliaParallel/MPI.jl issue #870 (Julia 1.7+: the pid and si_code)
        "julia.signal",
        "[42194] signal (11.1): Segmentation fault",
        {"number": "11", "signal": "Segmentation fault"},
    ),
    (  # golang/go issue #32228 (a cgo call)
        "go.fatal_signal",
        "[signal SIGSEGV: segmentation violation code=0x1 addr=0xffffffffffffffe4 pc=0x7f2cc6e3b5c6]",
        {"signal": "SIGSEGV"},
    ),
    (  # NVIDIA/nvidia-container-toolkit issue #809 (the runtime hook crashing in nvmlInit)
        "go.fatal_signal",
        "error running hook: exit status 2, stdout: , stderr: SIGSEGV: segmentation violation",
        {"signal": "SIGSEGV"},
    ),
    (  # golang/go issue #32228
        "go.fatal_signal",
        "fatal error: unexpected signal during runtime execution",
        {},
    ),
    (  # Go runtime/panic.go, runtime/error.go (a nil dereference in the program)
        "go.runtime_error",
        "panic: runtime error: invalid memory address or nil pointer dereference",
        {"error": "invalid memory address or nil pointer dereference"},
    ),
    (  # Go runtime/proc.go checkdead
        "go.runtime_error",
        "fatal error: all goroutines are asleep - deadlock!",
        {"fatal": "all goroutines are asleep - deadlock!"},
    ),
    (  # Go runtime/stack.go newstack (a runaway recursion)
        "go.runtime_error",
        "fatal error: stack overflow",
        {"fatal": "stack overflow"},
    ),
    (  # peak/s5cmd issue #401, FactomProject/factomd pull request #65
        "go.out_of_memory",
        "fatal error: runtime: out of memory",
        {},
    ),
    (  # huggingface/tokenizers issue #1698 (under Slurm; Rust 1.73+)
        "rust.panic",
        "thread '<unnamed>' panicked at /home/runner/work/tokenizers/tokenizers/tokenizers/src/"
        "models/unigram/trainer.rs:228:53:",
        {"thread": "<unnamed>"},
    ),
    (  # huggingface/tokenizers issue #821 (before Rust 1.73: the message first)
        "rust.panic",
        "> thread '<unnamed>' panicked at 'called `Result::unwrap()` on an `Err` value: Internal', "
        "/__w/tokenizers/tokenizers/tokenizers/src/models/unigram/trainer.rs:203:53",
        {"thread": "<unnamed>", "message": "called `Result::unwrap()` on an `Err` value: Internal"},
    ),
]


@pytest.mark.parametrize(("key", "line", "expected"), POSITIVE)
def test_real_line_matches(key: str, line: str, expected: dict[str, str]) -> None:
    assert_matches(key, line, expected)


NEGATIVE: list[tuple[str, str]] = [
    # torchrun's summary restates a worker's signal (torch.signal_received), it is no handler
    ("process.failure_signal", "  traceback : Signal 6 (SIGABRT) received by PID 42846"),
    # libtpu's own handler wording is xla.fatal_signal's
    (
        "process.failure_signal",
        "*** SIGABRT received by PID 545434 (TID 545434) on cpu 25 from PID 545434; stack trace: ***",
    ),
    # TensorFlow's next line, and its SIGTERM-free handler's number for a kill
    ("process.failure_signal", "*** BEGIN MANGLED STACK TRACE ***"),
    ("process.failure_signal", "*** Received signal 15 ***"),
    # a SIGTERM from outside is not a crash; a crash is not a kill
    ("process.failure_signal", "*** SIGTERM received at time=1759954468 on cpu 5 ***"),
    ("process.terminated", "*** SIGSEGV received at time=1762945937 on cpu 6 ***"),
    # words inside a sentence are not the shell's report
    ("process.terminated", "Process killed by the user"),
    ("process.terminated", "2024-01-01 12:00:00 INFO worker 3 Terminated cleanly"),
    ("process.terminated", "srun: error: c002: task 0: Killed"),
    ("*", "Run Aborted"),
    ("*", "Aborted!"),
    # Julia's interrupt and profiler peek are no crash
    ("julia.signal", "signal (2): Interrupt"),
    ("julia.signal", "signal (10): User defined signal 1"),
    # a Go program's own handled error, and gcc's driver (gcc.compiler_killed)
    ("*", "error: runtime error reported by the server"),
    ("go.out_of_memory", "g++: fatal error: Killed signal terminated program cc1plus"),
    ("rust.panic", "the thread panicked while holding the lock"),
]


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_line_must_not_match(key: str, line: str) -> None:
    assert_no_match(key, line, FAMILY_KEYS)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        # PaddlePaddle's segfault report read as the application's error (python.exception)
        # before this family: a crash is no exception of the job's code
        (
            "FatalError: `Segmentation fault` is detected by the operating system.",
            [("process.failure_signal", Blame.SYMPTOM, 45)],
        ),
        (
            "FatalError: `Termination signal` is detected by the operating system.",
            [("process.terminated", Blame.SYMPTOM, 5)],
        ),
    ],
)
def test_a_signal_report_is_not_the_jobs_exception(
    line: str, expected: list[tuple[str, Blame, int]]
) -> None:
    assert found(line, Source.LOGS) == expected


# --- what the engine makes of them ---------------------------------------------------------------

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
NODES = ("n1", "n2", "n3", "n4")
WATCHDOG = (
    "[rank{r}]:[E401 08:22:40.990950575 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught "
    "collective operation timeout: WorkNCCL(SeqNum=469508, OpType=ALLREDUCE, NumelIn=9801523, "
    "NumelOut=9801523, Timeout(ms)=600000) ran for 600509 milliseconds before timing out."
)
GLOG_SEGV = (
    "*** SIGSEGV (@0x0) received by PID 24044 (TID 0x7f6406bd7740) from PID 0; stack trace: ***"
)


def job(nodes: tuple[str, ...] = NODES, minutes: float = 120) -> JobRecord:
    return JobRecord(
        scheduler="slurm",
        job="1",
        nodes=nodes,
        started=T0,
        ended=T0 + timedelta(minutes=minutes),
        collected=T0 + timedelta(minutes=minutes + 5),
        state="FAILED",
    )


def scanned(line: str, node: str, minutes: float, source: Source = Source.LOGS) -> list[Finding]:
    """What the scanner finds in one line of `node`'s output, stamped `minutes` after T0."""
    result = SCANNER.scan(io.BytesIO(line.encode() + b"\n"), node=node, source=source,
                          reference=T0)  # fmt: skip
    return [replace(f, at=T0 + timedelta(minutes=minutes)) for f in result.findings]


def cascade(*, but: str, at: float = 70) -> list[Finding]:
    """Every node but `but` times out in the same collective."""
    return [
        f for i, n in enumerate(NODES) if n != but for f in scanned(WATCHDOG.format(r=i), n, at)
    ]


RULES: dict[int, frozenset[str]] = {}


def test_a_crash_handlers_report_leaves_the_cause_open_and_names_no_node() -> None:
    """One process's segfault (glog's banner) while the others time out: a crash nobody
    explains, retried; the node it happened on is not named (docs/attribution.md section 3)."""
    v = attribute(job(), [*scanned(GLOG_SEGV, "n2", 60), *cascade(but="n2")], [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.UNKNOWN, ())
    assert v.evidence[0].signal == "process.failure_signal"


@pytest.mark.parametrize(
    "line",
    [
        GLOG_SEGV,
        "signal (11): Segmentation fault",
        "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x7f2cc6e3b5c6]",
        "[ip-172-31-77-112:61444] Signal: Segmentation fault (11)",
    ],
)
def test_a_crash_is_not_a_complaint_about_a_peer(line: str) -> None:
    """A node that printed only its crash is still the one missing from the cascade
    (shape.py): its crash report is no collective symptom."""
    crash = scanned(line, "n2", 60)
    assert crash and not any(is_complaint(f) for f in crash)
    assert missing_from_cascade(job(), [*crash, *cascade(but="n2")]) == "n2"


def test_sigbus_from_two_processes_handlers_is_a_shared_mapping() -> None:
    """Two workers' own handlers reporting SIGBUS within a minute, no memory error: the job's
    shared mapping (context.py), as for process.crashed."""
    line = "*** SIGBUS received at time=1762945937 on cpu {c} ***"
    fs = [*scanned(line.format(c=3), "n1", 30), *scanned(line.format(c=9), "n1", 30.2)]
    v = attribute(job(nodes=("n1",)), fs, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.APPLICATION, ())


def test_one_process_told_twice_is_one_sigbus() -> None:
    """The process's own handler and then the shell that started it report one death."""
    fs = [
        *scanned("*** SIGBUS (@0x7f00) received by PID 81 (TID 0x7f1) from PID 0; stack trace: ***",
                 "n1", 30),
        *scanned("./train.sh: line 3:    81 Bus error               (core dumped) python x.py",
                 "n1", 30.1),
    ]  # fmt: skip
    assert {f.signal for f in fs} == {"process.failure_signal", "process.shell_crash_report"}
    assert attribute(job(nodes=("n1",)), fs, [], RULES).cause is Cause.UNKNOWN


def test_a_kill_beside_the_oom_killer_is_host_memory() -> None:
    """bash's "Killed" only says who died; with slurmstepd's oom-kill event the job's memory
    use decides (ArjunaCluster/ArjunaUsers issue #52)."""
    killed = scanned(
        "/var/spool/slurmd/job00191/slurm_script: line 28:  8156 Killed                  python3 "
        "main.py --prop hform",
        "n1",
        60,
    )
    oom = scanned(
        "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=191.batch cgroup. Some of your "
        "processes may have been killed by the cgroup out-of-memory handler.",
        "n1",
        60.1,
    )
    assert attribute(job(nodes=("n1",)), [*killed, *oom], [], RULES).cause is Cause.APPLICATION
    alone = attribute(job(nodes=("n1",)), killed, [], RULES)
    assert (alone.cause, alone.suspect_nodes) == (Cause.UNKNOWN, ())


def test_a_shell_kill_means_the_job_got_going() -> None:
    """A killed process (SIGKILL from outside) is not a cascade that never started (early.py)."""
    short = job(minutes=5)
    killed = scanned("/tmp/slurmd/job603995/slurm_script: line 9:  4727 Killed ", "n1", 4)
    assert before_it_ran(short, [], [])
    assert not before_it_ran(short, killed, [])


def test_the_terminate_line_defers_to_its_what_line() -> None:
    """libstdc++'s terminate handler only says an exception went uncaught: the what() line is
    read on its own and decides (a CUDA error: the job's), the terminate line adds a symptom."""
    fs = [
        *scanned("terminate called after throwing an instance of 'c10::Error'", "n1", 50),
        *scanned("  what():  CUDA error: an illegal memory access was encountered", "n1", 50),
    ]
    assert {f.signal: f.blame for f in fs} == {
        "libstdcxx.uncaught_exception": Blame.SYMPTOM,
        "cuda.illegal_memory_access": Blame.APPLICATION,
    }
    assert attribute(job(nodes=("n1",)), fs, [], RULES).cause is Cause.APPLICATION


def test_a_watchdog_cascade_that_terminates_every_rank_stays_a_cascade() -> None:
    """Every rank of an NCCL timeout cascade aborts through the terminate handler: that is not
    a crash nobody explains, the cascade is read as one (transient, no node)."""
    term = "terminate called after throwing an instance of 'c10::DistBackendError'"
    fs = [*cascade(but="")] + [f for n in NODES for f in scanned(term, n, 70.1)]
    v = attribute(job(), fs, [], RULES)
    assert (v.cause, v.suspect_nodes) == (Cause.TRANSIENT, ())


def test_bad_alloc_is_the_jobs_host_memory() -> None:
    """std::bad_alloc is operator new finding no host memory: the job's, like MemoryError."""
    assert ("libstdcxx.bad_alloc", Blame.APPLICATION, 60) in found(
        "  what():  std::bad_alloc", Source.LOGS
    )
