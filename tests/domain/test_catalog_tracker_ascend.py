"""Golden lines for Huawei Ascend NPUs (signatures-ascend.toml): the CANN runtime's error codes
and device error reports, torch_npu's "NPU function error" and fault-tolerance texts, HCCL's
notify-wait, socket and fftsplus timeouts, the Ascend kernel driver's heartbeat check, npu-smi's
health and MindSpore's cluster meta server.

Each line is a real one from the public thread cited beside it (or, where no public line exists,
rendered from the emitter's format string and marked so) and goes through the scanner's own
matcher. Blame follows CANN's own list of codes: HBM multi-bit ECC and memory UCE are the
device's, a lost heartbeat and an HCCS link error name the node at 60, a suspect memory error
and an npu-smi alarm are weak hardware; aicore / SDMA exceptions and "NPU function error" with
other codes follow operator bugs as often and stay symptoms; HCCL's timeouts are collective
complaints; NPU out-of-memory is the job's. Look-alikes (healthy lines of the same emitters)
must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from autorecover.domain.shape import COLLECTIVE, STRONG
from domain.golden import (
    CATALOG,
    family_contract,
    golden_line_checks,
)

BLAME: dict[str, Blame] = {
    "ascend.hbm_ecc_error": Blame.HARDWARE,
    "ascend.device_mem_uce": Blame.HARDWARE,
    "ascend.suspect_mem_error": Blame.HARDWARE,
    "ascend.link_error": Blame.HARDWARE,
    "ascend.heartbeat_lost": Blame.HARDWARE,
    "ascend.npusmi_health_alarm": Blame.HARDWARE,
    "ascend.suspect_remote_error": Blame.SYMPTOM,
    "ascend.hccl_op_retry_failed": Blame.SYMPTOM,
    "ascend.force_stop": Blame.SYMPTOM,
    "ascend.device_error_report": Blame.SYMPTOM,
    "ascend.core_exception": Blame.SYMPTOM,
    "ascend.npu_function_error": Blame.SYMPTOM,
    "ascend.acl_stream_sync_failed": Blame.SYMPTOM,
    "ascend.stream_sync_timeout": Blame.SYMPTOM,
    "ascend.inner_error": Blame.SYMPTOM,
    "ascend.pta_error_code": Blame.SYMPTOM,
    "ascend.hccl_notify_wait_timeout": Blame.SYMPTOM,
    "ascend.hccl_socket_timeout": Blame.SYMPTOM,
    "ascend.hccl_fftsplus_timeout": Blame.SYMPTOM,
    "ascend.hccl_function_error": Blame.SYMPTOM,
    "ascend.hccp_init_failed": Blame.SYMPTOM,
    "ascend.hccl_listen_failed": Blame.SYMPTOM,
    "ascend.hccl_async_teardown": Blame.SYMPTOM,
    "ascend.npu_oom": Blame.APPLICATION,
    "ascend.hccl_config_invalid": Blame.APPLICATION,
    "ascend.visible_device_invalid": Blame.APPLICATION,
    "mindspore.node_timed_out": Blame.SYMPTOM,
    "ascend.cpu_fallback": Blame.INFO,
    # session 23 (m2accel) real-line mining; tests/domain/test_catalog_mined_m2accel.py
    "ascend.hccl_transport_init_failed": Blame.SYMPTOM,
}

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({"signatures-ascend.toml": frozenset({"ascend", "mindspore"})}, BLAME)

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # vllm-project/vllm-ascend issue #167 (a Ray worker's traceback, vLLM's logger in front)
    (
        "(RayWorkerWrapper pid=118835) ERROR 02-26 01:45:37 worker_base.py:572]         The "
        "argument is invalid.Reason: Set visible device failed, invalid device=1, input visible "
        "devices:1",
        "ascend.visible_device_invalid",
        {"device": "1", "visible": "1"},
    ),
    # rendered from torch_npu NPUException.h / NPUException.cpp (handleHbmMultiBitEccError,
    # record_mem_hbm_ecc_error); no public line found
    (
        "RuntimeError: synchronize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:361 NPU "
        "function error: HBM MULTI BIT ECC ERROR.time is 1733212345, error code is 507054",
        "ascend.hbm_ecc_error",
        {},
    ),
    (
        "[ERROR] PYTORCH(12345,python):2025-01-01-00:00:00.000.000 [NPUException.cpp:300] Log HBM "
        "MULTI BIT ECC ERROR, set is_hbm_ecc_error param is true, device is 3, retSize is 1.",
        "ascend.hbm_ecc_error",
        {},
    ),
    (
        "RuntimeError: ACL stream synchronize failed, error code:507054",
        "ascend.hbm_ecc_error",
        {"code": "507054"},
    ),
    # rendered from torch_npu NPUException.cpp (handleDeviceMemError, checkUceErrAndRepair)
    (
        "RuntimeError: synchronize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:361 NPU "
        "function error: UCE ERROR, error code is 507053",
        "ascend.device_mem_uce",
        {},
    ),
    (
        "[ERROR] PYTORCH(12345,python):2025-01-01-00:00:00.000.000 [NPUException.cpp:329] "
        "AclrtGetMemUceInfo get UCE ERROR, retSize is 2",
        "ascend.device_mem_uce",
        {},
    ),
    # rendered from torch_npu NPUException.cpp (handleSuspectDeviceMemError, handleLinkError,
    # handleSuspectRemoteError, handleHcclOpRetryFailed) and NPUException.h (FORCE STOP)
    (
        "RuntimeError: synchronize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:361 NPU "
        "function error: SUSPECT MEM ERROR, error code is 507055",
        "ascend.suspect_mem_error",
        {},
    ),
    (
        "RuntimeError: synchronize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:361 NPU "
        "function error: HCCS LINK ERROR, error code is 507056",
        "ascend.link_error",
        {"link": "HCCS"},
    ),
    (
        "RuntimeError: synchronize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:361 NPU "
        "function error: UB LINK ERROR, error code is 507056",
        "ascend.link_error",
        {"link": "UB"},
    ),
    (
        "RuntimeError: synchronize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:361 NPU "
        "function error: SUSPECT REMOTE ERROR, error code is 507057",
        "ascend.suspect_remote_error",
        {},
    ),
    (
        "RuntimeError: synchronize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:361 NPU "
        "function error: HCCL OP RETRY FAILED, error code is 507904",
        "ascend.hccl_op_retry_failed",
        {},
    ),
    (
        "RuntimeError: synchronize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:361 NPU "
        "function error: FORCE STOP, error code is 107022",
        "ascend.force_stop",
        {},
    ),
    # Ascend/mind-cluster ascend-faultdiag test fixture messages_0x40F84E00 (the vendor's sample
    # of the driver's drv_soft_fault line)
    (
        "Aug  1 08:38:31 localhost kernel: [ 1197.584409] [ascend] [ERROR] [drv_soft_fault] "
        "[heart_beat_judge 318] <kworker/5:1H:39365> Heartbeat lost! (device=1; old_count=1104; "
        "new_count=1104; lost_count=4; total_lost_count=4; total_10s_count=0; total_15s_count 0).",
        "ascend.heartbeat_lost",
        {"device": "1"},
    ),
    # rendered from torch_npu NPUErrorCodes.h (507010's text, printed as "[Error]: ...")
    ("[Error]: The task scheduler loses the heartbeat. ", "ascend.heartbeat_lost", {}),
    # Ascend/mind-cluster ascend-faultdiag test fixture npu_info_after.txt (npu-smi -t health)
    ("\tHealth Status                  : Alarm", "ascend.npusmi_health_alarm", {"health": "Alarm"}),
    # rendered from npu-smi info's table (vllm-project/vllm-ascend issue #2800's row, health
    # column set to Critical)
    (
        "| 3     910B3               | Critical      | 90.3        33                0    / 0  "
        "           |",
        "ascend.npusmi_health_alarm",
        {"row": "Critical"},
    ),
    # hw-native-sys/PTOAS pull request #372 (a custom vector kernel out of bounds)
    (
        "EZ9999[PID: 2332238] 2026-03-27-12:01:39.356.592 (EZ9999):  The error from "
        "device(chipId:1, dieId:0), serial number is 466, there is an exception of aivec error, "
        "core id is 14, error code = 0x4000000000000000, dump info: pc start: 0x124400000000, "
        "current: 0x1244000000c0, vec error info: 0xde24.[FUNC:PrintCoreInfo]"
        "[FILE:device_error_core_proc.cc][LINE:389]",
        "ascend.device_error_report",
        {"chip": "1", "die": "0", "kind": "aivec error"},
    ),
    (
        "       Kernel task happen error, retCode=0x31, [vector core exception].[FUNC:PreCheckTaskErr]"
        "[FILE:davinci_kernel_task.cc][LINE:1497]",
        "ascend.core_exception",
        {"ret": "0x31", "kind": "vector core exception"},
    ),
    ("[ERROR] RecentErrMsg: EZ9999: Inner Error!", "ascend.inner_error", {"code": "EZ9999"}),
    # vllm-project/vllm-ascend issue #116 (sdma error; cleared by an allocator setting)
    (
        "[rank0]:         The error from device(chipId:0, dieId:0), serial number is 9. there is "
        "a sdma error, sdma channel is 2, sdmaBlkFsmState=0x7, dfxSdmaBlkFsmOstCnt=0x0, "
        "sdmaChFree=0x0, irqStatus=0x220000, cqeStatus=0x3 [FUNC:ProcessStarsSdmaErrorInfo]"
        "[FILE:device_error_proc.cc][LINE:1521]",
        "ascend.device_error_report",
        {"chip": "0", "kind": "sdma error"},
    ),
    (
        "RuntimeError: copy_d2d:torch_npu/csrc/aten/common/CopyKernel.cpp:274 NPU function error: "
        "c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream), error code is 507001",
        "ascend.npu_function_error",
        {"call": "c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream)", "code": "507001"},
    ),
    ("EH9999: Inner Error!", "ascend.inner_error", {"code": "EH9999"}),
    # Ascend/pytorch issue #66 (507035 on a generate() call)
    (
        "[Error]: The vector core execution is abnormal. ",
        "ascend.core_exception",
        {"core": "vector core"},
    ),
    # Ascend/pytorch issue #62 (LLaMA-Factory, 507046)
    (
        "RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:435 NPU function "
        "error: aclrtSynchronizeDevice, error code is 507046",
        "ascend.npu_function_error",
        {"call": "aclrtSynchronizeDevice", "code": "507046"},
    ),
    # opendatalab/MinerU issue #4075 (an op without a binary on 300I Duo)
    (
        "[E1126 11:11:13.391625150 compiler_depend.ts:444] operator():build/CMakeFiles/"
        "torch_npu.dir/compiler_depend.ts:3383 NPU function error: call aclnnStack failed, error "
        "code is 561000",
        "ascend.npu_function_error",
        {"call": "call aclnnStack failed", "code": "561000"},
    ),
    # vllm-project/vllm-ascend issue #486 (GRPO with co-located vLLM)
    (
        "[rank1]: RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:281 OPS "
        "function error: HcclAllreduce, error code is 6",
        "ascend.npu_function_error",
        {"call": "HcclAllreduce", "code": "6"},
    ),
    (
        "[rank1]: EI0006: [PID: 1292363] 2025-04-08-18:07:20.444.436 Getting socket times out. "
        "Reason: Remote Rank did not send the data in time. Please check the reason for the rank "
        "being stuck",
        "ascend.hccl_socket_timeout",
        {},
    ),
    # vllm-project/vllm-ascend issue #1193 (DeepSeek TP8/PP2)
    (
        "(RayWorkerWrapper pid=11394, ip=10.0.1.4) ERROR 06-12 09:47:56 [worker_base.py:620] "
        "RuntimeError: ACL stream synchronize failed, error code:507048",
        "ascend.acl_stream_sync_failed",
        {"code": "507048"},
    ),
    # Ascend/pytorch issue #54 (lmdeploy on 910B2; the HCCL exec timeout)
    ("RuntimeError: ACL stream synchronize failed.", "ascend.acl_stream_sync_failed", {}),
    (
        "EI9999: 2024-10-21-10:42:00.358.410  The error from device(chipId:3, dieId:0), serial "
        "number is 9, hccl fftsplus task timeout occurred during task execution, stream_id:5, "
        "sq_id:5, task_id:38827, stuck notify num:1, timeout:30min(default)."
        "[FUNC:ProcessStarsHcclFftsPlusTimeoutErrorInfo][FILE:device_error_proc.cc][LINE:1435]",
        "ascend.hccl_fftsplus_timeout",
        {},
    ),
    (
        "EI9999: 2024-10-21-10:42:00.358.410  The error from device(chipId:3, dieId:0), serial "
        "number is 9, hccl fftsplus task timeout occurred during task execution, stream_id:5, "
        "sq_id:5, task_id:38827, stuck notify num:1, timeout:30min(default)."
        "[FUNC:ProcessStarsHcclFftsPlusTimeoutErrorInfo][FILE:device_error_proc.cc][LINE:1435]",
        "ascend.device_error_report",
        {"chip": "3", "kind": "hccl fftsplus task timeout"},
    ),
    # Ascend/pytorch issue #48 (16-card training, HCCL_EXEC_TIMEOUT raised)
    (
        "EE1002: 2024-09-03-16:50:00.041.231 Stream synchronize timeout. rtDeviceSynchronize "
        "execute failed, reason=[stream sync timeout]",
        "ascend.stream_sync_timeout",
        {},
    ),
    # Ascend/pytorch issue #43 (multi-node training)
    (
        "worker-1:         rtDeviceSynchronize execute failed, reason=[task timeout]"
        "[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]",
        "ascend.stream_sync_timeout",
        {"reason": "task timeout"},
    ),
    # vllm-project/vllm-ascend issue #3413 (Qwen3 235B RL, 32 ranks)
    (
        "[ERROR] 2025-10-11-15:09:34 (PID:2969, Device:0, RankID:101) ERR00100 PTA call acl api "
        "failed.",
        "ascend.pta_error_code",
        {"device": "0", "rank": "101", "code": "ERR00100", "module": "PTA"},
    ),
    (
        "EI0002: [PID: 2969] 2025-10-11-15:09:34.713.335 The wait execution of the Notify register "
        "times out. Reason: The Notify register has not received the Notify record from remote "
        "rank: [24]. base information: [streamID:[109], taskID[38], taskType[Notify Wait], "
        "tag[AllReduce_group_name_1654NHRAllReduceComm_device], AlgType(level 0-1-2):"
        "[ring-NHR-NHR].]. task information: [notify id:[0x0000000000000213], stage:[0], remote "
        "rank:[24]]. group information: [group:[group_name_1654], user define "
        "information[Unspecified], rankSize[32], rankId[25 24]]",
        "ascend.hccl_notify_wait_timeout",
        {"remote": "24"},
    ),
    # InternLM/lmdeploy issue #3354 (a serving benchmark that hung)
    (
        "EI0002: [PID: 198748] 2025-03-26-13:49:01.670.614 The wait execution of the Notify "
        "register times out. Reason: The Notify register has not received the Notify record from "
        "remote rank: [unknown]. base information: [streamID:[293579240], taskID[9865], "
        "tag[Broadcast_172.16.38.219%eth0_60000_0_1742963775856197], AlgType(level 0-1-2):"
        "[fullmesh-H-D-ring].]. task information: []. group information: "
        "[group:[172.16.38.219%eth0_60000_0_1742963775856197], user define information[], "
        "rankSize[8], rankId[6].]",
        "ascend.hccl_notify_wait_timeout",
        {"remote": "unknown"},
    ),
    (
        "        The error from device(chipId:5, dieId:0), serial number is 17, hccl fftsplus task "
        "timeout occurred during task execution, stream_id:7, sq_id:7, task_id:9865, stuck notify "
        "num:3, timeout:1836.[FUNC:ProcessStarsHcclFftsPlusTimeoutErrorInfo]"
        "[FILE:device_error_proc.cc][LINE:1657]",
        "ascend.hccl_fftsplus_timeout",
        {},
    ),
    # vllm-project/vllm-ascend issue #4972 (a hung aicore after an upgrade)
    (
        "[ERROR] 2025-12-12-12:10:10 (PID:324, Device:5, RankID:-1) ERR02005 DIST internal error",
        "ascend.pta_error_code",
        {"device": "5", "rank": "-1", "code": "ERR02005", "module": "DIST"},
    ),
    (
        "  what():  [Rank 5] HCCL watchdog thread terminated with exception:",
        "ascend.hccl_async_teardown",
        {},
    ),
    # vllm-project/vllm-ascend issue #1127 (DeepSeek-R1 W8A8 OOM on 2x8 910B2)
    (
        "[ERROR] 2025-06-09-06:57:54 (PID:92380, Device:0, RankID:-1) ERR99999 UNKNOWN "
        "applicaiton exception",
        "ascend.pta_error_code",
        {"code": "ERR99999", "module": "UNKNOWN"},
    ),
    (
        "(NPURayWorkerWrapper pid=45464) ERROR 06-09 06:57:48 worker_base.py:581] RuntimeError: "
        "NPU out of memory. Tried to allocate 30.00 MiB (NPU 3; 60.96 GiB total capacity; 60.34 "
        "GiB already allocated; 60.34 GiB current active; 14.24 MiB free; 60.60 GiB reserved in "
        "total by PyTorch) If reserved memory is >> allocated memory try setting "
        "max_split_size_mb to avoid fragmentation. [repeated 6x across cluster]",
        "ascend.npu_oom",
        {"size": "30.00 MiB", "device": "3"},
    ),
    # vllm-project/vllm-ascend issue #19 (FAQ)
    (
        "RuntimeError: NPU out of memory. Tried to allocate 22.00 MiB (NPU 0; 60.97 GiB total "
        "capacity; 10.24 GiB already allocated; 10.24 GiB current active; 19.52 MiB free; 10.65 "
        "GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting "
        "max_split_size_mb to avoid fragmentation.",
        "ascend.npu_oom",
        {"size": "22.00 MiB", "device": "0"},
    ),
    # sgl-project/sglang issue #29838 (GLM-5.2 on A3)
    (
        "torch.OutOfMemoryError: NPU out of memory. Tried to allocate 72.00 MiB (NPU 0; 61.27 GiB "
        "total capacity; 56.05 GiB already allocated; 56.05 GiB current active; 5.04 MiB free; "
        "58.39 GiB reserved in total by PyTorch).If reserved memory is >> allocated memory try "
        "setting max_split_size_mb to avoid fragmentation.",
        "ascend.npu_oom",
        {"size": "72.00 MiB"},
    ),
    # flashserve/flash-linear-attention-npu issue #149 (a kernel that corrupted its labels)
    (
        "NPU out of memory. Tried to allocate more than 1EB memory",
        "ascend.npu_oom",
        {"size": "1EB"},
    ),
    # hiyouga/LlamaFactory issue #5071 (PPO on an 800T A2)
    (
        "EI0006: 2024-08-05-18:15:21.270.506 Getting socket times out. Reason: Remote Rank did not "
        "send the data in time. Please check the reason for the rank being stuck",
        "ascend.hccl_socket_timeout",
        {},
    ),
    (
        "[W VariableFallbackKernel.cpp:51] Warning: CAUTION: The operator "
        "'aten::isin.Tensor_Tensor_out' is not currently supported on the NPU backend and will "
        "fall back to run on the CPU. This may have performance implications. (function "
        "npu_cpu_fallback)",
        "ascend.cpu_fallback",
        {"op": "aten::isin.Tensor_Tensor_out"},
    ),
    # vllm-project/vllm-ascend issue #5461 (DeepSeek V3.2 on 2x A2)
    (
        "[PID: 749] 2025-12-29-03:16:15.787.356 Get_Socket_Timeout(EI0006): Getting socket times "
        "out. Reason: 1. The remote does not initiate a connect request. some NPUs in the cluster "
        "are abnormal.",
        "ascend.hccl_socket_timeout",
        {},
    ),
    # vllm-project/vllm-ascend issue #1955 (DeepSeek-R1 with torchair; the port already taken)
    (
        "[ERROR] HCCL(2717288,python3):2025-07-23-03:49:57.177.194 [hccl_socket_manager.cc:778] "
        "[2734049][Wait][LinkEstablish]wait socket establish timeout, role[1] rank[12] "
        "timeout[120]",
        "ascend.hccl_socket_timeout",
        {"rank": "12", "timeout": "120"},
    ),
    (
        "[ERROR] HCCL(2717288,python3):2025-07-23-03:47:57.070.463 [hccl_socket.cc:100] "
        "[2717288][HcclSocket][Listen] socket type[1], listen on ip[192.168.20.160] and specific "
        "port[16666] fail. Please check the port status and whether the port is been using by "
        "other process.",
        "ascend.hccl_listen_failed",
        {"ip": "192.168.20.160", "port": "16666"},
    ),
    # verl-project/verl pull request #332 (FSDP training and vLLM rollout on the same NPUs)
    (
        "(TaskRunner pid=467613) RuntimeError: create_config:build/CMakeFiles/torch_npu.dir/"
        "compiler_depend.ts:102 HCCL function error: hcclCommInitRootInfoConfig(numRanks, "
        "&rootInfo, rank, config, &(comm->hcclComm_)), error code is 7",
        "ascend.hccl_function_error",
        {"call": "hcclCommInitRootInfoConfig", "code": "7"},
    ),
    (
        "(TaskRunner pid=467613) EJ0001: [PID: 468348] 2025-04-24-16:14:56.975.866 Failed to "
        "initialize the HCCP process. Reason: Maybe the last training process is running.",
        "ascend.hccp_init_failed",
        {},
    ),
    # hiyouga/LlamaFactory issue #3839 (barrier on 910B)
    (
        "RuntimeError: [ERROR] HCCL error in: torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:64",
        "ascend.hccl_function_error",
        {"where": "torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:64"},
    ),
    (
        "[ERROR] 2024-05-21-11:57:54 (PID:927000, Device:3, RankID:3) ERR02200 DIST call hccl api "
        "failed.",
        "ascend.pta_error_code",
        {"device": "3", "rank": "3", "code": "ERR02200", "module": "DIST"},
    ),
    (
        "EJ0001: 2024-05-21-11:57:54.167.645 Failed to initialize the HCCP process. Reason: Maybe "
        "the last training process is running.",
        "ascend.hccp_init_failed",
        {},
    ),
    # vllm-project/vllm-ascend issue #672 (DP+EP, fixed in CANN 8.1.rc1)
    (
        "[rank1]: RuntimeError: create_config:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:102"
        " HCCL function error: hcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, "
        "&(comm->hcclComm_)), error code is 15",
        "ascend.hccl_function_error",
        {"code": "15"},
    ),
    ("[rank1]: EE9999: Inner Error!", "ascend.inner_error", {"code": "EE9999"}),
    # vllm-project/vllm-ascend issue #382 (Qwen2.5-VL; an allreduce that never finished)
    (
        "[rank1]:[E324 13:00:25.428092542 compiler_depend.ts:628] Some HCCL operations have failed "
        "or timed out. Due to the asynchronous nature of ASCEND kernels, subsequent NPU operations "
        "might run on corrupted/incomplete data.",
        "ascend.hccl_async_teardown",
        {},
    ),
    # rendered from HCCL's EI0004 / EI0005 message texts (Ascend/mind-cluster fault knowledge base)
    (
        "EI0004: [PID: 1292363] 2025-04-08-18:07:20.444.436 The ranktable or rank is invalid. "
        "Reason: The ip in ranktable is not a valid ip address. Solution: Please check the "
        "configured ranktable.",
        "ascend.hccl_config_invalid",
        {"code": "EI0004"},
    ),
    (
        "EI0005: The arguments for collective communication are inconsistent between ranks: tag "
        "[AllReduce_1], parameter [count], local [1024], remote [2048]",
        "ascend.hccl_config_invalid",
        {"code": "EI0005"},
    ),
    # rendered from mindspore distributed/cluster/topology/meta_server_node.cc
    (
        "[ERROR] DISTRIBUTED(3456,ffff8a7ff0e0,python):2024-05-21-11:57:54.167.645 "
        "[mindspore/ccsrc/distributed/cluster/topology/meta_server_node.cc:590] UpdateTopoState] "
        "The node: 3 is timed out. It may exit with exception, please check this node's log.",
        "mindspore.node_timed_out",
        {"node": "3"},
    ),
    (
        "RuntimeError: The total number of timed out node is 1. Timed out node list is: [3], "
        "worker 3 is the first one timed out, please check its log.",
        "mindspore.node_timed_out",
        {"count": "1"},
    ),
    # session 23 (m2accel): vllm-project/vllm-ascend#3162
    (
        "[rank1]: EI0009: [PID: 2225827] 2025-09-24-20:59:48.119.066 Transport init error. "
        "Reason: [Create][DestLink]Create Dest error! createLink para:rank[1]-localUserrank[1]-"
        "localIpAddr[172.16.0.114], dst_rank[0]-remoteUserrank[0]-remote_ip_addr[172.16.0.114]",
        "ascend.hccl_transport_init_failed",
        {},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # healthy npu-smi output (vllm-project/vllm-ascend issues #12980 and #397)
    (
        "ascend.npusmi_health_alarm",
        "| 0     Ascend910           | OK            | 162.6                34                  "
        "    0    / 0                |",
    ),
    (
        "ascend.npusmi_health_alarm",
        "| NPU   Name                | Health        | Power(W)    Temp(C)           "
        "Hugepages-Usage(page)|",
    ),
    ("ascend.npusmi_health_alarm", "\tHealth Status                  : OK"),
    # torch_npu's own warnings and codes that are not device faults
    (
        "ascend.hbm_ecc_error",
        "[W220 02:16:08.680800943 NPUStream.cpp:487] Warning: NPU warning, error code is 507001"
        "[Error]: ",
    ),
    ("ascend.hbm_ecc_error", "RuntimeError: ACL stream synchronize failed, error code:5070540"),
    ("ascend.device_mem_uce", "AclrtGetMemUceInfo success, retSize is 0"),
    ("ascend.link_error", "[devid 0]    Tue Aug  1 14:43:40 2022    LINK UP"),
    ("ascend.link_error", "link error count: 0"),
    # the driver's routine lines (Ascend/mind-cluster fixture host_kernel.log)
    (
        "ascend.heartbeat_lost",
        "[2025-04-16-03:08:13.704312] [ascend] [drv_pcie] [INFO] [devdrv_init_dev_num 2248] "
        "<systemd-udevd:4853:4853> Findout device. (index=7; device=d105; dev_num=0)",
    ),
    # HCCL's own timeout settings warnings (vllm-project/vllm-ascend issue #1127)
    (
        "ascend.hccl_notify_wait_timeout",
        "[rank7]:[W609 06:57:47.819535026 compiler_depend.ts:877] Warning: The HCCL execution "
        "timeout was set to never timeout, so it is bigger than watchdog timeout 1800000ms which "
        "is set by init_process_group! The plog may not be recorded. You can disable watchdog by "
        "'export HCCL_ASYNC_ERROR_HANDLING=0'. (function ProcessGroupHCCL)",
    ),
    ("ascend.hccl_socket_timeout", "export HCCL_CONNECT_TIMEOUT=900"),
    ("ascend.hccl_fftsplus_timeout", "hccl fftsplus task finished, stream_id:5"),
    # the torch_npu gather note (Ascend/pytorch issue #54)
    (
        "ascend.hccl_function_error",
        "/usr/local/python3.10.5/lib/python3.10/site-packages/torch_npu/distributed/"
        "distributed_c10d.py:93: UserWarning: HCCL doesn't support gather at the moment. "
        "Implemented with allgather instead.",
    ),
    (
        "ascend.npu_oom",
        "INFO 11-22 10:01:28 [worker_v1.py:256] Available memory: 0, total memory: 65452113920",
    ),
    ("ascend.npu_function_error", "NPU function ok: aclrtSynchronizeDevice"),
    ("ascend.pta_error_code", "[INFO] 2025-10-11-15:09:34 (PID:2969, Device:0, RankID:101) ready"),
    ("ascend.inner_error", "EZ9999 inner errors: 0"),
    ("ascend.force_stop", "torch.npu.stop_device() called; restart_device() follows"),
    ("mindspore.node_timed_out", "The node: 3 is registered."),
    ("ascend.hccp_init_failed", "HCCP process initialized"),
    ("ascend.cpu_fallback", "The operator 'aten::add' runs on the NPU backend"),
    ("ascend.hccl_config_invalid", "Loaded ranktable: 16 ranks, server_count 2"),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_device_memory_faults_name_the_node_and_drain_it() -> None:
    """HBM multi-bit ECC and memory UCE are the device's own report: strong, drain and reset."""
    for key in ("ascend.hbm_ecc_error", "ascend.device_mem_uce"):
        sig = CATALOG.signatures[key]
        assert sig.weight >= STRONG, key
        assert sig.node_action.value == "drain_and_reset", key


def test_suspect_and_health_lines_need_corroboration() -> None:
    """A suspected memory error or an npu-smi alarm does not name the node on its own."""
    for key in ("ascend.suspect_mem_error", "ascend.npusmi_health_alarm"):
        sig = CATALOG.signatures[key]
        assert 0 < sig.weight < STRONG, key
        assert sig.node_action.value == "inspect", key


def test_hccl_timeouts_are_collective_complaints_and_restatements_weigh_less() -> None:
    """HCCL's timeouts speak about a peer (like NCCL's); the runtime's restatements decide nothing."""
    for key in (
        "ascend.hccl_notify_wait_timeout",
        "ascend.hccl_socket_timeout",
        "ascend.hccl_fftsplus_timeout",
        "mindspore.node_timed_out",
    ):
        sig = CATALOG.signatures[key]
        assert COLLECTIVE <= sig.weight <= 30, key
        assert sig.node_action.value == "none", key
    for key in (
        "ascend.device_error_report",
        "ascend.core_exception",
        "ascend.npu_function_error",
        "ascend.acl_stream_sync_failed",
        "ascend.inner_error",
        "ascend.pta_error_code",
        "ascend.force_stop",
        "ascend.hccp_init_failed",
    ):
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.SYMPTOM and sig.weight < COLLECTIVE, key


def test_hccl_timeouts_are_collective_waits_like_the_nccl_watchdog() -> None:
    """On one host a cascade of these alone says a rank never arrived or a device hung, as
    NCCL's watchdog does (timeouts.WAITED_OUT); every name there is a catalog key."""
    from autorecover.domain.timeouts import MAIN_PROCESS_TIMEOUTS, WAITED_OUT

    for key in WAITED_OUT | MAIN_PROCESS_TIMEOUTS:
        assert key in CATALOG.signatures, key
    assert "ascend.hccl_notify_wait_timeout" in WAITED_OUT
