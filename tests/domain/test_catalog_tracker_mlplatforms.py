"""Golden lines from sweep 9 over what managed ML training platforms print when they end a job
(signatures-mlplatforms.toml): SageMaker's FailureReason classes and status transitions, Vertex
AI's replica exits and stockouts, Azure ML's user-process exits, Databricks' termination codes
and lost drivers, SkyPilot's failover and recovery, dstack's termination reasons and Determined's
trial container exits.

Each line is a real one from the public thread cited beside it, or, where none was found, the
platform's documented message rendered (said so beside it); every line goes through the scanner's
own matcher. Blame is pinned to what a careful SRE reads from the one line: the platform's
ClientError and AlgorithmError are the job's, a capacity shortfall or a reclaimed instance is
transient, a restated exit is a symptom. Healthy status lines must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    assert_no_node_action,
    family_contract,
    family_keys,
    golden_line_checks,
    hits,
)

FILE = "signatures-mlplatforms.toml"
FAMILY = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "sagemaker.user_script_failed": Blame.SYMPTOM,
    "sagemaker.algorithm_error": Blame.APPLICATION,
    "sagemaker.client_error": Blame.APPLICATION,
    "sagemaker.spot_interrupted": Blame.TRANSIENT,
    "sagemaker.stopping_condition_reached": Blame.SYMPTOM,
    "vertex.replica_exited": Blame.SYMPTOM,
    "vertex.resources_insufficient": Blame.TRANSIENT,
    "azureml.user_process_exited": Blame.SYMPTOM,
    "azureml.runtime_container_failed": Blame.SYMPTOM,
    "databricks.cloud_reclaimed": Blame.TRANSIENT,
    "databricks.launch_failure": Blame.TRANSIENT,
    "databricks.launch_misconfigured": Blame.APPLICATION,
    "databricks.driver_lost": Blame.SYMPTOM,
    "skypilot.resources_unavailable": Blame.TRANSIENT,
    "skypilot.preempted_or_failed": Blame.TRANSIENT,
    "skypilot.controller_failed": Blame.TRANSIENT,
    "dstack.interrupted_no_capacity": Blame.TRANSIENT,
    "dstack.no_capacity": Blame.TRANSIENT,
    "dstack.container_exited": Blame.SYMPTOM,
    "dstack.instance_unreachable": Blame.SYMPTOM,
    "determined.container_exited": Blame.SYMPTOM,
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
    # aws-samples/amazon-sagemaker-bert-classify-pytorch issue #2 (the SDK's exception)
    (
        "UnexpectedStatusException: Error for Training job pytorch-training-2020-10-26-17-35-06-746: "
        "Failed. Reason: AlgorithmError: ExecuteUserScriptError:",
        "sagemaker.user_script_failed",
        {},
    ),
    # aws/amazon-sagemaker-examples issue #3444 (the module-qualified exception)
    (
        "sagemaker.exceptions.UnexpectedStatusException: Error for Training job cluster-eames-: "
        "Failed. Reason: AlgorithmError: ExecuteUserScriptError:",
        "sagemaker.user_script_failed",
        {},
    ),
    # huggingface/notebooks issue #136 (the SDK's message without the class)
    (
        "Error:- Error for Training job huggingface-pytorch-training-2022-01-25-19-23-38-888: "
        "Failed. Reason: AlgorithmError: ExecuteUserScriptError:",
        "sagemaker.user_script_failed",
        {},
    ),
    # aws/sagemaker-python-sdk issue #658 (sagemaker-containers' own log line)
    ("sagemaker-containers ERROR    ExecuteUserScriptError:", "sagemaker.user_script_failed", {}),
    # aws/amazon-sagemaker-examples issue #1740 (a framework error, its traceback inline after)
    (
        "UnexpectedStatusException: Error for Training job rf-scikit-2023-09-28-07-37-56-820: "
        "Failed. Reason: AlgorithmError: framework error: ",
        "sagemaker.algorithm_error",
        {"detail": "framework error: "},
    ),
    # aws/amazon-sagemaker-examples issue #372 (its title: the older SDK's wording)
    (
        "scikit_bring_your_own: Failed Reason: AlgorithmError: Exit Code: 1",
        "sagemaker.algorithm_error",
        {"detail": "Exit Code: 1"},
    ),
    # aws/sagemaker-python-sdk issue #35 (SDK v1: the role SageMaker could not assume)
    (
        "E           ValueError: Error training sagemaker-mxnet-py2-cpu-2018-01-01-03-36-55-859: "
        "Failed Reason: ClientError: SageMaker was unable to assume the role "
        "'arn:aws:iam::379899735384:role/SageMakerRole'",
        "sagemaker.client_error",
        {
            "detail": "SageMaker was unable to assume the role "
            "'arn:aws:iam::379899735384:role/SageMakerRole'"
        },
    ),
    # SageMaker API reference, SecondaryStatusTransition messages, as the SDK's logs_for_job
    # prints a transition (rendered)
    (
        "2024-03-02 10:15:22 Interrupted - The job stopped because the managed spot training "
        "instances were interrupted.",
        "sagemaker.spot_interrupted",
        {},
    ),
    (
        "2024-03-02 18:15:22 MaxRuntimeExceeded - The job stopped because it exceeded the maximum "
        "allowed runtime.",
        "sagemaker.stopping_condition_reached",
        {"limit": "Runtime"},
    ),
    (
        "2024-03-02 18:15:22 MaxWaitTimeExceeded - The job stopped because it exceeded the maximum "
        "allowed wait time.",
        "sagemaker.stopping_condition_reached",
        {"limit": "WaitTime"},
    ),
    # tensorflow/models issue #10735 (Vertex AI) and issue #4294 (AI Platform Training)
    (
        "The replica workerpool0-0 exited with a non-zero status of 1. To find out more about why "
        "your job exited please check the logs: https://console.cloud.google.com/logs/viewer?"
        "project=619829274226&resource=ml_job%2Fjob_id%2F4606268999515242496",
        "vertex.replica_exited",
        {"replica": "workerpool0-0", "status": "1"},
    ),
    (
        "The replica master 0 exited with a non-zero status of 1. Termination reason: Error. "
        'Traceback (most recent call last): File "/usr/lib/python2.7/runpy.py", line 174, in '
        "_run_module_as_main",
        "vertex.replica_exited",
        {"replica": "master 0", "status": "1"},
    ),
    # the sweep's probe (a replica of a second worker pool)
    (
        "The replica workerpool1-3 exited with a non-zero status of 1.",
        "vertex.replica_exited",
        {"replica": "workerpool1-3", "status": "1"},
    ),
    # GoogleCloudPlatform/vertex-ai-samples issue #2880 (the console's wording)
    (
        'Job failed with error "Replica exited with a non-zero status code 1"',
        "vertex.replica_exited",
        {"code": "1"},
    ),
    # openreview/openreview-expertise issue #401 (quoted) and the sweep's probe
    (
        "- Vertex AI training jobs operate at the region level, not a specific zone. The `Resources "
        "are insufficient in region: us-central1` error means it already tried all available zones "
        "in us-central1, so changing zones inside the same region will not help.",
        "vertex.resources_insufficient",
        {"region": "us-central1"},
    ),
    (
        "Resources are insufficient in region: us-central1. Please try a different region.",
        "vertex.resources_insufficient",
        {"region": "us-central1"},
    ),
    # the sweep's probe; a public Azure ML HPO project's troubleshooting notes (status code 2)
    (
        "AzureMLCompute job failed. UserError: Execution failed. User process 'python' exited "
        "with status code 1.",
        "azureml.user_process_exited",
        {"process": "python", "status": "1"},
    ),
    (
        "Execution failed. User process 'python' exited with status code 2.",
        "azureml.user_process_exited",
        {"process": "python", "status": "2"},
    ),
    # Azure/MachineLearningNotebooks issue #1360
    (
        "AzureMLCompute job failed. JobFailed: Submitted script failed with a non-zero exit code; "
        "see the driver log file for details. \tReason: Job failed with non-zero exit Code.",
        "azureml.user_process_exited",
        {},
    ),
    # getindata/kedro-azureml issue #6 (the common runtime's ServiceError, two lines)
    (
        "OrchestrateJobError: Failed to execute command group with error Got CommonRuntimeJobError "
        "from executing command: ",
        "azureml.runtime_container_failed",
        {},
    ),
    (
        "Docker container `xxxxxxxx-execution-wrapper` failed with status code `1` due to response "
        "error: ",
        "azureml.runtime_container_failed",
        {"container": "xxxxxxxx-execution-wrapper", "status": "1"},
    ),
    # Databricks Clusters API termination_reason, rendered from the TerminationCode enum
    (
        '                "code": "SPOT_INSTANCE_TERMINATION",',
        "databricks.cloud_reclaimed",
        {"code": "SPOT_INSTANCE_TERMINATION"},
    ),
    (
        '    "code": "CLOUD_PROVIDER_SHUTDOWN",',
        "databricks.cloud_reclaimed",
        {"code": "CLOUD_PROVIDER_SHUTDOWN"},
    ),
    (
        '                "code": "CLOUD_PROVIDER_LAUNCH_FAILURE",',
        "databricks.launch_failure",
        {"code": "CLOUD_PROVIDER_LAUNCH_FAILURE"},
    ),
    # a public Azure Databricks lab's troubleshooting table (a stockout of Standard_DS3_v2)
    (
        "| CLOUD_PROVIDER_RESOURCE_STOCKOUT — Standard_DS3_v2 | VM not available in Central India "
        "at that moment | Changed ",
        "databricks.launch_failure",
        {"code": "CLOUD_PROVIDER_RESOURCE_STOCKOUT"},
    ),
    # TerminationCode enum, rendered
    (
        '            "code": "CLOUD_PROVIDER_LAUNCH_FAILURE_DUE_TO_MISCONFIG",',
        "databricks.launch_misconfigured",
        {"code": "CLOUD_PROVIDER_LAUNCH_FAILURE_DUE_TO_MISCONFIG"},
    ),
    # databrickslabs/ucx issue #2398 (both), IIIS-Li-Group/OpenFE issue #44
    (
        "The spark driver has stopped unexpectedly and is restarting. Your notebook will be "
        "automatically reattached.",
        "databricks.driver_lost",
        {},
    ),
    (
        'crawl_groups: "com.databricks.backend.common.rpc.DriverStoppedException: Driver down '
        'cause: driver state change (exit code: 137)"',
        "databricks.driver_lost",
        {"cause": 'driver state change (exit code: 137)"'},
    ),
    # databrickslabs/dbx issue #627 (its title)
    (
        "Run result unavailable: job failed with error message Failed to reach the driver",
        "databricks.driver_lost",
        {},
    ),
    # the sweep's probe; skypilot-org/skypilot issue #5600 (RunPod)
    (
        "sky.exceptions.ResourcesUnavailableError: Failed to acquire resources in all zones in "
        "us-east-1 for {A100:8}.",
        "skypilot.resources_unavailable",
        {"where": "us-east-1"},
    ),
    (
        "sky.exceptions.ResourcesUnavailableError: Failed to provision all possible launchable "
        "resources. Relax the task's resource requirements: 1x RunPod(cpus=32+, {'H100': 8}, "
        "disk_tier=best, disk_size=512, ports=['8081'])",
        "skypilot.resources_unavailable",
        {},
    ),
    # skypilot-org/skypilot issue #7168
    (
        "I 09-12 22:49:49 controller.py:545] Cluster is preempted or failed. Recovering...",
        "skypilot.preempted_or_failed",
        {},
    ),
    # skypilot-org/skypilot issue #955 (the controller's log and the job's final status)
    (
        "(sky-b7d3-weichiang pid=120832) I 07-06 19:18:20 spot_state.py:189] Job failed due to "
        "unexpected controller failure.",
        "skypilot.controller_failed",
        {},
    ),
    (
        "I 07-06 19:18:36 spot_utils.py:234] Logs finished for job 17 (status: FAILED_CONTROLLER).",
        "skypilot.controller_failed",
        {},
    ),
    # dstackai/dstack issues #1397 and #1738
    (
        "Run failed with error code INTERRUPTED_BY_NO_CAPACITY. Check CLI and server logs for "
        "more details.",
        "dstack.interrupted_no_capacity",
        {},
    ),
    (
        "Run failed with error code INTERRUPTED_BY_NO_CAPACITY.",
        "dstack.interrupted_no_capacity",
        {},
    ),
    # dstackai/dstack issue #1386 (title) and #1722 (the CLI's message)
    (
        "[Bug]: `dstack` tries only one GCP offer and fails with `FAILED_TO_START_DUE_TO_NO_CAPACITY`",
        "dstack.no_capacity",
        {},
    ),
    (
        "All provisioning attempts failed. This is likely due to cloud providers not having enough "
        "capacity. Check CLI and server logs for more details.",
        "dstack.no_capacity",
        {},
    ),
    # dstack JobTerminationReason as the CLI prints a termination reason (rendered)
    ("Run failed with error code CONTAINER_EXITED_WITH_ERROR.", "dstack.container_exited", {}),
    ("Run failed with error code INSTANCE_UNREACHABLE.", "dstack.instance_unreachable", {}),
    # determined-ai/determined issues #2275 and #2290
    (
        "[2021-04-28T01:55:38Z] e54b4385 || INFO: container failed with non-zero exit code: "
        "container failed with non-zero exit code: 1 (exit code 1)",
        "determined.container_exited",
        {"code": "1"},
    ),
    (
        "<error>   [2021-04-28, 08:20:22] unexpected failure of trial after restart 2/5: container "
        "failed with non-zero exit code: container failed with non-zero exit code: 137 (exit code "
        '137)  experiment-id="1"',
        "determined.container_exited",
        {"code": "137"},
    ),
]

# (key, a real line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # botocore's ClientError is not SageMaker's FailureReason class (aws/sagemaker-python-sdk #326)
    (
        "sagemaker.client_error",
        "ClientError: An error occurred (ValidationException) when calling the DescribeTrainingJob "
        "operation: Requested resource not found.",
    ),
    # the user-script wrapper is not read as the job's own AlgorithmError
    (
        "sagemaker.algorithm_error",
        "UnexpectedStatusException: Error for Training job pytorch-training-2020-10-26-17-35-06-746: "
        "Failed. Reason: AlgorithmError: ExecuteUserScriptError:",
    ),
    # the misconfiguration variants are not the provider's launch failure
    ("databricks.launch_failure", '"code": "CLOUD_PROVIDER_LAUNCH_FAILURE_DUE_TO_MISCONFIG",'),
    # SkyPilot's plain "The cluster is preempted." stays cloud.skypilot_preempted's
    (
        "skypilot.preempted_or_failed",
        "(bert-qa pid=920210) I 05-04 00:52:46 controller.py:100] The cluster is preempted.",
    ),
    # dstack's other termination reasons (dstackai/dstack issue #1722)
    ("dstack.no_capacity", "Run failed with error code TERMINATED_BY_SERVER."),
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
        # aws/sagemaker-python-sdk issue #658; SageMaker API reference (rendered)
        "2019-02-25 14:11:16 Uploading - Uploading generated training model",
        "2024-03-02 18:15:22 Completed - Training job completed",
        # Azure/MachineLearningNotebooks issue #1043
        "StepRun( batchscoring-202007091340 ) Status: Running",
        # Databricks TerminationCode, rendered
        '                "code": "JOB_FINISHED",',
        '                "code": "INACTIVITY",',
        # skypilot docs/source/examples/managed-jobs.rst
        "  ✓ Managed job finished: 1 (status: SUCCEEDED).",
    ]
    for line in healthy:
        assert not set(hits(line)) & FAMILY, line


def test_no_platform_line_names_a_node() -> None:
    """A platform's job status names no node: every entry acts on none and stays below 60 unless
    it is the job's own (the platform's ClientError)."""
    assert_no_node_action(FAMILY)
    for key in sorted(FAMILY):
        sig = CATALOG.signatures[key]
        assert sig.blame is not Blame.HARDWARE, key
        if sig.blame is Blame.SYMPTOM:
            assert 5 <= sig.weight <= 30, key
        if sig.blame is Blame.TRANSIENT:
            assert 50 <= sig.weight <= 80, key


def test_restated_exits_weigh_least() -> None:
    """A replica's, a script's or a container's bare non-zero exit restates a failure printed
    above it: the lightest symptoms of the family."""
    for key in ("vertex.replica_exited", "azureml.user_process_exited",
                "determined.container_exited", "sagemaker.user_script_failed",
                "dstack.container_exited", "azureml.runtime_container_failed"):  # fmt: skip
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.SYMPTOM and sig.weight <= 15, key
