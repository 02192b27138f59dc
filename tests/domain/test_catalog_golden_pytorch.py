"""Golden tests for the PyTorch distributed family (`signatures-pytorch.toml`, issue 14).

Real lines from public issues (each cited) go through the scanner's own matcher: each must
yield its signal with the captures it names, and, being a survivor's or a teardown's line,
never an application finding (the generic python.exception entry must lose to the specific
one). Lines that look alike must not match. Every entry of the family file has a golden line.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame
from domain.golden import CATALOG, assert_matches, family_keys
from domain.golden import hits as _hits

FAMILY_FILE = "signatures-pytorch.toml"
FAMILY_KEYS = family_keys(FAMILY_FILE)

BLAME: dict[str, Blame] = {
    "torch.cpu_alloc_failed": Blame.APPLICATION,  # mapp (session 23)
    "c10d.nccl_async_teardown": Blame.SYMPTOM,
    "c10d.nccl_work_timeout": Blame.SYMPTOM,
    "c10d.nccl_watchdog_failure": Blame.SYMPTOM,
    "c10d.nccl_dump_signal": Blame.SYMPTOM,
    "c10d.nccl_debug_dump": Blame.INFO,
    "c10d.nccl_comm_aborted": Blame.SYMPTOM,
    "c10d.nccl_monitor_terminate": Blame.SYMPTOM,
    "c10d.store_connect_failed": Blame.TRANSIENT,
    "c10d.store_connect_retry": Blame.INFO,
    "c10d.store_listen_failed": Blame.SYMPTOM,
    "c10d.store_peer_closed": Blame.SYMPTOM,
    "c10d.store_socket_error": Blame.SYMPTOM,
    "elastic.closing_workers": Blame.INFO,
    "elastic.worker_wedged": Blame.SYMPTOM,
    "elastic.rendezvous_node_lost": Blame.SYMPTOM,
    "elastic.membership_restart": Blame.INFO,
    "elastic.exit_barrier_failed": Blame.SYMPTOM,
    "elastic.worker_group_failed": Blame.SYMPTOM,
    "c10d.store_barrier_timeout": Blame.SYMPTOM,
    "c10d.nccl_unique_id_wait": Blame.SYMPTOM,
    "c10d.collective_mismatch": Blame.APPLICATION,
    "nccl.legacy_invalid_call": Blame.APPLICATION,
    "nccl.unhandled_cuda_error_name": Blame.SYMPTOM,
    "torch.dataloader_worker_exited": Blame.SYMPTOM,
    "c10d.monitored_barrier": Blame.SYMPTOM,
    "torch.ddp_unused_parameters": Blame.APPLICATION,
    "torch.state_dict_mismatch": Blame.APPLICATION,
    "torch.ddp_hook_misuse": Blame.APPLICATION,
    "c10d.tensor_argument_invalid": Blame.APPLICATION,
    "c10d.store_host_not_found": Blame.TRANSIENT,
    "torch.fsdp_order_changed": Blame.APPLICATION,
    "torch.ddp_verify_no_data": Blame.SYMPTOM,
    "c10d.pg_teardown_note": Blame.INFO,
    "torch.dataloader_bus_error": Blame.APPLICATION,
    "c10d.barrier_device_guess": Blame.INFO,
    "c10d.device_guess_note": Blame.INFO,
    "c10d.libuv_unavailable": Blame.APPLICATION,
    "c10d.nccl_no_gpus": Blame.APPLICATION,
    "c10d.nccl_not_built": Blame.APPLICATION,
    "c10d.env_rendezvous_unset": Blame.APPLICATION,
    "c10d.device_mesh_invalid": Blame.APPLICATION,
    "c10d.store_gone_dump_check": Blame.SYMPTOM,
    "c10d.store_wait_poll_timeout": Blame.SYMPTOM,
    "c10d.store_connect_timeout_retry": Blame.INFO,
    "c10d.env_var_note": Blame.INFO,
    # sweep round 6 (issue 14, s20b): torch.distributed.rpc's TensorPipe agent
    "rpc.tensorpipe_peer_lost": Blame.SYMPTOM,
    # depth review (s22): a privileged MASTER_PORT (tests/domain/test_catalog_depth_drun.py)
    "c10d.store_port_denied": Blame.APPLICATION,
    # core entries of signatures.toml this family extends
    "elastic.rendezvous_failed": Blame.TRANSIENT,
    "torch.signal": Blame.SYMPTOM,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # NVIDIA/Fuser#3055 (the heartbeat monitor's fatal exit; sweep G2)
    (
        "[F930 15:23:07.687389178 ProcessGroupNCCL.cpp:1309] [PG ID 3 PG GUID  Rank 1] [PG ID 3 PG "
        "GUID  Rank 1] Terminating the process after attempting to dump debug info, due to "
        "ProcessGroupNCCL watchdog hang.",
        "c10d.nccl_monitor_terminate",
        {"reason": "ProcessGroupNCCL watchdog hang"},
    ),
    # salesforce/MUST#7 (1.9-1.12 wording, one line)
    (
        "[E ProcessGroupNCCL.cpp:341] Some NCCL operations have failed or timed out. Due to the "
        "asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
        "corrupted/incomplete data. To avoid this inconsistency, we are taking the entire "
        "process down.",
        "c10d.nccl_async_teardown",
        {},
    ),
    # opendatalab/DocLayout-YOLO#22
    (
        "[E ProcessGroupNCCL.cpp:494] To avoid data inconsistency, we are taking the entire "
        "process down.",
        "c10d.nccl_async_teardown",
        {},
    ),
    # snowflakedb/ArcticTraining#219
    (
        "[rank3]:[E626 16:48:25.440250129 ProcessGroupNCCL.cpp:684] [Rank 3] Some NCCL "
        "operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, "
        "subsequent GPU operations might run on corrupted/incomplete data.",
        "c10d.nccl_async_teardown",
        {},
    ),
    # NVIDIA/physicsnemo#691 (2.3-2.5 wording)
    (
        "[rank3]:[E1016 03:33:45.319862434 ProcessGroupNCCL.cpp:1628] [PG 0 Rank 3] Timeout at "
        "NCCL work: 50, last enqueued NCCL work: 50, last completed NCCL work: 49.",
        "c10d.nccl_work_timeout",
        {},
    ),
    # huggingface/diffusers#12422 (blocking wait)
    (
        "[rank1]:[E1002 18:16:40.662691402 ProcessGroupNCCL.cpp:756] [Rank 1] Work "
        "WorkNCCL(SeqNum=2521, OpType=ALLREDUCE, NumelIn=160672064, NumelOut=160672064, "
        "Timeout(ms)=600000) timed out in blocking wait.",
        "c10d.nccl_work_timeout",
        {},
    ),
    # pytorch/pytorch#122850 (test plan output, a wrapped line)
    (
        "   Rank 0] Received a timeout signal from this local rank and will start",
        "c10d.nccl_work_timeout",
        {},
    ),
    # NVIDIA/physicsnemo#691
    (
        "[rank3]:[E1016 03:33:45.319844411 ProcessGroupNCCL.cpp:1583] [PG 0 Rank 3] Exception "
        "(either an error or timeout) detected by watchdog at work: 50, last enqueued NCCL work: "
        "50, last completed NCCL work: 49.",
        "c10d.nccl_watchdog_failure",
        {},
    ),
    # OpenRLHF/OpenRLHF#1126 (2.6+ wording)
    (
        "[rank7]:[E901 05:20:03.124073319 ProcessGroupNCCL.cpp:2271] [PG ID 0 PG GUID "
        "0(default_pg) Rank 7]  failure detected by watchdog at work sequence id: 460631 PG "
        "status: last enqueued work: 460631, last completed work: 460630",
        "c10d.nccl_watchdog_failure",
        {},
    ),
    # OpenRLHF/OpenRLHF#1126
    (
        "[rank2]:[E901 05:20:03.118859045 ProcessGroupNCCL.cpp:1746] [PG ID 0 PG GUID "
        "0(default_pg) Rank 2] Received a dump signal due to a collective timeout from  rank 6 "
        "and we will try our best to dump the debug info. Last enqueued NCCL work: 460631, last "
        "completed NCCL work: 460630.This is most likely caused by incorrect usages of "
        "collectives, e.g., wrong sizes used across ranks, the order of collectives is not same "
        "for all ranks or the scheduled collective, for some reason, didn't run. Additionally, "
        "this can be caused by GIL deadlock or other reasons such as network errors or bugs in "
        "the communications library (e.g. NCCL), etc. ",
        "c10d.nccl_dump_signal",
        {"source_rank": "6"},
    ),
    # vllm-project/vllm-omni#2928 (the rank that timed out itself)
    (
        "[rank1]:[E418 01:32:50.907313453 ProcessGroupNCCL.cpp:1890] [PG ID 0 PG GUID "
        "0(default_pg) Rank 1] Received a dump signal due to a collective timeout from this "
        "local rank and we will try our best to dump the debug info. Last enqueued NCCL work: "
        "233659, last completed NCCL work: 233659.This is most likely caused by incorrect usages "
        "of collectives, e.g., wrong sizes used across ranks, the order of collectives is not "
        "same for all ranks or the scheduled collective, for some reason, didn't run. "
        "Additionally, this can be caused by GIL deadlock or other reasons such as network "
        "errors or bugs in the communications library (e.g. NCCL), etc.",
        "c10d.nccl_dump_signal",
        {},
    ),
    # meta-pytorch/torchtune#2651
    (
        "[rank1]:[E430 05:09:48.046336354 ProcessGroupNCCL.cpp:1533] [PG ID 0 PG GUID "
        "0(default_pg) Rank 1] ProcessGroupNCCL preparing to dump debug info. Include stack "
        "trace:",
        "c10d.nccl_debug_dump",
        {},
    ),
    # pytorch/pytorch#64241 (the message before the change)
    ("NCCL communicator was aborted on rank 1.", "c10d.nccl_comm_aborted", {}),
    # lllyasviel/ControlNet#382 (the exception line: TimeoutError before DistNetworkError)
    (
        "TimeoutError: The client socket has timed out after 1800s while trying to connect to "
        "(127.0.0.1, 48391).",
        "c10d.store_connect_failed",
        {"store": "127.0.0.1", "port": "48391"},
    ),
    # gensyn-ai/rl-swarm#197 (title)
    (
        "[W427 01:04:16.149509694 socket.cpp:752] [c10d] The client socket has failed to connect "
        "to [::ffff:198.18.0.1]:3254 (errno: 110 - Connection timed out).",
        "c10d.store_connect_retry",
        {},
    ),
    # TheTom/vllm-swift#9 (TCPStore 2.5+ retrying its connect-and-ping)
    (
        "[W426 16:56:01.831041000 TCPStore.cpp:347] [c10d] TCP client failed to connect/validate "
        "to host 100.64.0.1:59782 - retrying (try=6, timeout=1800000ms, delay=5241ms): Connection "
        "reset by peer",
        "c10d.store_connect_retry",
        {},
    ),
    # pytorch/pytorch#74146 (torch 1.x: the store's socket error as a bare RuntimeError);
    # pytorch/pytorch#118666 (title; 2.2+ wraps it)
    ("RuntimeError: Connection reset by peer", "c10d.store_peer_closed", {}),
    ("torch.distributed.DistNetworkError: Connection reset by peer", "c10d.store_peer_closed", {}),
    # facebookresearch/moco issue #25: the same SYSCHECK std::system_error thrown in a C++ thread,
    # printed by libstdc++'s terminate handler (ENOTCONN: the peer's side was gone)
    ("  what():  Transport endpoint is not connected", "c10d.store_peer_closed", {}),
    ("  what():  Connection reset by peer", "c10d.store_peer_closed", {}),
    # yangkky/distributed_tutorial#3 (TCPStore(...) in _env_rendezvous_handler, torch 1.x)
    ("RuntimeError: Connection timed out", "c10d.store_socket_error", {}),
    ("RuntimeError: Connection refused", "c10d.store_socket_error", {}),
    ("RuntimeError: No route to host", "c10d.store_socket_error", {}),
    # pytorch/pytorch#85621, huggingface/accelerate#1645 (torch 1.x: the store's timeout bare)
    ("RuntimeError: Socket Timeout", "c10d.store_timeout", {}),
    ("0: RuntimeError: Socket Timeout", "c10d.store_timeout", {}),
    # showlab/Tune-A-Video#90
    (
        "RuntimeError: The server socket has failed to listen on any local network address. The "
        "server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). The "
        "server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use).",
        "c10d.store_listen_failed",
        {},
    ),
    # pytorch/pytorch#153586 (test plan output)
    (
        "[W514 18:33:36.536327028 TCPStore.cpp:138] [c10d] recvValueWithTimeout failed on "
        "SocketImpl(fd=3, addr=[localhost]:34658, remote=[localhost]:1234): Failed to recv, got 0 "
        "bytes. Connection was likely closed. Did the remote server shutdown or crash?",
        "c10d.store_peer_closed",
        {},
    ),
    # pytorch/pytorch pull request #129985 (the reporter elided the socket's addresses)
    (
        "[trainer4471203|12]:W0701 13:41:43.421574  4776 TCPStore.cpp:182] [c10d] recvValue failed "
        "on SocketImpl(fd=24, ...): Connection reset by peer",
        "c10d.store_connection",
        {},
    ),
    # aws-samples/amazon-eks-machine-learning-with-terraform-and-kubeflow#93 (2.0-2.3 wording)
    (
        "[2024-04-10 16:02:56,193] torch.distributed.elastic.multiprocessing.api: [WARNING] "
        "Sending process 270 closing signal SIGTERM",
        "elastic.closing_workers",
        {},
    ),
    # pytorch/pytorch#150916
    (
        "W0409 07:28:49.531000 1359 torch/distributed/elastic/multiprocessing/api.py:897] "
        "Sending process 1365 closing signal SIGTERM",
        "elastic.closing_workers",
        {},
    ),
    # NVIDIA/nvidia-resiliency-ext#18 (2.4+ wording)
    (
        "W0227 17:39:41.936000 293813 site-packages/torch/distributed/elastic/multiprocessing/"
        "api.py:766] Closing process 293845 via signal SIGTERM",
        "elastic.closing_workers",
        {},
    ),
    # pytorch/pytorch#115219 (test plan output)
    (
        "WARNING] Unable to shutdown process 4422 via Signals.SIGTERM, forcefully exiting via "
        "Signals.SIGKILL",
        "elastic.closing_workers",
        {},
    ),
    # pytorch/pytorch#69520 (a comment)
    (
        "2023-03-09T10:53:23.670-05:00\tERROR:torch.distributed.elastic.agent.server.api:Error "
        "waiting on exit barrier. Elapsed: 315.7792458534241 seconds",
        "elastic.exit_barrier_failed",
        {},
    ),
    # wenet-e2e/wekws#172 (title)
    (
        "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to "
        "the C10d store has failed. See inner exception for details.",
        "elastic.rendezvous_failed",
        {"kind": "Connection"},
    ),
    # synthesized from torch 2.15.0 elastic/rendezvous/dynamic_rendezvous.py (format only)
    (
        "torch.distributed.elastic.rendezvous.api.RendezvousStateError: The rendezvous state is "
        "corrupt. See inner exception for details.",
        "elastic.rendezvous_failed",
        {"kind": "State"},
    ),
    # synthesized from torch 2.15.0 elastic/agent/server/api.py (format only)
    ("Got termination signal: 15", "torch.signal", {}),
    # pytorch/pytorch#114097 (a comment; torch 2.4 prints the signal's name)
    (
        "W0823 16:54:02.337000 139733055988160 torch/distributed/elastic/agent/server/api.py:688]"
        " Received Signals.SIGTERM death signal, shutting down workers",
        "torch.signal",
        {},
    ),
    # Lightning-AI/pytorch-lightning#3029 (torchelastic 0.2)
    ("[default] Worker group failed", "elastic.worker_group_failed", {}),
    # synthesized from torch 2.15.0 sources (format only; the entries' own examples)
    (
        "Process 88 did not exit after SIGKILL within 30s; abandoning and continuing teardown. "
        "Worker may be in uninterruptible kernel sleep (e.g. wedged on GPU/NIC); host may need "
        "to be recycled.",
        "elastic.worker_wedged",
        {},
    ),
    (
        "The node 'gpu-a02_4242_0' has failed to send a keep-alive heartbeat to the rendezvous "
        "'job-17' due to an error of type RendezvousConnectionError.",
        "elastic.rendezvous_node_lost",
        {},
    ),
    (
        "[default] Detected 1 new nodes from group_rank=0; will restart worker group",
        "elastic.membership_restart",
        {},
    ),
    # torch 1.x/2.x formats from distributed_c10d.py and ProcessGroupNCCL.cpp (the messages'
    # format strings; values as a run prints them)
    (
        "RuntimeError: Timed out initializing process group in store based barrier on rank: 3, "
        "for key: store_based_barrier_key:1 (world_size=8, worker_count=4, timeout=0:30:00)",
        "c10d.store_barrier_timeout",
        {"rank": "3", "world": "8", "arrived": "4"},
    ),
    (
        "RuntimeError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] "
        "via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout",
        "c10d.nccl_unique_id_wait",
        {"root": "0"},
    ),
    (
        "RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running "
        "collective: CollectiveFingerPrint(SequenceNumber=12, OpType=ALLREDUCE)",
        "c10d.collective_mismatch",
        {},
    ),
    ("RuntimeError: NCCL Error 5: invalid usage", "nccl.legacy_invalid_call", {"code": "5"}),
    (
        "ncclUnhandledCudaError: Call to CUDA function failed.",
        "nccl.unhandled_cuda_error_name",
        {},
    ),
    (
        "[rank0]: RuntimeError: Rank 5 successfully reached monitoredBarrier, but received "
        "errors while waiting for send/recv from rank 2. Please check rank 2 logs for faulty rank.",
        "c10d.monitored_barrier",
        {"faulty": "2"},
    ),
    (
        "RuntimeError: Expected to have finished reduction in the prior iteration before "
        "starting a new one. This error indicates that your module has parameters that were "
        "not used in producing loss.",
        "torch.ddp_unused_parameters",
        {},
    ),
    (  # modelscope/ms-swift#3171
        "[rank3]: RuntimeError: Expected to mark a variable ready only once. This error is caused "
        "by one of the following reasons: 1) Use of a module parameter outside the `forward` "
        "function.",
        "torch.ddp_hook_misuse",
        {},
    ),
    (  # shibing624/MedicalGPT#408
        "[rank0]: Parameter at index 286 with name model.layers.23.mlp.down_proj.weight has been "
        "marked as ready twice. This means that multiple autograd engine  hooks have fired for "
        "this particular parameter during this iteration.",
        "torch.ddp_hook_misuse",
        {},
    ),
    ("RuntimeError: Tensors must be CUDA and dense", "c10d.tensor_argument_invalid", {}),  # trl#949
    (  # pytorch c10d check_gpu_single_tensor (ProcessGroupNCCL.cpp), as raised to Python
        "ValueError: Tensors must be contiguous",
        "c10d.tensor_argument_invalid",
        {},
    ),
    ("ValueError: host not found: Name or service not known", "c10d.store_host_not_found", {}),
    (
        "RuntimeError: Error(s) in loading state_dict for GPT:",
        "torch.state_dict_mismatch",
        {"model": "GPT"},
    ),
    (
        "RuntimeError: Ranks 1, 3 failed to pass monitoredBarrier in 1800000 ms",
        "c10d.monitored_barrier",
        {"ranks": "1, 3"},
    ),
    (
        "RuntimeError: DataLoader worker (pid(s) 14232, 14233) exited unexpectedly",
        "torch.dataloader_worker_exited",
        {},
    ),
    # pytorch/pytorch#76949 (torch 1.12 wording; the reporter's terminal wrapped the line)
    (
        "/dev/lib/python3.8/site-packages/torch/distributed/fsdp/fully_sharded_data_parallel.py:"
        "2770: UserWarning: All-gather order differs from that of the first iteration on rank 0 "
        "-- collectives are unchecked and may give incorrect results or hang",
        "torch.fsdp_order_changed",
        {"rank": "0"},
    ),
    # NJU-PCALab/STAR#44
    (
        "RuntimeError: DDP expects same model across all ranks, but Rank 3 has 2247 params, while "
        "rank 0 has inconsistent 0 params.",
        "torch.ddp_verify_no_data",
        {"rank": "3", "other": "0"},
    ),
    # facebookresearch/metaseq#90 (torch 1.11, the destructor's abort reason)
    ("Process Group destroyed on rank 0", "c10d.pg_teardown_note", {}),
    # msr-fiddle/pipedream#28, nianticlabs/simplerecon#3, mosaicml/streaming#493 (/dev/shm full)
    (
        "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient "
        "shared memory (shm).",
        "torch.dataloader_bus_error",
        {},
    ),
    # verl-project/verl#1472 (torch 2.6 wording, the guess landing on another rank's GPU)
    (
        "(WorkerDict pid=664594) [rank1]:[W510 09:18:00.213483298 ProcessGroupNCCL.cpp:4561] [PG "
        "ID 0 PG GUID 0 Rank 1] using GPU 0 to perform barrier as devices used by this process are "
        "currently unknown. This can potentially cause a hang if this rank to GPU mapping is "
        "incorrect. Specify device_ids in barrier() to force use of a particular device, or call "
        "init_process_group() with a device_id.",
        "c10d.barrier_device_guess",
        {"gpu": "0"},
    ),
    # vllm-project/vllm#2440 (the host and port without a space between them)
    (
        "RuntimeError: The client socket has failed to connect to any network address of "
        "(0.15.4.33,39213).",
        "c10d.store_connect_failed",
        {"store": "0.15.4.33", "port": "39213"},
    ),
    # the IPv6 attempt on a host without IPv6 (sglang and torchrun logs of healthy starts) and
    # the reverse lookup of the client's own address (vLLM start-up)
    (
        "[W225 16:32:57.295093976 socket.cpp:767] [c10d] The client socket cannot be initialized "
        "to connect to [::ffff:10.99.91.49]:5000 (errno: 97 - Address family not supported by "
        "protocol).",
        "c10d.store_connect_retry",
        {},
    ),
    (
        "[W512 11:29:53.116059090 socket.cpp:209] [c10d] The hostname of the client socket cannot "
        "be retrieved. err=-3",
        "c10d.store_connect_retry",
        {},
    ),
    # round 5 of the sweep (issue 14); more lines in test_catalog_tracker_pytorch2.py
    # stas00/ml-engineering#112 (2.6-2.8 wording of the device guess)
    (
        "[rank7]:[W712 17:30:52.306155886 ProcessGroupNCCL.cpp:4715] [PG ID 0 PG GUID 0 Rank 7]  "
        "using GPU 7 as device used by this process is currently unknown. This can potentially "
        "cause a hang if this rank to GPU mapping is incorrect. You can pecify device_id in "
        "init_process_group() to force use of a particular device.",
        "c10d.device_guess_note",
        {"gpu": "7"},
    ),
    # hiyouga/LlamaFactory#7806
    (
        "torch.distributed.DistStoreError: use_libuv was requested but PyTorch was built without "
        "libuv support, run with USE_LIBUV=0 to disable it.",
        "c10d.libuv_unavailable",
        {},
    ),
    # meta-llama/codellama#125
    (
        "RuntimeError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!",
        "c10d.nccl_no_gpus",
        {},
    ),
    # bshall/hubert#1
    ("RuntimeError: Distributed package doesn't have NCCL built in", "c10d.nccl_not_built", {}),
    # NVIDIA/apex#99
    (
        "ValueError: Error initializing torch.distributed using env:// rendezvous: environment "
        "variable WORLD_SIZE expected, but not set",
        "c10d.env_rendezvous_unset",
        {"variable": "WORLD_SIZE"},
    ),
    # pytorch/pytorch#111452
    (
        "RuntimeError: Mesh should not be bigger than default world size, but found 6 ranks!",
        "c10d.device_mesh_invalid",
        {"ranks": "6"},
    ),
    # MiniMax-AI/MiniMax-M1#14
    (
        "[rank7]:[W624 12:52:07.296197118 ProcessGroupNCCL.cpp:1659] [PG ID 0 PG GUID 0 Rank 7] "
        'Failed to check the "should dump" flag on TCPStore, (maybe TCPStore server has shut '
        "down too early), with error: Broken pipe",
        "c10d.store_gone_dump_check",
        {},
    ),
    # bmaltais/kohya_ss#2899
    (
        "[rank2]:[W1014 03:47:39.789025589 socket.cpp:428] [c10d] While waitForInput, poolFD "
        "failed with (errno: 0 - Success).",
        "c10d.store_wait_poll_timeout",
        {},
    ),
    # ray-project/ray#47286 (every Ray Train worker on torch 2.2+)
    (
        "(RayTrainWorker pid=2273, ip=172.24.21.66) [rank7]:[W Utils.hpp:108] Warning: "
        "Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use "
        "TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarString)",
        "c10d.env_var_note",
        {"variable": "NCCL_ASYNC_ERROR_HANDLING"},
    ),
    # vllm-project/vllm-metal#58
    (
        "[W106 01:32:36.793651000 socket.cpp:942] [c10d] The server socket on "
        "[::ffff:10.253.40.30]:55872 has timed out, will retry.",
        "c10d.store_connect_timeout_retry",
        {},
    ),
]

GOLDEN += [
    # sweep round 6 (issue 14, s20b): torch.distributed.rpc (TensorPipe)
    # pytorch/pytorch#95487 (RPC across nodes under submitit)
    (
        "[W tensorpipe_agent.cpp:915] RPC agent for NODE_2 encountered error when sending "
        "outgoing request #0 to NODE_1: ECONNRESET: connection reset by peer (this error "
        "originated at tensorpipe/transport/uv/connection_impl.cc:132)",
        "rpc.tensorpipe_peer_lost",
        {"worker": "NODE_2", "remote": "NODE_1", "error": "ECONNRESET: connection reset by peer"},
    ),
    # pytorch/tensorpipe#411 (the parameter-server example)
    (
        "RPC agent for parameter_server encountered error when sending response to request #4 "
        "to trainer_1: eof (this error originated at tensorpipe/transport/shm/"
        "connection_impl.cc:259)",
        "rpc.tensorpipe_peer_lost",
        {"worker": "parameter_server", "remote": "trainer_1", "error": "eof"},
    ),
    # pytorch/pytorch#85607 (more than 18 workers)
    (
        "[W tensorpipe_agent.cpp:726] RPC agent for 0 encountered error when reading incoming "
        "request from 27: sendmsg: Broken pipe (this error originated at "
        "tensorpipe/common/socket.h:105)",
        "rpc.tensorpipe_peer_lost",
        {"worker": "0", "remote": "27", "error": "sendmsg: Broken pipe"},
    ),
    # pytorch/tensorpipe#201 (the future's error as Python raises it)
    ("RuntimeError: ECONNREFUSED: connection refused", "rpc.tensorpipe_peer_lost", {}),
    # depth review (s22): rendered from socket.cpp's format (tests/domain/test_catalog_depth_drun.py)
    (
        "RuntimeError: The server socket has failed to listen on any local network address. The "
        "server socket has failed to bind to [::]:98 (errno: 13 - Permission denied). The server "
        "socket has failed to bind to 0.0.0.0:98 (errno: 13 - Permission denied).",
        "c10d.store_port_denied",
        {"legacy_port": "98"},
    ),
    # JingyunLiang/VRT issue #49 (mapp, session 23; c10 alloc_cpu.cpp)
    (
        "RuntimeError: [enforce fail at alloc_cpu.cpp:73] . DefaultCPUAllocator: can't allocate "
        "memory: you tried to allocate 116813856768 bytes. Error code 12 (Cannot allocate memory)",
        "torch.cpu_alloc_failed",
        {"bytes": "116813856768"},
    ),
]

# (signal, line that must NOT match it)
NEGATIVE: list[tuple[str, str]] = [
    # a connect attempt c10d retries is not the final failure ...
    (
        "c10d.store_connect_failed",
        "[W427 01:04:16.149509694 socket.cpp:752] [c10d] The client socket has failed to connect "
        "to [::ffff:198.18.0.1]:3254 (errno: 110 - Connection timed out).",
    ),
    # ... and the final failure is not a retry
    (
        "c10d.store_connect_retry",
        "torch.distributed.DistNetworkError: The client socket has failed to connect to any "
        "network address of (node-a01, 29500).",
    ),
    # Python's own sockets and gloo's pairs are not c10d's store socket
    ("c10d.store_socket_error", "ConnectionRefusedError: [Errno 111] Connection refused"),
    ("c10d.store_socket_error", "OSError: [Errno 113] No route to host"),
    (
        "c10d.store_socket_error",
        "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:799] connect "
        "[172.31.71.170]:13195: Connection refused",
    ),
    # the bare text inside a longer message is someone else's
    ("c10d.store_socket_error", "RuntimeError: Connection refused while fetching the config"),
    # another library's lower-case socket timeout is not c10d's
    ("c10d.store_timeout", "RuntimeError: socket timeout"),
    # Python's own ConnectionResetError (a client library's socket) is not c10d's store
    ("c10d.store_peer_closed", "ConnectionResetError: [Errno 104] Connection reset by peer"),
    # a what() of another exception that merely mentions the text is not the socket's own
    (
        "c10d.store_peer_closed",
        "  what():  NCCL error: remote process exited or there was a network error, Connection reset by peer",
    ),
    # the store starting to listen is not a failure to listen
    ("c10d.store_listen_failed", "[c10d] The server socket has started to listen on [::]:29500."),
    # the dump signal names a rank only when another rank sent it
    ("c10d.nccl_work_timeout", "ProcessGroupNCCL preparing to dump debug info. Include stack"),
    ("c10d.nccl_comm_aborted", "[c10d] Add logs for NCCL Comm Abort call"),
    ("elastic.closing_workers", "Main process received SIGTERM, exiting"),
    # sweep round 6: Python's own refused connection is not the RPC agent's pipe
    ("rpc.tensorpipe_peer_lost", "ConnectionRefusedError: [Errno 111] Connection refused"),
    ("elastic.closing_workers", "[default] Stopping worker group"),
    ("elastic.rendezvous_failed", "RendezvousGracefulExitError: node closed the rendezvous"),
    ("elastic.membership_restart", "[default] Worker group FAILED. 3/3 attempts left"),
    ("elastic.worker_group_failed", "[default] Worker group FAILED. 3/3 attempts left"),
    # the worker's segfault handler (torch/csrc/DataLoader.cpp) is another signal
    ("torch.dataloader_bus_error", "ERROR: Unexpected segmentation fault encountered in worker."),
    # a sandbox refusing sockets (errno 1) is not the harmless IPv6 note
    (
        "c10d.store_connect_retry",
        "c10d: The client socket cannot be initialized to connect to localhost:0 (errno: 1 - "
        "Operation not permitted).",
    ),
]


@pytest.mark.parametrize(("line", "key", "captures"), GOLDEN)
def test_golden_line_yields_its_signal(line: str, key: str, captures: dict[str, str]) -> None:
    assert_matches(key, line, captures)


@pytest.mark.parametrize(
    ("line", "key", "captures"), [g for g in GOLDEN if BLAME.get(g[1]) is not Blame.APPLICATION]
)
def test_survivor_lines_are_never_the_application(
    line: str, key: str, captures: dict[str, str]
) -> None:
    blames = {k: CATALOG.signatures[k].blame for k in _hits(line)}
    assert Blame.APPLICATION not in blames.values(), f"{line!r}: {blames}"


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_negative_line(key: str, line: str) -> None:
    assert key not in _hits(line), f"{key} must not match {line!r}"


@pytest.mark.parametrize(("key", "blame"), sorted(BLAME.items()))
def test_blame(key: str, blame: Blame) -> None:
    assert CATALOG.signatures[key].blame is blame


def test_every_family_entry_has_its_blame_and_a_golden_line() -> None:
    assert set(BLAME) >= FAMILY_KEYS
    assert {key for _, key, _ in GOLDEN} >= FAMILY_KEYS


def test_store_failures_to_assemble_never_decide_alone() -> None:
    # a port already taken is most often the job's own choice (a second run, a default port)
    # and sometimes a stale process: a symptom the timing and history rules decide; a store
    # nobody reached is only a hint (a wrong MASTER_ADDR looks the same), below the threshold
    listen = CATALOG.signatures["c10d.store_listen_failed"]
    assert listen.blame is Blame.SYMPTOM and 20 <= listen.weight <= 30
    connect = CATALOG.signatures["c10d.store_connect_failed"]
    assert connect.blame is Blame.TRANSIENT and 0 < connect.weight < 50
    # the collective teardown texts are symptoms too weak to decide anything alone
    for key in ("c10d.nccl_async_teardown", "c10d.nccl_dump_signal", "elastic.closing_workers"):
        assert CATALOG.signatures[key].weight <= 30


def test_a_dataloader_bus_error_is_evidence_not_a_verdict() -> None:
    # /dev/shm too small is the usual cause, but the handler only says "might": BigScience's run
    # logged it with /dev/shm 1% used (tests/corpus/unknown-dataloader-bus-error-shm)
    sig = CATALOG.signatures["torch.dataloader_bus_error"]
    assert (sig.blame, sig.node_action.value) == (Blame.APPLICATION, "none")
    assert sig.weight < 50
