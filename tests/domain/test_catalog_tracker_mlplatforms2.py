"""Golden lines from sweep 20 over what managed ML platforms and cluster tooling print when a
job fails, beyond sweep 9 (signatures-mlplatforms2.toml): SageMaker's training toolkit reporting a
failure, Vertex AI's internal error after its retries, Azure ML's image pull failures,
Determined's lost agents, SkyPilot's job statuses (FAILED, FAILED_SETUP, FAILED_DRIVER,
FAILED_NO_RESOURCE, FAILED_PRECHECKS), dstack's runner, volume and limit termination reasons and
Databricks' init script failures.

Each line is a real one from the public thread cited beside it, or, where none was found, the
platform's documented message rendered (said so beside it); every line goes through the scanner's
own matcher. Blame is pinned to the platform's own classification: a setup or precheck failure
and a registry the environment could not authenticate to are the job's, a stockout or the
service's internal error after its retries is transient, a lost agent, runner or driver and a
restated exit are symptoms. Healthy lines of the same tools must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from autorecover.domain.shape import COLLECTIVE, STRONG
from domain.golden import (
    CATALOG,
    assert_no_node_action,
    family_contract,
    family_keys,
    golden_line_checks,
    hits,
)

FILE = "signatures-mlplatforms2.toml"
FAMILY = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "sagemaker.toolkit_failure_reported": Blame.SYMPTOM,
    "vertex.internal_error": Blame.TRANSIENT,
    "azureml.image_pull_unauthorized": Blame.APPLICATION,
    "azureml.image_pull_failed": Blame.APPLICATION,
    "determined.agent_failed": Blame.SYMPTOM,
    "skypilot.setup_failed": Blame.APPLICATION,
    "skypilot.job_failed": Blame.SYMPTOM,
    "skypilot.driver_failed": Blame.SYMPTOM,
    "skypilot.no_resource": Blame.TRANSIENT,
    "skypilot.prechecks_failed": Blame.APPLICATION,
    "dstack.runner_wait_exceeded": Blame.SYMPTOM,
    "dstack.runner_error": Blame.SYMPTOM,
    "dstack.volume_error": Blame.SYMPTOM,
    "dstack.run_limit_reached": Blame.SYMPTOM,
    "databricks.init_script_failed": Blame.APPLICATION,
    "skypilot.cluster_not_up": Blame.SYMPTOM,  # msched (session 23)
}

NAMESPACES = frozenset(
    {"sagemaker", "hyperpod", "vertex", "azureml", "databricks", "skypilot", "dstack",
     "determined", "runai", "anyscale"}
)  # fmt: skip

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FILE: NAMESPACES}, BLAME)

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # aws/amazon-sagemaker-examples issue #1224 (sagemaker-containers, a PyTorch estimator)
    (
        "2020-05-27 12:17:39,523 sagemaker-containers ERROR    Reporting training FAILURE",
        "sagemaker.toolkit_failure_reported",
        {"toolkit": "containers"},
    ),
    (
        "2020-05-27 12:17:39,523 sagemaker-containers ERROR    framework error: ",
        "sagemaker.toolkit_failure_reported",
        {"toolkit": "containers"},
    ),
    # aws/sagemaker-python-sdk issue #1853 (sagemaker-training-toolkit in local mode)
    (
        "algo-1-g4d94_1  | 2020-08-25 20:00:05,420 sagemaker-training-toolkit ERROR    Reporting "
        "training FAILURE",
        "sagemaker.toolkit_failure_reported",
        {"toolkit": "training-toolkit"},
    ),
    # Vertex AI "Understand the serverless training service", Handle internal errors, as gcloud ai
    # custom-jobs describe prints error.message (rendered)
    (
        "  message: Internal error occurred for the current attempt.",
        "vertex.internal_error",
        {},
    ),
    # a user's walkthrough of Azure ML registries (az ml job create, an environment in an AzureML
    # registry whose ACR the compute could not authenticate to)
    (
        "AggregatedUnauthorizedAccessError: Failed to pull Docker image "
        "mma57500dd5c1bf4fb9a4f.azurecr.io/my-pytorch_1_9177bed4-0cce-538a-90d0-c42b92f709da. "
        "This error may occur because the compute could not authenticate with the Docker "
        "registry to pull the image.",
        "azureml.image_pull_unauthorized",
        {"code": "AggregatedUnauthorizedAccessError"},
    ),
    (
        '\tError: {"Code":"DockerUnauthorizedAccessError","Category":"UserError","Message":'
        '"Failed to pull Docker image mma57500dd5c1bf4fb9a4f.azurecr.io/my-pytorch_1_9177bed4-'
        '0cce-538a-90d0-c42b92f709da with authentication mode Anonymous"}',
        "azureml.image_pull_unauthorized",
        {"code": "DockerUnauthorizedAccessError"},
    ),
    # MicrosoftLearning/mslearn-dp100 issue #77 (a pipeline step on a compute cluster)
    ("FailedPullingImage: Unable to pull docker image", "azureml.image_pull_failed", {}),
    # Azure/MachineLearningNotebooks issue #1371 (the run's error as one JSON string)
    (
        '"FailedPullingImage: Unable to pull docker image\\n\\timageName: Run docker command to '
        "pull public image failed with error: error response from daemon: unauthorized: "
        'authentication required"',
        "azureml.image_pull_failed",
        {},
    ),
    # determined-ai/determined issue #5704 (trials terminated at random)
    (
        "ERROR: Trial (Experiment 49) was terminated: allocation failed due to agent failure: "
        "agent failed while the container was running: agent closed with allocated containers",
        "determined.agent_failed",
        {},
    ),
    # skypilot-org/skypilot pull request #7001 (a three-node setup with two failing workers)
    (
        "ERROR: Job 1's setup failed. Failed workers: (pid=1840, returncode=1), (pid=2061, "
        "returncode=1). See error logs above for more details.",
        "skypilot.setup_failed",
        {"job": "1"},
    ),
    ("✓ Job finished (status: FAILED_SETUP).", "skypilot.setup_failed", {}),
    # skypilot-org/skypilot pull request #1047 (the older setup failure message)
    (
        "Failed to setup with return code 127. Check the details in log: "
        "~/sky_logs/sky-2022-08-07-00-19-04-685768/setup-34.227.105.10.log.",
        "skypilot.setup_failed",
        {"code": "127"},
    ),
    # skypilot-org/skypilot issue #633 (an SSH failure during setup reads the same)
    (
        "E 03-23 10:00:41 backend_utils.py:968] Failed to setup with return code 255",
        "skypilot.setup_failed",
        {"code": "255"},
    ),
    # skypilot-org/skypilot issue #4599 (sky launch and sky jobs launch of a failing command)
    (
        "ERROR: Job 439 failed with return code list: [1]",
        "skypilot.job_failed",
        {"job": "439", "codes": "1"},
    ),
    ("✓ Job finished (status: FAILED).", "skypilot.job_failed", {}),
    ("✓ Managed job finished: 7 (status: FAILED).", "skypilot.job_failed", {}),
    # skypilot-org/skypilot pull request #5838 (one worker failed, the others cleaned up)
    (
        "> ERROR: Job X failed with return code list: [137, 1, 137 137] (A worker failed with "
        "return code 1, SkyPilot cleaned up the processes on other nodes with return code 137)",
        "skypilot.job_failed",
        {"job": "X", "codes": "137, 1, 137 137"},
    ),
    # skypilot-org/skypilot issue #5583 (sky exec; a bug in the generated job code)
    ("✓ Job finished (status: FAILED_DRIVER).", "skypilot.driver_failed", {}),
    # skypilot-org/skypilot issue #5031 (sky jobs logs of a FAILED_CONTROLLER managed job)
    (
        "Failure reason: Unexpected error occurred: [AssertionError] JobStatus.FAILED_DRIVER",
        "skypilot.driver_failed",
        {},
    ),
    # sky/jobs/state.py ManagedJobStatus, as the CLI prints a managed job's end (rendered)
    ("✓ Managed job finished: 7 (status: FAILED_NO_RESOURCE).", "skypilot.no_resource", {}),
    ("✓ Managed job finished: 12 (status: FAILED_PRECHECKS).", "skypilot.prechecks_failed", {}),
    # skypilot-org/skypilot issue #7561 (sky/exceptions.py ClusterNotUpError; msched, session 23)
    (
        "sky.exceptions.ClusterNotUpError: No in-progress managed jobs.",
        "skypilot.cluster_not_up",
        {},
    ),
    # dstackai/dstack issue #3545 (the run's event)
    (
        "Job status changed PROVISIONING -> TERMINATING. Termination reason: "
        "WAITING_RUNNER_LIMIT_EXCEEDED",
        "dstack.runner_wait_exceeded",
        {"what": "RUNNER"},
    ),
    # dstackai/dstack issue #1049 (the older CLI's wording, rendered with the code it asked for)
    (
        "Run failed with error code JobErrorCode.CREATING_CONTAINER_ERROR. Check CLI and server "
        "logs for more details.",
        "dstack.runner_error",
        {"code": "CREATING_CONTAINER_ERROR"},
    ),
    # dstack JobTerminationReason and its termination messages (rendered)
    (
        "Run failed with error code EXECUTOR_ERROR.",
        "dstack.runner_error",
        {"code": "EXECUTOR_ERROR"},
    ),
    (
        "Failed to attach volume: Cannot attach a volume locked for processing",
        "dstack.volume_error",
        {"error": "Cannot attach a volume locked for processing"},
    ),
    (
        "Run failed with error code TERMINATED_DUE_TO_UTILIZATION_POLICY.",
        "dstack.run_limit_reached",
        {"code": "TERMINATED_DUE_TO_UTILIZATION_POLICY"},
    ),
    (
        "Run failed with error code MAX_DURATION_EXCEEDED.",
        "dstack.run_limit_reached",
        {"code": "MAX_DURATION_EXCEEDED"},
    ),
    # Databricks Clusters API TerminationCode, as the termination_reason JSON quotes it (rendered)
    (
        '                "code": "INIT_SCRIPT_FAILURE",',
        "databricks.init_script_failed",
        {"code": "INIT_SCRIPT_FAILURE"},
    ),
    (
        '                "code": "GLOBAL_INIT_SCRIPT_FAILURE",',
        "databricks.init_script_failed",
        {"code": "GLOBAL_INIT_SCRIPT_FAILURE"},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # the toolkit's healthy lines (aws/amazon-sagemaker-examples issue #1224)
    (
        "sagemaker.toolkit_failure_reported",
        "2020-05-27 12:17:39,277 sagemaker-containers INFO     Imported framework "
        "sagemaker_pytorch_container.training",
    ),
    (
        "sagemaker.toolkit_failure_reported",
        "sagemaker-training-toolkit INFO     Reporting training SUCCESS",
    ),
    # the Vertex AI SDK's state lines (googleapis/python-aiplatform custom job polling)
    ("vertex.internal_error", "JobState.JOB_STATE_SUCCEEDED"),
    # SkyPilot's healthy ends and its other statuses (skypilot docs, issue #8928)
    ("skypilot.job_failed", "  ✓ Managed job finished: 1 (status: SUCCEEDED)."),
    ("skypilot.job_failed", "✓ Job finished (status: FAILED_SETUP)."),
    ("skypilot.setup_failed", "I 03-23 10:00:28 cloud_vm_ray_backend.py:1600] Setup completed."),
    ("skypilot.setup_failed", "(setup pid=1843, ip=172.31.6.13) I'm a good worker, passing..."),
    ("skypilot.no_resource", "Job finished (status: SUCCEEDED)."),
    # Determined's routine agent lines (determined-ai/determined issue #2275)
    (
        "determined.agent_failed",
        "<info>    [2021-04-26, 09:05:31] stopped container id: "
        '1d8c20c3-c506-4625-bc1e-8cc403c402d2  id="determined-agent-0" system="master" type="agent"',
    ),
    # dstack's normal termination reasons (JobTerminationReason)
    (
        "dstack.runner_error",
        "Job status changed RUNNING -> TERMINATING. Termination reason: DONE_BY_RUNNER",
    ),
    ("dstack.run_limit_reached", "Run failed with error code TERMINATED_BY_USER."),
    ("dstack.volume_error", "Attached volume my-volume to instance my-run-0"),
    # a PrestaShop setting that contains the Databricks code as a substring
    ("databricks.init_script_failed", "- **`ON_INIT_SCRIPT_FAILURE`**"),
    # Azure ML's healthy image pull (Azure/MachineLearningNotebooks issue #1643)
    (
        "azureml.image_pull_failed",
        "2021-11-24T18:43:48Z Successfully mounted a/an Blobfuse File System at "
        "/mnt/batch/tasks/shared/LS_root/jobs/ws/azureml/run/mounts/workspaceblobstore",
    ),
    (
        "azureml.image_pull_unauthorized",
        "Successfully pulled Docker image mcr.microsoft.com/azureml/base",
    ),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_healthy_platform_lines_match_nothing_of_the_family() -> None:
    """Status lines of jobs that run or finished read as nothing of this family."""
    healthy = [
        # skypilot-org/skypilot pull request #7001 and issue #8928
        "├── Waiting for task resources on 3 nodes.",
        "└── Job started. Streaming logs... (Ctrl-C to exit log streaming; job will not be killed)",
        "Job finished (status: SUCCEEDED).",
        # aws/amazon-sagemaker-examples issue #1224
        "2020-05-27 12:17:39,308 sagemaker_pytorch_container.training INFO     Invoking user "
        "training script.",
        # dstackai/dstack JobTerminationReason
        "Job status changed RUNNING -> TERMINATING. Termination reason: DONE_BY_RUNNER",
    ]
    for line in healthy:
        assert not set(hits(line)) & FAMILY, line


def test_no_platform_line_names_a_node() -> None:
    """A platform's job status names no node: every entry acts on none and none is hardware."""
    assert_no_node_action(FAMILY)
    for key in sorted(FAMILY):
        sig = CATALOG.signatures[key]
        assert sig.blame is not Blame.HARDWARE, key
        assert sig.weight < STRONG or sig.blame is Blame.APPLICATION, key


def test_lost_machinery_and_restatements_stay_symptoms_below_deciding() -> None:
    """A lost agent, runner or driver, a platform limit and a restated exit say that something
    ended the job, not what: symptoms of at most collective weight, the bare restatements least."""
    for key in sorted(FAMILY):
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.SYMPTOM:
            assert 5 <= sig.weight <= 25, key
    for key in ("sagemaker.toolkit_failure_reported", "skypilot.job_failed"):
        assert CATALOG.signatures[key].weight < COLLECTIVE, key


def test_ambiguous_setup_failures_do_not_decide_alone() -> None:
    """A setup script, a precheck or an init script fails the same way on a download or a
    credential hiccup: the job's by the platform's classification, but below deciding (50)."""
    for key in (
        "skypilot.setup_failed",
        "skypilot.prechecks_failed",
        "databricks.init_script_failed",
        "azureml.image_pull_failed",
    ):
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.APPLICATION and sig.weight < 50, key
