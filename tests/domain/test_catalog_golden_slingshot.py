"""Golden tests for the HPE Slingshot family (signatures-slingshot.toml): the Cassini NIC's kernel
driver (cxi_core / cxi_ss1), its retry handler (cxi_rh), libfabric's cxi provider and Cray MPICH.

Real lines (from HPE's Slingshot documentation, HewlettPackard/shs-docs, and the public threads
named beside them; rendered from the emitter's format string where the comment says so) go
through the scanner's own matcher. Only this node's NIC failing is hardware; what a rank says
about a send to a peer is a symptom; the job's environment is the application's. Look-alikes
must not match, and every entry of the family file has a golden line.
"""

from __future__ import annotations

from autorecover.domain.records import Blame, Source
from autorecover.domain.shape import STRONG
from domain.golden import (
    CATALOG,
    Golden,
    family_contract,
    family_keys,
    found,
    golden_line_checks,
)

FAMILY_FILE = "signatures-slingshot.toml"
NAMESPACES = frozenset({"cxi", "mpich"})
KEYS = family_keys(FAMILY_FILE)

BLAME: dict[str, Blame] = {
    "cxi.nic_uncorrectable_error": Blame.HARDWARE,
    "cxi.nic_link_down": Blame.HARDWARE,
    "cxi.nic_link_quality": Blame.HARDWARE,
    "cxi.nic_info_error": Blame.INFO,
    "cxi.nic_init_failed": Blame.HARDWARE,
    "cxi.nic_chip_not_ready": Blame.HARDWARE,
    "cxi.nic_pcie_errors": Blame.HARDWARE,
    "cxi.retry_handler_close": Blame.SYMPTOM,
    "cxi.send_completion_error": Blame.SYMPTOM,
    "cxi.flow_control_le_exhausted": Blame.APPLICATION,
    "cxi.event_queue_overflow": Blame.APPLICATION,
    "cxi.memory_map_failed": Blame.APPLICATION,
    "cxi.lni_alloc_failed": Blame.APPLICATION,
    "cxi.launch_environment": Blame.APPLICATION,
    "mpich.cray_gtl_not_linked": Blame.APPLICATION,
    "mpich.cray_cq_exhaustion": Blame.APPLICATION,
    "mpich.cray_nic_policy_unconfined": Blame.APPLICATION,
}

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, BLAME)

GOLDEN: Golden = [
    # shs-docs fabric_validation/troubleshoot_mpi_application_failure_hardware_error.md
    ("[Thu Jul 13 01:57:31 2023] cxi_core 0000:c3:00.0: cxi3[hsn3]: C_EC_UNCOR_NS: C1_PCT error: "
     "tct_cam_ucor (42) (was first error at 1689213438:290566940)",
     "cxi.nic_uncorrectable_error",
     {"device": "cxi3", "netdev": "hsn3", "class": "C_EC_UNCOR_NS", "error": "tct_cam_ucor"}),
    # shs-docs fabric_validation/troubleshoot_mpi_application_failure_ama_mismatch.md
    ("*** Warning: [260188.266586] cxi_core 0000:c0:00.0: cxi2[hsn2]: C_EC_UNCOR_NS: C_IXE error: "
     "port_dfa_mismatch (37) (was first error at 1705904239:768794936). ",
     "cxi.nic_uncorrectable_error", {"device": "cxi2", "error": "port_dfa_mismatch"}),
    # shs-docs troubleshoot/cxi/Common_CXI_core_error_messages.md (needs a node reboot)
    ("[122215.631871] cxi_ss1 0000:11:00.0: cxi0[hsn0]: C_EC_CRIT: C_PCT_EXT error: "
     "tct_tbl_dealloc (18)", "cxi.nic_uncorrectable_error",
     {"class": "C_EC_CRIT", "error": "tct_tbl_dealloc"}),
    # shs-docs fabric_validation/troubleshoot_hpl_benchmark_performance_issues.md (a flap)
    ("x4207c7s5b0n0:[Wed Nov  8 13:26:51 2023] cxi_core 0000:c3:00.0: cxi3[hsn3] "
     "CXI_EVENT_LINK_DOWN", "cxi.nic_link_down", {"device": "cxi3", "netdev": "hsn3"}),
    # shs-docs troubleshoot/cxi/Common_CXI_core_error_messages.md
    ("cxi_ss1 0000:03:00.0: cxi0[hsn0] CXI_EVENT_LINK_DOWN", "cxi.nic_link_down",
     {"device": "cxi0"}),
    ("cxi_ss1 0000:41:00.0: cxi0[hsn0]: C_EC_TRNSNT_NS: C1_HNI_PML error: pcs_link_down (48) (was "
     "first error at 1675518045:993752891)", "cxi.nic_link_down", {"netdev": "hsn0"}),
    ("cxi_ss1 0000:41:00.0: cxi0[hsn0]: C_EC_UNCOR_NS: C1_HNI error: llr_eopb (32) (was first "
     "error at 1674414354:329651605)", "cxi.nic_link_quality", {"error": "llr_eopb"}),
    ("cxi_ss1 0000:41:00.0: cxi0[hsn0]: C_EC_TRNSNT_NS: C1_HNI_PML error: llr_ack_nack_error (58) "
     "(was first error at 1674703075:363699378)", "cxi.nic_link_quality",
     {"error": "llr_ack_nack_error"}),
    ("cxi_ss1 0000:03:00.0: cxi0[hsn0]: C_EC_TRNSNT_NS: C1_HNI_PML error: pcs_tx_dp_err (35) (was "
     "first error at 1675702370:147232867)", "cxi.nic_link_quality", {"error": "pcs_tx_dp_err"}),
    ("cxi_ss1 0000:41:00.0: cxi0[hsn0]: C_EC_BADCON_S: C_RMU error: ptl_invld_vni (49)",
     "cxi.nic_info_error", {"error": "ptl_invld_vni"}),
    ("cxi_ss1 0000:41:00.0: cxi0[hsn0]: C_EC_CRIT: C_PI_IPD_EXT error: pri_rbyp_abort (44)",
     "cxi.nic_info_error", {"device": "cxi0"}),
    ("cxi_ss1 0000:41:00.0: cxi0[hsn0]: C_EC_INFO: C_PI_EXT error: pri_rarb_xlat_rbyp_abort_error "
     "(35) (was first error at 1675485830:078202793)", "cxi.nic_info_error",
     {"error": "pri_rarb_xlat_rbyp_abort_error"}),
    # rendered from shs-cxi-driver cass_core.c ("init_hw failed: %d") and cass_pcie_mon.c
    ("cxi_core 0000:c5:00.0: cxi0[hsn0] init_hw failed: -12", "cxi.nic_init_failed",
     {"device": "cxi0", "code": "-12"}),
    # rendered from shs-cxi-driver cass_core.c init_hw ("chip not ready", then -ENOTSUPP)
    ("cxi_ss1 0000:c5:00.0: cxi0[hsn0] chip not ready", "cxi.nic_chip_not_ready",
     {"device": "cxi0", "netdev": "hsn0"}),
    ("cxi_ss1 0000:41:00.0: cxi0[hsn0] PCIe error: LCRC Error=12", "cxi.nic_pcie_errors",
     {"counter": "LCRC Error"}),
    # shs-docs fabric_validation/troubleshoot_mpi_application_failure_ama_mismatch.md and
    # troubleshoot_mpi_application_failure_hardware_error.md (cxi_rh's journal)
    ("Jul 22 01:57:28 x4120c7s4b0n0 cxi_rh[6094]: RH: will close sct=3. spt=191 was retried due "
     "to timeouts 4 times and nacks 0 times", "cxi.retry_handler_close", {}),
    ("Jul 22 01:57:30 x4120c7s4b0n0 cxi_rh[6094]: RH: force close of sct=3 (nid=103985, ep=0, "
     "vni=7872) after 0 close retries", "cxi.retry_handler_close", {"nid": "103985"}),
    ("Jul 13 21:27:10 x4614c2s0b0n0 cxi_rh[6702]: RH: will close sct=2253 because it only saw "
     "NO_MATCHING_CONN Nacks", "cxi.retry_handler_close", {}),
    # shs-docs fabric_validation/troubleshoot_mpi_application_failure_hardware_error.md
    ("x4614c2s0b0n0 : TXC (0x4aaf2:0:0): Request dest_addr: 483 caddr.nic: 0X49AF0 caddr.pid: 1 "
     "rxc_id: 0  error: 0x84d1a20 (err: 5, UNDELIVERABLE)", "cxi.send_completion_error",
     {"nic": "0X49AF0", "err": "5", "rc": "UNDELIVERABLE"}),
    # shs-docs ..._ama_mismatch.md: the line's second half, as FI_LOG wrapped it
    ("Request dest_addr: 3 caddr.nic: 0X11E0 caddr.pid: 1 rxc_id: 0  error: 0x53bc330 (err: 5, "
     "UNDELIVERABLE)", "cxi.send_completion_error", {"nic": "0X11E0"}),
    # rendered from libfabric prov/cxi/src/cxip_msg_hpc.c FC_SW_ONLOAD_MSG_FATAL (no arguments)
    ("LE resources not recovered during flow control. FI_CXI_RX_MATCH_MODE=[hybrid|software] is "
     "required", "cxi.flow_control_le_exhausted", {}),
    # argonne-lcf/user-guides pull request #315 (Aurora known issues)
    ("libfabric:16642:1701636928::cxi:core:cxip_cq_eq_progress():531<warn> x4204c1s3b0n0: "
     "Cassini Event Queue overflow detected.", "cxi.event_queue_overflow", {}),
    # pmodels/mpich pull request #6433 (Sunspot)
    ("libfabric:53673:1693359811::cxi:mr:cxip_do_map():90<warn> x1922c2s2b0n0: cxil_map() "
     "failed: -22", "cxi.memory_map_failed", {"code": "-22"}),
    ("libfabric:53673:1693359811::cxi:mr:cxip_map_cache():313<warn> x1922c2s2b0n0: Failed to "
     "acquire mapping (0x1000000200000, 16777216): -22", "cxi.memory_map_failed",
     {"acquire": "-22"}),
    ("libfabric:53673:1693359811::cxi:mr:cxip_regattr():1306<warn> x1922c2s2b0n0: Failed to map "
     "MR buffer: -22", "cxi.memory_map_failed", {}),
    # lslusarczyk/ishmemexperiments README.md (Borealis)
    ("libfabric:252928:1707218868::cxi:mr:cxip_do_map():59<warn> x1001c1s6b0n0: ZE device memory "
     "not supported. Try disabling implicit scaling (EnableImplicitScaling=0 NEOReadDebugKeys=1).",
     "cxi.memory_map_failed", {}),
    # rendered from libfabric prov/cxi/src/cxip_if.c and cxip_nic.c
    ("Failed to allocate LNI, ret: -28", "cxi.lni_alloc_failed", {"code": "-28"}),
    ("Failed to find cxi0 in SLINGSHOT_DEVICES: cxi1", "cxi.launch_environment", {}),
    ("VNI not found in SLINGSHOT_VNIS: 1024", "cxi.launch_environment", {}),
    # eth-cscs/cscs-docs pull request #40 (Alps)
    ("MPICH ERROR [Rank 0] [job id 410301.1] [Thu Feb 13 12:42:18 2025] [nid005414] - Abort(-1) "
     "(rank 0 in comm 0): MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL library is "
     "not linked", "mpich.cray_gtl_not_linked", {"via": "nid005414", "rank": "0"}),
    ("MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL library is not linked",
     "mpich.cray_gtl_not_linked", {}),
    # APPFL/APPFL issue #258 (Polaris)
    ("MPICH ERROR [Rank 0] [job id ] [Thu Jan 30 22:35:30 2025] [x3006c0s19b1n0] - Abort(-1) (rank "
     "0 in comm 0): MPIDI_CRAY_init: GPU_SUPPORT_ENABLED is requested, but GTL library is not "
     "linked", "mpich.cray_gtl_not_linked", {"via": "x3006c0s19b1n0"}),
    # ofiwg/libfabric issue #9286 (Perlmutter)
    ("PE 0: MPICH WARNING: OFI is failing to make progress on posting a receive. MPICH suspects a "
     "hang due to completion queue exhaustion. Setting environment variable FI_CXI_DEFAULT_CQ_SIZE "
     "to a higher number might circumvent this scenario. OFI retry continuing...",
     "mpich.cray_cq_exhaustion", {}),
    # olcf/olcf-user-docs software/analytics/pytorch_frontier.rst (Troubleshooting, Frontier)
    ("MPICH ERROR: Unable to use a NIC_POLICY of 'NUMA'. Rank 4 is not confined to a single NUMA "
     "node.  There are 4 numa_nodes detected (rc=0).",
     "mpich.cray_nic_policy_unconfined", {"policy": "NUMA", "rank": "4"}),
]  # fmt: skip

NEGATIVE: list[tuple[str, str]] = [
    # the driver's own informational classes are not the NIC failing
    ("cxi.nic_uncorrectable_error",
     "cxi_ss1 0000:41:00.0: cxi0[hsn0]: C_EC_CRIT: C_PI_IPD_EXT error: pri_rbyp_abort (44)"),
    ("cxi.nic_uncorrectable_error",
     "cxi_ss1 0000:41:00.0: cxi0[hsn0]: C_EC_UNCOR_NS: C1_HNI error: llr_eopb (32)"),
    ("cxi.nic_uncorrectable_error",
     "cxi_ss1 0000:41:00.0: cxi0[hsn0]: C_EC_BADCON_S: C_RMU error: ptl_invld_vni (49)"),
    # the error-info register dump that follows an error line names no error
    ("cxi.nic_uncorrectable_error",
     "cxi_core 0000:c0:00.0: cxi2[hsn2]: C_EC_UNCOR_NS: port_dfa_mismatch: 1."),
    ("cxi.nic_info_error",
     "cxi_ss1 0000:41:00.0: cxi0[hsn0]: C_EC_INFO: C_PI_ERR_INFO_RBYP 4009020000000000 "
     "080100cc4110004a 0000000000000000"),
    # the link coming back is not the link going down
    ("cxi.nic_link_down", "cxi_ss1 0000:03:00.0: cxi0[hsn0] CXI_EVENT_LINK_UP"),
    # cxi_rh starting up (shs-docs) is not a connection closed
    ("cxi.retry_handler_close",
     "Jul 11 20:01:31 x4614c2s0b0n0 systemd[1]: Starting CXI Retry Handler on cxi3..."),
    ("cxi.retry_handler_close",
     "Jul 22 00:36:06 x4120c7s4b0n0 cxi_rh[6094]: RH: cancel_spt_wait_time  (1.000000s)"),
    # the workaround in a job script, not the failure
    ("cxi.flow_control_le_exhausted", "export FI_CXI_RX_MATCH_MODE=hybrid"),
    ("cxi.event_queue_overflow", "export FI_CXI_DEFAULT_CQ_SIZE=131072"),
    # Cray MPICH's generic fatal error belongs to mpich.fatal_error, not to the GTL entry
    ("mpich.cray_gtl_not_linked",
     "MPICH ERROR [Rank 11122] [job id 41595204.0] [Thu Aug 14 08:27:11 2025] [nid006700] - "
     "Abort(2695311) (rank 11122 in comm 0): Fatal error in PMPI_Allreduce: Other MPI error, "
     "error stack:"),
    ("mpich.cray_gtl_not_linked", "export MPICH_GPU_SUPPORT_ENABLED=1"),
    # the efa provider's send errors are not cxi's
    ("cxi.send_completion_error",
     "NCCL WARN NET/OFI Request completed with error. RC: 21. Error: unknown error"),
]  # fmt: skip

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_only_this_nics_uncorrectable_error_names_a_node_alone() -> None:
    """Conservative hardware: a flap, link quality, PCIe counters or a failed init alone stay
    under the weight that names a node; a peer's or the path's evidence is never hardware."""
    strong = {k for k in KEYS if CATALOG.signatures[k].weight >= STRONG
              and CATALOG.signatures[k].blame is Blame.HARDWARE}  # fmt: skip
    assert strong == {"cxi.nic_uncorrectable_error"}
    for key in ("cxi.send_completion_error", "cxi.retry_handler_close"):
        assert CATALOG.signatures[key].blame is Blame.SYMPTOM
        assert CATALOG.signatures[key].node_action.value == "none"


def test_kernel_entries_read_only_the_system_log() -> None:
    for key in KEYS:
        if key.startswith("cxi.nic_"):
            assert CATALOG.signatures[key].sources == frozenset({Source.SYSTEM}), key


def test_a_full_scan_of_the_uncorrectable_error_is_hardware_on_this_node() -> None:
    line = ("[Thu Jul 13 01:57:31 2023] cxi_core 0000:c3:00.0: cxi3[hsn3]: C_EC_UNCOR_NS: C1_PCT "
            "error: tct_cam_ucor (42) (was first error at 1689213438:290566940)")  # fmt: skip
    assert ("cxi.nic_uncorrectable_error", Blame.HARDWARE, 60) in found(line, Source.SYSTEM)


def test_a_send_error_in_the_job_output_is_a_symptom() -> None:
    line = ("libfabric:23840:1689991048::cxi:ep_data:report_send_completion():3570<warn> "
            "x4120c7s4b0n0: TXC (0x19751:0:0): Request dest_addr: 225 caddr.nic: 0X19631 "
            "caddr.pid: 0 rxc_id: 0  error: 0x40dc440 (err: 5, UNDELIVERABLE)")  # fmt: skip
    assert ("cxi.send_completion_error", Blame.SYMPTOM, 30) in found(line, Source.LOGS)


def test_nic_keys_are_the_network_family() -> None:
    """The Cassini NIC's errors on every node at once are the fabric, as ib.'s and rdma.'s are."""
    from autorecover.domain.shape import family

    assert family("cxi.nic_uncorrectable_error") == "network"
    assert family("cxi.nic_link_down") == "network"
