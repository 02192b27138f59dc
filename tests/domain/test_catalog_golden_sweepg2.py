"""Golden lines from the issue-14 round-2 sweep (G2) of the PyTorch distributed, NCCL and CUDA
trackers.

Each positive line is real output quoted in a public thread (named beside it) that the catalog
did not know, or knew only through the generic Python exception, before the sweep; each must
yield its signal, captures and blame. The negatives are look-alikes the widened patterns must
leave alone (the INFO form of a topology note, a garbled proxy message, a library status that is
the job's call, a warning that only names cuDNN).
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame
from domain.golden import CATALOG, assert_matches, hits

# (source, line, signal, captures, blame)
GOLDEN: list[tuple[str, str, str, dict[str, str], Blame]] = [
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
