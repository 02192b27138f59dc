"""`KubeJobs.watched()` and `read_output()` on the real control plane: what job recovery sees
of a PyTorchJob, its pods and their logs."""

from __future__ import annotations

import contextlib
import socket
from datetime import UTC, datetime, timedelta
from pathlib import Path

from autorecover.controllers.jobs.records import JobPhase
from autorecover.testing.kubernetes.harness import KubeHarness, wait


def test_kubernetes_watched_job_reports_nodes_exit_codes_and_the_failure_to_the_ms(
    kube: KubeHarness,
) -> None:
    job = kube.submit(workers=3, annotations={"autorecover.io/recovery": "on",
                                              "autorecover.io/policy": "user_restarts=2"})  # fmt: skip
    kube.submit("ignored", workers=0, annotations={})  # no opt-in: not watched
    first = kube.placement()
    running = wait(lambda: next((w for w in kube.jobs.watched() if w.job == job
                                 and w.status.phase is JobPhase.RUNNING), None), "running")  # fmt: skip
    assert [w.job for w in kube.jobs.watched()] == [job]
    assert running.scheduler == "kubernetes" and running.overrides == {"user_restarts": 2}
    assert set(running.status.nodes) == set(first.values()) and running.status.attempt == 0

    node = first["train-worker-1"]
    kube.log("train-worker-1", "RuntimeError: CUDA error: an illegal memory access was encountered")
    wait(lambda: b"illegal memory access" in kube.jobs.read_output(job, 0, node, 0, 4096),
         "the pod's log line spooled")  # fmt: skip
    before = datetime.now(UTC)
    kube.fail_pod("train-worker-1", exit_code=134, reason="Error")
    failed = wait(lambda: next((w for w in kube.jobs.watched() if w.job == job
                                and w.status.phase is JobPhase.FAILED), None), "failed")  # fmt: skip
    status = failed.status
    assert dict(status.exit_codes)[node] == 134 and status.state == "Error"
    assert status.ended is not None
    # The container's finishedAt keeps whole seconds; the port reports when it saw it.
    assert before - timedelta(seconds=0.2) <= status.ended <= datetime.now(UTC)
    text = kube.jobs.read_output(job, 0, node, 0, 4096)
    assert text.endswith(b"illegal memory access was encountered\n")
    assert kube.jobs.read_output(job, 0, node, len(text), 4096) == b""  # nothing past the end


def test_kubernetes_log_spool_keeps_the_last_two_attempts_and_never_repeats_a_line(
    kube: KubeHarness,
) -> None:
    job = kube.submit(workers=1)
    first = kube.placement(count=2)
    node = first["train-master-0"]
    kube.log("train-master-0", "attempt zero speaking")
    wait(lambda: kube.jobs.watched() and b"attempt zero" in kube.jobs.read_output(
        job, 0, node, 0, 4096), "spooled")  # a pass starts the pod's follower  # fmt: skip
    for _ in range(5):  # passes: the pod's log is followed once, not once per pass
        kube.jobs.watched()
    assert kube.jobs.read_output(job, 0, node, 0, 4096).count(b"attempt zero") == 1
    path = kube.spool.path(job, 0, node)
    assert path.exists()

    for attempt in (1, 2):
        kube.jobs.requeue(job, [], 0.0, kube.provenance(f"transient #{attempt}"))
        kube.placement(attempt=attempt, count=2)
        kube.jobs.watched()
    # Attempt 1's incident may still be read; attempt 0 is history: its spool is gone.
    assert not path.exists()
    assert kube.jobs.read_output(job, 0, node, 0, 4096) == b""


def test_kubernetes_a_pod_drained_before_any_pass_keeps_its_node_in_the_attempt(
    kube: KubeHarness,
) -> None:
    """Hardware recovery may drain a node between two job recovery passes: the attempt ran
    there, so the node (its log, its signals) stays in the job's view after the pod is gone."""
    job = kube.submit(workers=3, annotations={"autorecover.io/recovery": "on"})
    first = kube.placement()
    node = first["train-worker-1"]
    prov = kube.provenance("quarantine: drain")
    kube.nodes.cordon(node, prov)
    kube.nodes.drain(node, prov)  # no watched() pass has run: nothing read the pod's node yet
    wait(lambda: not any(p["spec"].get("nodeName") == node for p in kube.pods()), "evicted")
    seen = wait(lambda: next((w for w in kube.jobs.watched() if w.job == job), None), "watched")
    # every node the attempt ran on, and the one the operator recreated the pod on, if bound
    assert node in seen.status.nodes and set(first.values()) <= set(seen.status.nodes)


def cut_connections_to(port: int) -> int:
    """Shut every TCP connection this process holds to 127.0.0.1:`port` down, as a network cut
    would (the API server and the cluster's other clients go on); how many there were."""
    held = set()
    for row in Path("/proc/self/net/tcp").read_text().splitlines()[1:]:
        fields = row.split()
        if int(fields[2].split(":")[1], 16) == port and fields[3] == "01":  # ESTABLISHED
            held.add(fields[9])
    cut = 0
    for fd in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(OSError):
            target = str(fd.readlink())
            if target.startswith("socket:[") and target[8:-1] in held:
                sock = socket.socket(fileno=int(fd.name))
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                    cut += 1
                finally:
                    sock.detach()  # the fd stays its owner's
    return cut


def test_kubernetes_a_log_stream_opened_again_after_rotation_loses_and_repeats_nothing(
    kube: KubeHarness,
) -> None:
    """The kubelet serves a container's current log file only: when it has rotated the file
    and the stream is opened again (here its connection cut), the new stream begins with
    fewer bytes than were spooled. Each line is known by the kubelet's timestamp on it."""
    job = kube.submit(workers=0)
    node = kube.placement(count=1)["train-master-0"]
    kube.log("train-master-0", "step 1 " + "x" * 500)
    wait(lambda: kube.jobs.watched() and b"step 1" in kube.jobs.read_output(
        job, 0, node, 0, 4096), "spooled")  # fmt: skip
    assert cut_connections_to(kube.cluster.ports["apiserver"]) > 0  # opened again in 1 s
    log = kube.log_path("train-master-0")
    log.rename(log.with_suffix(".log.1"))  # rotated meanwhile: the current file starts empty
    log.touch()
    kube.log("train-master-0", "NCCL error: unhandled system error")
    wait(lambda: b"NCCL error" in kube.jobs.read_output(job, 0, node, 0, 4096),
         "the line after the rotation spooled", 60)  # fmt: skip
    text = kube.jobs.read_output(job, 0, node, 0, 4096)
    assert text == b"step 1 " + b"x" * 500 + b"\nNCCL error: unhandled system error\n"
