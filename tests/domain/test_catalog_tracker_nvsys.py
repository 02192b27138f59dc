"""Golden lines from the sweep over the NVIDIA stack's system side (signatures-nvsys.toml): the
kernel driver's start-up refusals (an unpowered GPU, a GPU the installed driver does not support,
a BAR the firmware left unassigned), its RM/GSP diagnostics, the fabric manager and persistence
daemon units failing in the journal, nvidia-peermem's invalidation notice and a large GPU BAR the
kernel could not place.

Each line is cited beside it and goes through the scanner's own matcher; the blame is pinned to
what the line's emitter means (a missing power cable the node's device, a refused install or a
failed service the node's setup below the threshold, a driver self-check or RPC failure a
symptom of the fault beside it). Look-alikes (module banners, units that started, BARs that were
assigned or are harmless) must not match.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import (
    CATALOG,
    assert_no_match,
    assert_no_node_action,
    family_contract,
    family_keys,
    found,
    golden_line_checks,
    hits,
)

FAMILY_FILE = "signatures-nvsys.toml"
NAMESPACES = frozenset(
    {
        "nvrm",
        "fabricmanager",
        "persistenced",
        "peermem",
        "pci",
        "modprobe",
        "kmod",
        "installer",
        "hostengine",
        "nvswitch",
        "dkms",
        "drivercontainer",
    }
)

BLAME: dict[str, Blame] = {
    "nvrm.power_cables_missing": Blame.HARDWARE,
    "nvrm.gpu_unsupported": Blame.HARDWARE,
    "nvrm.crash_dump_created": Blame.HARDWARE,
    "nvrm.thread_timeout": Blame.SYMPTOM,
    "nvrm.assertion_failed": Blame.SYMPTOM,
    "nvrm.gsp_rpc_failed": Blame.SYMPTOM,
    "nvrm.gsp_rpc_gpu_lost": Blame.HARDWARE,
    "nvrm.memsys_error": Blame.HARDWARE,
    "nvrm.no_device_initialized": Blame.HARDWARE,
    "nvrm.bar_invalid": Blame.HARDWARE,
    "nvrm.vbios_copy_failed": Blame.HARDWARE,
    "nvrm.bad_register_read": Blame.HARDWARE,
    "nvrm.fsp_timeout": Blame.HARDWARE,
    "nvrm.attach_failed": Blame.HARDWARE,
    "nvrm.nvlink_rxdet_failed": Blame.HARDWARE,
    "nvrm.gpu_claimed_by_other_driver": Blame.HARDWARE,
    "modprobe.nvidia_module_missing": Blame.HARDWARE,
    "modprobe.nvidia_insert_failed": Blame.HARDWARE,
    "modprobe.nvidia_insert_refused": Blame.APPLICATION,  # the kernel's policy (session 36)
    "kmod.nvidia_symbol_mismatch": Blame.HARDWARE,
    "installer.module_load_failed": Blame.HARDWARE,
    "dkms.nvidia_build_failed": Blame.HARDWARE,
    "drivercontainer.unload_failed": Blame.SYMPTOM,
    "drivercontainer.kernel_unresolved": Blame.HARDWARE,  # msched (session 23)
    "hostengine.start_failed": Blame.HARDWARE,
    "nvswitch.version_mismatch": Blame.HARDWARE,
    "fabricmanager.start_failed": Blame.HARDWARE,
    "fabricmanager.gpu_nvl_nonfatal": Blame.HARDWARE,
    "fabricmanager.trunk_port_failure": Blame.SYMPTOM,
    "persistenced.start_failed": Blame.HARDWARE,
    "peermem.free_callback_invalid": Blame.SYMPTOM,
    "pci.bar_assign_failed": Blame.SYMPTOM,
    "pci.nvidia_probe_failed": Blame.HARDWARE,
}

SYMPTOMS = tuple(key for key, blame in BLAME.items() if blame is Blame.SYMPTOM)
NODE_SETUP = ("nvrm.gpu_unsupported", "nvrm.bar_invalid", "fabricmanager.start_failed",
              "persistenced.start_failed", "nvrm.gpu_claimed_by_other_driver",
              "modprobe.nvidia_module_missing", "modprobe.nvidia_insert_failed",
              "kmod.nvidia_symbol_mismatch", "installer.module_load_failed",
              "hostengine.start_failed", "nvswitch.version_mismatch",
              "dkms.nvidia_build_failed", "pci.nvidia_probe_failed")  # fmt: skip

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # a Tesla M40 homelab report found through the code index (journalctl before RmInitAdapter
    # failed! (0x24:0x1c:1603)); the format is osinit.c's NV_ERR_INSUFFICIENT_POWER text
    (
        "NVRM: GPU 0000:01:00.0: GPU does not have the necessary power cables connected.",
        "nvrm.power_cables_missing",
        {"pci": "0000:01:00.0"},
    ),
    # the same with a journal prefix (rendered from the format, as the brief's probe line)
    (
        "Mar 14 09:02:10 gpu-n07 kernel: NVRM: GPU 0000:3b:00.0: GPU does not have the necessary "
        "power cables connected.",
        "nvrm.power_cables_missing",
        {"pci": "0000:3b:00.0"},
    ),
    # MrMEEE/ironhide issue #141 (the oldest wrap: the version on the second line)
    (
        "[  666.185562] NVRM: in this system is not supported by the 280.13 NVIDIA Linux",
        "nvrm.gpu_unsupported",
        {"version": "280.13"},
    ),
    # Bumblebee-Project/Bumblebee issue #810 (367.57's wrap)
    (
        "               NVRM: installed in this system is not supported by the 367.57",
        "nvrm.gpu_unsupported",
        {"version": "367.57"},
    ),
    # negativo17/nvidia-driver issue #158 (the open modules on a GT 1030, which has no GSP)
    (
        "             NVRM: installed in this system is not supported by open",
        "nvrm.gpu_unsupported",
        {},
    ),
    (
        "             NVRM: nvidia.ko because it does not include the required GPU",
        "nvrm.gpu_unsupported",
        {},
    ),
    # the header lines alone: Bumblebee-Project/Bumblebee issue #810 (367.57),
    # MrMEEE/ironhide issue #141 (280.13, "installed" on the header)
    (
        "[   73.757880] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:13b0)",
        "nvrm.gpu_unsupported",
        {"header_pci": "0000:01:00.0", "header_pci_id": "10de:13b0"},
    ),
    (
        "[  666.185557] NVRM: The NVIDIA GPU 0000:04:00.0 (PCI ID: 10de:0a76) installed",
        "nvrm.gpu_unsupported",
        {"header_pci_id": "10de:0a76"},
    ),
    # osapi.c's print_unsupported as a journal joins its lines (rendered)
    (
        "NVRM: The NVIDIA GPU 0000:3b:00.0 (PCI ID: 10de:20b0) installed in this system is not "
        "supported by the NVIDIA 470.57 driver release.",
        "nvrm.gpu_unsupported",
        {"pci": "0000:3b:00.0", "pci_id": "10de:20b0", "version": "470.57"},
    ),
    # akash-network/support issue #209 (a provider node after XID 79)
    (
        "[Fri Apr  5 21:29:39 2024] NVRM: A GPU crash dump has been created. If possible, please "
        "run",
        "nvrm.crash_dump_created",
        {},
    ),
    (
        "                           NVRM: nvidia-bug-report.sh as root to collect this data before",
        "nvrm.crash_dump_created",
        {},
    ),
    # a dmesg after XID 79 found through the code index (an eGPU that fell off the bus)
    (
        "[  239.061398] NVRM: A GPU crash dump has been created. If possible, please run",
        "nvrm.crash_dump_created",
        {},
    ),
    (
        "               NVRM: nvidia-bug-report.sh as root to collect this data before",
        "nvrm.crash_dump_created",
        {},
    ),
    # NVIDIA/open-gpu-kernel-modules issue #1230 (an H100 host, before the GSP Timeout banner)
    (
        "[   84.300451] NVRM: GPU6 _threadNodeCheckTimeout: _threadNodeCheckTimeout: currentTime: "
        "f420db7018cc0 >= f420db7018cc0",
        "nvrm.thread_timeout",
        {},
    ),
    (
        "[   84.300463] NVRM: GPU6 _threadNodeCheckTimeout: _threadNodeCheckTimeout: Timeout was "
        "set to: 4000 msecs!",
        "nvrm.thread_timeout",
        {"ms": "4000"},
    ),
    (
        "[   84.300476] NVRM: GPU6 kbusSendSysmembarSingle_GH100: - timeout error waiting for "
        "startToken = 0x3 cnt=24105122",
        "nvrm.memsys_error",
        {},
    ),
    (
        "[   84.300480] NVRM: GPU6 kgmmuCheckMemSubsysError_IMPL: Memory Subsystem Error "
        "detected. kbusSendSysmembarSingle failed.",
        "nvrm.memsys_error",
        {},
    ),
    (
        "[   84.300482] NVRM: GPU6 _kgspCheckIfMemsysError: Unexpected error when checking for "
        "memory subsystem error: 0x72 ",
        "nvrm.memsys_error",
        {"status": "0x72"},
    ),
    # ublue-os/bazzite issue #4449 (around GSP heartbeat timeouts)
    (
        "Mar 21 21:42:01 kernel: NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: 0 @ "
        "kernel_gsp.c:1446",
        "nvrm.assertion_failed",
        {"where": "kernel_gsp.c:1446"},
    ),
    (
        "Mar 21 21:42:01 kernel: NVRM: GPU0 _kgspProcessRpcEvent: Attempted to process RPC event "
        "from GPU0: 0x101a (PFM_REQ_HNDLR_STATE_SYNC_CALLBACK) during bootup without API lock",
        "nvrm.gsp_rpc_failed",
        {"boot_event": "0x101a"},
    ),
    # kubernetes-sigs/dra-driver-nvidia-gpu issue #982 (a GB200 node scanned for bad GPUs)
    (
        "[   32.840884] NVRM: nvAssertFailedNoLog: Assertion failed: 0 @ kernel_gsp.c:1476",
        "nvrm.assertion_failed",
        {"where": "kernel_gsp.c:1476"},
    ),
    # NVIDIA/open-gpu-kernel-modules issue #1045 (after XID 119 and 154 on an RTX 5080)
    (
        "Jun 12 16:30:53 fedora-box kernel: NVRM: GPU0 nvCheckFailedNoLog: Check failed: "
        "pKernelChannel != NULL @ kernel_gsp.c:640",
        "nvrm.assertion_failed",
        {"where": "kernel_gsp.c:640"},
    ),
    (
        "Jun 12 16:31:18 fedora-box kernel: NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: "
        "(status == NV_OK) || (status == NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_client.c:844",
        "nvrm.assertion_failed",
        {"where": "rs_client.c:844"},
    ),
    (
        "Jun 12 16:30:53 fedora-box kernel: NVRM: GPU0 _kgspProcessRpcEvent: Failed to process "
        "received event 0x1004 (RC_TRIGGERED) from GPU0: status=0x21",
        "nvrm.gsp_rpc_failed",
        {"event": "0x1004"},
    ),
    # NVIDIA/open-gpu-kernel-modules issue #688 (a DGX Station A100 whose GPU was lost)
    (
        "Feb 17 08:00:34 abggdna-DGX-Station-A100 kernel: NVRM: _issueRpcAndWait: rpcSendMessage "
        "failed with status 0x0000000f for fn 76!",
        "nvrm.gsp_rpc_failed",
        {"status": "0x0000000f", "fn": "76"},
    ),
    # Neroued/ninfer issue #12 (a hard crash; the newer wording with a sequence)
    (
        "Aug 10 22:40:59.883607 anthill kernel: NVRM: GPU0 _issueRpcAndWait: rpcSendMessage "
        "failed with status 0x0000000f for fn 10 sequence 790!",
        "nvrm.gsp_rpc_failed",
        {"status": "0x0000000f", "fn": "10"},
    ),
    # the same line: status 0x0F (NV_ERR_GPU_IS_LOST) is this node's GPU (depth review, session 22)
    (
        "Aug 10 22:40:59.883607 anthill kernel: NVRM: GPU0 _issueRpcAndWait: rpcSendMessage "
        "failed with status 0x0000000f for fn 10 sequence 790!",
        "nvrm.gsp_rpc_gpu_lost",
        {"status": "0x0000000f", "fn": "10"},
    ),
    # the RPC dump after XID 79 and 119 (pop-os/pop issue #3363 quotes its start; the whole line
    # rendered from kernel_gsp.c's format)
    (
        "Apr 29 19:24:11 EVE kernel: NVRM: GPU0 GSP RPC buffer contains function 78 "
        "(DUMP_PROTOBUF_COMPONENT) and data 0x0000000000000000 0x0000000000000000.",
        "nvrm.gsp_rpc_failed",
        {"function": "78", "rpc": "DUMP_PROTOBUF_COMPONENT"},
    ),
    (
        "[349507.516276] NVRM: GPU0 GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data "
        "0x0000000090cc0301 0x000000000000000c.",
        "nvrm.gsp_rpc_failed",
        {"function": "76", "rpc": "GSP_RM_CONTROL"},
    ),
    # Cyridd/cmpunlocker issue #4 (after the GPU's link fell back and it dropped off the bus)
    ("[   21.238204] NVRM: osInitNvMapping: *** Cannot attach gpu", "nvrm.attach_failed", {}),
    (
        "[   21.238209] NVRM: RmInitAdapter: osInitNvMapping failed, bailing out of RmInitAdapter",
        "nvrm.attach_failed",
        {},
    ),
    # leptonai/gpud pull request #1271 (an H100 node whose NVLinks did not come up)
    (
        "Jul 09 10:42:47 pool0-0082 kernel: NVRM: knvlinkDiscoverPostRxDetLinks_GH100: Getting "
        "peer0's postRxDetLinkMask failed!",
        "nvrm.nvlink_rxdet_failed",
        {},
    ),
    # kernel_nvlink.c's own line (rendered)
    (
        "NVRM: knvlinkUpdatePostRxDetectLinkMask_IMPL: Failed to update Rx Detect Link mask!",
        "nvrm.nvlink_rxdet_failed",
        {},
    ),
    # negativo17/nvidia-driver issue #158 and MrMEEE/ironhide issue #141 (no GPU came up)
    (
        "kernel: NVRM: None of the NVIDIA devices were initialized.",
        "nvrm.no_device_initialized",
        {},
    ),
    (
        "[  666.186441] NVRM: None of the NVIDIA graphics adapters were initialized!",
        "nvrm.no_device_initialized",
        {},
    ),
    # NVIDIA/gpu-operator issue #492 (a VM worker without enough 64-bit MMIO)
    (
        "[83260.063553] NVRM: This PCI I/O region assigned to your NVIDIA device is invalid:",
        "nvrm.bar_invalid",
        {},
    ),
    (
        "               NVRM: BAR1 is 0M @ 0x0 (PCI:0000:14:00.0)",
        "nvrm.bar_invalid",
        {"bar": "1", "pci": "0000:14:00.0"},
    ),
    # system76/firmware-open issue #66 (an eGPU the firmware gave no BAR 0)
    (
        "[   28.109032] NVRM: The system BIOS may have misconfigured your GPU.",
        "nvrm.bar_invalid",
        {},
    ),
    # NVIDIA/open-gpu-kernel-modules issue #344 (an A100 passed through by cloud-hypervisor)
    ("               NVRM: BAR2 is 0M @ 0x0 (PCI:0000:00:05.0)", "nvrm.bar_invalid", {"bar": "2"}),
    # NVIDIA/nvtrust issue #19 (the unified-memory module's assertion in an H100 guest)
    (
        "nvidia-uvm: uvm_channel.c:1334 write_ctrl_gpfifo[pid:510] Assert failed, condition "
        "status == NV_OK not true",
        "nvrm.assertion_failed",
        {"uvm_where": "uvm_channel.c:1334"},
    ),
    # the NVIDIA driver README's Known Issues (notebooks), and the newer GPU-prefixed wording
    # found through the code index
    ("NVRM: failed to copy vbios to system memory.", "nvrm.vbios_copy_failed", {}),
    (
        "[    5.433614] NVRM: GPU 0000:07:00.0: Failed to copy vbios to system memory.",
        "nvrm.vbios_copy_failed",
        {"pci": "0000:07:00.0"},
    ),
    # NVIDIA/open-gpu-kernel-modules issue #729 and NVIDIA/nvtrust issue #77 (an H100 in a TDX
    # confidential VM that failed to boot its GSP)
    (
        "[  279.950855] NVRM: gpuHandleSanityCheckRegReadError_GH100: Possible bad register read: "
        "addr: 0x110804,  regvalue: 0xbadf4100,  error code: Unknown SYS_PRI_ERROR_CODE",
        "nvrm.bad_register_read",
        {"addr": "0x110804", "value": "0xbadf4100"},
    ),
    (
        "[  286.345361] NVRM: kfspPollForQueueEmpty_IMPL: Timed out waiting for FSP command queue "
        "to be empty.",
        "nvrm.fsp_timeout",
        {},
    ),
    # mattshma/bigdata issue #133 (a V100 server whose GPUs nouveau had taken)
    (
        "[188549.976351] NVRM: The NVIDIA probe routine was not called for 3 device(s).",
        "nvrm.gpu_claimed_by_other_driver",
        {"count": "3"},
    ),
    ("[188497.595099] NVRM: No NVIDIA graphics adapter probed!", "nvrm.no_device_initialized", {}),
    # an A10G setup note found through the code index (nouveau holds the GPU)
    (
        "NVRM: GPU 0000:00:1e.0 is already bound to nouveau.",
        "nvrm.gpu_claimed_by_other_driver",
        {"pci": "0000:00:1e.0", "driver": "nouveau"},
    ),
    # compiler-explorer/infra issue #1413 (an AWS GPU image after a driver update)
    (
        "modprobe: FATAL: Module nvidia not found in directory /lib/modules/6.8.0-1015-aws",
        "modprobe.nvidia_module_missing",
        {"module": "nvidia", "dir": "/lib/modules/6.8.0-1015-aws"},
    ),
    # NVIDIA/nvidia-docker issue #365 (nvidia-smi printing it after a kernel update)
    ("modprobe: FATAL: Module nvidia not found.", "modprobe.nvidia_module_missing", {}),
    (
        "modprobe: FATAL: Module nvidia-uvm not found.",
        "modprobe.nvidia_module_missing",
        {"module": "nvidia-uvm"},
    ),
    # Witko/nvidia-xrun issue #151 (after the GPU fell off the bus)
    (
        "modprobe: ERROR: could not insert 'nvidia': No such device",
        "modprobe.nvidia_insert_failed",
        {"module": "nvidia", "reason": "No such device"},
    ),
    # jcjohnson/neural-style issue #335 (nvidia-smi under WSL1)
    (
        "modprobe: ERROR: could not insert 'nvidia_367': Function not implemented",
        "modprobe.nvidia_insert_failed",
        {"module": "nvidia_367", "reason": "Function not implemented"},
    ),
    # MrMEEE/bumblebee-Old-and-abbandoned issue #318 (module-init-tools' older wording)
    (
        "FATAL: Error inserting nvidia (/lib/modules/2.6.37.6-0.5-desktop/weak-updates/updates/"
        "nvidia.ko): No such device",
        "modprobe.nvidia_insert_failed",
        {"module_old": "nvidia", "reason": "No such device"},
    ),
    # bottlerocket-os/bottlerocket issue #4218 (kernel lockdown 'integrity'); the kernel's
    # other policy refusals (signature enforcement) in the same words of kmod
    (
        "modprobe: ERROR: could not insert 'nvidia': Operation not permitted",
        "modprobe.nvidia_insert_refused",
        {"module": "nvidia", "reason": "Operation not permitted"},
    ),
    (
        "modprobe: ERROR: could not insert 'nvidia_uvm': Key was rejected by service",
        "modprobe.nvidia_insert_refused",
        {"module": "nvidia_uvm", "reason": "Key was rejected by service"},
    ),
    (
        "modprobe: ERROR: could not insert 'nvidia': Required key not available",
        "modprobe.nvidia_insert_refused",
        {"module": "nvidia", "reason": "Required key not available"},
    ),
    # Mellanox/nv_peer_memory issue #8 (nv_peer_mem built against another driver)
    (
        "[  366.264584] nv_peer_mem: disagrees about version of symbol nvidia_p2p_get_pages",
        "kmod.nvidia_symbol_mismatch",
        {"module": "nv_peer_mem", "symbol_version": "nvidia_p2p_get_pages"},
    ),
    (
        "[  366.264587] nv_peer_mem: Unknown symbol nvidia_p2p_get_pages (err -22)",
        "kmod.nvidia_symbol_mismatch",
        {"symbol": "nvidia_p2p_get_pages"},
    ),
    # NVIDIA/gds-nvidia-fs issue #48 (nvidia-fs on a 6.5 kernel)
    (
        "[78175.093316] nvidia_fs: Unknown symbol nvidia_p2p_dma_unmap_pages (err -2)",
        "kmod.nvidia_symbol_mismatch",
        {"module": "nvidia_fs"},
    ),
    # korvahannu/arch-nvidia-drivers-installation-guide issue #37 (a kernel upgrade)
    (
        "Consult /var/lib/dkms/nvidia/470.256.02/build/make.log for more information.",
        "dkms.nvidia_build_failed",
        {"module": "nvidia", "version": "470.256.02"},
    ),
    # NVIDIA/gpu-operator issue #163 (the driver container on a node with a host driver loaded)
    (
        "Could not unload NVIDIA driver kernel modules, driver is in use",
        "drivercontainer.unload_failed",
        {},
    ),
    # NVIDIA/gpu-operator issue #155 (the driver container on CentOS 7; msched, session 23)
    (
        "Unable to open the file '/lib/modules/3.10.0-862.el7.x86_64/proc/version' (No such file or "
        "directory).Could not resolve Linux kernel version",
        "drivercontainer.kernel_unresolved",
        {},
    ),
    # NVIDIA/gpu-driver-container issue #44 (the GPU operator's driver container, Secure Boot)
    (
        "ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when "
        "this kernel module was built against the wrong or improperly configured kernel sources, "
        "with a version of gcc that differs from the one used to build the target kernel, or if "
        "another driver, such as nouveau, is present and prevents the NVIDIA kernel module from "
        "obtaining ownership of the NVIDIA device(s), or no NVIDIA device installed in this "
        "system is supported by this NVIDIA Linux graphics driver release.",
        "installer.module_load_failed",
        {"module": "nvidia.ko"},
    ),
    # NVIDIA/gpu-operator issue #610 (two A40s with an NVLink bridge, no NVSwitch)
    (
        "11月 15 14:15:47 leon-NF5468M6 systemd[1]: nvidia-fabricmanager.service: Control process "
        "exited, code=exited, status=1/FAILURE",
        "fabricmanager.start_failed",
        {"status": "1/FAILURE"},
    ),
    # data-infra/cube-studio issue #29 (the package's start script, then the unit)
    (
        'Sep 18 03:19:01 ubuntu2404 nvidia-fabricmanager-start.sh[4753]: "/usr/bin/nv-fabricmanager '
        '-c /usr/share/nvidia/nvswitch/fabricmanager.cfg" failed! Exit code: 1',
        "fabricmanager.start_failed",
        {},
    ),
    # NVIDIA/gpu-operator issue #356 (systemctl start on Rocky Linux 8.6)
    (
        "Job for nvidia-fabricmanager.service failed because the control process exited with "
        "error code.",
        "fabricmanager.start_failed",
        {},
    ),
    # siderolabs/extensions issue #511 (an 8xH200 node with the extension's default config)
    (
        "fabric manager config file item: FABRIC_NODE_CONFIG_FILE has an invalid value",
        "fabricmanager.start_failed",
        {"item": "FABRIC_NODE_CONFIG_FILE"},
    ),
    # systemd's texts for the unit (Description "NVIDIA fabric manager service"), rendered
    (
        "systemd[1]: nvidia-fabricmanager.service: Main process exited, code=exited, "
        "status=1/FAILURE",
        "fabricmanager.start_failed",
        {"status": "1/FAILURE"},
    ),
    (
        "systemd[1]: nvidia-fabricmanager.service: Failed with result 'exit-code'.",
        "fabricmanager.start_failed",
        {"result": "exit-code"},
    ),
    # systemd 219 (RHEL 7) writes "main process exited" in lower case and no comma before
    # status (its format, as in GoogleCloudPlatform/cluster-toolkit #1600 and dun/munge #60),
    # rendered for the NVIDIA units
    (
        "systemd[1]: nvidia-fabricmanager.service: main process exited, code=exited, "
        "status=1/FAILURE",
        "fabricmanager.start_failed",
        {"status": "1/FAILURE"},
    ),
    (
        "systemd[1]: nvidia-persistenced.service: control process exited, code=exited status=1",
        "persistenced.start_failed",
        {},
    ),
    (
        "systemd[1]: Failed to start NVIDIA fabric manager service.",
        "fabricmanager.start_failed",
        {},
    ),
    # a GB200 NVL72 fabric-analysis tool's sample of the switch tray's fabric manager log, found
    # through the code index
    (
        "[Jul 19 2025 18:34:55] [ERROR] [tid 192] Fabric Manager detected GPU NVL Non Fatal error "
        "on :",
        "fabricmanager.gpu_nvl_nonfatal",
        {},
    ),
    (
        "[Jul 19 2025 18:34:57] [WARNING] [tid 134] Trunk port failure detected for switch GUID "
        "0xb0cf0e0300e42e00 and switch chassis sn 1825124190179, slot 7 port number 61 port GUID "
        "0xb0cf0e0300e42e00 cage 7.",
        "fabricmanager.trunk_port_failure",
        {"switch": "0xb0cf0e0300e42e00", "slot": "7", "port": "61"},
    ),
    # NVIDIA/ansible-role-nvidia-driver issue #3 (a fresh CentOS 7 render node)
    ("Failed to start NVIDIA Persistence Daemon.", "persistenced.start_failed", {}),
    (
        "Failed to query NVIDIA devices. Please ensure that the NVIDIA device files "
        "(/dev/nvidia*) exist, and that user 0 has read and write permissions for those files.",
        "persistenced.start_failed",
        {},
    ),
    # ollama/ollama issue #11932 (the driver's modules failing to load under Pop!_OS)
    (
        "2025-08-16T00:02:33.867784-04:00 localhost nvidia-persistenced[103913]: "
        "nvidia-persistenced failed to initialize. Check syslog for more details.",
        "persistenced.start_failed",
        {},
    ),
    (
        "2025-08-16T00:03:03.937586-04:00 localhost systemd[1]: nvidia-persistenced.service: "
        "Control process exited, code=exited, status=1/FAILURE",
        "persistenced.start_failed",
        {"status": "1/FAILURE"},
    ),
    (
        "2025-08-16T00:03:03.959639-04:00 localhost systemd[1]: Failed to start "
        "nvidia-persistenced.service - NVIDIA Persistence Daemon.",
        "persistenced.start_failed",
        {},
    ),
    # NVIDIA/nvidia-persistenced issue #11 (a GH200 running the daemon as a non-root user)
    (
        "Aug 27 21:35:25 ubuntu nvidia-persistenced[1405]: NUMA: Failed to enable NUMA memory "
        "Auto-Online",
        "persistenced.start_failed",
        {},
    ),
    # NVIDIA/gpu-operator issue #121 (a driver container from another release)
    (
        "nvidia-nvswitch: Version mismatch, kernel version 450.80.02 user version 450.51.06",
        "nvswitch.version_mismatch",
        {"kernel": "450.80.02", "user": "450.51.06"},
    ),
    # NVIDIA/DCGM issue #21 (nv-hostengine on a T4 node) and issue #34
    ("Err: Failed to start DCGM Server: -7", "hostengine.start_failed", {"code": "-7"}),
    # NVIDIA/gpu-monitoring-tools issue #54 (the DCGM exporter's wrapper in a pod)
    ("Failed to start host engine server", "hostengine.start_failed", {}),
    # NVIDIA/dcgm-exporter issue #27 (the host engine's log when NVML could not start)
    (
        "2021-11-23 00:15:20.507 ERROR [76:76] Cannot initialize the hostengine: Error: Failed to "
        "initialize NVML [/workspaces/dcgm-rel_dcgm_2_3-postmerge/dcgmlib/src/"
        "DcgmHostEngineHandler.cpp:3647] [DcgmHostEngineHandler::Init]",
        "hostengine.start_failed",
        {"reason": "Error: Failed to initialize NVML"},
    ),
    # systemd's text for the unit (rendered)
    (
        "systemd[1]: nvidia-dcgm.service: Main process exited, code=exited, status=255/EXCEPTION",
        "hostengine.start_failed",
        {"status": "255/EXCEPTION"},
    ),
    # Mellanox/nv_peer_memory issue #120 (an HGX cluster while trainings ran)
    (
        "[25033.266922] nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid "
        "context, skipping further processing",
        "peermem.free_callback_invalid",
        {"module": "nvidia-peermem"},
    ),
    # leptonai/gpud pull request #46 (dmesg --ctime beside XID 13 and 109)
    (
        "[Fri Aug 30 11:11:22 2024] nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected "
        "invalid context, skipping further processing",
        "peermem.free_callback_invalid",
        {},
    ),
    # Mellanox/nv_peer_memory issue #112 (the older module on a driver before R470/R510's fix)
    (
        "nv_mem nv_get_p2p_free_callback:144 nv_get_p2p_free_callback -- invalid page_table ",
        "peermem.free_callback_invalid",
        {"module": "nv_mem", "what": "page_table"},
    ),
    # kernel-open/nvidia-peermem/nvidia-peermem.c's current wording (rendered: peer_err adds
    # "ERROR")
    (
        "nvidia-peermem nv_get_p2p_free_callback:144 ERROR nv_get_p2p_free_callback -- invalid "
        "page_table",
        "peermem.free_callback_invalid",
        {"module": "nvidia-peermem", "what": "page_table"},
    ),
    # MrMEEE/ironhide issue #141 and negativo17/nvidia-driver issue #158 (the kernel's probe
    # failure after the refusal, older and 6.x wording)
    (
        "[  666.186334] nvidia: probe of 0000:04:00.0 failed with error -1",
        "pci.nvidia_probe_failed",
        {"bdf": "0000:04:00.0", "error": "-1"},
    ),
    (
        "kernel: nvidia 0000:09:00.0: probe with driver nvidia failed with error -1",
        "pci.nvidia_probe_failed",
        {"bdf_new": "0000:09:00.0", "error_new": "-1"},
    ),
    # HeyMeco/Rockchip-pcie-devices issue #2 (an RTX 3090 behind an RK3588, kernel 6.8 wording)
    (
        "[    2.831120] pci 0000:01:00.0: BAR 1 [mem size 0x10000000 64bit pref]: failed to assign",
        "pci.bar_assign_failed",
        {"bdf": "0000:01:00.0", "bar": "1", "size_new": "0x10000000"},
    ),
    # drivers/pci/setup-res.c's older wording for a 32 GiB aperture (rendered)
    (
        "pci 0000:3b:00.0: BAR 1: failed to assign [mem size 0x800000000 64bit pref]",
        "pci.bar_assign_failed",
        {"bar": "1", "size": "0x800000000"},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # the module banner and the driver's deprecation notice (gpu-operator #492, fgci-org #20)
    (
        "nvrm.gpu_unsupported",
        "[83260.106441] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  510.108.03  Thu Oct 20 "
        "05:10:45 UTC 2022",
    ),
    (
        "persistenced.start_failed",
        "NVRM: Persistence mode is deprecated and will be removed in a future release. Please use "
        "nvidia-persistenced instead.",
    ),
    # the fallen-off-the-bus notice's lines (Witko/nvidia-xrun issue #151): no PCI ID on its
    # header, and "has fallen off" after "installed in this system"
    ("nvrm.gpu_unsupported", "[  103.648845] NVRM: The NVIDIA GPU 0000:01:00.0"),
    (
        "nvrm.gpu_unsupported",
        "               NVRM: (PCI ID: 10de:1c8c) installed in this system has",
    ),
    # the fabric manager starting and running (NVIDIA/nvtrust issue #128)
    (
        "fabricmanager.start_failed",
        "Jan 05 14:45:28 TENCENT64 systemd[1]: Started nvidia-fabricmanager.service - NVIDIA "
        "fabric manager service.",
    ),
    ("fabricmanager.start_failed", "systemd[1]: Started NVIDIA fabric manager service."),
    ("fabricmanager.start_failed", "systemd[1]: nvidia-fabricmanager.service: Succeeded."),
    (
        "fabricmanager.start_failed",
        "systemd[1]: nvidia-fabricmanager.service: Main process exited, code=exited, "
        "status=0/SUCCESS",
    ),
    (
        "fabricmanager.start_failed",
        "Jan 05 14:44:41 TENCENT64 nvidia-fabricmanager-start.sh[1049]: Detected Pre-NVL5 system",
    ),
    (
        "fabricmanager.start_failed",
        'nvidia-fabricmanager-start.sh[1049]: Started "Nvidia Fabric Manager"',
    ),
    # a unit stopped on purpose (systemd's SIGTERM on stop is a clean exit)
    (
        "fabricmanager.start_failed",
        "systemd[1]: nvidia-fabricmanager.service: Main process exited, code=killed, "
        "status=15/TERM",
    ),
    (
        "persistenced.start_failed",
        "systemd[1]: nvidia-persistenced.service: Main process exited, code=killed, status=15/TERM",
    ),
    # the persistence daemon registering a device and stopping cleanly (nvidia-persistenced #2)
    (
        "persistenced.start_failed",
        "May 31 05:33:40 kino1 nvidia-persistenced[19176]: device 0000:3d:00.0 - registered",
    ),
    (
        "persistenced.start_failed",
        "systemd[1]: nvidia-persistenced.service: Deactivated successfully.",
    ),
    ("persistenced.start_failed", "systemd[1]: Started NVIDIA Persistence Daemon."),
    # another unit's failure (getsolus/packages issue #317)
    (
        "persistenced.start_failed",
        "ago 27 14:15:42 solus systemd[1]: Failed to start nvidia-powerd service.",
    ),
    # a BAR assigned, a bridge's windows and a small BAR failing harmlessly
    # (kata-containers #4358, ROCm/legacy-rocm-build #1626, Dunedan/mbp-2016-linux #60,
    # system76/firmware-open #66)
    (
        "pci.bar_assign_failed",
        "[    3.347275] pci 0000:02:00.0: BAR 1: assigned [mem 0x4000000000-0x4fffffffff 64bit pref]",
    ),
    (
        "pci.bar_assign_failed",
        "[    1.713993] pci 0000:00:15.0: BAR 13: failed to assign [io  size 0x1000]",
    ),
    (
        "pci.bar_assign_failed",
        "[   83.730263] pcieport 0000:7b:02.0: BAR 15: failed to assign [mem size 0x00200000 64bit "
        "pref]",
    ),
    (
        "pci.bar_assign_failed",
        "[ 5372.378907] pci 0000:06:00.1: BAR 0: failed to assign [mem size 0x00004000]",
    ),
    (
        "pci.bar_assign_failed",
        "[    2.831131] pci 0000:01:00.0: BAR 3 [mem size 0x02000000 64bit pref]: failed to assign",
    ),
    # a BAR the firmware did assign is not refused
    ("nvrm.bar_invalid", "NVRM: BAR1 is 256M @ 0xe0000000 (PCI:0000:01:00.0)"),
    # the driver falling back to legacy interrupts still initializes the GPU
    (
        "nvrm.vbios_copy_failed",
        "[    5.401373] NVRM: GPU 0000:07:00.0: Failed to enable MSI; falling back to PCIe "
        "virtual-wire interrupts.",
    ),
    # other modules' load failures (lolo101/px1800kbd #10, a1wong/it87 #2)
    (
        "modprobe.nvidia_insert_failed",
        "modprobe: ERROR: could not insert 'px1800kbd': Key was rejected by service",
    ),
    ("kmod.nvidia_symbol_mismatch", "it87: Unknown symbol vid_from_reg (err -2)"),
    (
        "modprobe.nvidia_module_missing",
        "modprobe: FATAL: Module fake_nvidia_driver not found in directory /lib/modules/5.15.0-142-generic",
    ),
    # nvidia-peermem on a node without an InfiniBand stack: GPUDirect RDMA only
    (
        "modprobe.nvidia_insert_failed",
        "modprobe: ERROR: could not insert 'nvidia_peermem': Invalid argument",
    ),
    ("modprobe.nvidia_module_missing", "modprobe: FATAL: Module nvidia-peermem not found."),
    # nouveau loading on a node without an NVIDIA driver is not a refusal
    (
        "nvrm.gpu_claimed_by_other_driver",
        "[drm] Initialized nouveau 1.3.1 20120801 for 0000:01:00.0 on minor 0",
    ),
    # the host engine starting, and the exporter stopping it on purpose
    # (NVIDIA/gpu-monitoring-tools #54)
    ("hostengine.start_failed", "Started host engine version 3.3.5 using port number: 5555"),
    ("hostengine.start_failed", "Host engine successfully terminated."),
    # the fatal twin is signatures-bmc.toml's, not the non-fatal entry's
    (
        "fabricmanager.gpu_nvl_nonfatal",
        "[Oct 13 2025 18:14:38] [ERROR] [tid 202] Fabric Manager detected GPU NVL Fatal error on :",
    ),
    # another module's DKMS build, and the generic first line
    (
        "dkms.nvidia_build_failed",
        "Consult /var/lib/dkms/v4l2loopback/0.12.7/build/make.log for more information.",
    ),
    (
        "dkms.nvidia_build_failed",
        "Error! Bad return status for module build on kernel: 6.14.4-arch1-2 (x86_64)",
    ),
    # the driver container unloading cleanly
    ("drivercontainer.unload_failed", "Unloading NVIDIA driver kernel modules..."),
    # another driver's probe failure (gdev issue #19: nouveau on an unsupported chipset)
    (
        "pci.nvidia_probe_failed",
        "[  709.381456] nouveau: probe of 0000:01:00.0 failed with error -22",
    ),
    # other tools' crash dumps
    ("nvrm.crash_dump_created", "kernel: GPU crash dump saved to /sys/class/drm/card0/error"),
    # a passed assertion-free RM line and an unrelated timeout
    ("nvrm.assertion_failed", "NVRM: GPU0 nvAssertOkFailedNoLog"),
    ("nvrm.thread_timeout", "NVRM: GPU6 _kgspLogRpcTimeout: Note: Please also check logs above."),
    # a healthy nvidia-peermem load
    ("peermem.free_callback_invalid", "nvidia-peermem: loading out-of-tree module taints kernel."),
]


# Healthy or noise lines of the same emitters that no signature of this family may read
HEALTHY: list[str] = [
    # nv-hostengine's NVSwitch module on nodes without NVSwitches (NVIDIA/DCGM issues #159, #174)
    "2024-04-02 12:54:06.828 ERROR [1264985:1264994] [[NvSwitch]] Not attached to NvSwitches. "
    "Aborting [/workspaces/dcgm-rel_dcgm_3_1-postmerge/modules/nvswitch/"
    "DcgmNvSwitchManager.cpp:967] [DcgmNs::DcgmNvSwitchManager::ReadNvSwitchStatusAllSwitches]",
    "2024-05-24 10:22:29.245 ERROR [5231:5273] [[NvSwitch]] ReadNvSwitchStatusAllSwitches() "
    "returned Object is in an undefined state [/workspaces/dcgm-rel_dcgm_2_2-postmerge/modules/"
    "nvswitch/DcgmModuleNvSwitch.cpp:388] [DcgmNs::DcgmModuleNvSwitch::RunOnce]",
    # the driver's banners and info lines around a fault (gpu-operator #492, pop-os/pop #3363)
    "[83260.106441] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  510.108.03  Thu Oct 20 "
    "05:10:45 UTC 2022",
    "Apr 29 19:24:11 EVE kernel: NVRM: GPU at PCI:0000:01:00: GPU-ccdb674e-0f5b-c678-9099-"
    "59940ccd0641",
    "nvidia-nvlink: Nvlink Core is being initialized, major device number 509",
    "nvidia: module verification failed: signature and/or required key missing - tainting kernel",
    # the fabric manager and persistence daemon starting (NVIDIA/nvtrust #128,
    # NVIDIA/nvidia-persistenced #2)
    "Jan 05 14:45:26 TENCENT64 nv-fabricmanager[1120]: Connected to 1 node.",
    'Jan 05 14:45:28 TENCENT64 nvidia-fabricmanager-start.sh[1049]: Started "Nvidia Fabric Manager"',
    "May 31 05:33:40 kino1 nvidia-persistenced[19176]: Started (19176)",
    "May 31 05:33:40 kino1 nvidia-persistenced[19176]: Verbose syslog connection opened",
    # the fabric manager's multicast bookkeeping (leptonai/gpud's fabric manager test log)
    "[Feb 25 2025 13:59:45] [INFO] [tid 1808] multicast group 0 is freed.",
    "[Feb 25 2025 14:01:18] [INFO] [tid 1808] successfully setup multicast team for request id "
    "8331980469606044544.",
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


def test_consequences_decide_nothing() -> None:
    """Driver self-checks, RPC failures, thread timeouts, peermem's notice and an unplaced BAR
    follow a fault named elsewhere: low weight, no action on the node."""
    assert_no_node_action(SYMPTOMS)
    for key in SYMPTOMS:
        assert CATALOG.signatures[key].weight <= 25, key


def test_node_setup_is_inspected_never_decided() -> None:
    """A refused install, an unassigned BAR or a service that did not start is the node's setup
    (a person fixes it), and a misconfiguration prints them: below the hardware threshold."""
    for key in NODE_SETUP:
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.HARDWARE, key
        assert 0 < sig.weight < 60, key
        assert sig.node_action.value == "inspect", key


def test_an_unpowered_gpu_names_the_node() -> None:
    """No software path prints the power-sense refusal: the node's cabling, decided alone."""
    line = "NVRM: GPU 0000:01:00.0: GPU does not have the necessary power cables connected."
    assert ("nvrm.power_cables_missing", Blame.HARDWARE, 80) in found(line, Source.SYSTEM)
    assert CATALOG.signatures["nvrm.power_cables_missing"].node_action.value == "inspect"


def test_corroboration_stays_weak() -> None:
    """A crash dump notice, a memory-subsystem timeout or no GPU initialized follow the fault's
    own line (an XID, a refusal): never decisive alone."""
    for key in ("nvrm.crash_dump_created", "nvrm.memsys_error", "nvrm.no_device_initialized",
                "nvrm.vbios_copy_failed", "nvrm.bad_register_read", "nvrm.fsp_timeout",
                "nvrm.attach_failed", "nvrm.nvlink_rxdet_failed"):  # fmt: skip
        assert CATALOG.signatures[key].weight < 60, key


def test_the_thread_timeout_is_no_python_exception() -> None:
    """`_threadNodeCheckTimeout:` looks like an exception class to the generic entry; the
    driver's own reading replaces it."""
    line = (
        "NVRM: GPU6 _threadNodeCheckTimeout: _threadNodeCheckTimeout: currentTime: "
        "f420db7018cc0 >= f420db7018cc0"
    )
    assert set(hits(line)) == {"nvrm.thread_timeout"}


@pytest.mark.parametrize("line", HEALTHY)
def test_healthy_lines_stay_unread(line: str) -> None:
    """Banners, started services and a monitor's noise on nodes without NVSwitches are not
    failures: no signature of this family reads them."""
    assert_no_match("*", line, family_keys(FAMILY_FILE))
