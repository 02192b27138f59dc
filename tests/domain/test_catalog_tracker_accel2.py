"""Golden lines from sweep 7b over the non-NVIDIA accelerators (signatures-accel2.toml): the
AWS Neuron runtime daemon's and device layer's bring-up and teardown, the neuron driver's DMA
queue check, the habanalabs driver's bring-up, Habana's collective library and graph compiler,
oneCCL and the Level Zero loader, libtpu's HAL registration and TensorFlow's TPU client lines.

Each line is a real one from the public thread cited beside it and goes through the scanner's
own matcher. Blame is pinned to what the emitter means: a device that does not answer its
firmware weakly the node's, bring-up and teardown restatements symptoms below the collective
weight, a model's DMA queue sizes and a graph compile failure the job's. Look-alikes (healthy
lines of the same emitters) must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from autorecover.domain.shape import COLLECTIVE, STRONG
from domain.golden import (
    CATALOG,
    golden_line_checks,
)

BLAME: dict[str, Blame] = {
    "neuron.dma_queue_limit": Blame.APPLICATION,
    "neuron.rtd_init_failed": Blame.SYMPTOM,
    "neuron.hal_timeout": Blame.HARDWARE,
    "neuron.device_reset": Blame.INFO,
    "neuron.teardown_after_failed_init": Blame.SYMPTOM,
    "habana.hw_init_failed": Blame.HARDWARE,
    "habana.hcl_invalid_server_type": Blame.APPLICATION,
    "habana.graph_compile_failed": Blame.APPLICATION,
    "oneccl.error": Blame.SYMPTOM,
    "levelzero.unknown_result": Blame.SYMPTOM,
    "tpu.hal_register_failed": Blame.SYMPTOM,
    "tpu.master_unreachable": Blame.SYMPTOM,
    "tpu.estimator_error_recorded": Blame.SYMPTOM,
    "tpu.bad_hardware_status": Blame.HARDWARE,
    "neuroncoll.ofi_init_failed": Blame.APPLICATION,
    "neuroncoll.bootstrap_timeout": Blame.SYMPTOM,
    "neuroncoll.bootstrap_failed": Blame.SYMPTOM,
    "neuroncoll.accept_fd_limit": Blame.APPLICATION,
    "tpu.worker_addresses_mismatch": Blame.APPLICATION,
    "tpu.topology_failed": Blame.SYMPTOM,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # aws-neuron/aws-neuron-sdk issue #776 (a single-shard transformer that compiled but did not load)
    (
        "2023-Oct-27 18:06:28.741246 322894:322895 ERROR  TDRV:dma_queue_init_batch_execute      "
        "      failed to init dma queue batch. One or more of the queues may have exceeded queue "
        "descriptor limits; check syslog for udma_q_init_validate failures",
        "neuron.dma_queue_limit",
        {},
    ),
    (
        "2023-Oct-27 18:06:28.741264 322894:322895 ERROR  TDRV:init_dma                          "
        "      failed to init dma queue batch. One or more of the queues may have exceeded queue "
        "descriptor limits; check syslog for udma_q_init_validate failures",
        "neuron.dma_queue_limit",
        {},
    ),
    # aws-neuron/aws-neuron-sdk issue #980 (Llama-3-70B in 8-bit on inf2.24xlarge; the syslog side)
    (
        "[ 1743.088462] neuron:udma_q_init_validate: queue8 size(16777216) too large",
        "neuron.dma_queue_limit",
        {"queue": "queue8", "size": "16777216"},
    ),
    # aws-neuron/aws-neuron-sdk issue #89 (neuron-rtd in a container without the device)
    (
        "nrtd[1]: [NRTD:InitTongas] Failed to initialize devices, error:1",
        "neuron.rtd_init_failed",
        {"error": "1"},
    ),
    (
        "nrtd[1]: [NRTD:nrtd_main] Failed to initialize devices: , attempt: 1",
        "neuron.rtd_init_failed",
        {},
    ),
    (
        "nrtd[1]: [TDRV:tdrv_destroy_one_mla] close device failed",
        "neuron.teardown_after_failed_init",
        {},
    ),
    ("nrtd[1]: [TDRV:tdrv_destroy] TDRV not initialized", "neuron.teardown_after_failed_init", {}),
    # aws-neuron/aws-neuron-sdk issue #192 and cortexlabs/cortex issue #1491 (older runtime-base)
    ("nrtd[1]: [NMGR:kmgr_init_mlas] No devices specified", "neuron.rtd_init_failed", {}),
    (
        "nrtd[1]: [NRTD:InitTongas] Failed to initialize devices, error:2",
        "neuron.rtd_init_failed",
        {"error": "2"},
    ),
    # aws-neuron/aws-neuron-sdk issue #61 (neuron-rtd.service on inf1.24xlarge)
    (
        "Jan 08 21:53:19 ip-10-0-0-31 nrtd[4154]: **[hal] request seq: 2, cmd: 1 timed out**",
        "neuron.hal_timeout",
        {"seq": "2", "cmd": "1"},
    ),
    (
        "Jan 08 21:53:19 ip-10-0-0-31 nrtd[4154]: [TDRV:reset_mla] Resetting 0000:00:10.0",
        "neuron.device_reset",
        {"pci": "0000:00:10.0"},
    ),
    # aws-neuron/aws-neuron-sdk issue #851 (optimum-neuron T5 after "Could not open the nd3")
    (
        "2024-May-21 16:08:34.208521 58098:58098 ERROR  TDRV:notification_destroy              "
        "      Notifications not initialized! ",
        "neuron.teardown_after_failed_init",
        {},
    ),
    # HabanaAI/Setup_and_Install issue #1 (four Gaudis of eight failing their CPU-CP handshake)
    (
        "[   72.993088] habanalabs hl2: failed to initialize CPU H/W queues -5",
        "habana.hw_init_failed",
        {"device": "hl2", "rc": "-5"},
    ),
    (
        "[   73.023238] habanalabs hl6: failed to initialize the H/W",
        "habana.hw_init_failed",
        {"device": "hl6"},
    ),
    # HabanaAI/hccl_demo issue #44 (HCCL on an AWS Gaudi server type the build did not support)
    (
        "/qigeng/HCL/hcl/src/platform/gaudi_common/hcl_device_control_factory.cpp::71(initDevice): "
        "The condition [ false ] failed. Invalid server type (4[OCP1]) requested to generate "
        "controller.",
        "habana.hcl_invalid_server_type",
        {"server": "4[OCP1]"},
    ),
    # HabanaAI/vllm-fork issue #484 (8x Gaudi2)
    (
        "[rank0]: RuntimeError: Graph compile failed. synStatus=synStatus 26 [Generic failure]",
        "habana.graph_compile_failed",
        {"status": "26", "text": "Generic failure"},
    ),
    # uxlfoundation/oneCCL issue #138 (a SYCL stream that was not on the Level Zero backend)
    (
        "2024:09:19-17:34:09:(3079839) |CCL_ERROR| stream.cpp:150 get_ze_context: condition "
        "backend == ccl::utils::get_level_zero_backend() failed",
        "oneccl.error",
        {"where": "stream.cpp:150", "func": "get_ze_context"},
    ),
    # oneapi-src/level-zero issue #93 (the loader built without a GPU driver behind it)
    (
        "  what():  Unknown ze_result_t value: 1879179264",
        "levelzero.unknown_result",
        {"value": "1879179264"},
    ),
    # huggingface/diffusers issue #2745 (Flax on a TPU VM; a stale /tmp/libtpu_lockfile)
    (
        "F0317 02:46:21.118406 358837 tpu_hal_vxc_hardware_impl_registration.cc:10] Check failed: "
        "tpu::TpuHalFactory::Register( tpu::TpuVersion::kVxc, /*priority=*/0, "
        "std::make_unique<tpu::vxc::VxcHardwareImplFactory>())",
        "tpu.hal_register_failed",
        {},
    ),
    # google-research/text-to-text-transfer-transformer issue #38 (the TPU never reachable)
    (
        "W0108 00:47:24.462080 4582849984 tpu_system_metadata.py:97] Failed to connect to the "
        "Tensorflow master. The TPU worker may not be ready (still scheduling) or the Tensorflow "
        "master address is incorrect: got (grpc://10.240.1.2:8470).",
        "tpu.master_unreachable",
        {"master": "grpc://10.240.1.2:8470"},
    ),
    (
        "WARNING:tensorflow:Failed to connect to the Tensorflow master. The TPU worker may not be "
        "ready (still scheduling) or the Tensorflow master address is incorrect: got "
        "(grpc://10.240.1.2:8470).",
        "tpu.master_unreachable",
        {"master": "grpc://10.240.1.2:8470"},
    ),
    # tensorflow/tpu issue #785 ("Core halted unexpectedly:" on the next line)
    (
        "ERROR:tensorflow:Error recorded from training_loop: From /job:worker/replica:0/task:0:",
        "tpu.estimator_error_recorded",
        {"thread": "training_loop"},
    ),
]

GOLDEN += [
    # zihangdai/xlnet issue #90 (SQuAD fine-tuning on a TPU)
    (
        "I0629 20:17:54.098071 140019624834816 error_handling.py:70] Error recorded from outfeed: "
        "Bad hardware status: 0x1",
        "tpu.bad_hardware_status",
        {"status": "0x1"},
    ),
    (
        "I0629 20:17:54.098071 140019624834816 error_handling.py:70] Error recorded from outfeed: "
        "Bad hardware status: 0x1",
        "tpu.estimator_error_recorded",
        {"thread": "outfeed"},
    ),
    # aws-neuron/aws-neuron-sdk issue #851 (optimum-neuron T5 on a trn1 without EFA for the job)
    (
        "2024-May-21 16:14:20.0020 58091:58701 [0] init.cc:137 CCOM WARN OFI plugin initNet() "
        "failed is EFA enabled?",
        "neuroncoll.ofi_init_failed",
        {},
    ),
    (
        "2024-May-21 16:16:20.0121 58091:58701 [0] include/socket.h:541 CCOM WARN Timeout waiting "
        "for RX (waited 120 sec) - retrying, [bootstrapInit, rank: 0/8/-1]",
        "neuroncoll.bootstrap_timeout",
        {"what": "RX", "waited": "120"},
    ),
    (
        "2024-May-21 16:16:20.0229 58091:59050 [-1] bootstrap.cc:95 CCOM WARN Timeout waiting for "
        "incoming connection (waited 120 sec), [CommInitRankDev/-4]",
        "neuroncoll.bootstrap_timeout",
        {"what": "incoming connection", "waited": "120"},
    ),
    # aws-neuron/aws-neuron-sdk issue #713 (--nproc_per_node=32)
    (
        "2023-Aug-01 16:12:43.0204 332066:332438 [21] bootstrap.cc:106 CCOM WARN Call to accept "
        "failed : Too many open files",
        "neuroncoll.accept_fd_limit",
        {},
    ),
    (
        " 332066:332438 ERROR   ENC:ncclBootstrapRecv                       [nec_dev 20] "
        "bootstrapSend failed",
        "neuroncoll.bootstrap_failed",
        {},
    ),
    ("failed neuronBootstrapRecv request to NCCL", "neuroncoll.bootstrap_failed", {}),
    # huggingface/transformers issue #28204 and Lightning-AI/pytorch-lightning issue #20244
    (
        "RuntimeError: Bad StatusOr access: UNKNOWN: TPU initialization failed: Invalid "
        "--2a886c8_slice_builder_worker_addresses specified. Expected 4 worker addresses, got 1.",
        "tpu.worker_addresses_mismatch",
        {"expected": "4", "got": "1"},
    ),
    # marin-community/marin issue #3737 (a v4-8 job before any model code)
    (
        "RuntimeError: Unable to initialize backend 'tpu': INTERNAL: Failed to get global TPU "
        "topology.",
        "tpu.topology_failed",
        {},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # a healthy neuron-rtd start and the runtime's debug bring-up (aws-neuron-sdk #89, #1018)
    ("neuron.rtd_init_failed", "nrtd[1]: [NRTD:nrtd_main] nrtd build using:1.1.1402.0"),
    (
        "neuron.teardown_after_failed_init",
        "2024-Oct-21 20:16:04.967241  7838:7838  DEBUG  TDRV:tdrv_init                          "
        "     core visibility:",
    ),
    # the benign close at the end of a compilation (aws-neuron-sdk #1078)
    (
        "neuron.teardown_after_failed_init",
        "2025-Jan-03 21:00:33.247541 13423:13423 ERROR   NRT:nrt_close                         "
        "      Unexpected runtime state: NRT_STATE_START",
    ),
    ("neuron.hal_timeout", "[hal] request seq: 2, cmd: 1 completed"),
    ("neuron.dma_queue_limit", "neuron:udma_q_init_validate: queue8 size(4096) ok"),
    # the habanalabs driver's healthy bring-up (HabanaAI/Setup_and_Install #1, vllm-fork #2222)
    (
        "habana.hw_init_failed",
        "[   43.051361] habanalabs hl1: Successfully loaded firmware to device",
    ),
    (
        "habana.hw_init_failed",
        "[    1.234567] habanalabs 0000:29:00.0: Habana Labs Gaudi2E device detected",
    ),
    ("habana.graph_compile_failed", "Graph compile finished successfully"),
    # oneCCL's warnings are not errors (uxlfoundation/oneCCL #138)
    (
        "oneccl.error",
        "2024:09:19-17:34:09:(3079839) |CCL_WARN| MPI was initialized externally, CCL-MPI "
        "specific environment is ignored",
    ),
    ("levelzero.unknown_result", "ze_result_t value: ZE_RESULT_SUCCESS"),
    # tpu-info with no framework running (AI-Hypercomputer/cloud-accelerator-diagnostics #6)
    (
        "tpu.hal_register_failed",
        "Libtpu metrics unavailable. Is there a framework using the TPU? See "
        "https://github.com/google/cloud-accelerator-diagnostics/tree/main/tpu_info for more "
        "information",
    ),
    # the client's retry and query lines around the failure (t5 #38)
    (
        "tpu.master_unreachable",
        "I0108 00:47:24.462409 4582849984 tpu_system_metadata.py:78] Querying Tensorflow master "
        "(grpc://10.240.1.2:8470) for TPU system metadata.",
    ),
    ("tpu.estimator_error_recorded", "INFO:tensorflow:training_loop marked as finished"),
    ("tpu.bad_hardware_status", "TPU hardware status: OK"),
    ("tpu.topology_failed", "Got global TPU topology: 2x2x1"),
    (
        "tpu.worker_addresses_mismatch",
        "--2a886c8_slice_builder_worker_addresses=10.130.0.91,10.130.0.92",
    ),
    # the collectives' healthy start and their plugin found (aws-neuron-sdk #1018, #851)
    (
        "neuroncoll.ofi_init_failed",
        "2024-Oct-21 20:16:04.967106  7838:7838   INFO   ENC:check_version                    "
        "       Using CCOM 2.22.26.0-",
    ),
    ("neuroncoll.bootstrap_timeout", "CCOM WARN Timeout set to 120 sec for bootstrap"),
    ("neuroncoll.accept_fd_limit", "CCOM WARN Call to accept failed : Connection reset by peer"),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_restatements_stay_below_the_collective_weight() -> None:
    """Bring-up and teardown restatements on one node are not collective complaints."""
    for key, sig in CATALOG.signatures.items():
        if key in BLAME and sig.blame is Blame.SYMPTOM and key != "neuroncoll.bootstrap_timeout":
            assert sig.weight < COLLECTIVE, key
            assert sig.node_action.value == "none", key


def test_no_device_line_here_names_a_node_alone() -> None:
    """A firmware timeout or a failed bring-up also follows a wrong install: inspect, never decide."""
    for key in ("neuron.hal_timeout", "habana.hw_init_failed", "tpu.bad_hardware_status"):
        sig = CATALOG.signatures[key]
        assert 0 < sig.weight < STRONG, key
        assert sig.node_action.value == "inspect", key


def test_a_bootstrap_timeout_is_a_collective_complaint() -> None:
    """A rank still waiting for its peers speaks about them, like NCCL's bootstrap timeouts."""
    sig = CATALOG.signatures["neuroncoll.bootstrap_timeout"]
    assert sig.weight >= COLLECTIVE
    assert sig.node_action.value == "none"
