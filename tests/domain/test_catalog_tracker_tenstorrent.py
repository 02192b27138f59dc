"""Golden lines for the Tenstorrent accelerators (signatures-tenstorrent.toml): tt-metal / TT-NN's
TT_FATAL and TT_THROW checks, the allocator, circular buffers, the JIT kernel build, the watcher,
device and fabric bring-up and the dispatch timeout; UMD's ARC, Ethernet, DRAM and warm reset;
luwen's chip init (under tt-smi and tt-flash), tt-smi and tt-tools-common's reset and the tt-kmd
kernel driver.

Each line is a real one from the public thread cited beside it (or, where marked, rendered from
the emitter's format string) and goes through the scanner's own matcher. Blame is pinned to what
the emitter means: a TT_FATAL check, device out-of-memory, circular buffers beyond L1, a kernel
that does not build and a watcher fault are the job's; a device that needs a reset is the node's,
below the weight that names a node alone unless the line says the device is gone or would not come
back from a reset; TT_THROW's header and the dispatch timeout are symptoms. Look-alikes (healthy
lines of the same emitters) must not match.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame
from autorecover.domain.shape import COLLECTIVE, STRONG
from domain.golden import (
    CATALOG,
    assert_no_match,
    family_contract,
    family_keys,
    golden_line_checks,
    hits,
)

FILE = "signatures-tenstorrent.toml"
FAMILY = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "tenstorrent.tt_fatal": Blame.APPLICATION,
    "tenstorrent.tt_throw": Blame.SYMPTOM,
    "tenstorrent.oom": Blame.APPLICATION,
    "tenstorrent.circular_buffers_beyond_l1": Blame.APPLICATION,
    "tenstorrent.kernel_build_failed": Blame.APPLICATION,
    "tenstorrent.watcher_error": Blame.APPLICATION,
    "tenstorrent.mesh_descriptor_mismatch": Blame.APPLICATION,
    "tenstorrent.fw_init_failed": Blame.HARDWARE,
    "tenstorrent.eth_core_timeout": Blame.HARDWARE,
    "tenstorrent.fabric_router_sync_timeout": Blame.SYMPTOM,
    "tenstorrent.mesh_links_missing": Blame.HARDWARE,
    "tenstorrent.dispatch_timeout": Blame.SYMPTOM,
    "tenstorrent.stale_dispatch_kernels": Blame.SYMPTOM,
    "tenstorrent.arc_timeout": Blame.HARDWARE,
    "tenstorrent.eth_remote_io_timeout": Blame.HARDWARE,
    "tenstorrent.eth_heartbeat_timeout": Blame.HARDWARE,
    "tenstorrent.dram_training_failed": Blame.HARDWARE,
    "tenstorrent.dram_training_timeout": Blame.HARDWARE,
    "tenstorrent.chip_init_failed": Blame.HARDWARE,
    "tenstorrent.reset_failed": Blame.HARDWARE,
    "tenstorrent.no_devices": Blame.SYMPTOM,
    "tenstorrent.kmd_device_unresponsive": Blame.HARDWARE,
    "tenstorrent.kmd_fw_not_responding": Blame.HARDWARE,
    "tenstorrent.kmd_device_found": Blame.INFO,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # tenstorrent/tt-metal issue #43843 (a reduction's ND shard spec after stricter validation)
    (
        "E               RuntimeError: TT_FATAL @ /project/ttnn/cpp/ttnn/operations/reduction/"
        "generic/device/reduce_op_device_operation.cpp:115: output_nd_shard_spec.shard_shape[-2] "
        "% output_tile_height == 0",
        "tenstorrent.tt_fatal",
        {
            "line": "115",
            "condition": "output_nd_shard_spec.shard_shape[-2] % output_tile_height == 0",
        },
    ),
    # tenstorrent/tt-metal issue #14871 (ttnn.full in TILE layout)
    (
        "RuntimeError: TT_FATAL @ ../ttnn/cpp/ttnn/operations/numpy/functions.hpp:70: "
        "shape[-2] % tt::constants::TILE_HEIGHT == 0",
        "tenstorrent.tt_fatal",
        {"file": "../ttnn/cpp/ttnn/operations/numpy/functions.hpp", "line": "70"},
    ),
    # tenstorrent/tt-metal issue #11585 (a debug build's TT_ASSERT on a tensor conversion)
    (
        "RuntimeError: TT_ASSERT @ /home/marty/Documents/tt-metal/ttnn/cpp/ttnn/tensor/"
        "tensor_impl.hpp:216: (shape[-2] % tt::constants::TILE_HEIGHT == 0 && shape[-1] % "
        "tt::constants::TILE_WIDTH == 0)",
        "tenstorrent.tt_fatal",
        {"line": "216"},
    ),
    # tenstorrent/tt-xla issue #5207 (slice on n300-llmbox; the newer logger format)
    (
        "TT_FATAL: Can only slice tilized tensor with height begin index aligned to tiles "
        "(assert.hpp:104)",
        "tenstorrent.tt_fatal",
        {},
    ),
    # tenstorrent/tt-metal issue #33764 (a custom n150 mesh graph descriptor on a galaxy)
    (
        "2025-12-04 07:54:59.935 | critical |          Always | TT_FATAL: Physical chip id 16 not "
        "found in control plane chip mapping. You are calling for a chip outside of the fabric "
        "cluster. Check that your mesh graph descriptor specifies the correct topology "
        "(assert.hpp:103)",
        "tenstorrent.mesh_descriptor_mismatch",
        {"chip": "16"},
    ),
    (
        "2025-12-04 07:54:59.935 | critical |          Always | TT_FATAL: Physical chip id 16 not "
        "found in control plane chip mapping. You are calling for a chip outside of the fabric "
        "cluster. Check that your mesh graph descriptor specifies the correct topology "
        "(assert.hpp:103)",
        "tenstorrent.tt_fatal",
        {},
    ),
    # tenstorrent/tt-metal issue #9877 (ttnn.mish: trisc1 build failed)
    (
        "E       RuntimeError: TT_THROW @ ../tt_metal/impl/program/program.cpp:35: tt::exception",
        "tenstorrent.tt_throw",
        {"file": "../tt_metal/impl/program/program.cpp", "line": "35"},
    ),
    (
        "E       Failed to generate binaries for eltwise_sfpu TT_THROW @ "
        "../tt_metal/jit_build/build.cpp:396: tt::exception",
        "tenstorrent.kernel_build_failed",
        {"kernel": "eltwise_sfpu"},
    ),
    ("E       trisc1 build failed", "tenstorrent.kernel_build_failed", {"risc": "trisc1"}),
    # tenstorrent/tt-xla issue #2958 (Qwen3 14B nightly; cut after the compiler's first flags)
    (
        "2026-01-23 09:27:26.176 | error    |    BuildKernels | trisc2 compile failure -- cmd: cd "
        "/github/home/.cache/tt-metal-cache/8af4bf7994/1122223303392688457/kernels/tilize_wh/"
        "5130065141234742697/trisc2/ && /__w/tt-xla/tt-xla/venv/lib/python3.11/site-packages/"
        "pjrt_plugin_tt/tt-metal/runtime/sfpi/compiler/bin/riscv-tt-elf-g++ -O3 -std=c++17",
        "tenstorrent.kernel_build_failed",
        {"risc": "trisc2"},
    ),
    # tenstorrent/tt-metal issue #10275 (a release tag's stale firmware build; cut after the cmd)
    (
        "           BuildKernels | INFO     | trisc1 link failure -- cmd: cd "
        "/home/dvartanians/Metal/tt-metal/built/6144/firmware/trisc1/",
        "tenstorrent.kernel_build_failed",
        {"risc": "trisc1"},
    ),
    # tenstorrent/tt-metal issue #25891 (an SFPI compiler crash on a modified op)
    (
        "2025-07-28 22:31:49.513 | critical |          Always | trisc1 build failed. Log: during "
        "GIMPLE pass: rvtt_synth_renumber",
        "tenstorrent.kernel_build_failed",
        {"risc": "trisc1"},
    ),
    # tenstorrent/tt-metal issue #23269 (vanilla UNet with the device cache on)
    (
        "E       Out of Memory: Not enough space to allocate 37888 B L1_SMALL buffer across 64 "
        "banks, where each bank needs to store 592 B",
        "tenstorrent.oom",
        {"bytes": "37888", "memory": "L1_SMALL", "banks": "64"},
    ),
    # tenstorrent/tt-inference-server issue #989 (Llama 90B on a T3K, vLLM's engine log)
    (
        "[SERVER] ERROR 10-27 19:32:31 [engine.py:187] Out of Memory: Not enough space to allocate "
        "427819008 B DRAM buffer across 12 banks, where each bank needs to store 35651584 B, but "
        "bank size is only 1046181792 B",
        "tenstorrent.oom",
        {"bytes": "427819008", "memory": "DRAM", "banks": "12"},
    ),
    (
        "[SERVER] ERROR 10-27 19:32:31 [engine.py:187] RuntimeError: TT_FATAL @ "
        "/home/container_app_user/tt-metal/tt_metal/impl/allocator/bank_manager.cpp:431: "
        "address.has_value()",
        "tenstorrent.tt_fatal",
        {"condition": "address.has_value()"},
    ),
    # tenstorrent/tt-forge issue #855 (Llama 3.1 8B nightly)
    (
        "| critical |          Always | TT_FATAL: Out of Memory: Not enough space to allocate "
        "1050673152 B DRAM buffer across 12 banks, where each bank needs to store 87556096 B, but "
        "bank size is 1073741792 B (allocated: 943941568 B, free: 129800224 B, largest free block: "
        "34201600 B)",
        "tenstorrent.oom",
        {"memory": "DRAM", "banks": "12"},
    ),
    # tenstorrent/tt-xla issue #1066 and tenstorrent/tt-metal issue #33245
    (
        "Statically allocated circular buffers on core range [(x=0,y=0) - (x=12,y=9)] grow to "
        "2101768 B which is beyond max L1 size of 1572864 B",
        "tenstorrent.circular_buffers_beyond_l1",
        {"range": "[(x=0,y=0) - (x=12,y=9)]", "bytes": "2101768", "max": "1572864"},
    ),
    (
        "Statically allocated circular buffers in program 702 clash with L1 buffers on core range "
        "[(x=1,y=0) - (x=3,y=9)]. L1 buffer allocated at 567488 and static circular buffer region "
        "ends at 754528",
        "tenstorrent.circular_buffers_beyond_l1",
        {"program": "702"},
    ),
    # tenstorrent/tt-metal issue #8081 (watcher on a bad NOC transaction)
    (
        "                 Always | WARNING  | Watcher detected NOC error and stopped device: bad "
        "alignment in NOC transaction.",
        "tenstorrent.watcher_error",
        {"reason": "bad alignment in NOC transaction"},
    ),
    # a watcher log's assert report (quoted in a public model port's notes; format in tt-metal's
    # tt_metal/impl/debug/watcher_device_reader.cpp)
    (
        "Device 0 worker core(x= 1,y= 0) virtual(x= 2,y= 2): BRISC tripped an assert on line "
        "123. Current kernel: ttnn/cpp/ttnn/operations/experimental/ccl/all_gather_async/device/"
        "kernels/minimal_default_writer.cpp.",
        "tenstorrent.watcher_error",
        {"risc": "BRISC", "assert_line": "123"},
    ),
    # tenstorrent/tt-metal issue #44188 (WAN init under mpirun) and #17832
    (
        "[1,2]<stdout>: E       Device 15 init: failed to initialize FW! Try resetting the board.",
        "tenstorrent.fw_init_failed",
        {"device": "15"},
    ),
    (
        "                 Always | FATAL    | Device 0: Timeout (10000 ms) waiting for physical "
        "cores to finish: (x=25,y=25), (x=24,y=25), (x=19,y=25)",
        "tenstorrent.fw_init_failed",
        {"device2": "0", "ms": "10000"},
    ),
    (
        "                 Always | FATAL    | Read unexpected run_mailbox value",
        "tenstorrent.stale_dispatch_kernels",
        {},
    ),
    # tenstorrent/tt-inference-server issue #1863 (a model server restarted on the same cards)
    (
        "2026-01-22 16:55:01.271 | warning  |          Always | Detected dispatch kernels still "
        "running but failed to complete an early exit. This may happen from time to time following "
        "a reset, continuing to FW initialization... (metal_context.cpp:692)",
        "tenstorrent.stale_dispatch_kernels",
        {},
    ),
    # tenstorrent/tt-inference-server issue #2893 and tenstorrent/tt-studio issue #1283
    (
        "Device 0: Timed out while waiting for active ethernet core (x=24,y=25) to become active "
        "again. Try resetting the board. Minimum tt-firmware version is 18.10.0",
        "tenstorrent.eth_core_timeout",
        {"device": "0", "core": "x=24,y=25"},
    ),
    (
        "Device 0: Timed out while waiting for active ethernet core 24-25 to become active again. "
        "Try resetting the board. Minimum tt-firmware version is 18.10.0",
        "tenstorrent.eth_core_timeout",
        {"device": "0", "core": "24-25"},
    ),
    # tenstorrent/tt-metal issue #43214 (WAN init hangs, ranks under mpirun)
    (
        "  [1,3]<stdout>: 2026-04-24 16:55:47.375 | critical |          Always | TT_THROW: Fabric "
        "Router Sync: Timeout after 20000 ms. Device 5: Expected status 0xa2b2c2d2, got 0xa1b1c1d1 "
        "(assert.hpp:104)",
        "tenstorrent.fabric_router_sync_timeout",
        {"ms": "20000", "device": "5"},
    ),
    (
        "  [1,3]<stdout>: 2026-04-24 16:55:47.375 | critical |          Always | TT_THROW: Fabric "
        "Router Sync: Timeout after 20000 ms. Device 5: Expected status 0xa2b2c2d2, got 0xa1b1c1d1 "
        "(assert.hpp:104)",
        "tenstorrent.tt_throw",
        {},
    ),
    # tenstorrent/tt-metal issue #54017 (the newer wording)
    (
        "2026-08-24 22:39:51.216 | critical |          Always | TT_THROW: Fabric Router Sync: "
        "Timeout after 10000 ms on Device 3: expected status 0xa2b2c2d2. Master chan=7 got "
        "0xa0b0c0d0. furthest-behind stage: STARTED (8 core(s), e.g. chan=7 got 0xa0b0c0d0).",
        "tenstorrent.fabric_router_sync_timeout",
        {"ms": "10000", "device": "3"},
    ),
    # tenstorrent/tt-metal issue #32946 (Llama 70B on 4x p150) and #43594 (QSFP channel order)
    (
        "2025-11-20 22:23:36.832 | critical |          Always | Error during physical chip "
        "discovery: missing connections in 2D mesh. Please check ethernet connection status "
        "(assert.hpp:103)",
        "tenstorrent.mesh_links_missing",
        {"mesh": "2D"},
    ),
    (
        "Physical Discovery found 24 missing channel connections:",
        "tenstorrent.mesh_links_missing",
        {"count": "24"},
    ),
    # tenstorrent/tt-metal pull request #30357 (SDXL under TT_METAL_OPERATION_TIMEOUT_SECONDS)
    (
        "Always | TIMEOUT: device timeout in fetch queue wait, potential hang detected "
        "(assert.hpp:103)",
        "tenstorrent.dispatch_timeout",
        {"wait": "fetch queue"},
    ),
    # tenstorrent/tt-metal issue #30964 (a community WH card) and tenstorrent/tt-xla issue #5294
    (
        "E   RuntimeError: Timed out after waiting 1000 ms for ARC to respond",
        "tenstorrent.arc_timeout",
        {"wait": "1000 ms"},
    ),
    (
        "  what():  Timed out after waiting 1000 ms for ARC to respond. Message code 0xaa34 with "
        "arguments 0xffff and 0xffff",
        "tenstorrent.arc_timeout",
        {"wait": "1000 ms"},
    ),
    # tenstorrent/tt-umd issue #695 (the older wording)
    (
        "Timed out after waiting 1 seconds for ARC to respond",
        "tenstorrent.arc_timeout",
        {"wait": "1 seconds"},
    ),
    # tenstorrent/tt-metal issue #47126 (CI's quotation of the error)
    (
        "RuntimeError: Timeout waiting for Ethernet core service remote IO request.",
        "tenstorrent.eth_remote_io_timeout",
        {},
    ),
    # rendered from tt-umd device/topology/topology_discovery_error.cpp
    (
        "RuntimeError: Timed out waiting for ETH heartbeat on device ASIC ID: 231146142722699596, "
        "ETH core e7-0 (NOC0) to advance. Stuck at 0xabcde4a4",
        "tenstorrent.eth_heartbeat_timeout",
        {"asic": "231146142722699596", "core": "e7-0"},
    ),
    # tenstorrent/tt-umd issue #2927 (an n300's GDDR in CI)
    (
        'C++ exception with description "DRAM training failed for channel 2 after 0 retrain '
        "attempts.",
        "tenstorrent.dram_training_failed",
        {"channel": "2", "attempts": "0"},
    ),
    # tenstorrent/tt-umd issue #905 (P100 machines) and tenstorrent/tt-metal issue #22236
    (
        "RuntimeError: DRAM training timed out after 60000 ms",
        "tenstorrent.dram_training_timeout",
        {"ms": "60000"},
    ),
    (
        "`RuntimeError: Timed out after waiting 30 seconds for for DRAM to finish training`",
        "tenstorrent.dram_training_timeout",
        {},
    ),
    # tenstorrent/tt-metal issue #20258 (tt-smi -r on a BH machine) and #22573 (tt-flash)
    (" Error when re-initializing chips!", "tenstorrent.reset_failed", {}),
    (" Chip initialization failed:", "tenstorrent.chip_init_failed", {}),
    (
        "   ARC Status: Timeout, 0 out of 1 initialized",
        "tenstorrent.chip_init_failed",
        {"part": "ARC"},
    ),
    ("Exception: Chip initialization failed:", "tenstorrent.chip_init_failed", {}),
    ("   CPU Status: Timeout", "tenstorrent.chip_init_failed", {"part": "CPU"}),
    # tenstorrent/tt-umd issue #2316 (tt-smi -r in a VM: the device never came back)
    (
        "2026-03-17 22:39:04.321 | warning  |             UMD | Timeout waiting for device at BDF "
        "0000:01:00.0 to reappear. (warm_reset.cpp:134)",
        "tenstorrent.reset_failed",
        {"bdf": "0000:01:00.0"},
    ),
    (
        "2026-03-17 22:39:04.321 | error    |             UMD | Reset failed. (warm_reset.cpp:180)",
        "tenstorrent.reset_failed",
        {},
    ),
    # tenstorrent/tt-smi issue #88 (a p100a in a VM with an old BM firmware)
    (
        " Config space reset not completed for device 0!",
        "tenstorrent.reset_failed",
        {"device": "0"},
    ),
    # tenstorrent/tt-flash issue #78 (after a major firmware upgrade)
    (
        " Post-reset actions did not complete successfully for device at PCI index 0.",
        "tenstorrent.reset_failed",
        {},
    ),
    # tenstorrent/tt-metal issue #24770 (a CI VM's reset step; taken out of service)
    ("Error: Unable to reset board successfully, rebooting", "tenstorrent.reset_failed", {}),
    # tenstorrent/tt-installer issue #51 (tt-kmd installed, no reboot yet)
    (
        " No Tenstorrent driver detected! Please install driver using tt-kmd: "
        "https://github.com/tenstorrent/tt-kmd  ",
        "tenstorrent.no_devices",
        {"what": "driver"},
    ),
    # rendered from tt-smi tt_smi/tt_smi.py
    (
        "No Tenstorrent devices detected! Please check your hardware and try again. Exiting...",
        "tenstorrent.no_devices",
        {"what": "devices"},
    ),
    # tenstorrent/tt-kmd pull request #129 (a hard hang on Wormhole; journalctl -k)
    (
        "Aug 21 21:09:30 ubuntu kernel: [100113.258680] tenstorrent 0000:02:00.0: Device is "
        "unresponsive, cannot reset.",
        "tenstorrent.kmd_device_unresponsive",
        {},
    ),
    (
        "Aug 21 21:09:28 ubuntu kernel: [100111.210705] tenstorrent: Skipping message 00000011 due "
        "to FW not running.",
        "tenstorrent.kmd_fw_not_responding",
        {"message": "00000011"},
    ),
    # rendered from tt-kmd msgqueue.c and blackhole.c
    (
        "[  812.201512] tenstorrent 0000:01:00.0: ARC queue RPTR read returned all-1s; device gone?",
        "tenstorrent.kmd_device_unresponsive",
        {},
    ),
    (
        "[  812.201512] tenstorrent 0000:01:00.0: Couldn't communicate with firmware; NOC is "
        "likely hung.",
        "tenstorrent.kmd_fw_not_responding",
        {},
    ),
    # tenstorrent/tt-kmd pull request #270 (dmesg after insmod and tt-smi -r)
    (
        "[3723699.890705] tenstorrent 0000:01:00.0: Found a Tenstorrent Blackhole device",
        "tenstorrent.kmd_device_found",
        {"pci": "0000:01:00.0", "arch": "Blackhole"},
    ),
    (
        "[3723699.890669] tenstorrent: Loading Tenstorrent AI driver module v2.10.1-pre",
        "tenstorrent.kmd_device_found",
        {"version": "2.10.1-pre"},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # the routine start-up of a run that worked (tt-metal #10275, #17832, tt-mlir #6058)
    (
        "*",
        "                  Metal | INFO     | Initializing device 0. Program cache is NOT enabled",
    ),
    ("*", "                  Metal | INFO     | AI CLK for device 0 is:   1000 MHz"),
    (
        "*",
        "2025-11-27 10:53:41.434 | info     |           Metal | Disabling and clearing program "
        "cache on MeshDevice 3 (mesh_device.cpp:710)",
    ),
    # tt-metal's own info line before the router sync (tt-metal #43214)
    (
        "tenstorrent.fabric_router_sync_timeout",
        "[1,3]<stdout>: 2026-04-24 16:55:47.375 | info     |           Metal | Fabric Router Sync: "
        "master chan=5, logical core=CoreCoord: (0, 5, ETH, LOGICAL), sync address=0x00015810 "
        "(fabric_firmware_initializer.cpp:199)",
    ),
    # a stale dispatch core found at start-up and asked to exit (tt-inference-server #1863)
    (
        "*",
        "2026-01-22 16:55:00.686 | info     |           Metal | While initializing device 1, active "
        "ethernet dispatch core (x=18,y=16) detected as still running, issuing exit signal. "
        "(metal_context.cpp:657)",
    ),
    # the UMD retry warning before a retrain, not the failure (rendered from tt_device.cpp)
    (
        "tenstorrent.dram_training_failed",
        "DRAM training failed for channel 3, attempting retrain (4 attempts remaining).",
    ),
    # the allocator's healthy warning about a circular buffer (tt-metal #15337)
    (
        "tenstorrent.circular_buffers_beyond_l1",
        "Always | WARNING  | Circular buffer size 104448 B exceeds allocated L1 buffer bank size of "
        "90304 B. This may allow this circular buffer to write outside the allocated buffer space.",
    ),
    # a successful reset (tt-smi #26, tt-metal #20258, tt-umd #2316)
    ("*", " Starting pci link reset on WH devices at pci indices: 0 "),
    ("*", " Config space reset completed for device 0 "),
    ("*", " Re-initializing boards after reset.... "),
    (
        "*",
        "2026-03-17 22:38:52.261 | info     |             UMD | Starting reset on devices at PCI "
        "indices: 0 (warm_reset.cpp:154)",
    ),
    # tt-smi's list of detected chips (tt-metal #32946) and the status lines that passed
    ("*", " Detected Chips: 4"),
    ("tenstorrent.chip_init_failed", "   Communication Status: Success"),
    ("tenstorrent.chip_init_failed", "   DRAM Status: In Progress, 8 out of 8 initialized"),
    # UMD's healthy device open (tt-umd PR #979)
    (
        "*",
        "2025-07-04 08:16:53.123 | info     |   SiliconDriver | Opened PCI device 3; KMD version: "
        "1.34.0; API: 1; IOMMU: disabled (pci_device.cpp:198)",
    ),
    # the driver's FW log forwarding (tt-kmd PR #270) and its unload
    ("*", "[3723699.891757] tenstorrent 0000:01:00.0: FW log forwarding enabled"),
    ("*", "[3723699.823011] tenstorrent: Unloading Tenstorrent AI driver module"),
    # a kernel compiled and a TT_FATAL mentioned in prose
    ("tenstorrent.kernel_build_failed", "           BuildKernels | INFO     | trisc1 build done"),
    ("tenstorrent.tt_fatal", "Replace the TT_FATAL with a log_warning in this op"),
    ("tenstorrent.arc_timeout", "Sending ARC message 0x90 to device 0"),
    ("tenstorrent.no_devices", " Detected Chips: 1"),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, [(k, line) for k, line in NEGATIVE if k != "*"], BLAME)

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FILE: frozenset({"tenstorrent"})}, BLAME)


@pytest.mark.parametrize("line", [line for k, line in NEGATIVE if k == "*"])
def test_healthy_line_reads_as_no_signature_of_the_family(line: str) -> None:
    assert_no_match("*", line, FAMILY)


def test_a_failed_check_is_the_jobs_and_a_throw_header_is_not() -> None:
    """TT_FATAL is a check on what the program asked for; TT_THROW's header only restates the
    message after it, which carries device timeouts as often as the job's errors."""
    assert CATALOG.signatures["tenstorrent.tt_fatal"].blame is Blame.APPLICATION
    throw = CATALOG.signatures["tenstorrent.tt_throw"]
    assert throw.blame is Blame.SYMPTOM and throw.weight < COLLECTIVE
    line = (
        "RuntimeError: TT_THROW @ /project/third_party/tt-metal/tt_metal/llrt/llrt.cpp:566: "
        "tt::exception"
    )
    blames = {CATALOG.signatures[k].blame for k in hits(line)}
    assert Blame.APPLICATION not in blames, "the generic Python entry must give way to the header"


def test_reset_advice_is_the_nodes_but_not_decisive_alone() -> None:
    """'Try resetting the board' and unanswered firmware: the node's device, below STRONG."""
    for key in (
        "tenstorrent.fw_init_failed",
        "tenstorrent.eth_core_timeout",
        "tenstorrent.arc_timeout",
        "tenstorrent.eth_heartbeat_timeout",
        "tenstorrent.chip_init_failed",
        "tenstorrent.kmd_fw_not_responding",
    ):
        sig = CATALOG.signatures[key]
        assert 0 < sig.weight < STRONG, key
        assert sig.node_action.value == "reset_gpu", key


def test_a_device_that_will_not_come_back_names_the_node() -> None:
    """A board that does not return from a reset, or that the driver finds gone, is decisive."""
    for key in ("tenstorrent.reset_failed", "tenstorrent.kmd_device_unresponsive"):
        sig = CATALOG.signatures[key]
        assert sig.weight >= STRONG, key
        assert sig.node_action.value == "reboot", key
