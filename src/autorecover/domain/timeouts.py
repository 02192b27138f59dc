"""A collective that only timed out on one host: the wait ran out, and nothing says why.

A collective's timeout is the one error every rank prints whatever stopped it: a rank that
never arrived (it was still loading data, evaluating on rank 0 alone, deadlocked on a thread,
calling a different collective), a rank whose GPU hung, or a network that stalled.
ProcessGroupNCCL's watchdog (`Watchdog caught collective operation timeout: WorkNCCL(...)`,
then `To avoid data inconsistency, we are taking the entire process down`) and gloo's
`Timed out waiting ... for recv operation` say only that the wait ran out.

Across nodes, a cascade of these after the job had been running reads as transient
(`attribution.py`): a fabric that stalled is the likeliest thing a retry gets past. Within one
host there is no fabric: the ranks reach each other over NVLink, PCIe or shared memory, so the
timeout is a rank that never arrived (the job's own) or a device that hung (the node's), and
the lines alone do not say which. Calling that transient would claim a cause they do not show.

So on a one-host job, a cascade made of these alone (no peer that closed its connection or
was lost, no process killed, no hardware or application line) is `unknown`. It is still
requeued once (the action `unknown` carries), and the job's history turns the same failure
again into `application` (`history.py`), which stops it.

One wait says whom it waited for: a rank inside Hugging Face's `main_process_first` (transformers'
TrainingArguments, accelerate's PartialState) waits in a barrier while the main process
preprocesses, usually tokenizing or downloading the dataset. A timeout there, with nothing lost
or killed, is that work outlasting the process group's timeout (`waited_on_main_process`): the
job's own, the same on every retry until its timeout or its preprocessing changes.

A node's output says the same when its last datasets preprocessing bar (a map, a filter, the
tokenization or grouping of texts: `datasets.preprocessing_progress`) stopped short of 100 %
while collectives timed out (`waited_on_preprocessing`): that rank was still preprocessing when
the others' first collective ran out of time, whether or not it sat in `main_process_first`.
"""

from __future__ import annotations

from collections.abc import Iterable

from autorecover.domain.records import Finding

# The complaints that say only that a collective's wait ran out (and the process taken down
# for it), in PyTorch's words: ProcessGroupNCCL's watchdog and its teardown, and gloo's
# send/recv timeout; and in torch_npu's and HCCL's on Ascend NPUs.
WAITED_OUT = frozenset(
    {
        "nccl.watchdog_timeout",
        "c10d.nccl_work_timeout",
        "c10d.nccl_watchdog_failure",
        "c10d.nccl_async_teardown",
        "gloo.io_timeout",
        # Ascend's (signatures-ascend.toml): HCCL's notify wait and fftsplus task timeouts, a
        # stream's sync timeout behind them, torch_npu's teardown after them
        "ascend.hccl_notify_wait_timeout",
        "ascend.hccl_fftsplus_timeout",
        "ascend.stream_sync_timeout",
        "ascend.hccl_async_teardown",
    }
)

# What a rank inside `main_process_first` shows when its wait runs out: the watchdog and gloo
# timeouts above, and the c10d store's own (torch 1.x "Socket Timeout", `wait timeout after`,
# the store-based barrier).
MAIN_PROCESS_TIMEOUTS = WAITED_OUT | {"c10d.store_timeout", "c10d.store_barrier_timeout"}
WAITING_FOR_MAIN_PROCESS = "hf.waiting_for_main_process"
PREPROCESSING = "datasets.preprocessing_progress"
DONE_PERCENT = 100


def only_waited_out(complaints: Iterable[Finding]) -> bool:
    """True when there are complaints and every one of them only says a collective timed out."""
    signals = {f.signal for f in complaints}
    return bool(signals) and signals <= WAITED_OUT


def waited_on_main_process(seen: Iterable[Finding]) -> list[Finding]:
    """The `main_process_first` waits of the nodes whose ranks then timed out waiting (the
    evidence for the job's preprocessing outlasting its timeout); empty when none did."""
    seen = list(seen)
    timed_out = {f.node for f in seen if f.signal in MAIN_PROCESS_TIMEOUTS}
    return [f for f in seen if f.signal == WAITING_FOR_MAIN_PROCESS and f.node in timed_out]


def waited_on_preprocessing(seen: Iterable[Finding]) -> list[Finding]:
    """The last preprocessing bar of each node whose output ends that bar short of 100 % while
    collectives timed out (the evidence for a rank still preprocessing when the others' wait
    ran out); empty when no collective timed out or every node's last bar finished.

    Per node, not per rank: the scanner keeps a file's first few findings of a signal and its
    latest (a storm of bars), so only the node's latest bar is sure to be its last."""
    seen = list(seen)
    if not any(f.signal in MAIN_PROCESS_TIMEOUTS for f in seen):
        return []
    last: dict[str, Finding] = {}
    for f in seen:
        if f.signal == PREPROCESSING and (f.node not in last or f.line > last[f.node].line):
            last[f.node] = f
    return [f for f in last.values() if int(f.detail("pct") or DONE_PERCENT) < DONE_PERCENT]
