"""Golden lines from sweep 7b over what Kubernetes says about a training job's pods, as users paste
it into threads: kubelet's events and container states in `kubectl describe pod`, kubelet's
journal, kubectl's client errors, and the Kubeflow training-operator's per-pod event.

Each line is cited beside it and goes through the scanner's own matcher; the blame is pinned to
what the line's emitter means (a restart back-off, a lost container, a kill or a pod that is gone
restate a failure found elsewhere; a sandbox or network the node cannot set up is a weak pointer
at that node). Look-alikes must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    golden_line_checks,
)

BLAME: dict[str, Blame] = {
    "k8sevent.container_backoff": Blame.SYMPTOM,
    "k8sevent.container_status_unknown": Blame.SYMPTOM,
    "k8sevent.exit_code_killed": Blame.SYMPTOM,
    "k8sevent.sandbox_create_failed": Blame.HARDWARE,
    "k8sevent.sandbox_changed": Blame.SYMPTOM,
    "k8sevent.network_not_ready": Blame.HARDWARE,
    "k8sevent.pod_not_found": Blame.SYMPTOM,
    "k8sevent.exec_container_not_found": Blame.SYMPTOM,
    "pytorchjob.exited_with_code": Blame.SYMPTOM,
    "kueue.flavor_unassignable": Blame.SYMPTOM,
    "kuberay.submission_failed": Blame.SYMPTOM,
    "jobset.restarting": Blame.SYMPTOM,
    "jobset.job_creation_failed": Blame.SYMPTOM,
    "k8sevent.admission_out_of_device": Blame.SYMPTOM,
    "kai.unschedulable": Blame.SYMPTOM,
    "kubelet.pod_added": Blame.INFO,
    "kubelet.container_killed": Blame.TRANSIENT,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # the kubelet stopping a deleted pod's container: before 1.20 (pytorch/elastic issue #115's
    # pod deleted) and the structured form since (kuberuntime_container.go killContainer)
    (
        'I0803 08:03:27.641470    4512 kuberuntime_container.go:635] Killing container "docker://'
        '4b7e2c9d1f0a3e6b8c5d2f7a9e1b4c6d8f0a2e5b7c9d1f3a6e8b0c2d4f6a8e1b" with 30 second grace '
        "period",
        "kubelet.container_killed",
        {"grace": "30"},
    ),
    (
        'I0403 09:52:31.004044    2311 kuberuntime_container.go:809] "Killing container with a '
        'grace period" pod="team-b/sft-mistral-7b-master-0" containerName="pytorch" gracePeriod=30',
        "kubelet.container_killed",
        {},
    ),
    # the kubelet's journal on a GKE TPU node (rendered from kubelet.go syncLoopIteration)
    (
        "Nov 04 08:09:56 gke-tpu-v5p-np1-7d21b9c4-q5vm kubelet[2104]: I1104 08:09:56.416077    "
        '2104 kubelet.go:2419] "SyncLoop ADD" source="api" '
        'pods=["default/mxt-llama3-8b-2xv5p32-slice-job-1-2-9ag84"]',
        "kubelet.pod_added",
        {"address": "mxt-llama3-8b-2xv5p32-slice-job-1-2-9ag84"},
    ),
    # a public thread's BackOff event (a serverless container failing on start)
    (
        "  Warning  BackOff    11s                  kubelet            Back-off restarting failed "
        "container serverless-test in pod serverless-test-deployment-6c7657c859-66pn6_default"
        "(b50a7fa8-bb90-46f1-aba4-f17a2bb67161)",
        "k8sevent.container_backoff",
        {
            "container": "serverless-test",
            "pod": "serverless-test-deployment-6c7657c859-66pn6_default",
        },
    ),
    # older kubelets print the event without container and pod (a minikube describe in a thread)
    (
        "  Warning  BackOff    33s (x70 over 15m)  kubelet, minikube  Back-off restarting failed "
        "container",
        "k8sevent.container_backoff",
        {},
    ),
    # kubeflow/trainer issue #2008 (the training-operator relaying the waiting message)
    (
        "1.708507919323319e+09\tDEBUG\tevents\tError pod pytorch-simple-worker-0 container pytorch "
        "waiting message: back-off 40s restarting failed container=pytorch "
        "pod=pytorch-simple-worker-0_kubeflow(2e06a4e3-bceb-42b4-b0fd-a32cb53d0d00)",
        "k8sevent.container_backoff",
        {"waiting_container": "pytorch", "waiting_pod": "pytorch-simple-worker-0_kubeflow"},
    ),
    # kubeflow/katib issue #1112 (pytorchjob master pods in `kubectl get pods`)
    (
        "pytorchjob-example-82cjcqdz-master-0         0/2     CrashLoopBackOff   8          2m32s",
        "k8sevent.container_backoff",
        {},
    ),
    # kubernetes/website issue #40775 (a second hostNetwork pod crash-looping)
    (
        "shell-demo-second   0/1     CrashLoopBackOff   4 (20s ago)   2m32s",
        "k8sevent.container_backoff",
        {},
    ),
    # kubernetes/kubernetes issue #122932, apecloud/kubeblocks issue #8027
    ("      Reason:       ContainerStatusUnknown", "k8sevent.container_status_unknown", {}),
    (
        "      Message:      The container could not be located when the pod was terminated",
        "k8sevent.container_status_unknown",
        {"when": "terminated"},
    ),
    # kubernetes/kubernetes pull request #124947 (the last state of a deleted pod's container)
    (
        "      Message:      The container could not be located when the pod was deleted.  The "
        "container used to be Running",
        "k8sevent.container_status_unknown",
        {"when": "deleted"},
    ),
    # canonical/bundle-kubeflow issue #499 (its title)
    (
        'kfp charms fail with unknown container reason "ContainerStatusUnknown": The container '
        "could not be located when the pod was terminated",
        "k8sevent.container_status_unknown",
        {},
    ),
    # kubernetes/kubernetes issue #122256 (Reason: Error, Exit Code: 137, no OOMKilled)
    ("      Exit Code: 137", "k8sevent.exit_code_killed", {"code": "137"}),
    # googlefonts/fontbakery-dashboard issue #100 (a worker's last state)
    ("      Exit Code:    137", "k8sevent.exit_code_killed", {"code": "137"}),
    # NVIDIA/gpu-operator issue #716 (the node's CNI could not get an address)
    (
        "  Warning  FailedCreatePodSandBox  4m6s   kubelet            Failed to create pod sandbox: "
        'rpc error: code = Unknown desc = failed to setup network for sandbox "a82b1c9978772313eb'
        'caf17c11cd585c534989ae82ca2e8a53a4284feca8f8c4": plugin type="azure-vnet" failed (add): '
        "IPAM Invoker Add failed with error: Failed to get IP address from CNS",
        "k8sevent.sandbox_create_failed",
        {"code": "Unknown", "cause": "failed to setup network"},
    ),
    # NVIDIA/gpu-operator issue #549 (the nvidia runtime not yet configured on the node, and
    # containerd itself down)
    (
        "  Warning  FailedCreatePodSandBox  4m43s (x93 over 24m)  kubelet            Failed to "
        "create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no "
        'runtime for "nvidia" is configured',
        "k8sevent.sandbox_create_failed",
        {"cause": "failed to get sandbox runtime"},
    ),
    (
        "  Warning  FailedCreatePodSandBox  22m                   kubelet            Failed to "
        "create pod sandbox: rpc error: code = Unavailable desc = connection error: desc = "
        '"transport: Error while dialing dial unix /run/containerd/containerd.sock: connect: '
        'connection refused"',
        "k8sevent.sandbox_create_failed",
        {"code": "Unavailable"},
    ),
    # NVIDIA/gpu-operator pull request #2168 (must-gather's events table)
    (
        "3m45s       Warning   FailedCreatePodSandBox   pod/nvidia-operator-validator-l4754"
        "            Failed to create pod sandbox: rpc error: code = Unknown desc = unable to get "
        'OCI runtime for sandbox "18073b779521b77e3cbc7752dd5c2f63064efe24cec18807e917cd29f31fdf50'
        '": no runtime for "nvidia" is configured',
        "k8sevent.sandbox_create_failed",
        {"cause": "unable to get OCI runtime"},
    ),
    # microsoft/pai issue #4572 (the older wording; the CNI timing out to the API server)
    (
        "  Warning  FailedCreatePodSandBox  39m                     kubelet, gtx1080-2  Failed "
        "create pod sandbox: rpc error: code = Unknown desc = failed to set up sandbox container "
        '"c1ff329216d17fa9a69d5501a6c872523352e304c26841dfa8cf1def1e0a4f3b" network for pod '
        '"nvidia-device-plugin-daemonset-mjwnq": NetworkPlugin cni failed to set up pod',
        "k8sevent.sandbox_create_failed",
        {"cause": "failed to set up sandbox container"},
    ),
    # kubernetes/kubernetes issue #68885
    (
        "  Normal   SandboxChanged  2m               kubelet, thalassa  Pod sandbox changed, it "
        "will be killed and re-created.",
        "k8sevent.sandbox_changed",
        {},
    ),
    # justinas/nixos-ha-kubernetes issue #5
    (
        "Normal   SandboxChanged  5s (x2 over 79s)     kubelet            Pod sandbox changed, it "
        "will be killed and re-created.",
        "k8sevent.sandbox_changed",
        {},
    ),
    # NVIDIA/k8s-device-plugin issue #26 (kubelet's journal on a GPU node without a CNI config)
    (
        "Feb 12 10:02:01 slspGPU16 kubelet[148526]: E0212 10:02:01.261124  148526 kubelet.go:2104] "
        "Container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady "
        "message:docker: network plugin is not ready: cni config uninitialized",
        "k8sevent.network_not_ready",
        {"reason": "NetworkPluginNotReady"},
    ),
    # the pod event's wording (rendered from kubelet's NetworkNotReady message; no public paste
    # found in this sweep)
    (
        "  Warning  NetworkNotReady  2m  kubelet  network is not ready: container runtime network "
        "not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns "
        "error: cni plugin not initialized",
        "k8sevent.network_not_ready",
        {"reason": "NetworkPluginNotReady"},
    ),
    # dask/dask-gateway issue #149 (workers already gone when deleted)
    (
        'Error from server (NotFound): pods "dask-gateway-anaconda-worker-092560ec333a4f449b81fc4b4'
        '1434d1c" not found',
        "k8sevent.pod_not_found",
        {"pod": "dask-gateway-anaconda-worker-092560ec333a4f449b81fc4b41434d1c"},
    ),
    # kubernetes/website issue #14781, elifesciences/elife-xpub pull request #2165
    (
        'error: unable to upgrade connection: container not found ("task-pv-container")',
        "k8sevent.exec_container_not_found",
        {"container": "task-pv-container"},
    ),
    (
        'error: unable to upgrade connection: container not found ("elife-xpub")',
        "k8sevent.exec_container_not_found",
        {"container": "elife-xpub"},
    ),
    # kubeflow/trainer issue #2008 (the training-operator's log)
    (
        'time="2024-02-21T09:32:29Z" level=info msg="Pod: kubeflow.pytorch-simple-worker-0 exited '
        'with code 1" job=kubeflow.pytorch-simple replica-type=worker '
        "uid=10bd2912-0996-4fcf-a95a-bb84135861f1",
        "pytorchjob.exited_with_code",
        {"namespace": "kubeflow", "pod": "pytorch-simple-worker-0", "code": "1"},
    ),
    # a kubernetes-sigs/kueue issue thread of April 2024 (the kueue-admission Pending event)
    (
        "  Normal  Pending  116s (x25 over 116s)  kueue-admission  couldn't assign flavors to pod "
        "set main: insufficient unused quota for cpu in flavor default-flavor, 3 more needed",
        "kueue.flavor_unassignable",
        {"podset": "main", "reason": "insufficient unused quota", "resource": "cpu"},
    ),
    # a public SageMaker HyperPod task-governance walkthrough (a PyTorchJob's Workload)
    (
        "    Message:               couldn't assign flavors to pod set worker: borrowing limit for "
        "nvidia.com/gpu in flavor ml.g5.8xlarge exceeded",
        "kueue.flavor_unassignable",
        {
            "podset": "worker",
            "reason": "borrowing limit",
            "resource": "nvidia.com/gpu",
            "flavor": "ml.g5.8xlarge",
        },
    ),
    # ray-project/kuberay issue #2314 (a RayJob's status after its submitter Job failed)
    (
        "  message: 'Job submission has failed. Reason: BackoffLimitExceeded. Message: Job",
        "kuberay.submission_failed",
        {"reason": "BackoffLimitExceeded"},
    ),
    ("  reason: SubmissionFailed", "kuberay.submission_failed", {}),
    # kubernetes-sigs/jobset pull request #390 (kubectl get events)
    (
        "52s         Warning   Restarting                jobset/max-restarts                  "
        "restarting jobset, attempt 1",
        "jobset.restarting",
        {"attempt": "1"},
    ),
    # kubernetes-sigs/jobset issue #1024 (the controller's reconciler error, JSON-escaped)
    (
        '2025-09-05T11:27:55Z\tERROR\tReconciler error\t{"controller": "jobset", "error": "job '
        '\\"success-policy-workers-0\\" creation failed with error: Job.batch '
        '\\"success-policy-workers-0\\" is invalid: spec.completions: Required value: when '
        'completion mode is Indexed"}',
        "jobset.job_creation_failed",
        {"job": "success-policy-workers-0"},
    ),
    # the JobCreationFailed event's wording (rendered from jobset_controller.go)
    (
        "  Warning  JobCreationFailed  5s  jobset-controller  Job creation(s) failed with error: "
        'job "train-workers-0" creation failed with error: admission webhook denied the request',
        "jobset.job_creation_failed",
        {},
    ),
    # rendered from kubelet's admission predicate (no public paste found in this sweep)
    (
        "  Warning  OutOfnvidia.com/gpu  2m  kubelet  Node didn't have enough resource: "
        "nvidia.com/gpu, requested: 1, used: 8, capacity: 8",
        "k8sevent.admission_out_of_device",
        {"resource": "nvidia.com/gpu"},
    ),
    ("Reason:       OutOfnvidia.com/gpu", "k8sevent.admission_out_of_device", {}),
    # kai-scheduler/KAI-Scheduler issues #621 and #612 (a pending pod's events)
    (
        "  Warning  Unschedulable      2m11s (x599 over 12m)  kai-scheduler  Unable to schedule pod",
        "kai.unschedulable",
        {},
    ),
    ("Unschedulable Unable to schedule pod", "kai.unschedulable", {}),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # kubelet's healthy events (justinas/nixos-ha-kubernetes issue #5, a minikube describe)
    (
        "k8sevent.container_backoff",
        "Normal   Killing         6s (x2 over 79s)     kubelet            Stopping container tshoot",
    ),
    (
        "k8sevent.container_backoff",
        "  Normal   Started    14m (x4 over 15m)   kubelet, minikube  Started container",
    ),
    # an image pull back-off is cloud.k8s_image_pull_backoff's
    ("k8sevent.container_backoff", 'Back-off pulling image "nvcr.io/nvidia/pytorch:24.01-py3"'),
    # a clean exit, an application's own exit code
    ("k8sevent.exit_code_killed", "      Exit Code:    0"),
    ("k8sevent.exit_code_killed", "      Exit Code:    1"),
    ("k8sevent.exit_code_killed", "      Exit Code:    1370"),
    # the pod running, and a healthy sandbox
    ("k8sevent.container_status_unknown", "    State:          Running"),
    (
        "k8sevent.sandbox_create_failed",
        "  Normal   Scheduled  24m  default-scheduler  Successfully assigned",
    ),
    ("k8sevent.sandbox_changed", "Pod sandbox created"),
    # the runtime network ready again
    ("k8sevent.network_not_ready", '"type": "NetworkReady", "status": true'),
    # other resources not found are other stories; a pod found
    ("k8sevent.pod_not_found", 'Error from server (NotFound): configmaps "train-cfg" not found'),
    ("k8sevent.pod_not_found", "pod/train-worker-0 created"),
    # kubectl exec failing for another reason (k3s-io/k3s issue #13470)
    (
        "k8sevent.exec_container_not_found",
        "error: Internal error occurred: unable to upgrade connection: 404 page not found",
    ),
    # the training-operator's healthy replica count (kubeflow/trainer issue #2008); another
    # program's exit code
    (
        "pytorchjob.exited_with_code",
        'time="2024-02-21T09:31:59Z" level=info msg="PyTorchJob=pytorch-simple, ReplicaType=Master '
        'expected=1, running=1, succeeded=0, failed=0, Replicas=1"',
    ),
    ("pytorchjob.exited_with_code", "fusermount exited with code 1"),
    # Kueue admitting the workload (a healthy event); KubeRay's other reasons are other stories
    (
        "kueue.flavor_unassignable",
        "  Normal  QuotaReserved  5s  kueue-admission  Quota reserved in ClusterQueue cluster-queue",
    ),
    ("kuberay.submission_failed", "  reason: AppFailed"),
    # JobSet's healthy creation, another controller's creation failure
    (
        "jobset.restarting",
        "Normal   SuccessfulCreate   jobset/max-restarts   created job max-restarts-worker-0",
    ),
    ("jobset.job_creation_failed", 'deployment "x" creation failed with error: y'),
    # KAI placing the pod
    (
        "kai.unschedulable",
        "  Normal   Scheduled  10s  kai-scheduler  Successfully assigned kaitest/cpu-only-pod to "
        "kind-worker",
    ),
    # a CPU or memory shortfall is not an accelerator's
    (
        "k8sevent.admission_out_of_device",
        "  Warning  OutOfcpu  2m  kubelet  Node didn't have enough resource: cpu, requested: 4000, "
        "used: 60000, capacity: 64000",
    ),
    ("k8sevent.admission_out_of_device", "CUDA error: out of memory (OutOfMemoryError)"),
    (
        "kuberay.submission_failed",
        "Job submission server address: http://sample-cluster-head-svc:8265",
    ),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_restatements_decide_nothing() -> None:
    """Back-offs, lost containers, kills and vanished pods say that a container ended, not why."""
    for key, blame in BLAME.items():
        if blame is Blame.SYMPTOM:
            sig = CATALOG.signatures[key]
            assert sig.weight <= 15, key
            assert sig.node_action.value == "none", key


def test_a_node_sandbox_failure_only_points_at_the_node() -> None:
    """A cluster-wide CNI or runtime misconfiguration prints the same: inspect, never isolate."""
    for key in ("k8sevent.sandbox_create_failed", "k8sevent.network_not_ready"):
        sig = CATALOG.signatures[key]
        assert 0 < sig.weight < 60, key
        assert sig.node_action.value == "inspect", key
