"""Golden lines from the tracker sweeps of issue 14 (two rounds) over PyTorch distributed, NCCL
and nccl-tests, and CUDA errors quoted in training repositories.

Each positive line is real output quoted in a public thread (named beside it) that the catalog
did not know, or knew only through the generic Python exception, before the sweep; each must
yield its signal, captures and blame. The negatives are look-alikes the widened patterns must
leave alone (a retry that is not the give-up, a status that blames no peer, a trace line that is
not the error).
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame
from domain.golden import CATALOG, assert_matches, hits

# (source, line, signal, captures, blame)
GOLDEN: list[tuple[str, str, str, dict[str, str], Blame]] = [
    (
        "NVIDIA/nccl#707 (NCCL 2.7, no peer in the line)",
        "10-90-43-152:120890:121585 [0] transport/net_ib.cc:818 NCCL WARN NET/IB : Got completion "
        "with error 4, opcode 21394, len 0, vendor err 81",
        "nccl.ib_completion_error",
        {"status": "4"},
        Blame.SYMPTOM,
    ),
    (
        "a public note quoting the same NCCL 2.7-2.11 format, status 5",
        "NCCL WARN NET/IB : Got completion with error 5, opcode 0, len 0, vendor err 129",
        "nccl.ib_completion_flushed",
        {},
        Blame.SYMPTOM,
    ),
    (
        "NVIDIA/nccl-tests#280",
        "c2211f46f318: Test NCCL failure common.cu:1005 'unhandled CUDA error'",
        "nccl.unhandled_cuda_error",
        {},
        Blame.SYMPTOM,
    ),
    (
        "NVIDIA/nccl#957",
        "Fri Aug 11 12:31:45 2023[1,0]<stdout>:tomte401:1850301:1881358 [0] proxy.cc:1485 NCCL "
        "WARN [Service thread] Error encountered progressing operation=Connect, res=3, closing "
        "connection",
        "nccl.proxy_failed",
        {},
        Blame.SYMPTOM,
    ),
    (
        "NVIDIA/nccl#957",
        "Fri Aug 11 12:31:45 2023[1,0]<stdout>:tomte401:1850301:1881358 [0] proxy.cc:1495 NCCL "
        "WARN [Service thread] Could not receive type from localRank 0, res=3, closed=0",
        "nccl.proxy_failed",
        {},
        Blame.SYMPTOM,
    ),
    (
        "sgl-project/sglang#3820 (NCCL 2.21)",
        "node5:240:240 [6] misc/socket.cc:533 NCCL WARN socketPollConnect: Connect to "
        "10.0.0.4<56849> returned 113(No route to host) errno 115(Operation now in progress)",
        "nccl.socket_poll_connect_failed",
        {"peer": "10.0.0.4"},
        Blame.SYMPTOM,
    ),
    (
        "pytorch/pytorch#107021 (torch 2.0)",
        "[E socket.cpp:860] [c10d] The client socket has timed out after 60s while trying to "
        "connect to 192.0.0.1:1234",
        "c10d.store_connect_failed",
        {"store": "192.0.0.1", "port": "1234"},
        Blame.TRANSIENT,
    ),
    (
        "pytorch/pytorch#69197 (torch 1.10)",
        "RuntimeError: connect() timed out. Original timeout was 60000 ms.",
        "c10d.store_connect_failed",
        {},
        Blame.TRANSIENT,
    ),
    (
        "NVIDIA/nccl#708 (torch 1.13 spelling)",
        "RuntimeError: [1] is setting up NCCL communicator and retreiving ncclUniqueId from [0] "
        "via c10d key-value store by key '0', but store->get('0') got error: Timeout waiting for "
        "key: default_pg/0/0 after 1800000 ms",
        "c10d.nccl_unique_id_wait",
        {"root": "0"},
        Blame.SYMPTOM,
    ),
    (
        "thu-pacman/chitu#80",
        "2025-03-27 17:31:09.952  sm228-a100-40g-23 [rank1]:[E327 09:31:09.977427208 "
        "ProcessGroupNCCL.cpp:667] Stack trace of the failed collective not found, potentially "
        "because FlightRecorder is disabled. You can enable it by setting "
        "TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.",
        "c10d.nccl_debug_dump",
        {},
        Blame.INFO,
    ),
    (
        "pytorch/pytorch#177472 (NCCL 2.29.3, quoted in the description)",
        "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 "
        "'the operation cannot be performed in the present state'.",
        "nccl.nvls_bind_failed",
        {"code": "401", "text": "the operation cannot be performed in the present state"},
        Blame.HARDWARE,
    ),
    (
        "NVIDIA/nccl#1684 (NCCL 2.25.1)",
        "172-27-101-52:959:959 [0] transport/p2p.cc:944 NCCL WARN rank 0 failed to IPC register "
        "userbuff 0x7f3f56000000 buffSize 37748736 nPeers 2 isLegacyIpc 0x7ffe49900be0",
        "nccl.ipc_register_fallback",
        {},
        Blame.INFO,
    ),
    (
        "NVIDIA/nccl-tests#280",
        ".. c2211f46f318 pid 3288: Test failure common.cu:891",
        "nccl.tests_failure_trace",
        {},
        Blame.INFO,
    ),
    (
        "pytorch/pytorch#76949 (torch 1.12; the reporter's terminal wrapped the line)",
        "/dev/lib/python3.8/site-packages/torch/distributed/fsdp/fully_sharded_data_parallel.py:"
        "2770: UserWarning: All-gather order differs from that of the first iteration on rank 0 "
        "-- collectives are unchecked and may give incorrect results or hang",
        "torch.fsdp_order_changed",
        {"rank": "0"},
        Blame.APPLICATION,
    ),
    (
        "X-PLUG/mPLUG-Owl#86",
        "RuntimeError: DDP expects same model across all ranks, but Rank 2 has 128 params, while "
        "rank 0 has inconsistent 0 params.",
        "torch.ddp_verify_no_data",
        {"rank": "2", "other": "0"},
        Blame.SYMPTOM,
    ),
    (
        "NVIDIA/nccl-tests#206 (title; fixed by raising ulimit -l from 8192)",
        "misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate "
        "memory",
        "nccl.memlock_limit",
        {"call": "ibv_reg_mr_iova2"},
        Blame.APPLICATION,
    ),
    (
        "pytorch/pytorch#159954 (cleared by reloading nvidia_uvm)",
        "/home/krish/miniconda3/envs/ass-test/lib/python3.10/site-packages/torch/cuda/__init__.py:"
        "174: UserWarning: CUDA initialization: CUDA unknown error - this may be due to an "
        "incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after "
        "program start. Setting the available devices to be zero. (Triggered internally at "
        "/pytorch/c10/cuda/CUDAFunctions.cpp:109.)",
        "cuda.unknown_error",
        {},
        Blame.HARDWARE,
    ),
    (
        "pytorch/pytorch#131117",
        "/root/autodl-tmp/env/ai-abilities/lib/python3.10/site-packages/torch/cuda/__init__.py:138: "
        "UserWarning: CUDA initialization: CUDA driver initialization failed, you might not have a "
        "CUDA gpu. (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)",
        "cuda.device_count_failed",
        {},
        Blame.SYMPTOM,
    ),
    (
        "vllm-project/vllm#8432 (environment report)",
        "/home/miniconda3/envs/vllm/lib/python3.12/site-packages/torch/cuda/init.py:128: "
        "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run "
        "some cuda functions before calling NumCudaDevices() that might have already set an "
        "error? Error 2: out of memory (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)",
        "cuda.device_count_failed",
        {"code": "2", "error": "out of memory"},
        Blame.SYMPTOM,
    ),
    (
        "pytorch/pytorch#126275 (the 2.4 nightly wording)",
        "[rank0]:[W515 07:06:42.829549331 ProcessGroupNCCL.cpp:1117] WARNING: process group has NOT "
        "been destroyed before it is being destructed. On normal program exit, the application "
        "should call destroy_process_group to ensure that any pending NCCL data transfers have "
        "finished in this process.",
        "c10d.pg_teardown_note",
        {},
        Blame.INFO,
    ),
    (
        "NVIDIA/nccl#1176 (NCCL 2.19.3; gone with 2.18.6)",
        "1: compute-st-p4de24xlarge-2:4827:6900 [4] bootstrap.cc:77 NCCL WARN Message truncated : "
        "received 256 bytes instead of 4",
        "nccl.bootstrap_truncated",
        {"received": "256", "expected": "4"},
        Blame.APPLICATION,
    ),
    (
        "NVIDIA/nccl#268 (NCCL 2.4.7, no peer named)",
        "hvd1:2918:3333 [0] external/nccl_archive/src/transport/net_socket.cc:200 NCCL WARN "
        "NET/Socket : message truncated : receiving 696320 bytes instead of 32768",
        "nccl.socket_progress_error",
        {},
        Blame.SYMPTOM,
    ),
    (
        "antgroup/animate-x#15 (repeated on every connect attempt)",
        "[W socket.cpp:601] [c10d] The IPv6 network addresses of (localhost, 51595) cannot be "
        "retrieved (gai error: -2 - Name or service not known).",
        "c10d.store_connect_retry",
        {},
        Blame.INFO,
    ),
    (
        "NVIDIA/nccl#525 (NCCL 2.9, include/shm.h, Kubeflow pod with a 64 MiB /dev/shm)",
        "[3] include/shm.h:48 NCCL WARN Error while creating shared memory segment "
        "nccl-shm-recv-1462445a6f01cbfc-1-2-3 (size 9637888)",
        "nccl.shm_exhausted",
        {"shm_name": "nccl-shm-recv-1462445a6f01cbfc-1-2-3"},
        Blame.APPLICATION,
    ),
    (
        "dmlc/xgboost#5963 (NCCL 2.7 in Docker)",
        "7635c25c81cd:41588:41837 [0] include/shm.h:48 NCCL WARN Error while creating shared "
        "memory segment nccl-shm-recv-6c6b02bad5bfc129-0-1-0 (size 9637888)",
        "nccl.shm_exhausted",
        {"shm_name": "nccl-shm-recv-6c6b02bad5bfc129-0-1-0"},
        Blame.APPLICATION,
    ),
    (
        "modelscope/FunASR#2006 (every local rank, as a timed-out job aborts)",
        "liangxianchen-funasr-15wh-train-lxc0-m-0:14053:14893 [2] NCCL INFO [Service thread] "
        "Connection closed by localRank 3",
        "nccl.proxy_peer_closed",
        {"local_rank": "3"},
        Blame.INFO,
    ),
    (
        "aws/aws-k8s-tester#454 (mpirun-prefixed)",
        "[1,6]<stdout>:bert-mpi-training-worker-0:27:579 [6] NCCL INFO [Service thread] "
        "Connection closed by localRank 2",
        "nccl.proxy_peer_closed",
        {"local_rank": "2"},
        Blame.INFO,
    ),
    (
        "NVIDIA/nccl#1247 (PyTorch's 'Last error:' line under Ray's logger)",
        "(RayWorkerVllm pid=7602) ERROR 04-07 00:57:46 ray_utils.py:45] Attribute busid of node "
        "nic not found",
        "nccl.topology_xml",
        {"attribute": "busid", "xml_node": "nic"},
        Blame.APPLICATION,
    ),
    (
        "NVIDIA/Megatron-LM#596 (NCCL 2.17+ headers, a 2.14 library at run time)",
        "dsw-226-64b7566f8b-xz9j6:71868:71868 [0] init.cc:1270 NCCL WARN Invalid config blocking "
        "attribute value -2147483648",
        "nccl.config_invalid",
        {"attribute": "blocking", "value": "-2147483648"},
        Blame.APPLICATION,
    ),
    (
        "SpursGoZmy/Table-LLaVA#4 (PyTorch's 'Last error:' line)",
        "Invalid config blocking attribute value -2147483648",
        "nccl.config_invalid",
        {"attribute": "blocking"},
        Blame.APPLICATION,
    ),
    (
        "warpem/miss-alignment#105 (after the collective timeout's flight-recorder dump)",
        "[rank0]:[F725 02:47:41.268394894 ProcessGroupNCCL.cpp:1653] [PG ID 0 PG GUID "
        "0(default_pg) Rank 0] [PG ID 0 PG GUID 0(default_pg) Rank 0] Terminating the process "
        "after attempting to dump debug info, due to collective timeout or exception.",
        "c10d.nccl_monitor_terminate",
        {"reason": "collective timeout or exception"},
        Blame.SYMPTOM,
    ),
    (
        "NVIDIA-NeMo/Automodel#1038 (the dump's preface)",
        "[rank2]:[E109 22:46:25.933639732 ProcessGroupNCCL.cpp:2103] [PG ID 0 PG GUID "
        "0(default_pg) Rank 2] First PG on this rank to signal dumping.",
        "c10d.nccl_debug_dump",
        {},
        Blame.INFO,
    ),
    (
        "vllm-project/vllm#41160 (2.5+, before the flight recorder's frames)",
        "[rank3]:[E508 07:35:59.440171617 ProcessGroupNCCL.cpp:733] Stack trace of the failed "
        "collective: ",
        "c10d.nccl_debug_dump",
        {},
        Blame.INFO,
    ),
    (
        "NVIDIA/nccl#615 (NCCL 2.9 wording, no peer named)",
        "train-run-env3-list2-parallel-0:15483:15645 [0] transport/net_ib.cc:665 NCCL WARN "
        "NET/IB : collective mismatch error local size 546816 remote 524288 addr 7ff7d1530000 "
        "rkey 2553d seq 14/1c",
        "nccl.collective_size_mismatch",
        {},
        Blame.APPLICATION,
    ),
    (
        "NVIDIA/nccl#296 (NCCL 2.4 init.cc)",
        "init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective "
        "calls at and around rank 39. You can use NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=COLL to "
        "see the collective logs",
        "nccl.collective_size_mismatch",
        {},
        Blame.APPLICATION,
    ),
    (
        "BlackSamorez/tensor_parallel#121 (torch 1.x wording)",
        "RuntimeError: NCCL Error 3: internal error",
        "nccl.internal_error",
        {},
        Blame.SYMPTOM,
    ),
    (
        "NVIDIA/nccl#1726 (title: vLLM's pynccl wording)",
        "ncclCommInitRank failed with error: NCCL error: internal error",
        "nccl.internal_error",
        {},
        Blame.SYMPTOM,
    ),
    (
        "pytorch/pytorch#134403 (also haoheliu/AudioLDM#49, rwth-i6/returnn#1465)",
        "RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR",
        "cuda.library_execution_failed",
        {"status": "CUFFT_INTERNAL_ERROR"},
        Blame.SYMPTOM,
    ),
    (
        "JingwenWang95/KinectFusion#4 (also pytorch/pytorch#70122, fixed by a newer driver)",
        "RuntimeError: cusolver error: CUSOLVER_STATUS_EXECUTION_FAILED, when calling "
        "`cusolverDnSgetrf( handle, m, n, dA, ldda, static_cast<float*>(dataPtr.get()), ipiv, "
        "info)`",
        "cuda.library_execution_failed",
        {"status": "CUSOLVER_STATUS_EXECUTION_FAILED"},
        Blame.SYMPTOM,
    ),
    (
        "alexfrom0815/Online-3D-BPP-DRL#24 (torch's LinAlgError, which no Python entry reads)",
        "torch._C._LinAlgError: cusolver error: CUSOLVER_STATUS_EXECUTION_FAILED, when calling "
        "`cusolverDnXsyevd( handle, params, jobz, uplo, n, CUDA_R_32F)`. This error may appear "
        "if the input matrix contains NaN.",
        "cuda.library_execution_failed",
        {"status": "CUSOLVER_STATUS_EXECUTION_FAILED"},
        Blame.SYMPTOM,
    ),
    (
        "leoxiaobin/deep-high-resolution-net.pytorch#285",
        "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED",
        "cuda.cudnn_init_failed",
        {"status": "CUDNN_STATUS_NOT_INITIALIZED"},
        Blame.APPLICATION,
    ),
    (
        "chenyuntc/pytorch-book#3 (torch 0.3 wording)",
        "CuDNNError: 1: CUDNN_STATUS_NOT_INITIALIZED",
        "cuda.cudnn_init_failed",
        {"status": "CUDNN_STATUS_NOT_INITIALIZED"},
        Blame.APPLICATION,
    ),
    (
        "deepakn97/relationPrediction#37",
        "RuntimeError: Unable to find a valid cuDNN algorithm to run convolution (try_all at "
        "/opt/conda/conda-bld/pytorch_1591914868920/work/aten/src/ATen/native/cudnn/Conv.cpp:693)",
        "cuda.cudnn_no_algorithm",
        {},
        Blame.APPLICATION,
    ),
    (
        "gistvision/e2sri#13 (older torch wording)",
        "RuntimeError: no valid convolution algorithms available in CuDNN",
        "cuda.cudnn_no_algorithm",
        {},
        Blame.APPLICATION,
    ),
]

# (signal, a look-alike it must NOT match, why)
NEGATIVE: list[tuple[str, str, str]] = [
    (
        "nccl.ib_completion_error",
        "NCCL WARN NET/IB : Got completion with error 5, opcode 0, len 0, vendor err 129",
        "status 5 is a flush: nccl.ib_completion_flushed, which blames no peer",
    ),
    (
        "c10d.store_connect_failed",
        "[W427 01:04:16.149509694 socket.cpp:752] [c10d] The client socket has failed to connect "
        "to [::ffff:198.18.0.1]:3254 (errno: 110 - Connection timed out).",
        "one retried attempt (gensyn-ai/rl-swarm#197), c10d.store_connect_retry",
    ),
    (
        "c10d.store_connect_failed",
        "[W426 16:56:01.831041000 TCPStore.cpp:347] [c10d] TCP client failed to connect/validate "
        "to host 100.64.0.1:59782 - retrying (try=6, timeout=1800000ms, delay=5241ms): Connection "
        "reset by peer",
        "a retry (TheTom/vllm-swift#9)",
    ),
    (
        "nccl.proxy_failed",
        "ji-aionlineinferenceservice-8821422047987597312-server-0:72:294 [0] NCCL INFO [Service "
        "thread] Connection closed by localRank 0",
        "the proxy noting a local rank's normal close (thu-pacman/chitu#80)",
    ),
    (
        "nccl.tests_failure_trace",
        "c2211f46f318: Test NCCL failure common.cu:1005 'unhandled CUDA error'",
        "the error line itself, read by its text",
    ),
    (
        "torch.ddp_verify_no_data",
        "RuntimeError: DDP expects same model across all ranks, but Rank 1 has 221 params, while "
        "rank 0 has inconsistent 219 params.",
        "made from the format: a real count mismatch is the model, not a lost collective",
    ),
    (
        "nccl.nvls_bind_failed",
        "gpu47:4962:5097 [1] transport/nvls.cc:223 NCCL WARN Cuda failure 999 'unknown error'",
        "the pre-2.29 wording, nccl.nvls_setup_failure's (NVIDIA/nccl-tests#276)",
    ),
    (
        "nccl.memlock_limit",
        "misc/ibvwrap.cc:288 NCCL WARN Call to ibv_reg_dmabuf_mr failed with error Operation not "
        "supported",
        "a DMA-BUF registration the driver cannot do (NVIDIA/nccl#778), not the limit",
    ),
    (
        "nccl.bootstrap_truncated",
        "hvd1:2918:3333 [0] external/nccl_archive/src/transport/net_socket.cc:200 NCCL WARN "
        "NET/Socket : message truncated : receiving 696320 bytes instead of 32768",
        "the transport's truncation during a collective, not the bootstrap's",
    ),
    (
        "nccl.topology_xml",
        "gpu-a01:31:31 [0] NCCL INFO Attribute coll of node net not found",
        "the INFO form NCCL prints while probing plugins: harmless",
    ),
    (
        "nccl.proxy_peer_closed",
        "3a742b5dcfec4b4b8658b52b96a0c2d3000000:39:302 [0] proxy.cc:1111 NCCL WARN [Service "
        "thread] Unknown command 66326 from localRank -1",
        "a garbled proxy message (NVIDIA/nccl#851), not a close",
    ),
    (
        "cuda.library_execution_failed",
        "RuntimeError: cusolver error: CUSOLVER_STATUS_INVALID_VALUE, when calling "
        "`cusolverDnCreate(handle)`",
        "made from the format: a refused call, cuda.library_bad_call's",
    ),
    (
        "cuda.cudnn_init_failed",
        "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR",
        "a kernel failure, cuda.library_execution_failed's",
    ),
    (
        "cuda.cudnn_no_algorithm",
        "UserWarning: Applied workaround for CuDNN issue, install nvrtc.so (Triggered internally "
        "at ../aten/src/ATen/native/cudnn/Conv_v8.cpp:80.)",
        "a warning from the same file that is no failure",
    ),
]


@pytest.mark.parametrize(("source", "line", "key", "captures", "blame"), GOLDEN)
def test_golden_line_yields_its_signal(
    source: str, line: str, key: str, captures: dict[str, str], blame: Blame
) -> None:
    assert_matches(key, line, captures)
    assert CATALOG.signatures[key].blame is blame, source


@pytest.mark.parametrize(("key", "line", "why"), NEGATIVE)
def test_look_alike_is_left_alone(key: str, line: str, why: str) -> None:
    assert key not in hits(line), why


def test_ipv6_destination_is_captured_whole() -> None:
    # made from the 2.19+ format with the link-local address of NVIDIA/nccl#975's
    # socketStartConnect line: the port follows '<', the address keeps its colons and scope
    line = (
        "n122-246-085:12251:12400 [5] misc/socket.cc:533 NCCL WARN socketPollConnect: Connect to "
        "fe80::966d:ae03:a2:8cf0%ib1<17943> returned 111(Connection refused) errno 115(Operation "
        "now in progress)"
    )
    assert_matches("nccl.socket_poll_connect_failed", line, {"peer": "fe80::966d:ae03:a2:8cf0%ib1"})


def test_the_older_poll_wordings_keep_their_captures() -> None:
    # NVIDIA/nccl pull request #1618 (the entry's own example), then a line made from the
    # 2.14+ "poll() returned %d, no POLLOUT events" format, which names no destination
    assert_matches(
        "nccl.socket_poll_connect_failed",
        "[03/16][2025-02-25 15:46:48,389] [misc/socket.cc:602] [s11gn1268:pid=3987720] NCCL WARN "
        "socketPollConnect poll() failed, ret 1, error Connection timed out, revents 8, connect "
        "to 172.16.30.229:39953",
        {"peer": "172.16.30.229"},
    )
    found = hits("gpu-b03:1201:1302 [2] misc/socket.cc:565 NCCL WARN socketPollConnect: poll() "
                 "returned 1, no POLLOUT events")  # fmt: skip
    assert "nccl.socket_poll_connect_failed" in found
    assert "peer" not in found["nccl.socket_poll_connect_failed"]


def test_device_count_codes_with_their_own_meaning_keep_it() -> None:
    # a PyTorch CUDA-init line whose code has its own entry is read by that entry too
    line = (
        "/usr/local/lib/python3.8/dist-packages/torch/cuda/__init__.py:52: UserWarning: CUDA "
        "initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda "
        "functions before calling NumCudaDevices() that might have already set an error? Error "
        "802: system not yet initialized (Triggered internally at "
        "/pytorch/c10/cuda/CUDAFunctions.cpp:109.)"
    )  # a site's FAQ quoting a job on one A100 node, fixed by excluding that node
    found = hits(line)
    assert found["cuda.device_count_failed"]["code"] == "802"
    assert "cuda.device_unavailable" in found


def test_the_old_shm_wording_says_the_same_as_the_new() -> None:
    # the 2.12+ misc/shmutils.cc form (pytorch/ci-infra#490) and the 2.4-2.11 include/shm.h form
    # (NVIDIA/nccl#342) are one failure: the same entry, weight and blame
    new = hits(
        "misc/shmutils.cc:132 NCCL WARN Error while creating shared memory segment "
        "/dev/shm/nccl-WU88OE (size 9637888), error: No space left on device (28)"
    )
    old = hits(
        "include/shm.h:48 NCCL WARN Error while creating shared memory segment "
        "nccl-shm-recv-250a7cc850ba9298-0-1-3 (size 9637888)"
    )
    assert "nccl.shm_exhausted" in new and "nccl.shm_exhausted" in old
    assert new["nccl.shm_exhausted"]["path"] == "/dev/shm/nccl-WU88OE"


def test_the_proxy_teardown_note_weighs_nothing() -> None:
    # printed by every rank on the way out, after success or failure alike
    assert CATALOG.signatures["nccl.proxy_peer_closed"].weight == 0
