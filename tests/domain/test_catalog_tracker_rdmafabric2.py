"""Golden lines from the second RDMA-fabric sweep (signatures-rdmafabric2.toml): OpenSM's state
changes, its SM-port, MAD-timeout, initialisation, duplicate-GUID, bind and noisy-port lines,
ibdiagnet's counter-difference and stage summaries, the mlx5 RoCE lossless-fabric counters in
`ethtool -S`, and NCCL's and UCX's RoCE GID selection failures.

Each line is a real one from the public source cited beside it, or rendered from the emitter's
format string where no public line was found (marked so), and goes through the scanner's own
matcher. Blame is pinned to what the emitter means: the subnet manager's trouble is the fabric's
and names no node of the job, a port's rising error counters and a NIC's pause storm point at
one link weakly, a GID the job's settings cannot use is the job's. Look-alikes (healthy lines of
the same emitters, keepalived's own MASTER state) must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from autorecover.domain.shape import COLLECTIVE, STRONG
from domain.golden import (
    CATALOG,
    family_contract,
    golden_line_checks,
)

FAMILY = "signatures-rdmafabric2.toml"

BLAME: dict[str, Blame] = {
    "opensm.sm_state": Blame.INFO,
    "opensm.sm_port_down": Blame.SYMPTOM,
    "opensm.mad_timeout": Blame.SYMPTOM,
    "opensm.init_errors": Blame.TRANSIENT,
    "opensm.duplicate_guid": Blame.TRANSIENT,
    "opensm.sm_bind_failed": Blame.SYMPTOM,
    "opensm.noisy_port": Blame.SYMPTOM,
    "ibdiagnet.counter_increased": Blame.HARDWARE,
    "ibdiagnet.check_failed": Blame.SYMPTOM,
    "roce.pause_storm_error": Blame.HARDWARE,
    "roce.lossless_discards": Blame.SYMPTOM,
    "roce.phy_errors": Blame.HARDWARE,
    "roce.congestion_counters": Blame.INFO,
    "roce.nccl_gid_type_unreadable": Blame.APPLICATION,
    "roce.ucx_gid_selection_failed": Blame.APPLICATION,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # a public InfiniBand setup guide (OpenSM 3.2.6 syslog, first alone, then with a peer)
    (
        "Sep 20 18:10:40 ts2 OpenSM[3527]: Entering DISCOVERING state#012",
        "opensm.sm_state",
        {"state": "DISCOVERING"},
    ),
    ("Sep 20 18:10:40 ts2 OpenSM[3527]: SM port is down#012", "opensm.sm_port_down", {}),
    (
        "Sep 20 18:38:50 ts2 OpenSM[3527]: Entering MASTER state#012",
        "opensm.sm_state",
        {"state": "MASTER"},
    ),
    ("Sep 20 18:38:50 ts2 OpenSM[3527]: SUBNET UP#012", "opensm.sm_state", {"up": "SUBNET UP"}),
    # OpenSM 3.3.20 setup notes (systemctl status opensm, two ports) and nvlsm on a B300 node
    (
        "Dec 30 00:07:32 fili OpenSM[3110]: Entering STANDBY state",
        "opensm.sm_state",
        {"state": "STANDBY"},
    ),
    (
        "Aug 27 07:13:17 dell OpenSM[31060]: Entering MASTER state",
        "opensm.sm_state",
        {"state": "MASTER"},
    ),
    # linux-rdma mailing list, March 2021 (opensm.log of a three-node ceph cluster, SX6036 switch)
    (
        "Mar 11 19:32:26 718223 [EC430700] 0x01 -> sm_mad_ctrl_send_err_cb: ERR 3113: MAD "
        "completed in error (IB_TIMEOUT): SubnGet(SMInfo), attr_mod 0x0, TID 0x11f51",
        "opensm.mad_timeout",
        {"status": "IB_TIMEOUT", "method": "SubnGet", "attr": "SMInfo"},
    ),
    (
        "Mar 11 19:32:26 718227 [EC430700] 0x01 -> sm_mad_ctrl_send_err_cb: ERR 3120: Timeout "
        "while getting attribute 0x20 (SMInfo); Possible mis-set mkey?",
        "opensm.mad_timeout",
        {"timeout_attr": "SMInfo"},
    ),
    (
        "Mar 11 19:32:26 717944 [EC430700] 0x01 -> log_send_error: ERR 5411: DR SMP Send "
        "completed with error (IB_TIMEOUT) -- dropping",
        "opensm.mad_timeout",
        {"send_status": "IB_TIMEOUT"},
    ),
    # public OpenSM + SR-IOV setup notes (opensm -g with a GUID the host lacks; a second opensm)
    (
        "Aug 22 05:19:42 782127 [88D4700] 0x01 -> sm_mad_ctrl_send_err_cb: ERR 3113: MAD "
        "completed in error (IB_ERROR): SubnGet(NodeInfo), attr_mod 0x0, TID 0x124e",
        "opensm.mad_timeout",
        {"status": "IB_ERROR", "attr": "NodeInfo"},
    ),
    (
        "Aug 22 05:19:42 782167 [76D2700] 0x01 -> state_mgr_is_sm_port_down: ERR 3309: SM port "
        "with GUID:1122334477667791 is unknown",
        "opensm.sm_bind_failed",
        {"unknown_guid": "1122334477667791"},
    ),
    (
        "Aug 24 04:32:59 236829 [95BD9740] 0x01 -> osm_sm_bind: ERR 2E10: SM MAD Controller bind "
        "failed (IB_ERROR) for port guid 0x8c0eb0300f6fc26, port index 0",
        "opensm.sm_bind_failed",
        {"status": "IB_ERROR", "guid": "0x8c0eb0300f6fc26"},
    ),
    ("Perhaps another instance of OpenSM is already running", "opensm.sm_bind_failed", {}),
    # rendered from linux-rdma/opensm osm_state_mgr.c and osm_sm_mad_ctrl.c
    (
        "Mar 03 10:12:01 512233 [7F3A2B1C] 0x01 -> Errors during initialization",
        "opensm.init_errors",
        {},
    ),
    (
        "Mar 03 10:12:01 512240 [7F3A2B1C] 0x01 -> sm_mad_ctrl_send_err_cb: ERR 3119: Set method "
        "failed for attribute 0x15 (PortInfo)",
        "opensm.init_errors",
        {"attr": "PortInfo"},
    ),
    # rendered from linux-rdma/opensm osm_node_info_rcv.c
    (
        "Mar 03 10:12:01 512233 [7F3A2B1C] 0x01 -> osm_ni_rcv_process_existing_switch: ERR 0D01: "
        "Found duplicated node GUID.",
        "opensm.duplicate_guid",
        {},
    ),
    (
        "Mar 03 10:12:01 ts2 OpenSM[3527]: Errors on subnet. Duplicate GUID found by link from a "
        "port to itself. See verbose opensm.log for more details",
        "opensm.duplicate_guid",
        {},
    ),
    # rendered from linux-rdma/opensm osm_trap_rcv.c (babbling_port_policy, trap flood)
    (
        "Mar 03 10:12:01 512233 [7F3A2B1C] 0x02 -> Disabling noisy physical port "
        "0x0002c903006e29b0: lid 3, num 5",
        "opensm.noisy_port",
        {"guid": "0x0002c903006e29b0", "lid": "3", "port": "5"},
    ),
    (
        "Mar 03 10:12:01 512233 [7F3A2B1C] 0x04 -> Received trap 250 times consecutively",
        "opensm.noisy_port",
        {"count": "250"},
    ),
    # wuchanghui5220/pot tested.md (an ibdiagnet2.log health report of a 6003-node fabric)
    (
        'Sfc6a1c03009be0c0/Nfc6a1c03009be0c0/P1/3/1 - "link_down_counter" increased during the '
        "run (difference value=1,difference allowed threshold=1)",
        "ibdiagnet.counter_increased",
        {"counter": "link_down_counter", "value": "1"},
    ),
    (
        'Sfc6a1c0300b00580/Nfc6a1c0300b00580/P1/5/1 - "symbol_error_counter" increased during the '
        "run (difference value=27,difference allowed threshold=1)",
        "ibdiagnet.counter_increased",
        {
            "port": "Sfc6a1c0300b00580/Nfc6a1c0300b00580/P1/5/1",
            "counter": "symbol_error_counter",
            "value": "27",
        },
    ),
    # a cluster tool's ibdiagnet2 parser quoting real lines (a host port and a switch port)
    (
        'r9i1n24/U1/P1 - "port_rcv_remote_physical_errors" increased during the run (difference '
        "value=117,difference allowed threshold=1)",
        "ibdiagnet.counter_increased",
        {"port": "r9i1n24/U1/P1", "value": "117"},
    ),
    (
        "-E- Ports counters Difference Check (during run) finished with errors",
        "ibdiagnet.check_failed",
        {"check": "Ports counters Difference"},
    ),
    (
        "-E- Ports counters value Check finished with errors",
        "ibdiagnet.check_failed",
        {"check": "Ports counters value"},
    ),
    # rendered from the kernel's mlx5 counters (en_stats.c, counters.rst), non-zero values
    ("     tx_pause_storm_error_events: 3", "roce.pause_storm_error", {"count": "3"}),
    (
        "     rx_prio3_buf_discard: 1842",
        "roce.lossless_discards",
        {"prio": "3", "kind": "buf", "count": "1842"},
    ),
    ("     rx_prio3_cong_discard: 77", "roce.lossless_discards", {"kind": "cong"}),
    (
        "     rx_pcs_symbol_err_phy: 12",
        "roce.phy_errors",
        {"counter": "rx_pcs_symbol_err_phy", "count": "12"},
    ),
    ("     link_down_events_phy: 4", "roce.phy_errors", {"counter": "link_down_events_phy"}),
    (
        "     np_cnp_sent: 12345",
        "roce.congestion_counters",
        {"counter": "np_cnp_sent", "count": "12345"},
    ),
    ("     rp_cnp_handled: 9147732", "roce.congestion_counters", {"counter": "rp_cnp_handled"}),
    # uccl-project/uccl issue #301 (UCCL's copy of NCCL's GID code, H100 pods)
    (
        "W20250825 11:10:33.595331   331 util_rdma.h:547] NET/IB: read failed in "
        "ncclIbRoceGetVersionNum: Invalid argument",
        "roce.nccl_gid_type_unreadable",
        {"op": "read", "error": "Invalid argument"},
    ),
    # rendered from NVIDIA/nccl src/transport/net_ib/connect.cc
    (
        "node01:2211:2290 [0] NCCL WARN NET/IB: open failed in ncclIbRoceGetVersionNum: No such "
        "file or directory",
        "roce.nccl_gid_type_unreadable",
        {"op": "open", "error": "No such file or directory"},
    ),
    # rendered from openucx/ucx src/uct/ib/base/ib_device.c and ib_iface.c
    (
        "[1717400000.123456] [node01:12345:0]      ib_device.c:1199 UCX  ERROR failed to find a "
        "gid which matches/unmatches the following subnet list: 10.20.0.0/16",
        "roce.ucx_gid_selection_failed",
        {"subnets": "10.20.0.0/16"},
    ),
    (
        "[1717400000.123456] [node01:12345:0]       ib_iface.c:1440 UCX  ERROR both GID_INDEX and "
        "ROCE_SUBNET_LIST are specified, please select only one of them",
        "roce.ucx_gid_selection_failed",
        {},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # keepalived's VRRP state (upper-case STATE), not a subnet manager
    ("opensm.sm_state", "Sep 16 19:04:05 2023: (VI_1) Entering MASTER STATE"),
    (
        "opensm.sm_state",
        "Jul 14 20:51:54 vagrant-ubuntu-trusty-64 Keepalived_vrrp[3026]: VRRP_Instance(VI_1) "
        "Entering MASTER STATE",
    ),
    # OpenSM's healthy start-up lines (nvlsm on a B300 node; OpenSM 3.3.20 notes)
    ("opensm.sm_bind_failed", "Aug 27 07:13:16 dell OpenSM[31056]: -I- Configuration loaded"),
    (
        "opensm.sm_port_down",
        "Aug 27 07:13:16 dell OpenSM[31060]: OpenSM 2025.10.14_42349a2_821fcee_ae214d2",
    ),
    ("opensm.sm_port_down", "Sep 20 18:38:50 ts2 OpenSM[3527]: SM port is up#012"),
    ("opensm.init_errors", "Dec 30 00:07:32 fili OpenSM[3107]: Exiting SM"),
    ("opensm.mad_timeout", "MAD completed successfully"),
    ("opensm.noisy_port", "Marking unhealthy physical port by lid:3 num:5"),
    # ibdiagnet's healthy summaries and congestion counters (not physical errors)
    ("ibdiagnet.check_failed", "-I- Ports counters value Check finished successfully"),
    (
        "ibdiagnet.counter_increased",
        'Sfc6a1c0300b00580/Nfc6a1c0300b00580/P1/5/1 - "port_xmit_wait" increased during the run '
        "(difference value=27,difference allowed threshold=1)",
    ),
    # zero counters from a healthy `ethtool -S` (a public pause-frame write-up)
    ("roce.pause_storm_error", "     tx_pause_storm_error_events: 0"),
    ("roce.pause_storm_error", "     tx_pause_storm_warning_events: 0"),
    ("roce.lossless_discards", "     rx_prio3_buf_discard: 0"),
    ("roce.phy_errors", "     rx_pcs_symbol_err_phy: 0"),
    ("roce.phy_errors", "     rx_corrected_bits_phy: 1182"),
    # NCCL's GID table event and its own GID choice (already read elsewhere, healthy)
    (
        "roce.nccl_gid_type_unreadable",
        "node1:123:456 [0] NCCL WARN NET/IB : mlx5_0:1 GID table changed",
    ),
    ("roce.ucx_gid_selection_failed", "mlx5_0:1 using gid_index=3 ver=1 addr_family=2"),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY: frozenset({"opensm", "ibdiagnet", "roce"})}, BLAME)


def test_subnet_manager_lines_name_no_node() -> None:
    """The SM runs on one host but speaks for the fabric: none of its lines acts on that host."""
    for key, sig in CATALOG.signatures.items():
        if key.startswith("opensm."):
            assert sig.blame is not Blame.HARDWARE, key
            assert sig.node_action.value == "none", key
            assert sig.weight < COLLECTIVE or sig.blame is Blame.TRANSIENT, key


def test_link_counters_never_name_a_node_alone() -> None:
    """A rising error counter or a pause storm is also the cable or the switch: inspect only."""
    for key in ("ibdiagnet.counter_increased", "roce.pause_storm_error", "roce.phy_errors"):
        sig = CATALOG.signatures[key]
        assert 0 < sig.weight < STRONG, key
        assert sig.node_action.value == "inspect", key
