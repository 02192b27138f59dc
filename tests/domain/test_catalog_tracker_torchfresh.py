"""Golden lines from the sweep over recent PyTorch distributed texts (signatures-torchfresh.toml):
ProcessGroupNCCL's watchdog and heartbeat monitor, the c10d TCPStore, the flight recorder's
analyser (fr_trace), symmetric memory, DeviceMesh, FSDP2 (fully_shard), the asynchronous save of
torch.distributed.checkpoint and the elastic agent.

The search tools' budget was spent and pytorch/pytorch is too large to mirror, so every line here
is rendered from the emitter's format string as the torch 2.15.0 wheel carries it (its Python
sources and the string tables of libtorch_cuda.so and libtorch_cpu.so), with names, ranks and
sizes invented, and goes through the scanner's own matcher. Blame is pinned to what the emitter
means: complaints about a peer or a store that went away are symptoms below the collective
weight's top, a flight-recorder mismatch of type, size or dtype on a named culprit rank is the
job's desync, ranks that never joined or left no dump may be lost and stay symptoms, and set-up
errors of DeviceMesh, FSDP2, symmetric memory and async checkpointing are the job's (below 50
where a node that lost a GPU prints the same). Look-alikes (healthy lines of the same emitters,
and texts other families read) must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from autorecover.domain.shape import COLLECTIVE
from domain.golden import (
    CATALOG,
    assert_family_keys,
    assert_no_node_action,
    family_keys,
    golden_line_checks,
    hits,
)

FILE = "signatures-torchfresh.toml"
KEYS = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "c10dnew.watchdog_unknown_exception": Blame.SYMPTOM,
    "c10dnew.dump_signal_store_unavailable": Blame.SYMPTOM,
    "c10dnew.store_barrier_timeout": Blame.SYMPTOM,
    "c10dnew.store_ping_mismatch": Blame.SYMPTOM,
    "c10dnew.store_daemon_died": Blame.SYMPTOM,
    "c10dnew.store_somaxconn_low": Blame.INFO,
    "fr.ranks_not_joining": Blame.SYMPTOM,
    "fr.collective_has_errors": Blame.APPLICATION,
    "fr.culprit_rank_mismatch": Blame.APPLICATION,
    "fr.culprit_rank_state": Blame.SYMPTOM,
    "fr.alltoall_size_mismatch": Blame.APPLICATION,
    "fr.missing_dumps": Blame.SYMPTOM,
    "symmem.overlapping_devices": Blame.APPLICATION,
    "symmem.mismatched_nvlink_clique": Blame.APPLICATION,
    "symmem.misuse": Blame.APPLICATION,
    "symmem.multicast_setup_failed": Blame.SYMPTOM,
    "dtensor.mesh_heterogeneous": Blame.APPLICATION,
    "dtensor.mesh_dim_names": Blame.APPLICATION,
    "fsdp2.param_wrong_device": Blame.APPLICATION,
    "fsdp2.unsupported_setup": Blame.APPLICATION,
    "dcpasync.no_cpu_backend": Blame.APPLICATION,
    "dcpasync.checkpointer_process_failed": Blame.SYMPTOM,
    "torchelastic.worker_d_state": Blame.SYMPTOM,
    "torchelastic.local_rank_exceeds_gpus": Blame.APPLICATION,
    "torchelastic.graceful_exit": Blame.INFO,
}

# (line, signal, captures the line must yield); all rendered from format strings (see above)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # ProcessGroupNCCL.cpp Watchdog::run, the catch-all branch
    (
        "[rank3]:[E1204 10:12:01.118273645 ProcessGroupNCCL.cpp:1683] [PG ID 0 PG GUID "
        "0(default_pg) Rank 3] Process group watchdog thread terminated with exception: unknown",
        "c10dnew.watchdog_unknown_exception",
        {},
    ),
    # ProcessGroupNCCL.cpp HeartbeatMonitor, reading the dump signal from the store
    (
        "[rank5]:[W1204 10:12:04.339102775 ProcessGroupNCCL.cpp:1877] [PG ID 0 PG GUID "
        '0(default_pg) Rank 5] TCPStore check for dump key "exception_dump" failed (store '
        "unavailable, not absent key). Cannot detect",
        "c10dnew.dump_signal_store_unavailable",
        {},
    ),
    (
        "[rank2]:[E1204 10:12:04.339102775 ProcessGroupNCCL.cpp:1910] [PG ID 0 PG GUID "
        "0(default_pg) Rank 2] Failed to get timeout rank ID from TCPStore.",
        "c10dnew.dump_signal_store_unavailable",
        {},
    ),
    # store/TCPStore.cpp TCPStore::barrier
    (
        "torch.distributed.DistStoreError: barrier timeout after 600000ms, key: "
        "/default_pg/0//cuda//store_based_barrier_key",
        "c10dnew.store_barrier_timeout",
        {"ms": "600000", "key": "/default_pg/0//cuda//store_based_barrier_key"},
    ),
    # store/TCPStore.cpp, the validation ping
    (
        "torch.distributed.DistStoreError: Ping failed, invalid value returned from server. "
        "Expected: 1813490, Got: 0",
        "c10dnew.store_ping_mismatch",
        {"expected": "1813490", "got": "0"},
    ),
    # store/TCPStoreBackend.cpp TCPStoreMasterDaemon::run
    (
        "[E1204 10:12:09.004512233 TCPStoreBackend.cpp:562] [c10d] TCPStoreMasterDaemon::run() "
        "failed with exception: Unexpected query type",
        "c10dnew.store_daemon_died",
        {"error": "Unexpected query type"},
    ),
    (
        "[E1204 10:12:09.004512233 TCPStoreBackend.cpp:566] [c10d] TCPStoreMasterDaemon::run() "
        "failed with unknown exception",
        "c10dnew.store_daemon_died",
        {},
    ),
    # store/TCPStore.cpp, the somaxconn warning
    (
        "[W1204 10:00:01.221894003 TCPStore.cpp:352] [c10d] Starting store with 2048 workers but "
        "somaxconn is 128.This might cause instability during bootstrap, consider increasing it.",
        "c10dnew.store_somaxconn_low",
        {"workers": "2048", "somaxconn": "128"},
    ),
    # flight_recorder/components/utils.py error_analysis and types.py MatchInfo
    (
        "Not all ranks joining collective, sequence number: 5411",
        "fr.ranks_not_joining",
        {"seq": "5411"},
    ),
    ("Collective sequence number: 18 has errors", "fr.collective_has_errors", {"seq": "18"}),
    (
        "error msg: Culprit rank 3; Error type: COLLECTIVE_TYPE_MISMATCH, Expected collective "
        "type: 'nccl:all_reduce' does not match found collective type: 'nccl:all_gather'",
        "fr.culprit_rank_mismatch",
        {"rank": "3", "type": "COLLECTIVE_TYPE_MISMATCH"},
    ),
    (
        "error msg: Culprit rank 1; Error type: SIZE_OR_SYNTAX_MISMATCH, Expected input sizes: "
        "'[[1024, 4096]]' does not match found input sizes: '[[1024, 2048]]'",
        "fr.culprit_rank_mismatch",
        {"rank": "1", "type": "SIZE_OR_SYNTAX_MISMATCH"},
    ),
    (
        "error msg: Culprit rank 6; Error type: COLLECTIVE_STATE_MISMATCH, Expected state: "
        "'scheduled' does not match found state: 'completed'",
        "fr.culprit_rank_state",
        {"rank": "6"},
    ),
    (
        "Input/output mismatch in the collective sequence number: 902",
        "fr.alltoall_size_mismatch",
        {"seq": "902"},
    ),
    (
        "We cannot decide what's wrong with this collective entry because we missed FR dumps "
        "from ranks ({4, 5, 6, 7}) so we don't have enough information. If you want to debug "
        "further use -j to dump all raw trace",
        "fr.missing_dumps",
        {"ranks": "{4, 5, 6, 7}"},
    ),
    (
        "AssertionError: Missing dump files from ranks {12, 13}",
        "fr.missing_dumps",
        {"missing": "{12, 13}"},
    ),
    # symm_mem/CUDASymmetricMemory.cu and _symmetric_memory/__init__.py
    (
        "RuntimeError: CUDASymmetricMemoryAllocator::rendezvous: detected allocations from "
        "overlapping devices from different ranks.",
        "symmem.overlapping_devices",
        {},
    ),
    (
        "RuntimeError: CUDASymmetricMemory::rendezvous: ranks have mismatched NVLink clique_ids. "
        "All ranks using fabric handles must be in the same NVLink domain.",
        "symmem.mismatched_nvlink_clique",
        {},
    ),
    ("ValueError: Tensor is not allocated from Symmetric Memory", "symmem.misuse", {}),
    (
        "RuntimeError: Pointer not within any SymmetricMemory allocation, is the tensor "
        "allocated from SymmetricMemory?",
        "symmem.misuse",
        {},
    ),
    (
        "RuntimeError: SymmetricMemory[CREATE_EXPORT]: failed to create multicast object",
        "symmem.multicast_setup_failed",
        {"stage": "CREATE_EXPORT", "what": "create multicast object"},
    ),
    (
        "RuntimeError: SymmetricMemory[BIND_AND_MAP]: failed to map multicast handle.",
        "symmem.multicast_setup_failed",
        {"stage": "BIND_AND_MAP", "what": "map multicast handle"},
    ),
    # device_mesh.py
    (
        "RuntimeError: DeviceMesh only support homogeneous hardware, but found 16 ranks and 7 "
        "cuda devices!",
        "dtensor.mesh_heterogeneous",
        {"world": "16", "devices": "7", "device_type": "cuda"},
    ),
    (
        "KeyError: \"Invalid mesh_dim_names ('dp_shard',) specified. Valid mesh_dim_names are "
        "('dp', 'tp').\"",
        "dtensor.mesh_dim_names",
        {"names": "('dp_shard',)"},
    ),
    (
        "RuntimeError: mesh_shape and mesh_dim_names should have same length! Found "
        "len(mesh_dim_names): 2 and len(mesh_shape):3.",
        "dtensor.mesh_dim_names",
        {},
    ),
    # fsdp/_fully_shard/_fsdp_param.py and _fsdp_init.py
    (
        "AssertionError: Expects the parameter to already be moved to device cuda:0 but got cpu",
        "fsdp2.param_wrong_device",
        {"expected": "cuda:0", "actual": "cpu"},
    ),
    (
        "ValueError: fully_shard doesn't support scalar parameters. Change "
        "layers.0.attention.scale to a 1D tensor with numel equal to 1.",
        "fsdp2.unsupported_setup",
        {},
    ),
    (
        "ValueError: fully_shard expects a 1D or 2D DeviceMesh but got DeviceMesh('cuda', "
        "[[[0, 1], [2, 3]]], mesh_dim_names=('pp', 'dp', 'tp'))",
        "fsdp2.unsupported_setup",
        {},
    ),
    (
        "NotImplementedError: FSDP does not support uneven sharding on dim 1: torch.Size([4096, "
        "11008]) (world size: 3)",
        "fsdp2.unsupported_setup",
        {},
    ),
    # checkpoint/state_dict_saver.py and _async_process_executor.py
    (
        "RuntimeError: A CPU backend must be enabled for async save; try initializing process "
        "group with 'cpu:gloo,cuda:nccl'",
        "dcpasync.no_cpu_backend",
        {},
    ),
    (
        "RuntimeError: Checkpoint background process is dead. Exit code: -9",
        "dcpasync.checkpointer_process_failed",
        {"code": "-9"},
    ),
    (
        "TimeoutError: Timed out after 1800s while waiting for response from checkpointer "
        "process pid: 92817",
        "dcpasync.checkpointer_process_failed",
        {"pid": "92817"},
    ),
    # elastic/agent/server/local_elastic_agent.py and elastic/rendezvous/dynamic_rendezvous.py
    (
        "[E1204 10:31:07.402000 812 torch/distributed/elastic/agent/server/"
        "local_elastic_agent.py:569] [default] Worker pid=41872 stuck in uninterruptible sleep "
        "(D-state) for 300.0s (>= 300.0s); marking worker group UNHEALTHY and disabling restarts.",
        "torchelastic.worker_d_state",
        {"pid": "41872", "seconds": "300.0"},
    ),
    (
        "ValueError: local_rank 4 exceeds available GPUs in CUDA_VISIBLE_DEVICES=0,1,2,3",
        "torchelastic.local_rank_exceeds_gpus",
        {"local_rank": "4", "env": "CUDA_VISIBLE_DEVICES", "visible": "0,1,2,3"},
    ),
    (
        "torch.distributed.elastic.rendezvous.api.RendezvousGracefulExitError: The rendezvous "
        "'llama-70b-0412' is closed, terminating pending rendezvous.",
        "torchelastic.graceful_exit",
        {"run_id": "llama-70b-0412"},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # the watchdog's line with an error the other families read, and its normal exit
    (
        "c10dnew.watchdog_unknown_exception",
        "  what():  [PG ID 0 PG GUID 0(default_pg) Rank 22] Process group watchdog thread "
        "terminated with exception: CUDA error: unknown error",
    ),
    ("c10dnew.watchdog_unknown_exception", "Process group watchdog thread terminated normally"),
    (
        "c10dnew.dump_signal_store_unavailable",
        "Observed flight recorder dump signal from another rank via TCPStore.",
    ),
    # the store's client waiting for workers (c10d.store_clients_timeout) and a healthy start
    (
        "c10dnew.store_barrier_timeout",
        "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 "
        "clients joined.",
    ),
    ("c10dnew.store_ping_mismatch", "[c10d] TCP client connected to host node-0:29500"),
    ("c10dnew.store_daemon_died", "[c10d] The server has started on port = 29500."),
    ("c10dnew.store_somaxconn_low", "[c10d] The server has started on port = 29500."),
    # fr_trace on a clean run and its table titles
    (
        "fr.ranks_not_joining",
        "No errors found for this collective entry, There could be some other reasons why we "
        "see collective timeout.",
    ),
    ("fr.collective_has_errors", "collective: nccl:all_reduce"),
    ("fr.culprit_rank_mismatch", "expected ranks: {0, 1, 2, 3}"),
    ("fr.culprit_rank_state", "collective state: completed"),
    ("fr.missing_dumps", "Rank 3 has an empty op list."),
    # symmetric memory's own graceful fallback and its log of the handle type
    (
        "symmem.multicast_setup_failed",
        "SymmetricMemory[IMPORT_HANDLE]: gracefully skipping multicast initialization, not every "
        "rank imported the handle and joined the multicast object.",
    ),
    ("symmem.misuse", "using fabric handle to import symmetric memory handles."),
    # DeviceMesh's warning before it guesses the device, and the world-size check others read
    (
        "dtensor.mesh_heterogeneous",
        "UserWarning: It seems like you did not set/select the default device for the current "
        "process before the DeviceMesh initialization or use a launcher (i.e. torchrun) which "
        "populates `LOCAL_RANK` environment variable.",
    ),
    (
        "dtensor.mesh_dim_names",
        "RuntimeError: Mesh should not be bigger than default world size 8, but found 16 ranks!",
    ),
    ("fsdp2.param_wrong_device", "Moving model to device cuda:0 before fully_shard"),
    ("fsdp2.unsupported_setup", "Applied FSDP to the model"),
    ("dcpasync.checkpointer_process_failed", "Checkpoint background process started"),
    # the agent's restart line and a worker in D-state that has not yet timed out
    (
        "torchelastic.worker_d_state",
        "[default] Worker pid=41872 entered uninterruptible sleep (D-state); will mark UNHEALTHY "
        "if it remains for 300.0s.",
    ),
    (
        "torchelastic.graceful_exit",
        "torch.distributed.elastic.rendezvous.api.RendezvousClosedError",
    ),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_family_keys_are_new_namespaced_and_pinned() -> None:
    assert_family_keys(
        FILE,
        KEYS,
        frozenset({"c10dnew", "fr", "symmem", "dtensor", "fsdp2", "dcpasync", "torchelastic"}),
    )
    assert set(BLAME) == KEYS


def test_no_entry_names_a_node() -> None:
    """None of these texts is about this node's device alone: no entry acts on the node it was
    printed on, and none is hardware."""
    assert_no_node_action(KEYS)
    for key in KEYS:
        assert CATALOG.signatures[key].blame is not Blame.HARDWARE, key


COMPLAINTS = frozenset(
    {
        "c10dnew.watchdog_unknown_exception",
        "c10dnew.store_barrier_timeout",
        "fr.ranks_not_joining",
        "fr.culprit_rank_state",
    }
)


def test_only_complaints_about_a_peer_weigh_as_collective_complaints() -> None:
    """A peer that never arrived is a collective complaint (20-30); what one node prints of its
    own trouble (a dead store thread or checkpointer, a worker in D state, a failed multicast
    set-up) stays below that weight, so a quiet peer is never made the suspect by it. Nothing
    here is transient."""
    for key in KEYS:
        sig = CATALOG.signatures[key]
        assert sig.blame is not Blame.TRANSIENT, key
        if sig.blame is not Blame.SYMPTOM:
            continue
        if key in COMPLAINTS:
            assert COLLECTIVE <= sig.weight <= 30, key
        else:
            assert sig.weight < COLLECTIVE, key


def test_watchdog_lines_with_an_error_keep_their_reader() -> None:
    """The watchdog's exit line carrying a collective timeout or NCCL error is read by the entries
    of that error, not by this family."""
    line = (
        "[rank0]:[E305 13:12:13.843730426 ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID "
        "0(default_pg) Rank 0] Process group watchdog thread terminated with exception: [Rank 0] "
        "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=138607, "
        "OpType=ALLREDUCE, NumelIn=251658240, NumelOut=251658240, Timeout(ms)=600000) ran for "
        "600683 milliseconds before timing out."
    )
    found = set(hits(line))
    assert "nccl.watchdog_timeout" in found
    assert not found & KEYS
