"""Real-line mining for the GPU, driver and node-kernel emitters (session 23, mgpu): lines people
posted publicly that the catalog did not read, each pinned to the entry that now reads it, with
look-alikes that must stay unread. The emitters' own sources justify each reading (the comments
above the entries in signatures-amdgpu.toml)."""

from __future__ import annotations

from autorecover.domain.records import Blame, Source

from .golden import CATALOG, Golden, found, golden_line_checks, hits

# The entries this session added or widened, with the blame each decides.
BLAME: dict[str, Blame] = {
    "amdgpu.kfd_preemption_failed": Blame.TRANSIENT,
    "amdgpu.firmware_unresponsive": Blame.HARDWARE,
    "nvrm.init_adapter_failed": Blame.HARDWARE,
}

GOLDEN: Golden = [
    # amdkfd unmap_queues_cpsch / amdkfd_fence_wait_timeout, 6.x dev_err form
    # (ROCm/legacy-rocm-build issue #6313)
    (
        "kvě 25 19:29:57 bc250 kernel: amdgpu 0000:01:00.0: The cp might be in an unrecoverable "
        "state due to an unsuccessful queues preemption",
        "amdgpu.kfd_preemption_failed",
        {"pci": "0000:01:00.0"},
    ),
    (
        "kvě 25 19:29:57 bc250 kernel: amdgpu 0000:01:00.0: qcm fence wait loop timeout expired",
        "amdgpu.kfd_preemption_failed",
        {"pci": "0000:01:00.0"},
    ),
    # the pr_err form of ROCm 1.7-2.3 (ROCm/legacy-rocm-build issues #782 and #407)
    ("[ 4210.220078] qcm fence wait loop timeout expired", "amdgpu.kfd_preemption_failed", {}),
    (
        "[ 4210.220081] The cp might be in an unrecoverable state due to an unsuccessful queues "
        "preemption",
        "amdgpu.kfd_preemption_failed",
        {},
    ),
    # the 2017 amdkfd spelling (a public ROCm report quoting kern.log)
    (
        "kfd: the cp might be in an unrecoverable state due to an unsuccessful queues preemption",
        "amdgpu.kfd_preemption_failed",
        {},
    ),
    # the HIQ doorbell check (ollama/ollama issue #738; ROCm/legacy-rocm-build issue #1744)
    (
        "[75287.322365] amdgpu 0000:03:00.0: amdgpu: HIQ MQD's queue_doorbell_id0 is not 0, Queue "
        "preemption time out",
        "amdgpu.kfd_preemption_failed",
        {"pci": "0000:03:00.0"},
    ),
    (
        "[  431.635174] amdgpu: HIQ MQD's queue_doorbell_id0 is not 0, Queue preemption time out",
        "amdgpu.kfd_preemption_failed",
        {},
    ),
    # smu_cmn.c __smu_cmn_reg_print_error, SMU_RESP_NONE (t2linux/T2-Ubuntu issue #208)
    (
        "[   10.116367] amdgpu 0000:03:00.0: SMU: No response msg_reg: 6 resp_reg: 0",
        "amdgpu.firmware_unresponsive",
        {"pci": "0000:03:00.0", "engine": "SMU"},
    ),
    # the message register in hex since 6.x (a public Strix Halo hang report)
    ("amdgpu: SMU: No response msg_reg: 1a resp_reg: 0", "amdgpu.firmware_unresponsive", {}),
    # vega20_smumgr.c / smu_v11_0.c send paths (ROCm/legacy-rocm-build issue #1886, MI50)
    (
        "[Sat Jan  7 14:25:59 2023] amdgpu 0000:e3:00.0: amdgpu: Failed to send message 0x26, "
        "response 0x0",
        "amdgpu.firmware_unresponsive",
        {"pci": "0000:e3:00.0"},
    ),
    # smu7_smumgr.c (ROCm/legacy-rocm-build issue #640; daniel-schuermann/mesa issue #183)
    (
        "Feb 17 18:01:24 TestSetup kernel: [   21.677338]  failed to send message 146 ret is 0",
        "amdgpu.firmware_unresponsive",
        {},
    ),
    (
        "                                    failed to send message 146 ret is 65535 ",
        "amdgpu.firmware_unresponsive",
        {},
    ),
]

GOLDEN += [
    # the pre-515 kernel interface's wording of nv_start_device's second line
    # (Bumblebee-Project/Bumblebee issue #722, driver 358; the 595 form beside it)
    (
        "[87669.726572] NVRM: rm_init_adapter failed for device bearing minor number 0",
        "nvrm.init_adapter_failed",
        {},
    ),
    (
        "[   21.092238] NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0",
        "nvrm.init_adapter_failed",
        {},
    ),
]

# Look-alikes: the consequences printed around them, healthy lines with the same words.
NEGATIVE: list[tuple[str, str]] = [
    # what follows a failed preemption: consequences, left unread (ollama/ollama issue #738)
    ("amdgpu.kfd_preemption_failed", "[75287.322369] amdgpu: Failed to evict process queues"),
    ("amdgpu.kfd_preemption_failed", "[75287.322370] amdgpu: Failed to quiesce KFD"),
    (
        "amdgpu.kfd_preemption_failed",
        "[  433.675454] amdgpu: Resetting wave fronts (cpsch) on dev 00000000cbdd3dcd",
    ),
    # the gfx ring's own timeout is amdgpu.ring_timeout's; a fence fallback is info (QubesOS)
    (
        "amdgpu.kfd_preemption_failed",
        "kvě 25 19:29:48 bc250 kernel: amdgpu 0000:01:00.0: ring sdma0 timeout, signaled seq=309, "
        "emitted seq=313",
    ),
    (
        "amdgpu.kfd_preemption_failed",
        "[    6.637987] [drm] Fence fallback timer expired on ring gfx",
    ),
    # the SMU's consequences and healthy lines (NixOS/nixpkgs issue #176915; #6273)
    (
        "amdgpu.firmware_unresponsive",
        "[31317.644111] amdgpu 0000:0d:00.0: amdgpu: Failed to export SMU metrics table!",
    ),
    (
        "amdgpu.firmware_unresponsive",
        "[Sat Jan  7 14:25:59 2023] amdgpu: [powerplay] Failed to set soft min gfxclk !",
    ),
    (
        "amdgpu.firmware_unresponsive",
        "[127037.809065] amdgpu 0000:c5:00.0: amdgpu: SMU is resumed successfully!",
    ),
    # smu7's pre-message check and other programs' "send message" failures
    ("amdgpu.firmware_unresponsive", " failed to send pre message 146 ret is 0"),
    ("amdgpu.firmware_unresponsive", "ERROR: Failed to send message to 10.0.0.2: Broken pipe"),
    # the open-file failure that follows RmInitAdapter's is its consequence, not a second reading
    (
        "nvrm.init_adapter_failed",
        "[87669.726589] NVRM: nvidia_frontend_open: minor 0, module->open() failed, error -5",
    ),
]

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_the_new_entry_weighs_below_every_threshold() -> None:
    # a preemption failure is the job's hang as often as the GPU's: it may not stop, retry or
    # name a node alone
    key = "amdgpu.kfd_preemption_failed"
    assert CATALOG.signatures[key].weight < 50
    assert CATALOG.signatures[key].sources == frozenset({Source.SYSTEM})


def test_a_failed_preemption_reads_like_a_ring_timeout() -> None:
    line = (
        "amdgpu 0000:01:00.0: The cp might be in an unrecoverable state due to an unsuccessful "
        "queues preemption"
    )
    assert ("amdgpu.kfd_preemption_failed", Blame.TRANSIENT, 30) in found(line, Source.SYSTEM)
    preempt = CATALOG.signatures["amdgpu.kfd_preemption_failed"]
    ring = CATALOG.signatures["amdgpu.ring_timeout"]
    assert (preempt.blame, preempt.weight, preempt.node_action) == (
        ring.blame,
        ring.weight,
        ring.node_action,
    )


def test_the_smu_texts_keep_the_engine_when_they_name_it() -> None:
    mes = "amdgpu 0000:c5:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE"
    assert hits(mes)["amdgpu.firmware_unresponsive"]["engine"] == "MES"
    legacy = "amdgpu 0000:e3:00.0: amdgpu: Failed to send message 0x7, response 0x0"
    assert "engine" not in hits(legacy)["amdgpu.firmware_unresponsive"]
