"""Golden tests for the node out-of-band and fabric family (signatures-bmc.toml): the BMC's System
Event Log as ipmitool and FreeIPMI print it, BMC web pages and Dell iDRAC messages restating the
same events, the NVIDIA fabric manager's log, and `nvidia-smi -q` fields read nowhere else.

Real lines (from the public issues and documents named beside them; rendered from the tool's
format where the comment says so) go through the scanner's own matcher. Only an uncorrectable
memory error, a processor IERR or uncorrectable machine check, a fatal bus error and a fatal
NVSwitch error name a node alone; Deasserted events, presence, warnings and healthy values must
not match, and corrected errors are information only.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from autorecover.domain.shape import STRONG
from domain.golden import (
    CATALOG,
    Golden,
    family_contract,
    family_keys,
    golden_line_checks,
    hits,
)

FAMILY_FILE = "signatures-bmc.toml"
NAMESPACES = frozenset({"bmc", "fabricmanager", "nvml"})
KEYS = family_keys(FAMILY_FILE)

BLAME: dict[str, Blame] = {
    "bmc.memory_uncorrectable": Blame.HARDWARE,
    "bmc.processor_error": Blame.HARDWARE,
    "bmc.bus_fatal": Blame.HARDWARE,
    "bmc.pci_parity": Blame.HARDWARE,
    "bmc.power_supply_failed": Blame.HARDWARE,
    "bmc.power_lost": Blame.SYMPTOM,
    "bmc.threshold_critical": Blame.HARDWARE,
    "bmc.memory_correctable_rate": Blame.HARDWARE,
    "bmc.corrected_error": Blame.INFO,
    "fabricmanager.nvswitch_fatal": Blame.HARDWARE,
    "fabricmanager.nvswitch_nonfatal": Blame.HARDWARE,
    "fabricmanager.multicast_gpu_unknown": Blame.HARDWARE,
    "fabricmanager.topology_mismatch": Blame.HARDWARE,
    "fabricmanager.gpu_nvl_fatal": Blame.HARDWARE,
    "nvml.smi_fabric_status_error": Blame.HARDWARE,
    "nvml.smi_row_remap_pending": Blame.HARDWARE,
}

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, BLAME)

GOLDEN: Golden = [
    # rendered from ipmitool's format (ipmi_sel.h Memory 01h; the OEM detail as in issue #385)
    (
        "  3c | 12/14/22 | 23:15:02 CET | Memory #0x88 | Uncorrectable ECC (CPU0_G1) | Asserted",
        "bmc.memory_uncorrectable",
        {"sensor": "Memory #0x88", "dimm": "CPU0_G1"},
    ),
    # ovro-lwa/lwa-issues issue #117 (a GPU server's BMC health event log)
    (
        "Uncorrectable ECC / other uncorrectable memory error @P2-DIMMF1 - Assertion",
        "bmc.memory_uncorrectable",
        {"location": "P2-DIMMF1"},
    ),
    # Dell KB 000137261 (iDRAC SEL)
    (
        "MEM0001 Multi-bit memory errors detected on a memory device at location(s) DIMM_XX.",
        "bmc.memory_uncorrectable",
        {"locations": "DIMM_XX"},
    ),
    # rendered from FreeIPMI's ipmi-sel columns and ipmi_sensor_type_memory_short
    (
        "8 | Mar-02-2026 | 10:41:07 | DIMM_A1 | Memory | Critical | Uncorrectable memory error",
        "bmc.memory_uncorrectable",
        {},
    ),
    # open-power/op-build issue #607; facebook/openbmc issue #273
    (
        "  89 | 08/31/2016 | 06:20:30 | Processor #0xc9 | IERR | Asserted",
        "bmc.processor_error",
        {"sensor": "Processor #0xc9", "event": "IERR"},
    ),
    (
        "   1 | 05/14/2026 | 20:40:26 | Processor #0x40 | Uncorrectable machine check exception | "
        "Asserted",
        "bmc.processor_error",
        {"event": "Uncorrectable machine check exception"},
    ),
    # Dell KB 000137261; a public note quoting a BMC beside a kernel soft lockup
    ("CPU0000 CPU 1 has an internal error (IERR).", "bmc.processor_error", {"cpu": "1"}),
    ("CPU 2 machine check error detected.", "bmc.processor_error", {"cpu": "2"}),
    # rendered from FreeIPMI's ipmi_sensor_type_processor_short
    (
        "9 | Mar-02-2026 | 10:41:07 | CPU1 Status | Processor | Critical | IERR",
        "bmc.processor_error",
        {"fi_event": "IERR"},
    ),
    # rendered from ipmitool's format (ipmi_sel.h Critical Interrupt 0Ah, 08h)
    (
        "   c | 03/02/2026 | 10:41:07 | Critical Interrupt #0x10 | Bus Fatal Error | Asserted",
        "bmc.bus_fatal",
        {"sensor": "Critical Interrupt #0x10", "event": "Bus Fatal Error"},
    ),
    (
        "   d | 03/02/2026 | 10:41:07 | Critical Interrupt PCIE Err | Bus Uncorrectable error | "
        "Asserted",
        "bmc.bus_fatal",
        {"event": "Bus Uncorrectable error"},
    ),
    # Dell OpenManage esmlog (a public blog post); a public iDRAC9 Redfish SEL fixture
    (
        "Description   : A bus fatal error was detected on a component at bus 0 device 3 function 0.",
        "bmc.bus_fatal",
        {"where": "bus 0 device 3 function 0"},
    ),
    (
        "A fatal error was detected on a component at bus 93 device 0 function 0.",
        "bmc.bus_fatal",
        {"where": "bus 93 device 0 function 0"},
    ),
    # magic-blue-smoke/Dual-Edge-TPU-Adapter issues #78 and #77
    (
        "[CI-0004] , PCI PERR @Bus85 (DevFn00) - Assertion",
        "bmc.pci_parity",
        {"smc_event": "PCI PERR", "bus": "85"},
    ),
    (
        " 36   | 04/13/2025, 03:08:16 | BIOS             | Critical Interrupt                 | "
        "PCI SERR - Asserted",
        "bmc.pci_parity",
        {"fi_event": "PCI SERR"},
    ),
    # thomas-krenn/check_ipmi_sensor_v3 issues #66 and #26 (FreeIPMI ipmi-sel)
    (
        "3    | Dec-09-2024 | 21:12:29 | Power Supply 2 PS2 Status                         | "
        "Power Supply      | Critical | Power Supply Failure detected",
        "bmc.power_supply_failed",
        {"fi_event": "Power Supply Failure detected"},
    ),
    # rendered from ipmitool's format (ipmi_sel.h Power Supply 01h)
    (
        "  10 | 03/02/2026 | 10:41:07 | Power Supply PS1 Status | Failure detected | Asserted",
        "bmc.power_supply_failed",
        {"sensor": "Power Supply PS1 Status"},
    ),
    # sosreport/sos issue #2015; thomas-krenn/check_ipmi_sensor_v3 issue #33
    (
        "  30 | 11/15/2019 | 18:50:40 | Power Unit Pwr Unit Status | Power off/down | Asserted",
        "bmc.power_lost",
        {"event": "Power off/down"},
    ),
    (
        "2   | Mar-23-2020 | 11:52:18 | Power Unit 1 Host Power                        | "
        "Power Unit                  | Nominal  | Power Off/Power Down",
        "bmc.power_lost",
        {"fi_event": "Power Off/Power Down"},
    ),
    # rendered from ipmitool's threshold strings (the fan's name as in sosreport/sos issue #2015)
    (
        "  5f | 03/02/2026 | 10:41:07 | Temperature GPU1 Temp | Upper Critical going high | Asserted",
        "bmc.threshold_critical",
        {"sensor": "Temperature GPU1 Temp"},
    ),
    (
        "  34 | 11/15/2019 | 18:52:23 | Fan Processor 1 Fan | Lower Critical going low  | Asserted",
        "bmc.threshold_critical",
        {"fan": "Fan Processor 1 Fan", "fan_event": "Lower Critical going low"},
    ),
    # rendered from FreeIPMI's threshold strings
    (
        "7 | Mar-02-2026 | 10:41:07 | CPU1 Temp | Temperature | Critical | Upper Critical - going "
        "high ; Sensor Reading = 96.00 C ; Threshold = 95.00 C",
        "bmc.threshold_critical",
        {"fi_event": "Upper Critical - going high"},
    ),
    # Dell KB 000141221 (LC log); rendered from ipmitool's Memory 05h
    (
        "2017-03-07 23:08:02 MEM0702 Correctable memory error rate exceeded for DIMM_xx.",
        "bmc.memory_correctable_rate",
        {"dimm": "DIMM_xx"},
    ),
    (
        "   5 | 03/02/2026 | 10:41:07 | Memory #0x87 | Correctable ECC logging limit reached | "
        "Asserted",
        "bmc.memory_correctable_rate",
        {"sensor": "Memory #0x87"},
    ),
    # ipmitool/ipmitool issue #385
    (
        "  3a | 12/14/22 | 23:09:44 CET | Memory #0x88 | Correctable ECC (CPU0_G1) | Asserted",
        "bmc.corrected_error",
        {"event": "Correctable ECC"},
    ),
    (
        "    e | 06/10/22 | 19:31:43 CEST | Memory #0x87 | Correctable ECC () | Asserted",
        "bmc.corrected_error",
        {"sensor": "Memory #0x87"},
    ),
    # leptonai/gpud components/accelerator/nvidia/fabric-manager (its parser's examples)
    (
        "[Jul 23 2024 07:53:55] [ERROR] [tid 841] detected NVSwitch fatal error 20034 on fid 0 on "
        "NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 33",
        "fabricmanager.nvswitch_fatal",
        {"sxid": "20034", "pci": "00000000:86:00.0", "physid": "3", "port": "33"},
    ),
    (
        "[Jul 09 2024 18:14:07] [ERROR] [tid 12727] detected NVSwitch non-fatal error 12028 on fid 0 "
        "on NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 61",
        "fabricmanager.nvswitch_nonfatal",
        {"sxid": "12028", "port": "61"},
    ),
    (
        "[Feb 27 2025 15:10:02] [ERROR] [tid 12727] detected NVSwitch non-fatal error 12028 on fid 0",
        "fabricmanager.nvswitch_nonfatal",
        {"sxid": "12028"},
    ),
    (
        "[Sep 17 2024 06:01:46] [ERROR] [tid 1230079] failed to find the GPU handle "
        "5410063385821516767 in the multicast team request setup 6130285411925746235.",
        "fabricmanager.multicast_gpu_unknown",
        {"handle": "5410063385821516767"},
    ),
    (
        "[ERROR] [tid 99999] detected number of NVSwitches don't match with any supported system "
        "topology, aborting fabric manager",
        "fabricmanager.topology_mismatch",
        {},
    ),
    # a public GB200 NVL72 triage runbook (the NVSwitch tray's fabric manager log)
    (
        "[Oct 13 2025 18:14:38] [ERROR] [tid 202] Fabric Manager detected GPU NVL Fatal error on :",
        "fabricmanager.gpu_nvl_fatal",
        {},
    ),
    # Azure/azhpc-images pull request #506; NVIDIA/NVSentinel issue #883
    (
        "    Status                            : Insufficient Resources",
        "nvml.smi_fabric_status_error",
        {"status": "Insufficient Resources"},
    ),
    (
        "        Status                                         : Unknown Error",
        "nvml.smi_fabric_status_error",
        {"status": "Unknown Error"},
    ),
    # the Remapped Rows section leptonai/gpud pull request #80 parses
    ("        Pending                           : Yes", "nvml.smi_row_remap_pending", {}),
]

NEGATIVE: list[tuple[str, str]] = [
    # Deasserted events are not the fault
    (
        "bmc.memory_uncorrectable",
        "  3d | 12/14/22 | 23:15:09 CET | Memory #0x88 | Uncorrectable ECC (CPU0_G1) | Deasserted",
    ),
    ("bmc.processor_error", "  13 | 03/02/2026 | 10:41:07 | Processor #0xc9 | IERR | Deasserted"),
    (
        "bmc.bus_fatal",
        "  12 | 03/02/2026 | 10:41:07 | Critical Interrupt #0x10 | Bus Fatal Error | Deasserted",
    ),
    (
        "bmc.power_supply_failed",
        "  15 | 03/02/2026 | 10:41:07 | Power Supply PS1 Status | Failure detected | Deasserted",
    ),
    (
        "bmc.power_lost",
        "  31 | 11/15/2019 | 18:50:44 | Power Unit Pwr Unit Status | Power off/down | Deasserted",
    ),
    (
        "bmc.threshold_critical",
        "   9 | 03/02/2026 | 10:41:07 | Temperature GPU1 Temp | Upper Critical going high | Deasserted",
    ),
    # FreeIPMI -v prints the direction: a deassertion is not the fault
    (
        "bmc.power_supply_failed",
        "5    | Jul-20-2017 | 10:30:02 | Power Supply PS2 Status | Power Supply | Critical | "
        "Deassertion Event | Power Supply Failure detected",
    ),
    # presence, warnings and the sensor table's healthy rows
    (
        "bmc.power_supply_failed",
        "  14 | 03/02/2026 | 10:41:07 | Power Supply PS1 Status | Presence detected | Asserted",
    ),
    (
        "bmc.threshold_critical",
        "  33 | 11/15/2019 | 18:52:23 | Fan Processor 1 Fan | Lower Non-critical going low  | Asserted",
    ),
    (
        "bmc.threshold_critical",
        "   8 | 03/02/2026 | 10:41:07 | Temperature GPU1 Temp | Upper Non-critical going high | "
        "Asserted",
    ),
    (
        "bmc.memory_uncorrectable",
        "1 | Jan-16-2015 | 02:30:04 | DIMM_A1 | Memory | Correctable memory error",
    ),
    ("bmc.memory_uncorrectable", " Uncorrectable ECC errors: 0"),
    (
        "bmc.corrected_error",
        "  3c | 12/14/22 | 23:15:02 CET | Memory #0x88 | Uncorrectable ECC (CPU0_G1) | Asserted",
    ),
    # the fabric manager's healthy line; a non-fatal error is not the fatal one
    (
        "fabricmanager.nvswitch_fatal",
        "[Jul 09 2024 18:14:07] [INFO] [tid 12727] Successfully configured all the available GPUs "
        "and NVSwitches to route NVLink traffic",
    ),
    (
        "fabricmanager.nvswitch_fatal",
        "[Jul 09 2024 18:14:07] [ERROR] [tid 12727] detected NVSwitch non-fatal error 12028 on fid 0 "
        "on NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 61",
    ),
    # nvidia-smi's healthy values and other fields
    ("nvml.smi_fabric_status_error", "    Status                            : Success"),
    ("nvml.smi_fabric_status_error", "    Status                            : N/A"),
    ("nvml.smi_fabric_status_error", "Status: Unknown Error while contacting the server"),
    ("nvml.smi_row_remap_pending", "        Pending                           : No"),
    ("nvml.smi_row_remap_pending", "        Pending Page Blacklist            : Yes"),
]

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_only_definite_faults_name_the_node_alone() -> None:
    """An uncorrectable memory error, a processor IERR / uncorrectable machine check, a fatal bus
    error and a fatal NVSwitch error name a node; supplies, parity errors, thresholds, fabric
    registration and the fabric manager's softer reports stay under the threshold."""
    strong = {k for k in KEYS if CATALOG.signatures[k].weight >= STRONG
              and CATALOG.signatures[k].blame is Blame.HARDWARE}  # fmt: skip
    assert strong == {
        "bmc.memory_uncorrectable",
        "bmc.processor_error",
        "bmc.bus_fatal",
        "fabricmanager.nvswitch_fatal",
    }


def test_power_loss_acts_on_no_node() -> None:
    """A host switched off or without AC explains a lost node; it is no cause to act on."""
    sig = CATALOG.signatures["bmc.power_lost"]
    assert sig.blame is Blame.SYMPTOM
    assert sig.node_action.value == "none"


def test_fabric_manager_fatal_agrees_with_the_driver_sxid() -> None:
    """The fabric manager's fatal NVSwitch line and the driver's SXid line decide alike."""
    line = ("[Jul 23 2024 07:53:55] [ERROR] [tid 841] detected NVSwitch fatal error 20034 on fid 0 "
            "on NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 33")  # fmt: skip
    assert set(hits(line)) & KEYS == {"fabricmanager.nvswitch_fatal"}
    fm = CATALOG.signatures["fabricmanager.nvswitch_fatal"]
    assert fm.node_action == CATALOG.signatures["nvswitch.sxid_fatal"].node_action
