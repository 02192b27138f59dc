"""Real-line mining of the non-NVIDIA accelerator stacks (session 23, m2accel): AWS Neuron,
Intel Gaudi, TPU/XLA (torch_xla's XRT runtime), ROCm's MIOpen and Huawei Ascend's HCCL. Each
golden line was posted in a public thread (named above it) and was not read, or not read with
its emitter's meaning, before this sweep; the look-alikes keep each entry to its emitter's
format."""

from __future__ import annotations

from autorecover.domain.records import Blame

from .golden import Golden, golden_line_checks

# The entries this sweep added or widened, with the blame each decides.
BLAME: dict[str, Blame] = {
    "neuron.exec_error": Blame.HARDWARE,
    "neuron.invalid_usage": Blame.APPLICATION,
    "neuron.cores_unavailable": Blame.HARDWARE,
    "neuron.nrt_failure": Blame.SYMPTOM,
    "habana.graph_compile_failed": Blame.APPLICATION,
    "habana.launch_thread_exception": Blame.SYMPTOM,
    "xla.xrt_session_lost": Blame.SYMPTOM,
    "hip.miopen_kernel_build_failed": Blame.APPLICATION,
    "hip.device_unavailable": Blame.HARDWARE,
    "ascend.hccl_transport_init_failed": Blame.SYMPTOM,
    "ascend.stream_sync_timeout": Blame.SYMPTOM,
    "neuron.compile_failed": Blame.APPLICATION,
    "oneccl.no_ofi_provider": Blame.APPLICATION,
    "ascend.heartbeat_lost": Blame.HARDWARE,
    "xla.mesh_master_unreachable": Blame.SYMPTOM,
    "neuroncoll.exec_timeout": Blame.SYMPTOM,
    "xpu.oom": Blame.APPLICATION,
    "tenstorrent.mesh_links_missing": Blame.HARDWARE,
    "ascend.npu_oom": Blame.APPLICATION,
    "neuron.rtd_init_failed": Blame.SYMPTOM,
}

GOLDEN: Golden = [
    # aws-neuron/aws-neuron-sdk#351 (neuron-rtd's NMGR line beside TensorFlow's nrt_execute)
    (
        "2021-Nov-01 06:02:18.0992 13660:14125 ERROR  NMGR:dlr_infer                             "
        "  Inference completed with err: 1004",
        "neuron.exec_error",
        {"nmgr": "1004"},
    ),
    # aws-neuron/aws-neuron-sdk#429 (TensorFlow-Neuron 1.x, nrtd's gRPC reply)
    (
        "2022-05-26 01:44:11.574098: E tensorflow/neuron/runtime/model.cc:706] shard error code "
        '13, error message nrt::infer_wait failed with grpc status code 0, error message ""; nrt '
        'status code 1004, details "[NMGR:exec_wait] Inference completed with err: 1004',
        "neuron.exec_error",
        {"rtd": "1004"},
    ),
    ("[NRTD:infer_wait] error: 1004", "neuron.exec_error", {"nrtd": "1004"}),
    # aws-neuron/aws-neuron-sdk#820 (a NEFF from a newer neuronx-cc than the runtime)
    (
        "ERROR NEFF:neff_parse NEFF version: 2.0, features: 0x100 are not supported. Currently "
        "supporting: 0x80000000000000ff",
        "neuron.invalid_usage",
        {},
    ),
    # aws-neuron/aws-neuron-sdk#493 (neuron-rtd 1.x, NeuronPerf)
    (
        "RuntimeError: NeuronDevice::process_nrtd_response: Context=NRTD_CTX_INITIALIZE NRTD "
        "response code 'NERR_RESOURCE_NC' (9) There were insufficent NCs for the requested",
        "neuron.cores_unavailable",
        {},
    ),
    # aws-neuron/aws-neuron-sdk#779 (multi-node DDP under Ray Train, torch-neuronx's XRT bridge)
    (
        "  (0) INTERNAL: Nrt::Load failed on NeuronCores 0-0(2): nrt_load status=1, error "
        'message="Non specific failure".',
        "neuron.nrt_failure",
        {},
    ),
    # HabanaAI/vllm-fork#484 (the Synapse API's line under the bridge's "Graph compile failed")
    (
        "[19:08:34.165033][SYN_API       ][error][tid:44F8A] synGraphCompile: SYN_API_CALL failed "
        "status: 26[synFail]. graphHandle 0x557b3b2885e0",
        "habana.graph_compile_failed",
        {"api_status": "26"},
    ),
    # huggingface/optimum-habana#1426 (bloomz-7b1 on Gaudi2D)
    (
        "[rank6]: RuntimeError: [Rank:6] FATAL ERROR :: MODULE:PT_BRIDGE Exception in Launch "
        "thread...",
        "habana.launch_thread_exception",
        {},
    ),
    # pytorch/xla#2661 (XRT on a TPU pod, mid-training)
    (
        "Exception in device=TPU:6: Aborted: Session 9d9f16636571817e is not found.",
        "xla.xrt_session_lost",
        {"session": "9d9f16636571817e"},
    ),
    # pytorch/xla#3024 (Kaggle TPU, "Randomly getting this runtime error in mid-epochs")
    (
        "RuntimeError: tensorflow/compiler/xla/xla_client/xrt_computation_client.cc:421 : Check "
        "failed: session->session()->Run(session_work->feed_inputs, session_work->outputs_handles"
        ", &outputs) == ::tensorflow::Status::OK() (Aborted: Session 018370a5591ff66c is not "
        "found. vs. OK)",
        "xla.xrt_session_lost",
        {"session": "018370a5591ff66c"},
    ),
    # ryujaehun/pytorch-gpu-benchmark#19 (gfx900, comgr rejecting the ISA name)
    (
        "MIOpen Error: /MIOpen/src/hipoc/hipoc_program.cpp:286: Code object build failed. "
        "Source: MIOpenIm2d2Col.cl",
        "hip.miopen_kernel_build_failed",
        {"source": "MIOpenIm2d2Col.cl"},
    ),
    (
        "MIOpen(HIP): Error [BuildOcl] comgr status = INVALID_ARGUMENT (2)",
        "hip.miopen_kernel_build_failed",
        {"tool": "comgr", "status": "INVALID_ARGUMENT"},
    ),
    # ROCm/legacy-rocm-build#6150 (hipRTC without <type_traits>)
    (
        "MIOpen: Error [BuildHip] HIPRTC status = HIPRTC_ERROR_COMPILATION (6), source file: "
        "MIOpenBatchNormFwdTrainSpatial.cpp",
        "hip.miopen_kernel_build_failed",
        {"tool": "HIPRTC", "status": "HIPRTC_ERROR_COMPILATION"},
    ),
    # ROCm/legacy-rocm-build#929 (tensorflow-rocm 2.0's stream_executor)
    (
        "2019-11-05 18:59:08.171466: E tensorflow/stream_executor/rocm/rocm_driver.cc:1032] could "
        "not retrieve ROCM device count: HIP_ERROR_NoDevice",
        "hip.device_unavailable",
        {"error": "HIP_ERROR_NoDevice"},
    ),
    # vllm-project/vllm-ascend#3162 (GRPO with a vLLM server on Ascend)
    (
        "[rank1]: EI0009: [PID: 2225827] 2025-09-24-20:59:48.119.066 Transport init error. Reason: "
        "[Create][DestLink]Create Dest error! createLink para:rank[1]-localUserrank[1]-localIpAddr"
        "[172.16.0.114], dst_rank[0]-remoteUserrank[0]-remote_ip_addr[172.16.0.114]",
        "ascend.hccl_transport_init_failed",
        {},
    ),
]

GOLDEN += [
    # Ascend/pytorch#62 (LlamaFactory on 8 NPUs; rt_error_codes.h 507046 STREAM_SYNC_TIMEOUT)
    (
        "RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:435 NPU function "
        "error: aclrtSynchronizeDevice, error code is 507046",
        "ascend.stream_sync_timeout",
        {"code": "507046"},
    ),
    # vllm-project/vllm-ascend#2800 (CANN's own line for 507048, FFTS_PLUS_TIMEOUT)
    (
        "(VllmWorker TP1 pid=961) ERROR 09-07 01:11:09 [multiproc_executor.py:596] EH9999: [PID: "
        "961] 2025-09-07-01:11:09.333.567 synchronize stream failed, runtime result = 507048[FUNC:"
        "ReportCallError][FILE:log_inner.cpp][LINE:161]",
        "ascend.stream_sync_timeout",
        {"code": "507048"},
    ),
    # aws-neuron/aws-neuron-sdk#601 (torch-neuronx's XLA bridge and its compile-cache wrapper)
    (
        "2022-11-22 19:07:46.362291: W tensorflow/core/framework/op_kernel.cc:1745] OP_REQUIRES "
        "failed at tpu_execute_op.cc:266 : INTERNAL: neuronx-cc compilation failed.",
        "neuron.compile_failed",
        {},
    ),
    (
        "2022-11-22 19:07:46.000353: ERROR ||NCC_WRAPPER||: There was a compilation error for this "
        "graph in the previous run. Returning with the errored graph at /var/tmp/neuron-compile-"
        "cache/USER_neuroncc-2.2.0.73+0af5a171c/MODULE_13878571457055826912/x.neff .",
        "neuron.compile_failed",
        {},
    ),
    # aws-neuron/aws-neuron-sdk#708 (transformers-neuronx, OPT 1.3B)
    ("RuntimeError: neuronx-cc failed with -1", "neuron.compile_failed", {"code": "-1"}),
    # aws-neuron/nki-samples#24 (an NKI kernel)
    (
        "[F134] neuronx-cc terminated abnormally - Please open a support ticket at "
        "https://github.com/aws-neuron/aws-neuron-sdk/issues/new",
        "neuron.compile_failed",
        {},
    ),
    # aws-neuron/aws-neuron-sdk#134 (neuron-cc 1.x, BERT on inf1)
    (
        "07/23/2020 05:33:45 AM ERROR [neuron-cc]:  An Internal Compiler Error has occurred",
        "neuron.compile_failed",
        {},
    ),
    # aws-neuron/aws-neuron-sdk#1305 (trn2, an NKI collective)
    (
        "[INTERNAL_ERROR] [NCC_ILLC059] Could not find MemoryLocation named inst____mp_main__."
        "<kernel_name>-0:<buffer_name>.N on core 1",
        "neuron.compile_failed",
        {"ncc": "NCC_ILLC059"},
    ),
]

GOLDEN += [
    # intel/intel-extension-for-pytorch#810 (oneCCL on PVC, psm3 over mlx5)
    (
        "2025:05:23-19:04:20:(168955) |CCL_ERROR| atl_ofi.cpp:237 init: can't find suitable "
        "provider",
        "oneccl.no_ofi_provider",
        {},
    ),
    (
        "2025:05:23-19:04:20:(168955) |CCL_ERROR| atl_ofi_helper.cpp:1635 atl_ofi_open_nw_provs: "
        "can not open network providers",
        "oneccl.no_ofi_provider",
        {},
    ),
]

GOLDEN += [
    # aws-neuron/aws-neuron-sdk#1065 (Runtime 2.22's logical-core wording)
    (
        "2024-Dec-11 17:43:58.780308 45075:45075 ERROR   NRT:nrt_allocate_neuron_cores           "
        "    Virtual Neuron Core(s) not available - Requested:2 Available:0 Virtual Core size 1",
        "neuron.cores_unavailable",
        {},
    ),
    # huggingface/optimum-neuron#619 (a TP degree the collectives cannot place)
    (
        "2024-Jun-01 13:16:27.706192   273:485   ERROR   NRT:nrt_load_collectives                "
        "    Unsupported topology. Supported number of Neuron Cores is 1, 2, 8, 16 or a multiple of "
        "32.  For other configurations, such as multiples of 2, consider using inf2 instances",
        "neuron.invalid_usage",
        {},
    ),
]

GOLDEN += [
    # vllm-project/vllm-ascend#8186 (CANN runtime's trace of a device that stopped answering)
    (
        "        Device[1] lost heartbeat.[FUNC:SyncTask][FILE:direct_hwts_engine.cc][LINE:407]",
        "ascend.heartbeat_lost",
        {"rt_device": "1"},
    ),
    (
        "        rtDeviceSynchronizeWithTimeout execution failed, reason=lost heartbeat[FUNC:"
        "FuncErrorReason][FILE:error_message_manage.cc][LINE:65]",
        "ascend.heartbeat_lost",
        {},
    ),
]

GOLDEN += [
    # pytorch/xla#2604 (XRT multi-host mesh, xla_multiprocessing)
    (
        "Failed to connect to client mesh master: d7c1c93dfe8c:56419",
        "xla.mesh_master_unreachable",
        {"address": "d7c1c93dfe8c:56419"},
    ),
    # aws-neuron/aws-neuron-sdk#1028 (torch-neuron 1.x on inf1, NRT_TIMEOUT)
    (
        "RuntimeError: Failed to execute the model status=5 message=Timeout Exceeded",
        "neuroncoll.exec_timeout",
        {"model": "5"},
    ),
]

GOLDEN += [
    # intel/intel-extension-for-pytorch#629 (IPEX's allocator on an A770)
    (
        "RuntimeError: XPU out of memory. Tried to allocate 1.71 GiB (GPU 0; 15.56 GiB total "
        "capacity; 0 bytes already allocated; 0 bytes reserved in total by PyTorch)",
        "xpu.oom",
        {"size": "1.71 GiB"},
    ),
    (
        "RuntimeError: Current platform can NOT allocate memory block with size larger than 4GB! "
        "Tried to allocate 6.85 GiB (GPU  0; 15.56 GiB total capacity; 0 bytes already allocated; "
        "0 bytes reserved in total by PyTorch)",
        "xpu.oom",
        {},
    ),
    # intel/intel-extension-for-tensorflow#46 (ITEX's BFC allocator)
    (
        "E itex/core/devices/bfc_allocator.cc:101] Allocator ran out of memory trying to allocate "
        "10529419660 Bytes (rounded to 10529419776 Bytes)",
        "xpu.oom",
        {"bytes": "10529419660"},
    ),
    # tenstorrent/tt-metal#38026 (the fabric control plane's link count)
    (
        "[SERVER] ERROR 02-17 21:00:42 [engine.py:506] Expected 4 eth links from physical chip 1 "
        "to physical chip 2",
        "tenstorrent.mesh_links_missing",
        {"expected": "4", "from_chip": "1", "to_chip": "2"},
    ),
]

GOLDEN += [
    # PKU-YuanGroup/Helios#62 (CANN's EL0004 under vllm-omni on Ascend)
    (
        "ERROR 04-09 21:56:46 [diffusion_engine.py:82] [PID: 210907] 2026-04-09-21:56:40.384.694 "
        "Memory_Allocation_Failure(EL0004): Failed to allocate memory requested by GE module.",
        "ascend.npu_oom",
        {},
    ),
    # aws-neuron/aws-neuron-sdk#851 (Runtime 2.x's nrt_init)
    (
        "2024-May-21 16:08:34.413221 58102:58102 ERROR   NRT:nrt_init                            "
        "    Failed to initialize devices, error:1",
        "neuron.rtd_init_failed",
        {"nrt_error": "1"},
    ),
]

NEGATIVE: list[tuple[str, str]] = [
    # another NRT status, and status codes that only start with 1
    ("neuron.nrt_failure", 'nrt_execute: status=1004, error message="Execution was completed"'),
    ("neuron.nrt_failure", "RuntimeError: nrt_load_collectives status=10"),
    ("neuron.nrt_failure", "request finished with status=1 (exit code of a shell)"),
    # a different NMGR error code is not 1004's meaning
    ("neuron.exec_error", "ERROR  NMGR:dlr_infer  Inference completed with err: 1002"),
    ("neuron.invalid_usage", "Model architectures ['X'] are not supported for now"),
    ("habana.graph_compile_failed", "synLaunch: SYN_API_CALL failed status: 26[synFail]"),
    ("habana.launch_thread_exception", "MODULE:PT_BRIDGE launch thread started"),
    # a TF session that is simply closed, and other "not found" texts
    ("xla.xrt_session_lost", "Aborted: Session handle is not found: abc"),
    ("xla.xrt_session_lost", "NOT_FOUND: Session abc is not found"),
    ("hip.miopen_kernel_build_failed", "MIOpen(HIP): Warning [BuildHip] HIPRTC status = ok"),
    ("hip.miopen_kernel_build_failed", "Code object build succeeded. Source: naive_conv.cpp"),
    ("ascend.hccl_transport_init_failed", "EI0006: Getting socket times out."),
    # other rt_error_codes.h numbers (507045 a trap overflow, 5070480 no code at all)
    ("ascend.stream_sync_timeout", "NPU function error: aclrtMemcpy, error code is 507045"),
    ("ascend.stream_sync_timeout", "runtime result = 5070480"),
    ("neuron.compile_failed", "Compiler status PASS"),
    ("ascend.npu_oom", "EL0004X: something else"),
    # torch XPU's own OutOfMemoryError stays cuda.oom's alone
    (
        "xpu.oom",
        "torch.OutOfMemoryError: XPU out of memory. Tried to allocate 8.00 GiB. GPU 0 has a total "
        "capacity of 15.11 GiB.",
    ),
    (
        "xla.mesh_master_unreachable",
        "I mesh_service.cc:208] Waiting to connect to client mesh master (300 seconds) 10.0.0.2:8477",
    ),
    ("neuroncoll.exec_timeout", "Failed to execute the model status=4 message=Allocation Failure"),
    ("ascend.heartbeat_lost", "rtGetDevMsg execution failed, reason=driver error:no valid device"),
    ("oneccl.no_ofi_provider", 'return errors.New("can\'t find suitable provider")'),
    # the communicator's exception stays the generic Python reading's
    (
        "oneccl.no_ofi_provider",
        "RuntimeError: oneCCL: atl_ofi_comm.cpp:232 init_transport: EXCEPTION: failed to initialize ATL",
    ),
    ("neuron.compile_failed", "INFO ||NCC_WRAPPER||: Call compiler with cmd: neuronx-cc compile"),
]

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)
