"""Golden lines from the jaxcoord sweep over the JAX / XLA multi-host runtime
(signatures-jaxcoord.toml): PJRT's task watcher, the TSL preemption notifier and
jax.distributed.initialize's own checks.

Each line is a real one from the public source cited beside it, or the emitter's format string
rendered (said so beside it); every line goes through the scanner's own matcher. Blame is pinned
to what a careful SRE reads from the one line: a watcher that lost a peer and a SIGTERM the
runtime caught restate a failure or a stop decided elsewhere (symptoms); initialize refusing its
arguments, a second call or a late call is the job's own code or launch (application).
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    assert_no_node_action,
    family_contract,
    family_keys,
    golden_line_checks,
    hits,
)

FILE = "signatures-jaxcoord.toml"
FAMILY = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "pjrt.watch_tasks_failed": Blame.SYMPTOM,
    "jaxcoord.sigterm_caught": Blame.SYMPTOM,
    "jaxcoord.initialize_twice": Blame.APPLICATION,
    "jaxcoord.initialize_missing_config": Blame.APPLICATION,
    "jaxcoord.initialize_after_backend": Blame.APPLICATION,
    "jaxcoord.unexpected_task": Blame.SYMPTOM,
    "jaxcoord.registration_race": Blame.SYMPTOM,
    "jaxcoord.local_topology_timeout": Blame.APPLICATION,
    "jaxcoord.leader_restarted": Blame.SYMPTOM,
    "jaxcoord.task_set_error": Blame.SYMPTOM,
    "jaxcoord.barrier_task_error": Blame.SYMPTOM,
}

NAMESPACES = frozenset({"jaxcoord", "pjrt", "libtpu", "orbax"})

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FILE: NAMESPACES}, BLAME)

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # the sweep's probe line (PJRT's task watcher; marin-community/marin's DeepEP internode debug
    # log reports the same warning as shutdown noise of jobs that succeeded)
    (
        "W0818 pjrt_client.cc:1603] WatchTasksAsync failed for task 1: UNAVAILABLE: ... "
        "ipv4:10.186.210.229:32",
        "pjrt.watch_tasks_failed",
        {"task": "1", "code": "UNAVAILABLE"},
    ),
    # openxla/xla xla/tsl/distributed_runtime/preemption/preemption_notifier.cc, rendered
    (
        "W1203 10:15:02.123456    1234 preemption_notifier.cc:89] SIGTERM caught at "
        "2026-12-03T10:15:02.123456+00:00",
        "jaxcoord.sigterm_caught",
        {},
    ),
    # marin-community/marin README (a sweep trained several times in one process)
    (
        "RuntimeError: distributed.initialize should only be called once",
        "jaxcoord.initialize_twice",
        {},
    ),
    # jax-ml/jax jax/_src/distributed.py State.initialize, rendered as CPython prints it
    (
        "ValueError: coordinator_address should be defined.",
        "jaxcoord.initialize_missing_config",
        {"missing": "coordinator_address should be defined"},
    ),
    (
        "ValueError: Number of processes must be defined.",
        "jaxcoord.initialize_missing_config",
        {"missing": "Number of processes must be defined"},
    ),
    (
        "ValueError: The process id of the current process must be defined.",
        "jaxcoord.initialize_missing_config",
        {"missing": "The process id of the current process must be defined"},
    ),
    # marin-community/marin's Grug debug log (MIN-017: task 0 failed twice before training)
    (
        "RuntimeError: jax.distributed.initialize() must be called before any JAX calls that "
        "might initialise the XLA backend",
        "jaxcoord.initialize_after_backend",
        {},
    ),
    # marin-community/marin's placement-collision postmortem (two gangs on the same hosts and
    # coordinator port, mid-run)
    (
        "absl::Status: INVALID_ARGUMENT: Unexpected task registered with task_name=/job:/replica:0/task:7",
        "jaxcoord.unexpected_task",
        {"task": "/job:/replica:0/task:7"},
    ),
    (
        "absl::Status: ALREADY_EXISTS: Aborted connect attempt as there is a request from a newer "
        "incarnation",
        "jaxcoord.registration_race",
        {},
    ),
    # coordination_service.cc RegisterTask, older releases, rendered
    (
        "ABORTED: Duplicate task registration with task_name=/job:jax_worker/replica:0/task:1",
        "jaxcoord.registration_race",
        {"task": "/job:jax_worker/replica:0/task:1"},
    ),
    # a Perlmutter project's bug note (ranks each seeing one GPU, initialize without
    # local_device_ids), the key as quoted there
    (
        "Getting local topologies failed: GetKeyValue() timed out with key: "
        "cuda:local_topology/cuda/1",
        "jaxcoord.local_topology_timeout",
        {"key": "cuda:local_topology/cuda/1"},
    ),
    # coordination_service_agent.cc StartSendingHeartbeats, rendered (current and older text)
    (
        "ABORTED: Leader incarnation ID mismatch: the coordination  leader (usually slice 0 task 0) "
        "has restarted. Check for earlier errors or any scheduler events (e.g. preemption, "
        "eviction) to debug further.",
        "jaxcoord.leader_restarted",
        {},
    ),
    (
        "ABORTED: Leader incarnation ID mismatch: the coordination leader has restarted.",
        "jaxcoord.leader_restarted",
        {},
    ),
    # coordination_service.cc SetTaskError, rendered (the task, then its barriers)
    (
        "E1203 10:15:02.123456    1234 coordination_service.cc:1012] "
        "/job:jax_worker/replica:0/task:3 has been set to ERROR in coordination service: "
        "UNAVAILABLE: Task /job:jax_worker/replica:0/task:3 heartbeat timeout.",
        "jaxcoord.task_set_error",
        {"task": "/job:jax_worker/replica:0/task:3"},
    ),
    (
        "INTERNAL: Barrier failed beacuse a task is in error. Barrier Id: multihost_broadcast_sync4, "
        "Task: /job:jax_worker/replica:0/task:3",
        "jaxcoord.barrier_task_error",
        {"barrier": "multihost_broadcast_sync4", "task": "/job:jax_worker/replica:0/task:3"},
    ),
    (
        "INTERNAL: Barrier failed from a task error. Barrier Id: PjRT_Client_Connect, "
        "Task: /job:jax_worker/replica:0/task:3",
        "jaxcoord.barrier_task_error",
        {"old_barrier": "PjRT_Client_Connect", "old_task": "/job:jax_worker/replica:0/task:3"},
    ),
]

# (key, a look-alike the key must not match)
NEGATIVE: list[tuple[str, str]] = [
    # the keras distribution guide: the script caught the error and went on single-process
    (
        "jaxcoord.initialize_missing_config",
        "Keras distribution initialization skipped or failed: coordinator_address should be "
        "defined.",
    ),
    # other programs' own SIGTERM handlers (a generic printf, not the XLA runtime's notifier)
    ("jaxcoord.sigterm_caught", "SIGTERM caught at 1733220902"),
    # a key other than the topology exchange's (rendered): left to the generic entries
    (
        "jaxcoord.local_topology_timeout",
        "DEADLINE_EXCEEDED: GetKeyValue() timed out with key: jax_device_count and duration: 2m",
    ),
    # the task's own incarnation, not the leader's: xla.task_not_connected reads it
    (
        "jaxcoord.leader_restarted",
        "ABORTED: /job:jax_worker/replica:0/task:1 Heartbeat: Incarnation ID mismatch: expecting "
        "1234 but got 5678.",
    ),
    # the preemption sync manager's healthy notices (rendered)
    (
        "jaxcoord.sigterm_caught",
        "I1203 10:15:02.223456    1234 preemption_sync_manager.cc:180] Will begin preemption "
        "sync protocol in 29.9s",
    ),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_healthy_runtime_notices_match_nothing_of_the_family() -> None:
    """The preemption sync manager's own notices are informational (rendered)."""
    healthy = [
        "I1203 10:15:02.223456    1234 preemption_sync_manager.cc:180] Will begin preemption "
        "sync protocol in 29.9s",
        "I1203 10:15:02.223456    1234 preemption_sync_manager.cc:110] Preemption sync protocol "
        "cancelled by notifier: CANCELLED: Preemption notifier is being deleted.. This is "
        "expected during program shutdown.",
    ]
    for line in healthy:
        assert not set(hits(line)) & FAMILY, line


def test_symptoms_are_light_and_act_on_no_node() -> None:
    """A lost watch and a caught SIGTERM say another task or the scheduler decided: weight at
    most 30, no node action."""
    for key in ("pjrt.watch_tasks_failed", "jaxcoord.sigterm_caught", "jaxcoord.unexpected_task",
                "jaxcoord.registration_race", "jaxcoord.leader_restarted",
                "jaxcoord.task_set_error", "jaxcoord.barrier_task_error"):  # fmt: skip
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.SYMPTOM, key
        assert 5 <= sig.weight <= 30, key


def test_nothing_of_the_family_acts_on_a_node() -> None:
    """Every line here is the software's or the job's: none may act on the node it came from."""
    assert_no_node_action(FAMILY)
