"""Golden lines from the seventh sweep, over the node's non-NVIDIA kernel drivers and platform
firmware as a GPU node's system log prints them: Ethernet NIC drivers (link down, Tx hangs,
adapter resets, NIC firmware faults, a NIC gone from PCIe, AWS ENA resets), bonding, libata's
error handler, SCSI sense data, MegaRAID / mpt3sas / hpsa / smartpqi controller faults, md RAID
member and array failures, APEI records (GHES sections, BERT), AMD's machine-check decoder,
rasdaemon, Intel EDAC's MCE banner, thermal shutdowns, smartd, Dell OpenManage, and the BMC's SEL in
ipmitool's CSV, as a bare row and as ipmievd logs it.

Each line is cited beside it (as the user pasted it, prefixes kept) and goes through the scanner's
own matcher. These lines are noisy in real fleets, so none of them names a node alone unless the
hardware said it failed (an uncorrected APEI record, AMD machine check or rasdaemon record, an
asserted IERR or memory UE in the SEL); lines that restate one episode another layer reports (a bond member, an ATA
UNC, a SCSI sense, md failing a member) are symptoms, so one episode stays below the threshold.
Healthy look-alikes (link up, an empty SATA port, Deasserted events, EDAC's version banner) must
not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import CATALOG, family_contract, golden_line_checks, hits

FAMILY_FILE = "signatures-sysdrivers.toml"
NAMESPACES = frozenset(
    {
        "eth",
        "bond",
        "ata",
        "scsi",
        "raid",
        "ghes",
        "mce",
        "ras",
        "edac",
        "thermal",
        "smart",
        "omsa",
        "sel",
    }
)

BLAME: dict[str, Blame] = {
    "eth.link_down": Blame.HARDWARE,
    "eth.tx_hang": Blame.HARDWARE,
    "eth.adapter_reset": Blame.SYMPTOM,
    "eth.pcie_link_lost": Blame.HARDWARE,
    "eth.mdd_event": Blame.SYMPTOM,
    "eth.nic_firmware_fault": Blame.HARDWARE,
    "eth.ena_device_reset": Blame.HARDWARE,
    "eth.ena_tx_missing": Blame.SYMPTOM,
    "bond.slave_down": Blame.SYMPTOM,
    "bond.no_active": Blame.HARDWARE,
    "ata.link_reset": Blame.INFO,
    "ata.link_error": Blame.SYMPTOM,
    "ata.device_disabled": Blame.HARDWARE,
    "ata.media_error": Blame.SYMPTOM,
    "scsi.sense_error": Blame.SYMPTOM,
    "scsi.command_failed": Blame.SYMPTOM,
    "scsi.device_offlined": Blame.HARDWARE,
    "scsi.io_rejected": Blame.SYMPTOM,
    "scsi.megaraid_fw_fault": Blame.HARDWARE,
    "scsi.mpt_fault": Blame.HARDWARE,
    "scsi.megaraid_event": Blame.HARDWARE,
    "scsi.controller_offline": Blame.HARDWARE,
    "raid.disk_failure": Blame.SYMPTOM,
    "raid.array_failed": Blame.HARDWARE,
    "ghes.error_type": Blame.HARDWARE,
    "ghes.section": Blame.INFO,
    "ghes.bert_uncorrected": Blame.HARDWARE,
    "thermal.critical_shutdown": Blame.HARDWARE,
    "smart.health_failed": Blame.HARDWARE,
    "omsa.hardware_failure": Blame.HARDWARE,
    "mce.amd_uncorrected": Blame.HARDWARE,
    "mce.amd_corrected": Blame.INFO,
    "ras.uncorrected": Blame.HARDWARE,
    "ras.corrected": Blame.INFO,
    "edac.mce_memory_error": Blame.INFO,
    "sel.critical": Blame.HARDWARE,
    "sel.pci_error": Blame.HARDWARE,
    "sel.environment": Blame.HARDWARE,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # ntop/PF_RING issue #293 (an ixgbe port of a bypass NIC flapping)
    (
        "Nov 17 13:16:56 superserver kernel: [11314.655315] ixgbe 0000:08:00.0 eth11: NIC Link is "
        "Down",
        "eth.link_down",
        {"driver": "ixgbe", "pci": "0000:08:00.0", "iface": "eth11"},
    ),
    # PartialVolume/shredos.x86_64 issue #212 (an e1000e port going down every few seconds)
    (
        "[28432.122502] e1000e 0000:00:1f.6 eth0: NIC Link is Down",
        "eth.link_down",
        {"driver": "e1000e", "iface": "eth0"},
    ),
    # ustclug/discussions issue #86 (a mirror server's NIC flapping; the older wording)
    (
        "[Sun Dec 25 20:12:49 2016] e1000e: eth1 NIC Link is Down",
        "eth.link_down",
        {"old_driver": "e1000e", "old_iface": "eth1"},
    ),
    # Avnu/OpenAvnu issue #210 (igb hanging, connections dropped)
    (
        "May  6 19:49:17 workstation kernel: [  126.166894] igb 0000:09:00.0: Detected Tx Unit Hang",
        "eth.tx_hang",
        {"driver": "igb", "pci": "0000:09:00.0", "unit": "Tx"},
    ),
    # intel/ethernet-linux-ixgbe issue #21 (an 82599ES under iperf3)
    (
        "[   57.585951] ixgbe 0000:01:00.0 eth2: Detected Tx Unit Hang",
        "eth.tx_hang",
        {"driver": "ixgbe", "iface": "eth2"},
    ),
    # istoreos/istoreos issue #1463 (an i225-V dropping off the network)
    (
        "[284188.749115] igc 0000:02:00.0 eth1: Detected Tx Unit Hang",
        "eth.tx_hang",
        {"driver": "igc"},
    ),
    # gislab-npo/gislab issue #407 and coolsnowwolf/lede issue #5854 (e1000e's wording)
    (
        "[ 9327.470501] e1000e 0000:00:19.0 eth0: Detected Hardware Unit Hang:",
        "eth.tx_hang",
        {"driver": "e1000e", "unit": "Hardware"},
    ),
    (
        "Tue Dec  1 17:07:50 2020 kern.err kernel: [ 1023.724378] e1000e 0000:00:19.0 eth0: Detected "
        "Hardware Unit Hang:",
        "eth.tx_hang",
        {"iface": "eth0"},
    ),
    # siderolabs/talos issue #8935 (Talos's kernel log prefix)
    (
        "kern:     err: [2024-06-29T10:52:39.030745602Z]: e1000e 0000:00:1f.6 eno1: Detected Hardware "
        "Unit Hang:",
        "eth.tx_hang",
        {"iface": "eno1"},
    ),
    # an ice report on a netdev thread (the recovery after a tx_timeout)
    (
        "[ +0.000012] ice 0000:b1:00.0 ens801f0np0: tx_timeout recovery level 1, txqueue 14",
        "eth.tx_hang",
        {"driver": "ice", "level": "1", "queue": "14"},
    ),
    # rendered from ixgbe_main.c ixgbe_clean_tx_irq (a homelab incident log quotes the same)
    (
        "ixgbe 0000:01:00.1 enp1s0f1: tx hang 1 detected on queue 3, resetting adapter",
        "eth.tx_hang",
        {"hang_queue": "3"},
    ),
    # a qemu-devel thread (e1000e after a NETDEV WATCHDOG timeout)
    (
        "[   19.982491] e1000e 0000:01:00.0 eth1: Reset adapter unexpectedly",
        "eth.adapter_reset",
        {"driver": "e1000e", "unexpected": " unexpectedly"},
    ),
    # coolsnowwolf/lede issue #9867 (an 82576 port resetting), the older ixgbe prefix
    ("igb 0000:01:00.0 eth0: Reset adapter", "eth.adapter_reset", {"driver": "igb"}),
    ("ixgbe 0000:04:00.0: eth0: Reset adapter", "eth.adapter_reset", {"iface": "eth0"}),
    # pcengines/apu2-documentation issue #174 (an igb port lost its PCIe link)
    (
        "Apr 20 21:44:24 sfo-router kernel: [127576.922378] igb 0000:02:00.0 enp2s0: PCIe link lost",
        "eth.pcie_link_lost",
        {"driver": "igb", "iface": "enp2s0"},
    ),
    # a netdev report (an i40e port of bond0 lost after an XDP ring disable timeout)
    (
        "[  336.603619] bond0: (slave eth1): link status definitely down, disabling slave",
        "bond.slave_down",
        {"bond": "bond0", "slave": "eth1"},
    ),
    # Red Hat solution 977393 and heidsoft/devops issue #105 (the older wording)
    (
        "bonding: bond0: link status definitely down for interface eth0, disabling it",
        "bond.slave_down",
        {"old_bond": "bond0", "old_slave": "eth0"},
    ),
    # a netdev report (bond1 after its only member went down)
    (
        "Jan 10 10:54:17 pytest-11.local [57253.352950] bond1: now running without any active "
        "interface!",
        "bond.no_active",
        {"bond": "bond1"},
    ),
    # FastVPSEestiOu/storage-system-monitoring issue #4 (a queued write timing out)
    (
        "[6411193.033913] ata1.00: exception Emask 0x0 SAct 0x1 SErr 0x0 action 0x6 frozen",
        "ata.link_reset",
        {"port": "ata1.00", "frozen": " frozen"},
    ),
    ("[6411193.034110] ata1: hard resetting link", "ata.link_reset", {"port": "ata1"}),
    # openzfs/zfs issue #4876 (IDENTIFY failing after the reset)
    (
        "[ 1610.995762] ata4.00: failed to IDENTIFY (I/O error, err_mask=0x5)",
        "ata.link_error",
        {"port": "ata4.00"},
    ),
    ("[ 1610.996026] ata4.00: revalidation failed (errno=-5)", "ata.link_error", {}),
    # ocaml/infrastructure issue #58 (a failed SSD)
    (
        "[1889515.216388] ata2.00: irq_stat 0x08000000, interface fatal error",
        "ata.link_error",
        {"port": "ata2.00"},
    ),
    ("[1889514.593008] ata2.00: error: { UNC }", "ata.media_error", {"device": "ata2.00"}),
    # a public RAID5 recovery note (airytail wiki: the disk given up on, then failed by md)
    ("[837950.972026] ata5: COMRESET failed (errno=-16)", "ata.link_error", {"port": "ata5"}),
    ("[838001.048076] ata5: reset failed, giving up", "ata.device_disabled", {"port": "ata5"}),
    ("[838001.048107] ata5.00: disabled", "ata.device_disabled", {"device": "ata5.00"}),
    # openebs/openebs issue #1433 (a worker's disk with unrecovered read errors)
    (
        "Apr 16 07:07:38 -worker-02 kernel: [33713.714314] sd 3:0:0:0: [sdb] tag#3 Sense Key : "
        "Medium Error [current] ",
        "scsi.sense_error",
        {"device": "sdb", "key": "Medium Error"},
    ),
    (
        "Apr 16 07:07:38 -worker-02 kernel: [33713.714293] sd 3:0:0:0: [sdb] tag#3 FAILED Result: "
        "hostbyte=DID_OK driverbyte=DRIVER_SENSE",
        "scsi.command_failed",
        {"device": "sdb", "driverbyte": "DRIVER_SENSE"},
    ),
    # a public mdadm disk-replacement post (blog.yucas.mx: older kernels print the key alone)
    ("[ 8347.731190] Sense Key : Medium Error [current] [descriptor]", "scsi.sense_error", {}),
    # eLvErDe/hwraid issue #136 (a MegaRAID 3916 faulting under megacli queries)
    (
        "[ 1661.722829] megaraid_sas 0000:18:00.0: FW in FAULT state Fault code:0x10000 "
        "subcode:0x0 func:megasas_wait_for_outstanding_fusion",
        "scsi.megaraid_fw_fault",
        {"pci": "0000:18:00.0", "code": "0x10000"},
    ),
    # a linux-scsi thread (the controller never became ready)
    (
        "[  570.269780] megaraid_sas 0000:01:00.0: FW in FAULT state, Fault code:0x10000 "
        "subcode:0x0 func:megasas_transition_to_ready",
        "scsi.megaraid_fw_fault",
        {"code": "0x10000"},
    ),
    # a public storage troubleshooting note (huataihuang cloud-atlas: mpt2sas faulting repeatedly)
    (
        "Feb 14 10:53:28 host1.example kernel: : mpt2sas0: fault_state(0x5841)!",
        "scsi.mpt_fault",
        {"ioc": "mpt2sas0", "code": "0x5841"},
    ),
    # an arm64 report on linux-scsi (the fault before an external abort)
    (
        "[  225.514159] mpt3sas_cm0: fault_state(0x5854)!",
        "scsi.mpt_fault",
        {"ioc": "mpt3sas_cm0", "code": "0x5854"},
    ),
    # 1000001101000/Debian_on_Buffalo issue #161 (a NAS disk failing out of md2, then the array)
    (
        "[19732.877363] md/raid:md2: Disk failure on sdb6, disabling device.",
        "raid.disk_failure",
        {"level": "raid", "array": "md2", "device": "sdb6"},
    ),
    (
        "[19732.883399] md/raid:md2: Cannot continue operation (2/4 failed).",
        "raid.array_failed",
        {"array": "md2", "failed": "2", "total": "4"},
    ),
    (
        "[19733.957349] sd 0:1:0:0: [sdb] tag#5 Sense Key : Medium Error [current]",
        "scsi.sense_error",
        {"device": "sdb"},
    ),
    # a course exercise's dmesg (raid1 member failed by hand: the same text)
    (
        "[ 4163.968369] md/raid1:md0: Disk failure on sdb1, disabling device.",
        "raid.disk_failure",
        {"level": "raid1", "array": "md0", "device": "sdb1"},
    ),
    # ovro-lwa/lwa-issues issue #117 (a GPU server's recoverable PCIe error record, an NVMe)
    (
        "[11219.196576] {1}[Hardware Error]:  Error 0, type: recoverable",
        "ghes.error_type",
        {"index": "0", "type": "recoverable"},
    ),
    (
        "[11219.196591] {1}[Hardware Error]:   section_type: PCIe error",
        "ghes.section",
        {"section": "PCIe error"},
    ),
    (
        "[11219.196715] EDAC skx MC3: HANDLING MCE MEMORY ERROR",
        "edac.mce_memory_error",
        {"driver": "skx", "mc": "3"},
    ),
    # a kernel mailing-list report (a fatal PCIe record from a root port, then an oops)
    (" {1}[Hardware Error]:  Error 0, type: fatal", "ghes.error_type", {"type": "fatal"}),
    # radiasoft/devops issue #134 (sbridge, beside a corrected scrubbing error)
    (
        "Feb 23 03:28:16 kernel: EDAC sbridge MC1: HANDLING MCE MEMORY ERROR",
        "edac.mce_memory_error",
        {"driver": "sbridge", "mc": "1"},
    ),
    # rendered from ipmitool's CSV output (lib/ipmi_sel.c with -c; the event of open-power/op-build
    # issue #607's checkstop)
    (
        "89,08/31/2016,06:20:30,Processor #0xc9,IERR,Asserted",
        "sel.critical",
        {"sensor": "Processor #0xc9", "event": "IERR"},
    ),
    (
        "3c,12/14/2022,23:15:02,Memory #0x88,Uncorrectable ECC,Asserted",
        "sel.critical",
        {"sensor": "Memory #0x88", "event": "Uncorrectable ECC"},
    ),
    # rendered from ipmievd's log_event ("%s sensor %s %s %s")
    (
        "Processor sensor CPU1 Status IERR Asserted",
        "sel.critical",
        {"evd_sensor": "Processor", "evd_event": "IERR"},
    ),
    # the bare SEL rows the sweep's probe found unmatched (no id and date columns)
    (
        "Critical Interrupt #0x1b | PCI PERR | Asserted",
        "sel.pci_error",
        {"sensor": "Critical Interrupt #0x1b", "event": "PCI PERR"},
    ),
    ("Processor | IERR | Asserted", "sel.critical", {"sensor": "Processor", "event": "IERR"}),
    (
        "Power Supply #0x51 | Failure detected | Asserted",
        "sel.environment",
        {"sensor": "Power Supply #0x51", "event": "Failure detected"},
    ),
    # rendered from ipmievd's threshold form (ipmi_sel.h's "Lower Critical going low " keeps its
    # trailing space, hence two before the direction)
    (
        "Fan sensor FAN1 Lower Critical going low  Asserted (Reading 0 < Threshold 300 RPM)",
        "sel.environment",
        {"evd_sensor": "Fan", "evd_event": "Lower Critical going low"},
    ),
    (
        "Power Supply sensor PS2 Status - Failure detected Asserted",
        "sel.environment",
        {"evd_sensor": "Power Supply"},
    ),
    # a netdev report on bnx2x (the PHY unreachable, then the link down); a tg3 LOM on a
    # netdev/regressions report ("Link is down" in tg3's own wording)
    (
        "[9251.911020] bnx2x 0000:03:00.0 ksdev0: NIC Link is Down",
        "eth.link_down",
        {"driver": "bnx2x", "iface": "ksdev0"},
    ),
    (
        "[140077.602708] tg3 0000:01:00.0 eth0: Link is down",
        "eth.link_down",
        {"tg3_pci": "0000:01:00.0", "tg3_iface": "eth0"},
    ),
    # a netdev bnxt_en commit message quoting the driver after a NETDEV WATCHDOG timeout
    (
        "bnxt_en 0000:04:00.0 eth0: TX timeout detected, starting reset task!",
        "eth.tx_hang",
        {"driver": "bnxt_en", "iface": "eth0"},
    ),
    # a netdev report on i40e (Malicious Driver Detection resetting the PF)
    (
        "[  +0,000252] i40e 0000:60:00.0: TX driver issue detected, PF reset issued",
        "eth.mdd_event",
        {"driver": "i40e", "dir": "TX"},
    ),
    # rendered from ice_main.c ice_handle_mdd_event
    (
        "ice 0000:17:00.0: Malicious Driver Detection event 2 on TX queue 30 PF# 0 VF# 0",
        "eth.mdd_event",
        {"driver": "ice", "event": "2", "queue": "30"},
    ),
    # a ceph-users report (an HPE Smart Array locking up under its OSDs)
    (
        "2020-06-16T14:59:36.6272 warning kern kernel  [679648.874179] hpsa 0000:06:00.0: Controller "
        "lockup detected: 0x0015002f after 30",
        "scsi.controller_offline",
        {"driver": "hpsa", "code": "0x0015002f"},
    ),
    # a linux-scsi report on smartpqi (a driver regression between 5.4 and 5.9)
    (
        "kernel: smartpqi 0000:89:00.0: controller is offline: status code 0x6100c",
        "scsi.controller_offline",
        {"driver": "smartpqi", "status": "0x6100c"},
    ),
    # BurntSushi/ripgrep issue #2896 (an AM5 desktop hanging; the fatal MCE in the journal)
    (
        "Sep 18 20:41:10 archlinux kernel: [Hardware Error]: System Fatal error.",
        "mce.amd_uncorrected",
        {"status": "System Fatal error"},
    ),
    (
        "Sep 18 20:41:10 archlinux kernel: [Hardware Error]: CPU:2 (19:21:0) "
        "MC5_STATUS[-|UE|MiscV|AddrV|PCC|TCC|SyndV|-|-|-]: 0xbea0000001000108",
        "mce.amd_uncorrected",
        {"cpu": "2", "bank": "5"},
    ),
    # rendered from mce_amd.c decode_error_status
    (
        "mce: [Hardware Error]: Uncorrected, software restartable error.",
        "mce.amd_uncorrected",
        {"status": "Uncorrected, software restartable error"},
    ),
    # oracle/oracle-linux issue #166 (HPE's firmware-first corrected errors on EPYC Milan)
    (
        "[Hardware Error]: CPU:0 (17:31:0) MC255_STATUS[-|CE|-|-|AddrV|-|-|-]",
        "mce.amd_corrected",
        {"cpu": "0", "bank": "255"},
    ),
    # mchehab/rasdaemon issue #121 (a corrected DRAM ECC error after tightened timings)
    (
        "[Hardware Error]: Corrected error, no action required.",
        "mce.amd_corrected",
        {"status": "Corrected error, no action required"},
    ),
    # a linux-acpi patch by Punit Agrawal (2020-05: BERT replaying a fatal record at boot)
    ("    [Hardware Error]: event severity: fatal", "ghes.bert_uncorrected", {"severity": "fatal"}),
    ("    [Hardware Error]:  Error 0, type: fatal", "ghes.error_type", {"type": "fatal"}),
    # a public postmortem's boot log (BERT replaying a processor error of the crash before)
    (
        "[Mon Jul 13 21:29:30 2026] [Hardware Error]:   section_type: IA32/X64 processor error",
        "ghes.section",
        {"section": "IA32/X64 processor error"},
    ),
    # a Linux Mint forum thread (a thermal zone shutting the machine down at every boot)
    (
        "Jan  3 11:19:54 Mirkwood kernel: [   42.487785] thermal thermal_zone4: critical temperature "
        "reached (128 C), shutting down",
        "thermal.critical_shutdown",
        {"zone": "4", "temp": "128"},
    ),
    # rendered from thermal_core.c on newer kernels (the zone's type, no reading)
    (
        "thermal thermal_zone0: acpitz: critical temperature reached, shutting down",
        "thermal.critical_shutdown",
        {"zone": "0", "type": "acpitz"},
    ),
    # a linux-bcache thread (a MegaRAID enclosure PHY going bad under bcache)
    (
        "megaraid_sas 0000:02:00.0: 1512 (595831198s/0x0004/CRIT) - Enclosure PD 20(c None/p1) phy "
        "bad for slot 7",
        "scsi.megaraid_event",
        {"class": "CRIT", "event": "Enclosure PD 20(c None/p1) phy bad for slot 7"},
    ),
    # rendered from megasas_decode_evt (a FATAL-class event, the boot-relative time form)
    (
        "megaraid_sas 0000:02:00.0: 251 (boot + 25s/0x0001/FATAL) - Controller encountered a fatal "
        "error and was reset",
        "scsi.megaraid_event",
        {"class": "FATAL", "seq": "251"},
    ),
    # rendered from bnxt.c bnxt_fw_exception and bnxt_try_recover_fw
    (
        "bnxt_en 0000:3b:00.0 ens1f0np0: Detected firmware fatal condition, initiating reset",
        "eth.nic_firmware_fault",
        {"pci": "0000:3b:00.0", "iface": "ens1f0np0"},
    ),
    (
        "bnxt_en 0000:3b:00.0: Firmware not responding, status: 0x80000000",
        "eth.nic_firmware_fault",
        {"status": "0x80000000"},
    ),
    # a netdev report on an I225 (the link lost while probing) and a debian-user thread
    (
        "[    1.571098] igc 0000:70:00.0 (unnamed net_device) (uninitialized): PCIe link lost, device "
        "now detached",
        "eth.pcie_link_lost",
        {"driver": "igc", "pci": "0000:70:00.0"},
    ),
    (
        "Okt 06 05:44:20 Zwerg kernel: igc 0000:0a:00.0 eno1: PCIe link lost, device now detached",
        "eth.pcie_link_lost",
        {"iface": "eno1"},
    ),
    # openstreetmap/operations issues #579 and #158 (smartd's mail on an HP Smart Array and a
    # MegaRAID disk; both disks were replaced)
    (
        "Device: /dev/sg1 [cciss_disk_02] [SCSI], SMART Failure: HARDWARE IMPENDING FAILURE GENERAL "
        "HARD DRIVE FAILURE",
        "smart.health_failed",
        {"device": "/dev/sg1"},
    ),
    (
        "Device: /dev/sg2 [megaraid_disk_29], SMART Failure: HARDWARE IMPENDING FAILURE GENERAL HARD "
        "DRIVE FAILURE",
        "smart.health_failed",
        {"device": "/dev/sg2"},
    ),
    # a German admin blog's syslog (two NVMe drives' reliability warning)
    (
        "Sep  8 00:15:11 helsinki smartd[2313]: Device: /dev/nvme0, Critical Warning (0x04): "
        "Reliability",
        "smart.health_failed",
        {"device": "/dev/nvme0", "warning": "0x04", "flags": "Reliability"},
    ),
    # rendered from smartd.cpp (an ATA disk failing its SMART status)
    (
        "Jun 20 10:23:48 host smartd[1234]: Device: /dev/sdb [SAT], FAILED SMART self-check. BACK UP "
        "DATA NOW!",
        "smart.health_failed",
        {"device": "/dev/sdb"},
    ),
    # lausser/check_logfiles t/ (a Dell server's OMSA syslog: a failed power supply)
    (
        "gateway1 Server Administrator: Instrumentation Service EventID: 1354  Power supply detected "
        "a failure  Sensor location: PS 2 Status   Chassis location: Main System Chassis  Previous "
        "state was: Unknown  Power Supply type: AC  Power Supply state: Presence detected, Failure "
        "detected, AC lost",
        "omsa.hardware_failure",
        {"event_id": "1354", "event": "Power supply detected a failure"},
    ),
    # the ENA driver's README in amzn/amzn-drivers (its reset procedure)
    (
        "[18509.800135] ena 0000:00:07.0 eth1: Keep alive watchdog timeout.",
        "eth.ena_device_reset",
        {"pci": "0000:00:07.0", "iface": "eth1"},
    ),
    # rendered from ena_netdev.c check_for_missing_completions
    (
        "ena 0000:00:05.0 eth0: The number of lost tx completions is above the threshold (129 > "
        "128). Reset the device",
        "eth.ena_device_reset",
        {"lost": "129", "threshold": "128"},
    ),
    # amzn/amzn-drivers issue #134 (an instance whose ENA kept restarting)
    (
        "Jul 14 10:10:21 myserver.hostname kernel: ena 0000:00:05.0 eth0: Found a Tx that wasn't "
        "completed on time, qid 2, index 961.",
        "eth.ena_tx_missing",
        {"qid": "2", "index": "961"},
    ),
    # the sweep brief's probe rows without a direction column
    ("Processor | IERR", "sel.critical", {"sensor": "Processor", "event": "IERR"}),
    ("Power Supply | Failure detected", "sel.environment", {"sensor": "Power Supply"}),
    (
        "Fan | Lower Critical going low",
        "sel.environment",
        {"sensor": "Fan", "event": "Lower Critical going low"},
    ),
    # mchehab/rasdaemon pull request #209 (its trace log with event levels)
    (
        " <...>-1367638 [026] d.H.     0.024825 mc_event [CRIT] 2025-03-28 13:28:48 +0800 1 "
        "Uncorrected error: multi-bit ECC on unknown memory (mc: 0 address: 0xe53218400 grain: 0 "
        "APEI location: node:0 card:2 module:0 rank:0 bank_group:4 bank_address:0 row:25906 "
        "column:64 chip_id:0 status(0x0000000000000400): Storage error in DRAM memory)",
        "ras.uncorrected",
        {"count": "1", "kind": "Uncorrected"},
    ),
    # NixOS/infra pull request #523 (`ras-mc-ctl --errors` on an AMD host)
    (
        "1 2024-12-19 03:52:38 +0000 error: Corrected error, no action required., CPU 2, bank "
        "Unified Memory Controller (bank=17), mcg mcgstatus=0, mci CECC, memory_channel=0,csrow=1",
        "ras.corrected",
        {"status": "Corrected error, no action required", "cpu": "2"},
    ),
    # rendered from rasdaemon's ras-mc-handler.c (a corrected event in its trace log)
    (
        "<...>-1234 [000] .... 0.000001 mc_event 2023-12-17 12:00:00 +0000 1 Corrected error: "
        "memory read error on CPU_SrcID#0_MC#0_Chan#1_DIMM#0",
        "ras.corrected",
        {"kind": "Corrected"},
    ),
    # public reports of an LSI HBA gone (after an unknown NMI; an mpt2sas repeating every second)
    (
        "[1513141.839140] mpt3sas_cm0: SAS host is non-operational !!!!",
        "scsi.controller_offline",
        {"ioc": "mpt3sas_cm0"},
    ),
    (
        "[  317.001498] mpt2sas_cm0: SAS host is non-operational !!!!",
        "scsi.controller_offline",
        {"ioc": "mpt2sas_cm0"},
    ),
    # public forum logs (a disk the SCSI error handler gave up on; an aacraid host's older form)
    (
        "Jan  6 17:17:58 caspar kernel: [  599.056482] sd 2:0:0:0: Device offlined - not ready "
        "after error recovery",
        "scsi.device_offlined",
        {"hctl": "2:0:0:0"},
    ),
    (
        "Sep 28 16:06:12 kasparov kernel: scsi: Device offlined - not ready after error recovery: "
        "host 1 channel 0 id 0 lun 0",
        "scsi.device_offlined",
        {},
    ),
    # 1000001101000/Debian_on_Buffalo issue #161
    (
        "[19732.853494] sd 0:1:0:0: rejecting I/O to offline device",
        "scsi.io_rejected",
        {"hctl": "0:1:0:0"},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # link up, in each driver's wording
    ("eth.link_down", "ixgbe 0000:08:00.0 eth11: NIC Link is Up 10 Gbps, Flow Control: RX"),
    (
        "eth.link_down",
        "[ 1653.377085] igb 0000:02:00.1 enp2s0f1: igb: enp2s0f1 NIC Link is Up 100 Mbps Full "
        "Duplex, Flow Control: RX/TX",
    ),
    ("eth.link_down", "bnxt_en 0000:3b:00.0 ens1f0np0: NIC Link is Up, 25000 Mbps full duplex"),
    # the mlx5 driver's own link lines are the kernel family's
    ("eth.link_down", "mlx5_core 0000:3b:00.1 eth1: Link down"),
    # ixgbe's routine flush after a link loss is not a hang
    (
        "eth.tx_hang",
        "[ 7095.293221] ixgbe 0000:01:00.0 enp1s0f0: initiating reset to clear Tx work after "
        "link loss",
    ),
    ("eth.tx_hang", "i40e 0000:d8:00.1: VSI seid 391 XDP Tx ring 0 disable timeout"),
    # an embedded MAC's reset is not one of these drivers'
    ("eth.adapter_reset", "rk_gmac-dwmac fe1c0000.ethernet eth0: Reset adapter."),
    ("bond.slave_down", "bond0: (slave eth1): link status definitely up, 40000 Mbps full duplex"),
    ("bond.slave_down", "bond1: (slave swp2): Enslaving as a backup interface with a down link"),
    ("bond.no_active", "bond0: active interface up!"),
    # a healthy link, an empty port, EH finishing
    ("ata.link_reset", "ata1: SATA link up 6.0 Gbps (SStatus 133 SControl 300)"),
    ("ata.link_error", "[6411193.034110] ata1: hard resetting link"),
    (
        "ata.link_reset",
        "Jun 14 10:05:53 bazzite kernel: ata1: SATA link down (SStatus 0 SControl 300)",
    ),
    ("ata.link_reset", "[6411196.495349] ata1: EH complete"),
    ("ata.device_disabled", "ata1.00: configured for UDMA/133"),
    ("ata.media_error", "[    6.607327] ata1.00: error: { ABRT }"),
    # sense keys that are not the disk's fault
    (
        "scsi.sense_error",
        "[  611.175527] sd 0:0:0:0: [sda] tag#0 Sense Key : Aborted Command [current] ",
    ),
    ("scsi.sense_error", "sd 2:0:0:0: [sdb] Sense Key : Unit Attention [current] "),
    # the transport's failures are storage.scsi_host_failed's
    (
        "scsi.command_failed",
        "sd 4:0:0:0: [sdc] tag#1 FAILED Result: hostbyte=DID_BAD_TARGET driverbyte=DRIVER_OK",
    ),
    ("scsi.megaraid_fw_fault", "megaraid_sas 0000:18:00.0: FW now in Ready state"),
    ("scsi.mpt_fault", "mpt3sas_cm0: diag reset: SUCCESS"),
    ("raid.disk_failure", "md/raid:md0: read error corrected (8 sectors at 385878128 on sde1)"),
    ("raid.disk_failure", "23:54:39,681 INFO kernel:md/raid1:md0: active with 2 out of 2 mirrors"),
    # a corrected record
    (
        "ghes.error_type",
        "Jun 27 20:05:29 server kernel: {10}[Hardware Error]:  Error 0, type: corrected",
    ),
    ("edac.mce_memory_error", "EDAC MC: Ver: 3.0.0"),
    ("edac.mce_memory_error", "EDAC skx: ECC is disabled on imc 0"),
    (
        "eth.link_down",
        "[140081.391091] tg3 0000:01:00.0 eth0: Link is up at 1000 Mbps, full duplex",
    ),
    ("eth.mdd_event", "i40e 0000:60:00.0: cleared PE_CRITERR"),
    ("scsi.controller_offline", "smartpqi 0000:23:00.0: Microsemi Smart Family Controller found"),
    ("mce.amd_uncorrected", "[ 0.600116] [Hardware Error]: Error Addr: 0x01ffffffc100201c"),
    ("mce.amd_uncorrected", "[Hardware Error]: CPU:0 (17:31:0) MC255_STATUS[-|CE|-|-|AddrV|-|-|-]"),
    ("mce.amd_corrected", "[Hardware Error]: System Fatal error."),
    # GHES's own severity line is ghes.uncorrected's; corrected records are not uncorrected
    ("ghes.bert_uncorrected", "{1}[Hardware Error]: event severity: fatal"),
    ("ghes.bert_uncorrected", "[Hardware Error]: event severity: corrected"),
    ("thermal.critical_shutdown", "thermal thermal_zone0: failed to read out thermal zone (-61)"),
    (
        "scsi.megaraid_event",
        "megaraid_sas 0000:02:00.0: 97 (652363830s/0x0002/WARN) - Predictive failure: PD 03(e0x20/s3)",
    ),
    (
        "scsi.megaraid_event",
        "megaraid_sas 0000:02:00.0: 98 (652363830s/0x0002/info) - Rebuild complete on PD 03(e0x20/s3)",
    ),
    ("eth.nic_firmware_fault", "bnxt_en 0000:3b:00.0 p1p1: Firmware reset request successful."),
    (
        "smart.health_failed",
        "smartd[1234]: Device: /dev/sda [SAT], SMART Usage Attribute: 194 Temperature_Celsius "
        "changed from 64 to 65",
    ),
    ("smart.health_failed", "smartd[1234]: Device: /dev/sda [SAT], opened"),
    # OMSA's warning and normal-state events (lausser/check_logfiles t/)
    (
        "omsa.hardware_failure",
        "gateway1 Server Administrator: Instrumentation Service EventID: 1053  Temperature sensor "
        "detected a warning value  Sensor location: BMC Ambient Temp",
    ),
    (
        "omsa.hardware_failure",
        "gateway1 Server Administrator: Instrumentation Service EventID: 1001  Server Administrator "
        "startup complete",
    ),
    ("eth.ena_device_reset", "[18509.815244] ena 0000:00:07.0 eth1: Trigger reset is on"),
    ("eth.ena_device_reset", "ena 0000:00:05.0: Device reset completed successfully"),
    ("sel.critical", "Processor | IERR | Deasserted"),
    ("sel.critical", "Processor | Presence detected"),
    ("sel.environment", "Fan | Lower Non-critical going low"),
    ("ras.uncorrected", "rasdaemon: Recording mc_event events"),
    ("ras.corrected", "rasdaemon: Recording mc_event events"),
    ("scsi.device_offlined", "sd 2:0:0:0: [sdb] Attached SCSI removable disk"),
    ("scsi.io_rejected", "sd 0:1:0:0: [sdb] Synchronizing SCSI cache"),
    ("scsi.controller_offline", "[   20.179842] mpt2sas_cm0: port enable: SUCCESS"),
    ("ghes.error_type", "{8}[Hardware Error]:  Error 0, type: corrected"),
    # Deasserted and non-critical SEL events
    ("sel.critical", "3d,12/14/2022,23:15:09,Memory #0x88,Uncorrectable ECC,Deasserted"),
    ("sel.pci_error", "Critical Interrupt #0x1b | PCI SERR | Deasserted"),
    (
        "sel.environment",
        "Fan sensor FAN1 Lower Critical going low  Deasserted (Reading 1200 > Threshold 300 RPM)",
    ),
    (
        "sel.environment",
        "Temperature sensor CPU1 Temp Upper Non-critical going high Asserted (Reading 86 > "
        "Threshold 85 degrees C)",
    ),
    # ipmitool's own table is signatures-bmc.toml's
    ("sel.critical", "  89 | 08/31/2016 | 06:20:30 | Processor #0xc9 | IERR | Asserted"),
    (
        "sel.pci_error",
        " 36   | 04/13/2025, 03:08:16 | BIOS             | Critical Interrupt                 | "
        "PCI SERR - Asserted",
    ),
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
) = family_contract({FAMILY_FILE: NAMESPACES}, BLAME)


# The hardware said it failed: an uncorrected GHES or BERT record, an uncorrected AMD machine
# check, an asserted IERR or memory UE in the SEL.
DECISIVE = frozenset(
    {
        "ghes.error_type",
        "ghes.bert_uncorrected",
        "mce.amd_uncorrected",
        "ras.uncorrected",
        "sel.critical",
    }
)


def test_routine_noise_never_names_a_node() -> None:
    """Link flaps, bond failovers, SATA resets, failed disks and controller faults are common
    in healthy fleets (a management port, an unused port, `mdadm --fail`, a megacli query):
    below the weight that names a node alone."""
    for key in BLAME.keys() - DECISIVE:
        assert CATALOG.signatures[key].weight < 60, key


def test_the_hardware_said_it_failed() -> None:
    """An uncorrected GHES section or AMD machine check, an asserted IERR or memory UE: the node's."""
    for key in DECISIVE:
        sig = CATALOG.signatures[key]
        assert sig.weight >= 60, key
        assert sig.node_action.value == "inspect", key


def test_consequences_decide_nothing() -> None:
    """An adapter reset, an MDD reset, a late ENA completion, a bond member disabled and a failed
    SCSI command restate a cause logged beside them."""
    for key in (
        "eth.adapter_reset",
        "eth.mdd_event",
        "eth.ena_tx_missing",
        "bond.slave_down",
        "scsi.command_failed",
        "scsi.io_rejected",
    ):
        sig = CATALOG.signatures[key]
        assert sig.weight < 20, key
        assert sig.node_action.value == "none", key


def test_full_ipmitool_rows_stay_with_the_bmc_family() -> None:
    """A row of ipmitool's `sel elist` table is read once, by signatures-bmc.toml."""
    found = hits("  89 | 08/31/2016 | 06:20:30 | Processor #0xc9 | IERR | Asserted")
    assert "bmc.processor_error" in found
    assert not {k for k in found if k.startswith("sel.")}


def _score(lines: list[str]) -> tuple[int, dict[str, int]]:
    """attribution's node score for these lines: the strongest hardware signal, +5 for each
    further distinct one."""
    hardware: dict[str, int] = {}
    for line in lines:
        for key in hits(line):
            sig = CATALOG.signatures[key]
            if sig.blame is Blame.HARDWARE:
                hardware[key] = sig.weight
    if not hardware:
        return 0, hardware
    return max(hardware.values()) + 5 * (len(hardware) - 1), hardware


def test_one_bad_sector_does_not_name_the_node() -> None:
    """ocaml/infrastructure issue #58: one unreadable sector, reported by libata, the SCSI layer
    and the block layer, is one hardware signal (the block layer's), below the threshold."""
    score, hardware = _score(
        [
            "[1889514.592624] ata2.00: exception Emask 0x0 SAct 0x5c50001f SErr 0x0 action 0x0",
            "[1889514.593008] ata2.00: error: { UNC }",
            "[1889514.599865] sd 1:0:0:0: [sdb] tag#22 FAILED Result: hostbyte=DID_OK "
            "driverbyte=DRIVER_OK cmd_age=0s",
            "[1889514.599873] sd 1:0:0:0: [sdb] tag#22 Sense Key : Medium Error [current] ",
            "[1889514.599888] blk_update_request: I/O error, dev sdb, sector 93827644 op 0x0:(READ) "
            "flags 0x80700 phys_seg 5 prio class 0",
        ]
    )
    assert score < 60, hardware


def test_one_dead_disk_does_not_name_the_node_alone() -> None:
    """A public RAID5 recovery note (airytail wiki): COMRESET failures, libata giving up, the block
    layer's I/O errors and md failing the member are one dead disk: below the threshold until the
    job's own I/O errors corroborate it."""
    score, hardware = _score(
        [
            "[837950.972026] ata5: COMRESET failed (errno=-16)",
            "[838001.048076] ata5: reset failed, giving up",
            "[838001.048107] ata5.00: disabled",
            "[838001.050950] blk_update_request: I/O error, dev sdc, sector 522330112 op 0x1:(WRITE) "
            "flags 0x0 phys_seg 1 prio class 0",
            "md/raid:md1: Disk failure on sdc, disabling device.",
        ]
    )
    assert score < 60, hardware


def test_one_nic_episode_does_not_name_the_node() -> None:
    """A Tx hang with its watchdog timeout, the reset's link down and the bond's restatement are
    one event: the node's hardware score stays below the threshold (the bond line is a symptom)."""
    lines = [
        "NETDEV WATCHDOG: eth2 (ixgbe): transmit queue 3 timed out",
        "ixgbe 0000:01:00.0 eth2: Detected Tx Unit Hang",
        "ixgbe 0000:01:00.0 eth2: NIC Link is Down",
        "bond0: (slave eth2): link status definitely down, disabling slave",
        "ixgbe 0000:01:00.0 eth2: Reset adapter",
        "ata1: hard resetting link",
    ]
    score, hardware = _score(lines)
    assert score < 60, hardware
