#!/usr/bin/env python3
"""Write a deterministic, realistic mixed log of a given size, for the scanner benchmark.

The log is what one GPU node of a training job leaves behind when every source lands in one
file: torchrun/torchtitan and Megatron progress lines, Python logging, NCCL INFO chatter, this
project's telemetry JSON lines (about 3 % of lines, like a `log_interval`), syslog/journal and
`dmesg -T` noise, benign lines that happen to contain words signatures anchor on (`error`,
`timeout`, `WARN`, `Link`, `NVRM`, ...), and rare real faults (NVRM Xid lines, NCCL WARN
completion errors, a Python traceback ending in a RuntimeError, an mlx5 `Link DOWN`) about once
in 50,000 lines.

The output depends only on the seed and the size: a smaller file is a prefix of a larger one.
It is written in ~1 MiB batches, so memory stays bounded whatever the size. The file ends on a
whole line, at most one line short of the size asked for.

    uv run python scripts/gen_mixed_log.py bench-data/mixed-1g.log --size 1G
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

DEFAULT_SIZE = 1 << 30
DEFAULT_SEED = 20260302
DEFAULT_FAULT_EVERY = 50_000  # mean number of lines between two fault events
START = datetime(2026, 3, 2, 9, 58, 0, tzinfo=UTC)  # first line's time; a job's start
NODE = "gpu-b17"
BATCH_BYTES = 1 << 20

_SIZE = re.compile(r"(?i)^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$")
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_size(text: str) -> int:
    """`1G`, `100M`, `200K`, `1GiB`, `4096`: binary units, bytes when bare."""
    m = _SIZE.match(text)
    if not m:
        raise ValueError(f"not a size: {text!r} (try 1G, 100M, 200K)")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


@dataclass
class GenStats:
    """What was written: bytes, lines, and how many lines of each kind."""

    path: Path
    bytes: int = 0
    lines: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)


class _Clock:
    """Simulated wall clock; every stamp format is cached per whole second."""

    def __init__(self, start: datetime) -> None:
        self.t = start.timestamp()
        self._sec = -1
        self._set(int(self.t))

    def advance(self, seconds: float) -> None:
        self.t += seconds
        sec = int(self.t)
        if sec != self._sec:
            self._set(sec)

    def _set(self, sec: int) -> None:
        self._sec = sec
        d = datetime.fromtimestamp(sec, tz=UTC)
        self.syslog = f"{d:%b} {d.day:2d} {d:%H:%M:%S}"  # Mar  2 11:31:52
        self.dmesg = f"[{d:%a %b} {d.day:2d} {d:%H:%M:%S %Y}]"  # [Mon Mar  2 11:31:52 2026]
        self.iso = f"{d:%Y-%m-%d %H:%M:%S}"  # + ",mmm" for Python logging
        self.iso_t = f"{d:%Y-%m-%dT%H:%M:%S}Z"
        self.glog = f"{d:%m%d %H:%M:%S}"  # W0302 10:00:05.690000
        self.glog_short = f"{d.month}{d:%d %H:%M:%S}"  # [E302 11:41:53.207287288

    def ms(self) -> str:
        return f"{int(self.t * 1000) % 1000:03d}"

    def us(self) -> str:
        return f"{int(self.t * 1_000_000) % 1_000_000:06d}"


class _Generator:
    """Produces lines one kind at a time; all text is ASCII, so len(str) == bytes."""

    def __init__(self, seed: int, fault_every: int) -> None:
        self.r = random.Random(seed)
        self.clock = _Clock(START)
        self.fault_p = 1.0 / fault_every if fault_every > 0 else 0.0
        self.step = 1000
        self.iteration = 118_000
        self.pid = 83387
        self.rank_base = 8
        self.comms = [f"0x55d4c8a{self.r.randrange(16**5):05x}" for _ in range(4)]
        kinds: list[tuple[str, float]] = [
            ("titan", 14.0),
            ("pylog_step", 8.0),
            ("megatron", 4.0),
            ("hf_dict", 4.0),
            ("pylog_misc", 6.0),
            ("nccl_info", 22.0),
            ("nccl_coll", 8.0),
            ("telemetry", 3.0),
            ("torch_glog", 2.0),
            ("syslog", 14.0),
            ("dmesg", 9.0),
            ("benign_anchor", 1.5),
            ("python_warning", 0.5),
        ]
        self.kinds = [k for k, _ in kinds]
        total = sum(w for _, w in kinds)
        acc = 0.0
        self.cum: list[float] = []
        for _, w in kinds:
            acc += w / total
            self.cum.append(acc)
        self.makers = {k: getattr(self, "_" + k) for k in self.kinds}

    # -- helpers ------------------------------------------------------------------------
    def rank(self) -> int:
        return self.rank_base + self.r.randrange(8)

    def nccl_prefix(self, dev: int | None = None) -> str:
        dev = self.r.randrange(8) if dev is None else dev
        pid = self.pid + 50 + dev
        return f"{NODE}:{pid}:{pid + 1731 + self.r.randrange(3)} [{dev}]"

    def pick(self) -> str:
        x = self.r.random()
        for kind, edge in zip(self.kinds, self.cum, strict=True):
            if x < edge:
                return kind
        return self.kinds[-1]

    # -- ordinary lines -----------------------------------------------------------------
    def _titan(self) -> list[str]:
        r = self.r
        self.step += 1
        c = self.clock
        return [
            f"[rank{self.rank()}]:[titan] {c.iso},{c.ms()} - root - INFO - step: {self.step}  "
            f"loss: {2.2 + r.random() * 0.2:7.4f}  memory: {60.5 + r.random():.2f}GiB(77.40%)  "
            f"tps: {r.randrange(4100, 4300):,}  tflops: 402.10  mfu: 40.66%"
        ]

    def _pylog_step(self) -> list[str]:
        r = self.r
        c = self.clock
        return [
            f"{c.iso},{c.ms()} INFO [train.py:388] [rank {self.rank()}] step {self.step} | "
            f"loss {1.44 + r.random() * 0.05:.4f} | lr 3.000e-04 | {2.3 + r.random() * 0.2:.2f} "
            f"s/step | grad_norm {0.2 + r.random() * 0.2:.3f}"
        ]

    def _megatron(self) -> list[str]:
        r = self.r
        self.iteration += 1
        c = self.clock
        return [
            f" [{c.iso}] iteration {self.iteration:8d}/  500000 | consumed samples: "
            f"{self.iteration * 1024:12d} | elapsed time per iteration (ms): "
            f"{1840 + r.random() * 120:.1f} | learning rate: 3.000000E-04 | global batch size:  "
            f"1024 | lm loss: {1.45 + r.random() * 0.03:.6E} | loss scale: 1.0 | grad norm: "
            f"{0.19 + r.random() * 0.2:.3f} | number of skipped iterations:   0 | "
            f"number of nan iterations:   0 |"
        ]

    def _hf_dict(self) -> list[str]:
        r = self.r
        return [
            f"{{'loss': {2.25 + r.random() * 0.1:.4f}, "
            f"'grad_norm': {0.25 + r.random() * 0.15:.4f}, "
            f"'learning_rate': {r.randrange(1, 99) * 1.5e-6:.3e}, 'epoch': {r.random():.2f}}}"
        ]

    _PYLOG_MISC = (
        "INFO [dataloader.py:212] [rank {rank}] prefetched {n} batches from shard {shard:05d}",
        "INFO [checkpoint.py:77] [rank {rank}] saved checkpoint step {step} to "
        "/checkpoints/run42/step-{step} in {secs:.1f} s",
        "INFO [metrics.py:64] [rank {rank}] throughput {tput:.1f} samples/s, "
        "mem allocated {mem:.2f} GiB, reserved 74.00 GiB",
        "DEBUG [scheduler.py:41] [rank {rank}] lr schedule: warmup done, cosine step {step}",
        "INFO [eval.py:51] [rank {rank}] eval step {step} | val loss {loss:.4f} | ppl {ppl:.3f}",
        "INFO [profiler.py:98] [rank {rank}] step {step}: fwd {fwd:.1f} ms, bwd {bwd:.1f} ms, "
        "optim {opt:.1f} ms",
    )

    def _pylog_misc(self) -> list[str]:
        r = self.r
        c = self.clock
        tmpl = self._PYLOG_MISC[r.randrange(len(self._PYLOG_MISC))]
        body = tmpl.format(
            rank=self.rank(),
            n=r.randrange(2, 16),
            shard=r.randrange(4096),
            step=self.step,
            secs=30 + r.random() * 20,
            tput=500 + r.random() * 30,
            mem=60 + r.random() * 2,
            loss=1.45 + r.random() * 0.1,
            ppl=4.2 + r.random() * 0.3,
            fwd=600 + r.random() * 40,
            bwd=1200 + r.random() * 80,
            opt=80 + r.random() * 10,
        )
        return [f"{c.iso},{c.ms()} {body}"]

    _NCCL_INFO = (
        "Channel {ch:02d}/0 : {a}[{da}] -> {b}[{db}] [send] via NET/IB/{nic}/GDRDMA",
        "Channel {ch:02d}/0 : {b}[{db}] -> {a}[{da}] [receive] via NET/IB/{nic}/GDRDMA",
        "Channel {ch:02d}/1 : {a}[{da}] -> {a1}[{da1}] via P2P/CUMEM/read",
        "Connected all rings",
        "Connected all trees",
        "comm {comm} rank {a} nranks 32 cudaDev {da} nvmlDev {da} busId {bus}000 "
        "commId 0x6cb9713fdd657bdb - Init START",
        "ncclCommInitRank comm {comm} rank {a} nranks 32 cudaDev {da} nvmlDev {da} busId "
        "{bus}000 commId 0x6cb9713fdd657bdb localSize 8 used {used} bytes - Init COMPLETE",
        "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/IB [3]mlx5_5:1/IB ; "
        "OOB ib0:10.20.0.17<0>",
        "Using network IB",
        "P2P Chunksize set to 131072",
        "threadThresholds 8/8/64 | 256/8/64 | 512 | 512",
        "32 coll channels, 32 collnet channels, 16 nvls channels, 32 p2p channels, "
        "32 p2p channels per peer",
        "NCCL_IB_TIMEOUT set by environment to 22.",
        "NCCL_IB_RETRY_CNT set by environment to 7.",
        "CC Off, Multi-GPU CC Off, workFifoBytes 1048576",
        "[Proxy Service] Device {da} CPU core {core}",
        "NVLS multicast support is available on dev {da}",
        "comm {comm} rank {a} nranks 32 cudaDev {da} busId {bus}000 - Destroy COMPLETE",
    )

    def _nccl_info(self) -> list[str]:
        r = self.r
        dev = r.randrange(8)
        a = self.rank_base + dev
        tmpl = self._NCCL_INFO[r.randrange(len(self._NCCL_INFO))]
        body = tmpl.format(
            ch=r.randrange(32),
            a=a,
            da=dev,
            b=(a + 8) % 32,
            db=dev,
            a1=self.rank_base + (dev + 1) % 8,
            da1=(dev + 1) % 8,
            nic=dev // 2,
            comm=self.comms[r.randrange(4)],
            bus=("18", "2a", "3a", "5d", "9a", "ab", "ba", "db")[dev],
            used=r.randrange(100_000, 900_000),
            core=r.randrange(112),
        )
        return [f"{self.nccl_prefix(dev)} NCCL INFO {body}"]

    def _nccl_coll(self) -> list[str]:
        r = self.r
        dev = r.randrange(8)
        op = ("AllReduce", "ReduceScatter", "AllGather", "Broadcast")[r.randrange(4)]
        return [
            f"{self.nccl_prefix(dev)} NCCL INFO {op}: opCount {r.randrange(1 << 20):x} "
            f"sendbuff 0x7f{r.randrange(1 << 36):09x} recvbuff 0x7f{r.randrange(1 << 36):09x} "
            f"count {1 << r.randrange(10, 27)} datatype 7 op 0 root 0 "
            f"comm {self.comms[r.randrange(4)]} [nranks=32] stream 0x{r.randrange(1 << 44):011x}"
        ]

    def _telemetry(self) -> list[str]:
        r = self.r
        c = self.clock
        return [
            f'{{"telemetry":"autorecover/1","ts":"{c.iso_t}","rank":{self.rank()},'
            f'"event":"step","step":{self.step},"step_time_s":{1.5 + r.randrange(20) / 100}}}'
        ]

    _TORCH_GLOG = (
        "{pid} torch/distributed/elastic/agent/server/api.py:525] [default] starting workers "
        "for entrypoint: python",
        "{pid} torch/distributed/elastic/agent/server/api.py:681] [default] Rendezvous "
        "complete for workers. Result:",
        "{pid} torch/distributed/elastic/agent/server/api.py:716] [default] monitoring "
        "workers, state: HEALTHY",
        "{pid} torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for "
        "each process to be 1 in default",
    )

    def _torch_glog(self) -> list[str]:
        r = self.r
        c = self.clock
        body = self._TORCH_GLOG[r.randrange(len(self._TORCH_GLOG))].format(pid=self.pid)
        return [f"{'IIIW'[r.randrange(4)]}{c.glog}.{c.us()} {body}"]

    _SYSLOG = (
        "CRON[{pid}]: (root) CMD (command -v debian-sa1 > /dev/null && debian-sa1 1 1)",
        "CRON[{pid}]: (root) CMD (/usr/sbin/nhc -t 120 >/dev/null 2>&1)",
        "systemd[1]: Starting Daily apt download activities...",
        "systemd[1]: apt-daily.service: Deactivated successfully.",
        "systemd[1]: Finished Daily apt download activities.",
        "systemd[1]: Started Session {sess} of User ops.",
        "systemd-logind[1603]: New session {sess} of user ops.",
        "systemd-logind[1603]: Session {sess} logged out. Waiting for processes to exit.",
        "systemd-logind[1603]: Removed session {sess}.",
        "sshd[{pid}]: Accepted publickey for ops from 10.0.0.{ip} port {port} ssh2: ED25519 "
        "SHA256:q3X0pT9cVn2m6ZkA8fQmYh1Rz7bGdL0sWcE4tUuJ9oI",
        "chronyd[1311]: Selected source 10.0.0.1 (ntp1.cluster.local)",
        "slurmd[2231]: launch task StepId=48213.{sess} request from UID:1000 GID:1000 "
        "HOST:10.0.0.2 PORT:{port}",
        "kernel: hrtimer: interrupt took {ns} ns",
        "kernel: kauditd_printk_skb: {n} callbacks suppressed",
        'kernel: audit: type=1400 audit(1772444111.629:{sess}): apparmor="STATUS" '
        'operation="profile_replace" info="same as current profile, skipping" '
        'profile="unconfined" name="/usr/bin/man" pid={pid} comm="apparmor_parser"',
        "systemd-journald[811]: Data hash table of /var/log/journal/622bc15997d4d0a3de634c916050"
        "f8b4/system.journal has a fill level at 75.0 (8535 of 11377 items, 6553600 file size, "
        "767 bytes per hash table item), suggesting rotation.",
        "nvidia-persistenced[1422]: Verbose syslog connection opened",
        'dcgm-exporter[2412]: time="{iso}" level=info msg="Collecting metrics" gpus=8',
    )

    def _syslog(self) -> list[str]:
        r = self.r
        c = self.clock
        body = self._SYSLOG[r.randrange(len(self._SYSLOG))].format(
            pid=r.randrange(1000, 99999),
            sess=r.randrange(100, 999),
            ip=r.randrange(2, 12),
            port=r.randrange(32768, 60999),
            ns=r.randrange(20000, 90000),
            n=r.randrange(5, 40),
            iso=c.iso_t,
        )
        return [f"{c.syslog} {NODE} {body}"]

    _DMESG = (
        "mlx5_core 0000:{bus}:00.0: firmware version: 28.39.1002",
        "mlx5_core 0000:{bus}:00.0 mlx5_{nic}: Port: 1 Link ACTIVE",
        "mlx5_core 0000:{bus}:00.0: mlx5_pcie_event:301:(pid {pid}): PCIe slot advertised "
        "sufficient power (27W).",
        "IPv6: ADDRCONF(NETDEV_CHANGE): ib{nic}: link becomes ready",
        "perf: interrupt took too long (3932 > 2500), lowering kernel.perf_event_max_sample_rate "
        "to 50750",
        "nvidia-nvlink: Nvlink Core is being initialized, major device number 507",
        "NVRM: GPU at PCI:0000:{bus}:00: GPU-5c3e{pid:05x}-61fa-2b7c-9f3e-1a2b3c4d5e6f",
        "NVRM: GPU Board Serial Number: 16523210{pid:05d}",
        "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Quota mode: none.",
        "workqueue: drm_fb_helper_damage_work hogged CPU for >10000us 4 times, consider "
        "switching to WQ_UNBOUND",
    )

    def _dmesg(self) -> list[str]:
        r = self.r
        body = self._DMESG[r.randrange(len(self._DMESG))].format(
            bus=("0c", "54", "5c", "cc")[r.randrange(4)],
            nic=r.randrange(4),
            pid=r.randrange(1000, 99999),
        )
        return [f"{self.clock.dmesg} {body}"]

    # Benign lines that contain words signatures are likely to anchor on.
    _BENIGN = (
        "{syslog} {node} sshd[{pid}]: error: kex_exchange_identification: Connection closed "
        "by remote host",
        "{syslog} {node} sshd[{pid}]: Connection closed by 10.0.0.{ip} port {port} [preauth]",
        "{syslog} {node} slurmstepd[{pid}]: error: _get_joules_task: can't get info from slurmd",
        "{syslog} {node} kernel: pcieport 0000:00:01.1: AER: Corrected error received: "
        "0000:01:00.0",
        "{syslog} {node} kernel: EDAC MC1: 1 CE memory read error on CPU_SrcID#1_MC#0_Chan#1"
        "_DIMM#0 (channel:1 slot:0 page:0x5a3f2c offset:0x0 grain:32 syndrome:0x0 - "
        "err_code:0x0000:0x009f socket:1 imc:0 rank:0 bg:1 ba:2 row:0x1a3 col:0x2f0)",
        "{syslog} {node} rsyslogd[1288]: action 'action-1-builtin:omfwd' suspended (module "
        "'builtin:omfwd'), retry 0. There should be messages before this one giving the reason "
        "for suspension. [v8.2312.0 try https://www.rsyslog.com/e/2007 ]",
        "{syslog} {node} chronyd[1311]: Can't synchronise: no selectable sources",
        "{syslog} {node} kernel: nfs: server nfs01 not responding, still trying",
        "{syslog} {node} kernel: nfs: server nfs01 OK",
        "{syslog} {node} systemd-resolved[912]: Using degraded feature set UDP instead of "
        "UDP+EDNS0 for DNS server 10.0.0.1.",
        "{syslog} {node} slurmd[2231]: error: Unable to register: Zero Bytes were transmitted "
        "or received",
        "{dmesg} NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.158.01  Release "
        "Build  (dvs-builder@U22-I3-B10-02-5)  Mon Jun  2 13:13:04 UTC 2025",
        "{dmesg} mlx5_core 0000:{bus}:00.0 mlx5_{nic}: Port: 1 Link INIT",
        "{dmesg} infiniband mlx5_{nic}: mlx5_ib_test_wc:290:(pid {pid}): Error -22 while trying "
        "to test write-combining support",
        "{dmesg} ACPI Error: No handler for Region [SYSI] (00000000ab12cd34) [IPMI] "
        "(20230628/evregion-130)",
        "{iso},{ms} WARNING [dataloader.py:142] [rank {rank}] slow batch: waited {secs:.2f} s "
        "for data (timeout 600 s)",
        "{iso},{ms} WARNING [checkpoint.py:131] [rank {rank}] async save still running "
        "after {secs:.1f} s; will retry on timeout",
        "{iso},{ms} INFO [health.py:33] [rank {rank}] gpu health ok: 0 ECC errors, "
        "0 retired pages, 0 Xid events",
        "[rank{rank}]:[titan] {iso},{ms} - root - WARNING - Dataset c4 is being re-looped",
        "[rank{rank}]:[W{glog_short}.{us} ProcessGroupNCCL.cpp:4115] Warning: "
        "TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, this environment variable is thus "
        "deprecated. (function operator())",
        "{nccl} NCCL INFO NCCL_ASYNC_ERROR_HANDLING is deprecated, use "
        "TORCH_NCCL_ASYNC_ERROR_HANDLING instead",
        "{nccl} NCCL INFO Call to connect returned Connection refused, retrying",
        "{nccl} NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA {nic} 'mlx5_{nic}'",
        "[rank{rank}]:/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:295: "
        "FutureWarning: `torch.cpu.amp.autocast(args...)` is deprecated. Please use "
        "`torch.amp.autocast('cpu', args...)` instead.",
    )

    def _benign_anchor(self) -> list[str]:
        r = self.r
        c = self.clock
        tmpl = self._BENIGN[r.randrange(len(self._BENIGN))]
        return [
            tmpl.format(
                syslog=c.syslog,
                dmesg=c.dmesg,
                iso=c.iso,
                ms=c.ms(),
                us=c.us()[:6] + "000",
                glog_short=c.glog_short,
                node=NODE,
                nccl=self.nccl_prefix(),
                pid=r.randrange(1000, 99999),
                ip=r.randrange(2, 250),
                port=r.randrange(32768, 60999),
                bus=("0c", "54", "5c", "cc")[r.randrange(4)],
                nic=r.randrange(4),
                rank=self.rank(),
                secs=1 + r.random() * 20,
            )
        ]

    def _python_warning(self) -> list[str]:
        rank = self.rank()
        return [
            f"[rank{rank}]:/usr/local/lib/python3.10/dist-packages/torch/distributed/fsdp/"
            "_state_dict_utils.py:773: UserWarning: When using ``NO_SHARD`` for "
            "``ShardingStrategy``, full_state_dict will be returned.",
            f"[rank{rank}]:  warnings.warn(",
        ]

    # -- rare faults --------------------------------------------------------------------
    _XIDS = (
        (79, "pid='<unknown>', name=<unknown>, GPU has fallen off the bus."),
        (
            48,
            "pid={pid}, name=python3, An uncorrectable double bit error (DBE) has been "
            "detected on GPU in the framebuffer at physAddr 0x7c41e8a60 partition 3, "
            "subpartition 0.",
        ),
        (
            119,
            "pid={pid}, name=python3, Timeout waiting for RPC from GSP! Expected function 76 "
            "(GSP_RM_CONTROL) (0x2080014b 0x5).",
        ),
        (
            13,
            "pid={pid}, name=python3, Graphics SM Warp Exception on (GPC 0, TPC 1, SM 0): "
            "Out Of Range Address",
        ),
        (94, "pid={pid}, name=python3, Contained: SM (0x1). RST: No, D-RST: No"),
        (
            63,
            "pid='<unknown>', name=<unknown>, Row Remapper: New row marked for remapping, "
            "reset gpu to activate.",
        ),
    )
    _RUNTIME_ERRORS = (
        "CUDA error: uncorrectable ECC error encountered",
        "CUDA error: an illegal memory access was encountered",
        "CUDA error: unspecified launch failure",
        "NCCL communicator was aborted on rank {rank}.",
    )

    def fault(self) -> tuple[str, list[str]]:
        r = self.r
        c = self.clock
        kind = ("xid", "nccl_warn", "traceback", "link_down")[r.randrange(4)]
        if kind == "xid":
            xid, text = self._XIDS[r.randrange(len(self._XIDS))]
            bus = ("18", "2a", "3a", "5d", "9a", "ab", "ba", "db")[r.randrange(8)]
            body = f"NVRM: Xid (PCI:0000:{bus}:00): {xid}, " + text.format(
                pid=r.randrange(1000, 99999)
            )
            stamp = f"{c.syslog} {NODE} kernel:" if r.random() < 0.5 else c.dmesg
            return kind, [f"{stamp} {body}"]
        if kind == "nccl_warn":
            peer = r.randrange(11, 20)
            return kind, [
                f"{self.nccl_prefix()} ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from "
                f"peer 10.20.0.{peer}<{r.randrange(32768, 60999)}> with status=12 opcode=0 "
                f"len=0 vendor err 129 (Recv) localGid ::ffff:10.20.0.17 remoteGids::ffff:"
                f"10.20.0.{peer}"
            ]
        if kind == "link_down":
            nic = r.randrange(4)
            bus = ("0c", "54", "5c", "cc")[nic]
            stamp = f"{c.syslog} {NODE} kernel:" if r.random() < 0.5 else c.dmesg
            return kind, [f"{stamp} mlx5_core 0000:{bus}:00.0 mlx5_{nic}: Port: 1 Link DOWN"]
        rank = self.rank()
        p = f"[rank{rank}]:"
        err = self._RUNTIME_ERRORS[r.randrange(len(self._RUNTIME_ERRORS))].format(rank=rank)
        return kind, [
            f"{p} Traceback (most recent call last):",
            f'{p}   File "/workspace/torchtitan/train.py", line 420, in <module>',
            f"{p}     trainer.train()",
            f'{p}   File "/workspace/torchtitan/train.py", line 351, in train',
            f"{p}     self.train_step(inputs, labels)",
            f'{p}   File "/usr/local/lib/python3.10/dist-packages/torch/_tensor.py", line 581, '
            "in backward",
            f"{p}     torch.autograd.backward(",
            f"{p} RuntimeError: {err}",
            f"{p} CUDA kernel errors might be asynchronously reported at some other API call, so "
            "the stacktrace below might be incorrect.",
            f"{p} For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
            f"{p} Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
        ]

    def next_lines(self, stats: GenStats) -> list[str]:
        r = self.r
        self.clock.advance(r.random() * 0.04)  # ~20 ms a line on average
        if self.fault_p and r.random() < self.fault_p:
            kind, lines = self.fault()
            stats.faults[kind] += 1
            return lines
        kind = self.pick()
        stats.kinds[kind] += 1
        return self.makers[kind]()


def generate(
    path: Path | str,
    size: int = DEFAULT_SIZE,
    *,
    seed: int = DEFAULT_SEED,
    fault_every: int = DEFAULT_FAULT_EVERY,
) -> GenStats:
    """Write `size` bytes (rounded down to a whole line) of mixed log to `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    gen = _Generator(seed, fault_every)
    stats = GenStats(path=path)
    tmp = path.with_name(path.name + ".part")
    with tmp.open("w", encoding="ascii", newline="\n") as out:
        batch: list[str] = []
        batch_bytes = 0
        full = False
        while not full:
            for line in gen.next_lines(stats):
                n = len(line) + 1
                if stats.bytes + batch_bytes + n > size:
                    full = True
                    break
                batch.append(line)
                batch_bytes += n
            if full or batch_bytes >= BATCH_BYTES:
                if batch:
                    out.write("\n".join(batch))
                    out.write("\n")
                stats.bytes += batch_bytes
                stats.lines += len(batch)
                batch, batch_bytes = [], 0
    tmp.replace(path)
    return stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", type=Path, help="file to write (its folder is created)")
    ap.add_argument("--size", default="1G", help="size, e.g. 1G, 100M, 200K (default 1G)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument(
        "--fault-every",
        type=int,
        default=DEFAULT_FAULT_EVERY,
        help="mean lines between fault events (default 50000; 0 for none)",
    )
    args = ap.parse_args(argv)
    started = time.perf_counter()
    stats = generate(args.path, parse_size(args.size), seed=args.seed, fault_every=args.fault_every)
    took = time.perf_counter() - started
    faults = ", ".join(f"{k} {v}" for k, v in sorted(stats.faults.items())) or "none"
    print(
        f"wrote {stats.path}: {stats.bytes:,} bytes, {stats.lines:,} lines in {took:.1f} s; "
        f"fault events: {faults}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
