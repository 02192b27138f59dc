"""Golden lines from the fourth tracker sweep of issue 14 over the platforms around a job: cloud
provisioning (capacity and quota), the kubelet starting a pod (images, Secrets, ConfigMaps),
Slurm's refusals of a request, pyxis/enroot importing a container, object stores' access and
endpoints, and JAX's start-up barrier.

Each line is cited beside it and goes through the scanner's own matcher; the blame is pinned to
what the line's emitter means. The split this sweep looked for is the platform's event against
the job's own setup: a zone out of capacity or a registry outage passes (transient), a spent
quota, a missing image, Secret or credential, or a request no node can meet fails the same way on
every retry (application), and a line that only restates an earlier failure is a symptom.
Look-alikes must not match, and none of these lines may read as the application's error unless
the entry means it.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import CATALOG, golden_line_checks

BLAME: dict[str, Blame] = {
    "cloud.capacity_unavailable": Blame.TRANSIENT,
    "cloud.quota_exceeded": Blame.APPLICATION,
    "cloud.k8s_image_not_found": Blame.APPLICATION,
    "cloud.k8s_image_pull_backoff": Blame.SYMPTOM,
    "cloud.k8s_config_missing": Blame.APPLICATION,
    "slurm.request_rejected": Blame.APPLICATION,
    "slurm.pyxis_image_refused": Blame.APPLICATION,
    "slurm.pyxis_start_failed": Blame.SYMPTOM,
    "slurm.task_exec_failed": Blame.APPLICATION,
    "service.access_denied": Blame.APPLICATION,
    "service.endpoint_unreachable": Blame.SYMPTOM,
    "xla.init_barrier_timeout": Blame.SYMPTOM,
    "xla.cuda_backend_env": Blame.APPLICATION,
    "service.credentials_missing": Blame.APPLICATION,
    "slurm.controller_unreachable": Blame.TRANSIENT,
    "storage.nfs_mount_denied": Blame.APPLICATION,
    "cloud.k8s_gpu_unschedulable": Blame.SYMPTOM,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # aws/aws-parallelcluster-node#603 (CreateFleet for a Slurm cloud node)
    (
        "2023-11-14 14:15:33,991 - 13114 - [slurm_plugin.fleet_manager:_launch_instances] - ERROR "
        "- Error in CreateFleet request (0ba56b9a-7e43-43e5-ad11-ba5a6f2d2bb1): "
        "InsufficientInstanceCapacity - We currently do not have sufficient p4d.24xlarge capacity "
        "in the Availability Zone you requested (us-east-1d). Our system will be working on "
        "provisioning additional capacity.",
        "cloud.capacity_unavailable",
        {"code": "InsufficientInstanceCapacity"},
    ),
    # skyplane-project/skyplane#299
    (
        "01:05:03 [WARN]  An error occurred (InsufficientInstanceCapacity) when calling the "
        "RunInstances operation (reached max retries: 4): We currently do not have sufficient "
        "m5.8xlarge capacity in the Availability Zone you requested (us-west-1a).",
        "cloud.capacity_unavailable",
        {"code": "InsufficientInstanceCapacity"},
    ),
    # cirruslabs/cirrus-ci-docs#131
    (
        "Failed to start: UNKNOWN: ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS The zone "
        "'projects/cirrus-ci-community/zones/us-central1-f' does not have enough resources "
        "available to fulfill the request. '(resource type:pd-standard)'.",
        "cloud.capacity_unavailable",
        {"code": "ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS"},
    ),
    # cloud-barista/cb-spider#1125 (the zone message alone, an a2-highgpu-1g VM)
    (
        '   ==> {"message":"Operation errors: The zone \'projects/powerkimhub/zones/us-central1-a\' '
        "does not have enough resources available to fulfill the request.  '(resource "
        "type:compute)'.\"}",
        "cloud.capacity_unavailable",
        {},
    ),
    # skypilot-org/skypilot#290 (EC2 vCPU limit while failing over)
    (
        "W 02-09 01:24:30 cloud_vm_ray_backend.py:435]   botocore.exceptions.ClientError: An error "
        "occurred (VcpuLimitExceeded) when calling the StartInstances operation: You have requested "
        "more vCPU capacity than your current vCPU limit of 96 allows for the instance bucket that "
        "the specified instance type belongs to.",
        "cloud.quota_exceeded",
        {"code": "VcpuLimitExceeded"},
    ),
    # aws/sagemaker-python-sdk#35
    (
        "E           ResourceLimitExceeded: An error occurred (ResourceLimitExceeded) when calling "
        "the CreateTrainingJob operation: The account-level service limit for "
        "training-job/ml.p2.xlarge is 0 Instances, with current utilization of 0 Instances and a "
        "request delta of 2 Instances.",
        "cloud.quota_exceeded",
        {"code": "ResourceLimitExceeded"},
    ),
    # skypilot-org/skypilot#4333 (GCE)
    (
        "W 11-11 22:15:15 instance_utils.py:112] Got return codes 'VM_MIN_COUNT_NOT_REACHED', "
        "'QUOTA_EXCEEDED' in us-central1-a: 'Requested minimum count of 1 VMs could not be "
        "created'; \"Quota 'SSD_TOTAL_GB' exceeded.  Limit: 500.0 in region us-central1\"",
        "cloud.quota_exceeded",
        {"quota": "SSD_TOTAL_GB"},
    ),
    # fastai/course-v3#165
    (
        "     - Quota 'GPUS_ALL_REGIONS' exceeded. Limit: 0.0 globally.",
        "cloud.quota_exceeded",
        {"quota": "GPUS_ALL_REGIONS"},
    ),
    # nforgeio/neonKUBE#1671 (Azure)
    (
        "Azure.RequestFailedException: 'Operation could not be completed as it results in "
        "exceeding approved Total Regional Cores quota. Additional details - Deployment Model: "
        "Resource Manager, Location: centralus, Current Limit: 10, Current Usage: 8, Additional "
        "Required: 4, (Minimum) New Limit Required: 12.",
        "cloud.quota_exceeded",
        {},
    ),
    # hashicorp/terraform#10056 (Azure's older wording)
    (
        "* azurerm_virtual_machine.test.0: compute.VirtualMachinesClient#CreateOrUpdate: Failure "
        "responding to request: StatusCode=409 -- Original Error: autorest/azure: Service returned "
        'an error. Status=409 Code="OperationNotAllowed" Message="Operation results in exceeding '
        'quota limits of Core. Maximum allowed: 20, Current in use: 20, Additional requested: 2."',
        "cloud.quota_exceeded",
        {},
    ),
    # GoogleCloudPlatform/stable-diffusion-on-gcp#12 (Vertex AI custom job)
    (
        '    "message": "The following quota metrics exceed quota limits: '
        'aiplatform.googleapis.com/custom_model_training_nvidia_l4_gpus",',
        "cloud.quota_exceeded",
        {"metric": "aiplatform.googleapis.com/custom_model_training_nvidia_l4_gpus"},
    ),
    # open-telemetry/opentelemetry-operator#239
    (
        'Failed to pull image "quay.io/opentelemetry/opentelemetry-operator:0.23.0": rpc error: '
        "code = Unknown desc = Error response from daemon: manifest for "
        "quay.io/opentelemetry/opentelemetry-operator:0.23.0 not found: manifest unknown: manifest "
        "unknown",
        "cloud.k8s_image_not_found",
        {"image": "quay.io/opentelemetry/opentelemetry-operator:0.23.0"},
    ),
    # infradohq/headscale-operator#123
    (
        "  Warning  Failed     2s               kubelet            "
        'spec.containers{apikey-manager}: Failed to pull image "headscale-api-key": Error response '
        "from daemon: pull access denied for headscale-api-key, repository does not exist or may "
        "require 'docker login': denied: requested access to the resource is denied",
        "cloud.k8s_image_not_found",
        {"image": "headscale-api-key"},
    ),
    # tinkerbell/operator#18 (containerd)
    (
        'Failed to pull image "tinkerbell/operator:v0.1.0": rpc error: code = Unknown desc = failed '
        'to pull and unpack image "docker.io/tinkerbell/operator:v0.1.0": failed to resolve '
        'reference "docker.io/tinkerbell/operator:v0.1.0": pull access denied, repository does not '
        "exist or may require authorization: server message: insufficient_scope: authorization "
        "failed",
        "cloud.k8s_image_not_found",
        {"image": "tinkerbell/operator:v0.1.0"},
    ),
    # element-hq/ess-starter-edition-core#1 (a private repository)
    (
        'Failed to pull image "docker.io/vectorim/ess-starter-edition-core-operator:2.11.9": rpc '
        "error: code = Unknown desc = reading manifest 2.11.9 in "
        "docker.io/vectorim/ess-starter-edition-core-operator: requested access to the resource is "
        "denied",
        "cloud.k8s_image_not_found",
        {"image": "docker.io/vectorim/ess-starter-edition-core-operator:2.11.9"},
    ),
    # kubeflow/kubeflow#2698
    (
        "Mar 14 19:34:13 minikube kubelet[3244]: E0314 19:34:13.520901    3244 "
        "pod_workers.go:190] Error syncing pod 4b4728cd-4620-11e9-9bf4-d409029b649b "
        '("modeldb-backend-54f88cf869-xbnz4_kubeflow(4b4728cd-4620-11e9-9bf4-d409029b649b)"), '
        'skipping: failed to "StartContainer" for "modeldb-backend" with ImagePullBackOff: '
        '"Back-off pulling image \\"mitdbg/modeldb-backend:kf0.4\\""',
        "cloud.k8s_image_pull_backoff",
        {},
    ),
    # kubernetes/kubernetes#80466
    (
        "  Warning  Failed                  29m                kubelet, "
        'ip-10-50-155-108.ec2.internal  Error: secrets "busybox-secret-47" not found',
        "cloud.k8s_config_missing",
        {"kind": "secrets", "name": "busybox-secret-47"},
    ),
    # cloudfoundry/eirini-release#111
    (
        "  Warning  FailedMount  2m57s (x8 over 4m1s)  kubelet, <redacted-address>  "
        'MountVolume.SetUp failed for volume "cf-secrets" : secrets "secrets-2.16.4-1" not found',
        "cloud.k8s_config_missing",
        {"kind": "secrets", "name": "secrets-2.16.4-1"},
    ),
    # DataCloud-project/SIM-PIPE#179
    (
        'Error from server (BadRequest): container "main" in pod '
        '"nhrf-pipeline-dxw6w-get-s3-data-1470972237" is waiting to start: '
        "CreateContainerConfigError",
        "cloud.k8s_config_missing",
        {},
    ),
    # BLAST-WarpX/warpx#3601 (srun and sbatch)
    (
        "srun: error: Unable to create step for job 238051: More processors requested than "
        "permitted",
        "slurm.request_rejected",
        {"reason": "More processors requested than permitted"},
    ),
    (
        "sbatch: error: Batch job submission failed: Requested node configuration is not available",
        "slurm.request_rejected",
        {"reason": "Requested node configuration is not available"},
    ),
    # rcgsheffield/sheffield_hpc#1042
    (
        "srun: error: Unable to allocate resources: Requested node configuration is not available",
        "slurm.request_rejected",
        {"reason": "Requested node configuration is not available"},
    ),
    # mehta-lab/recOrder#482
    (
        "srun: error: Unable to create step for job 16413634: Invalid generic resource (gres) "
        "specification",
        "slurm.request_rejected",
        {"reason": "Invalid generic resource (gres) specification"},
    ),
    # radical-cybertools/radical.saga#835
    (
        "sbatch: error: Batch job submission failed: Requested GRES option unsupported by "
        "configured SelectType plugin",
        "slurm.request_rejected",
        {"reason": "Requested GRES option unsupported by configured SelectType plugin"},
    ),
    # NVIDIA/pyxis#168 (an Azure registry's image asked of Docker Hub)
    (
        "slurmstepd: error: pyxis:     [ERROR] URL https://registry-1.docker.io/v2/"
        "evuedsoacr.azurecr.io/dc-ecosys-appl-eng/mlperf-nvidia/manifests/stable_diffusion-pyt "
        "returned error code: 401 Unauthorized",
        "slurm.pyxis_image_refused",
        {"status": "401"},
    ),
    # NVIDIA/pyxis#118 (a plain-HTTP local registry)
    (
        "slurmstepd: error: pyxis:     [ERROR] URL http://master:5000/v2/custom-pytorch-3-1/"
        "manifests/latest returned error code: 400 Bad Request",
        "slurm.pyxis_image_refused",
        {"status": "400"},
    ),
    # NVIDIA/enroot#161 (enroot alone, an expired NGC key)
    (
        "[ERROR] URL https://nvcr.io/proxy_auth returned error code: 401 Unauthorized",
        "slurm.pyxis_image_refused",
        {"status": "401"},
    ),
    # NVIDIA/pyxis#168 and #71 (the lines around every failed import)
    ("slurmstepd: error: pyxis: failed to import docker image", "slurm.pyxis_start_failed", {}),
    ("slurmstepd: error: pyxis: couldn't start container", "slurm.pyxis_start_failed", {}),
    (
        "   slurmstepd: error: pyxis: child 129103 failed with error code: 1",
        "slurm.pyxis_start_failed",
        {"code": "1"},
    ),
    # firelab/windninja#624
    (
        "slurmstepd: error: execve(): mkdir: No such file or directory",
        "slurm.task_exec_failed",
        {"program": "mkdir", "error": "No such file or directory"},
    ),
    # googlecolab/colabtools#1177 (the TPU's service account without a role on the bucket)
    (
        '    "message": "service-495559152420@cloud-tpu.iam.gserviceaccount.com does not have '
        "storage.objects.create access to bucketname/train/"
        'events.out.tfevents.1587750594.n-205be46b-w-0.126.1385.v2.",',
        "service.access_denied",
        {},
    ),
    # nyu-dl/dl4marco-bert#19 (TensorFlow's GCS file system)
    (
        "Unsuccessful TensorSliceReader constructor: Failed to get matching files on "
        "gs://xusongpei1995/output/model.ckpt-0: Permission denied: Error executing an HTTP "
        "request: HTTP response code 403 with body '{",
        "service.access_denied",
        {},
    ),
    # EleutherAI/gpt-neo#160 (an anonymous caller)
    (
        "tensorflow.python.framework.errors_impl.PermissionDeniedError: Error executing an HTTP "
        "request: HTTP response code 401 with body '{",
        "service.access_denied",
        {},
    ),
    # aws/sagemaker-python-sdk#454 (TensorFlow's S3 file system, checkpoints at random steps)
    (
        "ERROR - container_support.training - uncaught exception during training: : Unable to "
        "connect to endpoint",
        "service.endpoint_unreachable",
        {},
    ),
    # marin-community/marin#7232 (hosts of a cold-restarted gang still starting); the same line
    # in ayaka14732/llama-2-jax#20 was one process launched for num_processes=8
    (
        "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: "
        "PjRT_Client_Connect. Timed out task names:",
        "xla.init_barrier_timeout",
        {},
    ),
    # KosinskiLab/AlphaPulldown#237 (JAX's INFO line when the CUDA backend cannot start)
    (
        "I0105 14:05:05.749943 140453630969664 xla_bridge.py:660] Unable to initialize backend "
        "'cuda': Found cuSOLVER version 11002, but JAX was built against version 11401, which is "
        "newer. The copy of cuSOLVER that is installed must be at least as new as the version "
        "against which JAX was built.",
        "xla.cuda_backend_env",
        {"reason": "Found cuSOLVER version 11002, but JAX was built against version 11401"},
    ),
    # jax-ml/jax#22416 (a CUDA jaxlib beside a CPU jax of another build)
    (
        "RuntimeError: Unable to initialize backend 'cuda': INVALID_ARGUMENT: Mismatched PJRT "
        "plugin PJRT API version (0.54) and framework PJRT API version 0.51).",
        "xla.cuda_backend_env",
        {"reason": "INVALID_ARGUMENT: Mismatched PJRT plugin PJRT API version"},
    ),
    (
        "E0715 18:02:17.586518  591934 cuda_dnn.cc:523] Loaded runtime CuDNN library: 9.0.0 but "
        "source was compiled with: 9.1.1.  CuDNN library needs to have matching major version and "
        "equal or higher minor version.",
        "xla.cuda_backend_env",
        {"loaded": "9.0.0", "compiled": "9.1.1"},
    ),
    # ray-project/kuberay#2625 (IRSA credentials not reaching the workers)
    (
        "botocore.exceptions.NoCredentialsError: Unable to locate credentials",
        "service.credentials_missing",
        {},
    ),
    # aws/sagemaker-python-sdk#403 (SageMaker local mode)
    (
        "algo-1-57SXP_1  | 2018-10-03 10:56:44,228 ERROR - container_support.training - uncaught "
        "exception during training: Unable to locate credentials",
        "service.credentials_missing",
        {},
    ),
    # GoogleCloudPlatform/gcsfuse#1395 (troubleshooting table: a mount stuck without credentials)
    (
        "Mount get stuck with error: DefaultTokenSource: google: could not find default "
        "credentials",
        "service.credentials_missing",
        {},
    ),
    # ArjunaCluster/ArjunaUsers#100 (the head node had rebooted)
    (
        "srun: error: Unable to confirm allocation for job 60564: Unable to contact slurm "
        "controller (connect failure)",
        "slurm.controller_unreachable",
        {"reason": "Unable to contact slurm controller (connect failure)"},
    ),
    # ai4d-iasc/trixie#93 (slurmctld crashed)
    (
        "slurm_load_partitions: Unable to contact slurm controller (connect failure)",
        "slurm.controller_unreachable",
        {},
    ),
    # facebookincubator/submitit#1659 (an overloaded controller)
    (
        "sbatch: error: Batch job submission failed: Socket timed out on send/recv operation",
        "slurm.controller_unreachable",
        {"reason": "Socket timed out on send/recv operation"},
    ),
    # AMDResearch/hpcfund#77
    (
        "salloc: error: Job submit/allocate failed: Socket timed out on send/recv operation",
        "slurm.controller_unreachable",
        {},
    ),  # kubernetes/kubernetes#108963 (the kubelet's FailedMount output)
    (
        "Output: mount.nfs: access denied by server while mounting 192.168.43.16:/nfs_share",
        "storage.nfs_mount_denied",
        {"export": "192.168.43.16:/nfs_share"},
    ),
    # kubernetes/examples#220 (the export admitted only the server's own host)
    (
        "mount.nfs: access denied by server while mounting 10.43.103.112:/",
        "storage.nfs_mount_denied",
        {"export": "10.43.103.112:/"},
    ),
    # kai-scheduler/KAI-Scheduler#39 (KAI's Unschedulable event)
    (
        "Warning  Unschedulable  kai-scheduler  No nodes with enough resources were found: 2 "
        "node(s) didn't have enough resources: GPUs.",
        "cloud.k8s_gpu_unschedulable",
        {"kai_nodes": "2"},
    ),
]

NEGATIVE: list[tuple[str, str]] = [
    # a spent quota is not missing capacity, and neither is throttling of the API
    (
        "cloud.capacity_unavailable",
        "     - Quota 'GPUS_ALL_REGIONS' exceeded. Limit: 0.0 globally.",
    ),
    (
        "cloud.quota_exceeded",
        "ZONE_RESOURCE_POOL_EXHAUSTED: The zone 'projects/fontbakery-168509/zones/us-central1-a' "
        "does not have enough resources available to fulfill the request.",
    ),
    # aws/deep-learning-containers#1018: the API's rate limit passes, it is no quota
    (
        "cloud.quota_exceeded",
        "botocore.exceptions.ClientError: An error occurred (ThrottlingException) when calling the "
        "CreateTrainingJob operation (reached max retries: 4): Rate exceeded",
    ),
    # device memory and gRPC limits are not a cloud quota
    (
        "cloud.quota_exceeded",
        "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 bytes.",
    ),
    # a registry's rate limit or outage is not a missing image
    (
        "cloud.k8s_image_not_found",
        'Failed to pull image "docker.io/library/busybox:1.29": rpc error: code = Unknown desc = '
        "Error response from daemon: toomanyrequests: You have reached your pull rate limit.",
    ),
    (
        "cloud.k8s_image_not_found",
        "[received unexpected HTTP status: 502 Bad Gateway] Failed to pull image "
        "nvcr.io/nvidia/k8s/dcgm-exporter:2.3.1-2.6.1-ubuntu20.04",
    ),
    (
        "cloud.k8s_image_pull_backoff",
        'Successfully pulled image "nvcr.io/nvidia/pytorch:24.01-py3"',
    ),
    # other objects not found are not the pod's configuration
    (
        "cloud.k8s_config_missing",
        'Error from server (NotFound): pods "trainer-worker-0" not found',
    ),
    # a busy cluster passes; only a request no node can meet is the job's
    (
        "slurm.request_rejected",
        "srun: Job 1234 step creation temporarily disabled, retrying (Requested nodes are busy)",
    ),
    (
        "slurm.request_rejected",
        "srun: error: Unable to allocate resources: Required node not available (down, drained or "
        "reserved)",
    ),
    # a registry outage under enroot (format of enroot src/docker.sh) is not a refusal
    (
        "slurm.pyxis_image_refused",
        "slurmstepd: error: pyxis:     [ERROR] URL https://nvcr.io/v2/nvidia/pytorch/manifests/"
        "24.01-py3 returned error code: 503 Service Unavailable",
    ),
    ("slurm.pyxis_start_failed", "pyxis: importing docker image: nvcr.io#nvidia/pytorch:20.02-py3"),
    # the batch script slurmd spooled is the node's, not the job's program
    (
        "slurm.task_exec_failed",
        "slurmstepd: error: execve(): /tmp/slurmd/job00089/slurm_script: No such file or directory",
    ),
    # nyu-dl/dl4marco-bert#19: a missing object is not a refused one
    (
        "service.access_denied",
        "Error executing an HTTP request: HTTP response code 404 with body '{",
    ),
    ("service.endpoint_unreachable", "Connected to endpoint https://s3.us-west-2.amazonaws.com"),
    # a server that does not answer is an outage, not a refusal
    ("storage.nfs_mount_denied", "mount.nfs: Connection timed out"),
    # a driver without devices is not a library mismatch (jax-ml/jax#24866: left to cuda.*)
    (
        "xla.cuda_backend_env",
        "CUDA backend failed to initialize: jaxlib/cuda/versions_helpers.cc:90: operation "
        "cuInit(0) failed: CUDA_ERROR_SYSTEM_NOT_READY",
    ),
    # credentials that exist but are refused are service.access_denied, not missing ones
    (
        "service.credentials_missing",
        "botocore.exceptions.ClientError: An error occurred (InvalidAccessKeyId) when calling the "
        "GetObject operation: The AWS Access Key Id you provided does not exist in our records.",
    ),
    # a step's own launch on one node is slurm.task_launch_failed, not the controller
    (
        "slurm.controller_unreachable",
        "srun: error: Task launch for StepId=36.0 failed on node cn131: Socket timed out on "
        "send/recv operation",
    ),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_capacity_passes_and_quota_does_not() -> None:
    """The provider's empty zone decides a retry; the account's quota weighs as the job's."""
    capacity = CATALOG.signatures["cloud.capacity_unavailable"]
    quota = CATALOG.signatures["cloud.quota_exceeded"]
    assert capacity.weight >= 50 and capacity.node_action.value == "none"
    assert quota.weight > CATALOG.signatures["python.exception"].weight


def test_a_start_up_barrier_is_not_a_transient_verdict() -> None:
    """A job that never assembled may be a launch mistake: weak, and not the transient class."""
    sig = CATALOG.signatures["xla.init_barrier_timeout"]
    assert sig.blame is Blame.SYMPTOM and sig.weight < 40
