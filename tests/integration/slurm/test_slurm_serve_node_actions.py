"""Every decided action really happens, on the real Slurm cluster, with real processes:
`autorecover serve --scheduler slurm --node-actions agent --nccl-spool DIR` on PostgreSQL and
one `autorecover agent run` per Slurm node (`EngineRig`).

The node's own actions are orders its agent pulls and runs: DCGM diagnostics, a bundle, a GPU
reset. There are no GPUs here, so `dcgmi`, `nvidia-smi`, `journalctl` and `all_reduce_perf`
are stand-ins (`autorecover.testing.standins`) first on the agents' and the engine's PATH:
they replay recorded outputs (tests/fixtures/agent/, tests/fixtures/nccl/) and record every
call, so each test shows which command ran, on which node, with which arguments, how many
times. Everything else is real: the drains `sinfo -R` shows, the requeue, `scontrol reboot`
through the cluster's RebootProgram, the NCCL pair job in a maintenance reservation (`srun`
on both nodes), the resume; and, for a silent node, the Redfish power cycle on sushy-tools'
emulator. Every test is bounded (each wait, and the whole test) and leaves the cluster reset.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from autorecover.adapters.slurm.records import SlurmJob
from autorecover.adapters.slurm.states import JobPhase as SlurmPhase
from autorecover.adapters.slurm.states import job_phase, node_status
from autorecover.agent.acting.journal import key
from autorecover.server.failpoints import EXIT_STATUS
from autorecover.testing import redfish
from autorecover.testing.slurm.engine_rig import NODE_ENV, EngineRig
from autorecover.testing.slurm.harness import SlurmHarness
from autorecover.testing.slurm.rig import E2EJob
from autorecover.testing.standins import Call, StandIns

FIXTURES = Path(__file__).parents[2] / "fixtures"
ACTIONS, DCGM, NCCL = FIXTURES / "agent" / "actions", FIXTURES / "agent" / "dcgm", FIXTURES / "nccl"
BUDGET_S = 120.0  # each test, start to end; every wait inside is bounded too
# The catalog's XID 119 example (GSP RPC timeout: the catalog asks for a GPU reset) on the
# GPU the recorded `nvidia-smi --query-compute-apps` shows busy (00000000:18:00.0).
XID_119 = (
    "NVRM: Xid (PCI:0000:18:00): 119, pid=4071838, name=python, Timeout after 45s of waiting "
    "for RPC response from GPU4 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20801702 0x4)."
)
# The pair test's expectation when two nodes share no failure domain (the test cluster has
# none): what the recorded 2 x 8 H100 run (338.8 GB/s) passes at 0.8 of it.
POLICY = "[validation.nccl]\nbusbw_gbps = { cluster = 340.0 }\n"
ALL_REDUCE = ["-b", "8", "-e", "8589934592", "-f", "2", "-g", "8", "-n", "20", "-w", "5",
              "-c", "1"]  # the policy's defaults  # fmt: skip
JOURNAL_TIME = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"
BUNDLE = {"kernel.log", "nvidia-smi-q.txt", "dcgm-health.json"}

Make = Callable[..., EngineRig]


def _kit(root: Path, *, quick: str = "diag-4x-memory-isolate.json", busy: bool = False,
         quick_s: float = 0.0) -> StandIns:  # fmt: skip
    """The stand-ins and their recorded answers: the quick diagnostic (`-r 1`) as given, the
    one under load (`-r 3`) passing, the bundle's collectors, the GPUs busy or idle, resets
    that succeed, and a good all-reduce."""
    kit = StandIns(root)
    kit.answer("dcgmi", r"^diag -r 1 -j$", stdout=DCGM / quick, sleep_s=quick_s)
    kit.answer("dcgmi", r"^diag -r 3 -j$", stdout=DCGM / "diag-4x-pass.json")
    kit.answer("dcgmi", r"^health -c -j$", stdout=DCGM / "health-failure.json")
    kit.answer("journalctl", rf"^-k --since {JOURNAL_TIME} --until {JOURNAL_TIME} "
               r"-o short-iso --no-pager$", stdout=ACTIONS / "journalctl-k.txt")  # fmt: skip
    kit.answer("nvidia-smi", r"^-q$", stdout=ACTIONS / "nvidia-smi-q.txt")
    apps = "compute-apps-busy.csv" if busy else "compute-apps-idle.csv"
    kit.answer("nvidia-smi", r"^--query-compute-apps=pid,process_name,gpu_bus_id "
               r"--format=csv,noheader$", stdout=ACTIONS / apps)  # fmt: skip
    kit.answer(
        "nvidia-smi", r"^--gpu-reset -i 0000:18:00\.0$", stdout=ACTIONS / "gpu-reset-ok-18.txt"
    )
    kit.answer(
        "all_reduce_perf", "^" + " ".join(ALL_REDUCE) + "$", stdout=NCCL / "h100-2node-ok.txt"
    )
    return kit


@pytest.fixture
def make(slurm: SlurmHarness, postgres_url: str, tmp_path: Path) -> Iterator[Make]:
    """`make(kit, serve_args=(), policy="")`: the engine with node actions by the agents and
    the NCCL pair test, and the agents, as processes (not started yet); all stopped and the
    cluster reset afterwards (the logs stay in the test's tmp_path)."""
    rigs: list[EngineRig] = []

    def build(kit: StandIns, serve_args: Sequence[str] = (), policy: str = "") -> EngineRig:
        spool = slurm.cluster.base / "jobs" / f"nccl-{tmp_path.name}"
        rig = EngineRig(
            slurm.cluster, postgres_url, tmp_path / "rig", standins=kit.bin,
            serve_args=("--node-actions", "agent", "--nccl-spool", str(spool), *serve_args),
            agent_args=("--orders-every-s", "0.5"), policy=POLICY + policy,
        )  # fmt: skip
        rigs.append(rig)
        return rig

    # The cluster's record of reboots is shared by the session's tests: this test's start empty.
    (slurm.cluster.base / "log" / "reboots.txt").write_text("")
    started = time.monotonic()
    try:
        yield build
    finally:
        took = time.monotonic() - started
        for rig in rigs:
            rig.close()
        slurm.cluster.reset()
    assert took < BUDGET_S, f"the test took {took:.0f} s (budget {BUDGET_S:.0f} s)"


# --- reading what happened ---------------------------------------------------------------------


def _running_again(rig: EngineRig, job: E2EJob) -> SlurmJob | None:
    seen = rig.slurm_job(job)
    return seen if seen.restarts == 1 and job_phase(seen.state) is SlurmPhase.RUNNING else None


def _back(rig: EngineRig, node: str, timeout_s: float = 60.0) -> None:
    """The engine returned the node, and Slurm shows it idle with no flag and no reason, and
    every action of the node is settled. The node is healthy in the store with its resume
    intended in the same transaction, and Slurm shows it idle as soon as `scontrol` ran, a
    moment before the engine records the resume done: wait for that record too."""
    rig.wait(lambda: (r := rig.node(node)) and r["state"] == "healthy", f"{node} returned",
             timeout_s)  # fmt: skip
    rig.wait(lambda: _settled(rig.api(f"actions?node={node}")), f"{node}'s actions settled")
    seen = rig.wait(lambda: (n := rig.slurm_node(node)) and n.state == "idle" and not n.flags
                    and n, f"{node} idle in Slurm")  # fmt: skip
    assert seen.reason == "", seen


def _settled(actions: list[dict[str, Any]]) -> bool:
    """Every action of the node settled, its return among them (a run under load once read the
    list between the node's state and its resume record)."""
    done = all(a["status"] != "intended" for a in actions)
    return done and any(a["kind"] == "resume" and a["status"] == "done" for a in actions)


def _ladder(rig: EngineRig, node: str) -> list[tuple[str, str]]:
    """The node's actions as (kind, status), oldest first, less the cordon and the taint that
    come with the drain (on Slurm all three are the drain); one incident throughout."""
    actions = rig.api(f"actions?node={node}")
    assert len({a["incident"] for a in actions}) == 1, actions
    return [(a["kind"], a["status"]) for a in actions if a["kind"] not in ("cordon", "taint")]


def _orders(rig: EngineRig, node: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = rig.api(f"nodes/{node}/orders?attachments=true")
    return sorted(found, key=lambda o: o["placed_at"])


def _argvs(kit: StandIns, name: str) -> list[tuple[str | None, list[str]]]:
    """Each call of `name` as (the agent's node, or the Slurm node it ran on; its argv)."""
    return [(_where(c), c.argv) for c in kit.calls(name)]


def _where(call: Call) -> str | None:
    return call.env.get("SLURMD_NODENAME") or _agent_node(call)


def _agent_node(call: Call) -> str | None:
    # The stand-in keeps AUTORECOVER* variables: the rig names each agent's node there.
    return call.env.get(NODE_ENV)


def _started(rig: EngineRig, slurm: SlurmHarness) -> tuple[E2EJob, SlurmJob]:
    job = rig.submit(nodes=2)
    first = slurm.wait_phase(job.job_id, SlurmPhase.RUNNING)
    slurm.wait_checkpoint(job.train, 10)
    return job, first


def _pair_calls(kit: StandIns, node: str) -> list[str]:
    """The nodes `all_reduce_perf` ran on, each with the policy's arguments; the node first."""
    calls = _argvs(kit, "all_reduce_perf")
    assert [argv for _, argv in calls] == [ALL_REDUCE, ALL_REDUCE], calls
    where = [w for w, _ in calls]
    assert node in where and len(set(where)) == 2, calls  # one rank on each of the pair
    return where


# --- the tests ---------------------------------------------------------------------------------


def test_slurm_agent_actions_xid79_diagnose_bundle_reboot_validate_resume(
    make: Make, slurm: SlurmHarness, tmp_path: Path
) -> None:
    kit = _kit(tmp_path / "standins")
    rig = make(kit)
    rig.start()
    job, first = _started(rig, slurm)
    bad = first.nodes[1]

    rig.fault(bad)  # the driver's XID 79 line; the agent on `bad` follows the file
    drained = rig.wait(lambda: (n := rig.slurm_node(bad)) and node_status(n).drain and n,
                       f"{bad} drained")  # fmt: skip
    shown = rig.sinfo_reason(bad).partition("|")[2]  # what an operator sees in sinfo -R
    assert drained.reason.startswith("autorecover: ") and shown.startswith("autorecover: "), shown
    rig.kill_rank(job, bad)  # the GPU fell off the bus: its rank dies, the job fails

    after = rig.wait(lambda: _running_again(rig, job), "the job running again")
    assert bad in after.excluded and bad not in after.nodes, after
    _back(rig, bad, 90.0)

    # What the engine did, in order, each once: the quick diagnostic by the agent (FAIL),
    # `scontrol reboot`, validation (the agent's DCGM under load, then the pair job), resume.
    ladder = [k for k, s in _ladder(rig, bad) if s == "done"]
    assert ladder == ["drain", "diagnose", "reboot", "validate", "resume"], _ladder(rig, bad)
    reboots = (rig.cluster.base / "log" / "reboots.txt").read_text()
    assert reboots.count(f"node={bad}") == 1, reboots

    orders = _orders(rig, bad)
    kinds = [(o["kind"], o["args"].get("level"), o["status"]) for o in orders]
    assert kinds == [("diagnose", 1, "done"), ("collect_bundle", None, "done"),
                     ("diagnose", 3, "done")], kinds  # no reset, no reboot: Slurm reboots  # fmt: skip
    quick, bundle, load = orders
    assert quick["verdict"] == "fail" and "fail" in quick["detail"], quick
    assert any("isolate" in f.lower() or "memory" in f.lower() for f in quick["findings"]), quick
    assert bundle["id"] == quick["id"] + "#bundle" and set(bundle["attachments"]) == BUNDLE
    assert "Xid" in bundle["attachments"]["kernel.log"], bundle["attachment_sizes"]
    assert "NVSMI LOG" in bundle["attachments"]["nvidia-smi-q.txt"]
    assert load["verdict"] == "pass", load
    assert all(o["incident"] == quick["incident"] for o in orders), orders

    # Each stand-in ran exactly once where it should, with the allow-list's argv.
    assert _argvs(kit, "dcgmi") == [(bad, ["diag", "-r", "1", "-j"]),
                                    (bad, ["health", "-c", "-j"]),
                                    (bad, ["diag", "-r", "3", "-j"])]  # fmt: skip
    assert _argvs(kit, "nvidia-smi") == [(bad, ["-q"])]
    (journal,) = _argvs(kit, "journalctl")
    assert journal[0] == bad and journal[1][:2] == ["-k", "--since"], journal
    _pair_calls(kit, bad)
    assert kit.calls("systemctl") == []


def test_slurm_agent_actions_gpu_reset_refused_while_busy_then_reboot(
    make: Make, tmp_path: Path
) -> None:
    kit = _kit(tmp_path / "standins", quick="diag-4x-pass.json", busy=True)
    rig = make(kit)
    node = rig.cluster.node_names[-1]
    rig.start()

    rig.fault(node, XID_119)  # the catalog asks for a GPU reset; python3 still holds the GPU
    _back(rig, node, 90.0)

    ladder = _ladder(rig, node)
    assert ladder == [
        ("drain", "done"), ("diagnose", "done"), ("reset_gpu", "failed"), ("reboot", "done"),
        ("validate", "done"), ("resume", "done"),
    ], ladder  # fmt: skip
    reset = next(o for o in _orders(rig, node) if o["kind"] == "reset_gpu")
    assert reset["args"] == {"gpus": ["0000:18:00.0"]}, reset  # the GPU the XID line names
    assert reset["status"] == "refused" and "31337" in reset["detail"], reset
    smi = _argvs(kit, "nvidia-smi")
    assert [argv for _, argv in smi if argv[0] != "-q"] == [
        ["--query-compute-apps=pid,process_name,gpu_bus_id", "--format=csv,noheader"]
    ], smi  # asked who holds the GPU once; `--gpu-reset` never ran
    assert all(where == node for where, _ in smi), smi
    assert (rig.cluster.base / "log" / "reboots.txt").read_text().count(f"node={node}") == 1
    assert [argv for _, argv in _argvs(kit, "dcgmi") if argv[0] == "diag"] == [
        ["diag", "-r", "1", "-j"], ["diag", "-r", "3", "-j"]]  # fmt: skip
    _pair_calls(kit, node)


def test_slurm_agent_actions_agent_killed_while_diagnosing_runs_it_once(
    make: Make, tmp_path: Path
) -> None:
    kit = _kit(tmp_path / "standins", quick_s=4.0)  # a quick diagnostic that takes a while
    rig = make(kit)
    node = rig.cluster.node_names[-1]
    rig.start()

    rig.fault(node)
    (call,) = rig.wait(lambda: [c for c in kit.calls("dcgmi") if c.argv[:3] == ["diag", "-r", "1"]]
                       or None, "the quick diagnostic running", 30.0)  # fmt: skip
    agent = rig.agents[node]
    assert agent.kill() == -9  # kill -9 while dcgmi runs
    assert Path(f"/proc/{call.pid}").exists(), call  # it outlives the agent (detached)
    time.sleep(1.0)
    agent.start()

    _back(rig, node, 90.0)
    diags = [argv for _, argv in _argvs(kit, "dcgmi") if argv[0] == "diag"]
    assert diags == [["diag", "-r", "1", "-j"], ["diag", "-r", "3", "-j"]], diags  # once each
    quick = next(o for o in _orders(rig, node) if o["args"].get("level") == 1)
    assert (quick["status"], quick["verdict"]) == ("done", "fail"), quick
    # The agent's journal of that order: one step, its end seen, the outcome taken once.
    journal = rig.workdir / f"agent-{node}" / "orders" / key(quick["id"]) / "journal.json"
    entry = json.loads(journal.read_text())
    assert entry["phase"] == "closed" and len(entry["steps"]) == 1, entry
    assert entry["steps"][0]["rc"] == 0 and entry["outcome"]["verdict"] == "fail", entry
    assert [k for k, s in _ladder(rig, node) if k == "diagnose"] == ["diagnose"]


def test_slurm_agent_actions_engine_killed_before_a_reset_order_resets_once(
    make: Make, tmp_path: Path
) -> None:
    kit = _kit(tmp_path / "standins", quick="diag-4x-pass.json")  # the GPU idle
    rig = make(kit)
    node = rig.cluster.node_names[-1]
    rig.start(failpoint="before_execute:reset_gpu")

    rig.fault(node, XID_119)
    assert rig.engine.wait_exit(60) == EXIT_STATUS, rig.logs()  # decided, not ordered yet
    assert [c for c in kit.calls("nvidia-smi") if "--gpu-reset" in c.argv] == []

    rig.start_engine()
    _back(rig, node, 90.0)
    resets = [o for o in _orders(rig, node) if o["kind"] == "reset_gpu"]
    assert [(o["status"], o["args"]) for o in resets] == [("done", {"gpus": ["0000:18:00.0"]})]
    assert "successfully reset" in resets[0]["detail"], resets
    ran = [argv for _, argv in _argvs(kit, "nvidia-smi") if "--gpu-reset" in argv]
    assert ran == [["--gpu-reset", "-i", "0000:18:00.0"]], ran  # exactly once
    done = [(k, s) for k, s in _ladder(rig, node) if k == "reset_gpu"]
    assert done == [("reset_gpu", "done")], done


def test_slurm_redfish_silent_node_power_cycled_and_back(make: Make, tmp_path: Path) -> None:
    kit = _kit(tmp_path / "standins")
    node = "gpu04"
    bmc = redfish.start([node])
    try:
        inventory = tmp_path / "bmc.toml"
        inventory.write_text(bmc.inventory())
        rig = make(kit, ("--bmc-inventory", str(inventory)), "[detection]\nsilence_s = 8\n")
        assert node == rig.cluster.node_names[-1]
        rig.start()
        # Only a node the engine heard can fall silent: wait for every agent's first batch
        # (a fixed wait of one heartbeat was too short on a loaded machine).
        agents = set(rig.agents)
        rig.wait(lambda: agents <= rig.heard() or None, "every agent heard", 30.0)

        # The host hangs: its agent and its slurmd stop answering (nothing cleans up).
        rig.agents[node].kill()
        rig.cluster.kill_slurmd(node)
        rig.wait(lambda: bmc.resets() or None, "a reset at the BMC", 75.0)
        assert bmc.resets() == [(node, "ForceRestart")]
        seen = rig.slurm_node(node)  # what the engine saw besides the silence
        assert "NOT_RESPONDING" in seen.flags or seen.state.startswith("down"), seen
        cycle = rig.wait(lambda: [a for a in rig.api(f"actions?node={node}")
                                  if a["kind"] == "power_cycle" and a["status"] == "done"] or None,
                         "the power cycle recorded done", 10.0)  # fmt: skip
        said = json.dumps(cycle)
        assert len(cycle) == 1 and "unresponsive" in said and "ForceRestart" in said, cycle
        assert cycle[0]["by"] and cycle[0]["incident"], cycle  # provenance, in the store

        # What the BMC's reset does to the host: it boots; slurmd and the agent start.
        rig.cluster.boot_slurmd(node)
        rig.agents[node].start()
        _back(rig, node, 60.0)
        assert bmc.resets() == [(node, "ForceRestart")]  # once
        ladder = [k for k, s in _ladder(rig, node) if s == "done"]
        assert ladder == ["drain", "power_cycle", "validate", "resume"], _ladder(rig, node)
        assert [argv for w, argv in _argvs(kit, "dcgmi") if w == node] == [
            ["diag", "-r", "3", "-j"]
        ]
        _pair_calls(kit, node)
    finally:
        bmc.stop()
