"""Golden lines from the CI runners and agents that wrap GPU test and training jobs
(signatures-cirunners.toml): the GitHub Actions runner and service, GitLab Runner, the Buildkite
agent, Jenkins (core, remoting, build-timeout, durable tasks), the Azure Pipelines agent and
service, and CircleCI.

Each line is a real one from the public thread or page cited beside it, or rendered from the
emitter's format string where no attributable public line was kept (marked so), and goes through
the scanner's own matcher. Blame is pinned to what the runner means: a runner or agent that lost
contact or was shut down is the infrastructure (transient below the decisive weight, naming no
node: the same text follows a job that starved its runner), a job or step time limit is the job's
limit (transient below 50: a hang reads the same), a restated exit code or a cancellation is a
symptom, an artifact archive over the instance's limit and a disabled workflow command are the
job's. Look-alikes (healthy lines of the same emitters) must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from autorecover.domain.shape import COLLECTIVE
from domain.golden import (
    CATALOG,
    assert_family_keys,
    assert_no_node_action,
    family_keys,
    golden_line_checks,
    hits,
)

FILE = "signatures-cirunners.toml"
KEYS = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "gha.runner_lost_communication": Blame.TRANSIENT,
    "gha.runner_shutdown": Blame.TRANSIENT,
    "gha.job_time_limit": Blame.TRANSIENT,
    "gha.step_time_limit": Blame.TRANSIENT,
    "gha.operation_canceled": Blame.SYMPTOM,
    "gha.process_exit_code": Blame.SYMPTOM,
    "gha.unable_to_process_command": Blame.SYMPTOM,
    "gha.command_disabled": Blame.APPLICATION,
    "gha.action_download_timeout": Blame.TRANSIENT,
    "gitlab.job_timeout": Blame.TRANSIENT,
    "gitlab.job_exit_code": Blame.SYMPTOM,
    "gitlab.pod_start_timeout": Blame.TRANSIENT,
    "gitlab.artifacts_too_large": Blame.APPLICATION,
    "gitlab.artifacts_upload_failed": Blame.TRANSIENT,
    "buildkite.command_exit_status": Blame.SYMPTOM,
    "buildkite.job_cancelled": Blame.SYMPTOM,
    "buildkite.agent_lost": Blame.TRANSIENT,
    "jenkins.agent_channel_lost": Blame.TRANSIENT,
    "jenkins.command_execution_failed": Blame.SYMPTOM,
    "jenkins.build_timeout": Blame.TRANSIENT,
    "azpipelines.agent_lost": Blame.TRANSIENT,
    "azpipelines.job_timeout": Blame.TRANSIENT,
    "azpipelines.task_exit_code": Blame.SYMPTOM,
    "circleci.no_output_timeout": Blame.TRANSIENT,
}

# The entries that read a job or step time limit (kept below the slurm.time_limit weight).
TIME_LIMITS = frozenset(
    {
        "gha.job_time_limit",
        "gha.step_time_limit",
        "gitlab.job_timeout",
        "jenkins.build_timeout",
        "azpipelines.job_timeout",
        "circleci.no_output_timeout",
    }
)

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # pytorch/serve issue #2736 (the Docker GPU regression runner; a reboot script hit the run)
    (
        "The self-hosted runner: regression-test-gpu-3 lost communication with the server. Verify "
        "the machine is running and has a healthy network connection. Anything in your workflow "
        "that terminates the runner process, starves it for CPU/Memory, or blocks its network "
        "access can cause this error.",
        "gha.runner_lost_communication",
        {"kind": "self-hosted", "runner": "regression-test-gpu-3"},
    ),
    # Quansight/open-gpu-server issue #28 (a demanding build starved the runner)
    (
        "The self-hosted runner: cirun-conda-forge--mongodb-feedstock-fd6a0cc lost communication "
        "with the server. Verify the machine is running and has a healthy network connection.",
        "gha.runner_lost_communication",
        {"runner": "cirun-conda-forge--mongodb-feedstock-fd6a0cc"},
    ),
    # actions/runner issue #3862 (a self-hosted macOS runner; the nameless wording)
    (
        "The self-hosted runner lost communication with the server.",
        "gha.runner_lost_communication",
        {"kind": "self-hosted"},
    ),
    # rendered from the service's hosted-runner wording (no attributable public line kept)
    (
        "The hosted runner: GitHub Actions 2 lost communication with the server. Anything in your "
        "workflow that terminates the runner process, starves it for CPU/Memory, or blocks its "
        "network access can cause this error.",
        "gha.runner_lost_communication",
        {"kind": "hosted", "runner": "GitHub Actions 2"},
    ),
    # open-telemetry/opentelemetry-collector-contrib issue #34000 (the arm runner's second
    # annotation), its timestamp and ##[error] prefix rendered as the runner writes them in a job log
    (
        "2024-07-09T10:12:31.1234567Z ##[error]The runner has received a shutdown signal. This can "
        "happen when the runner service is stopped, or a manually started runner is canceled.",
        "gha.runner_shutdown",
        {},
    ),
    # a blog post on a hosted runner that ran out of memory (its three annotations)
    (
        "build: The hosted runner encountered an error while running your job. (Error Type: "
        "Disconnect).",
        "gha.runner_shutdown",
        {"error_type": "Disconnect"},
    ),
    (
        "build: Received request to deprovision: The request was cancelled by the remote provider.",
        "gha.runner_shutdown",
        {},
    ),
    # rendered from the runner's wording (a self-hosted LXC runner's name)
    (
        "The job running on runner pve01-ci-lxc-runner-1 has exceeded the maximum execution time "
        "of 30 minutes.",
        "gha.job_time_limit",
        {"runner": "pve01-ci-lxc-runner-1", "limit": "30 minutes"},
    ),
    # rendered from the service's newer annotation, as gh run view prints it
    (
        "  X The job has exceeded the maximum execution time of 1h0m0s",
        "gha.job_time_limit",
        {"limit": "1h0m0s"},
    ),
    # a release runbook quoting its post-publish step (StepsRunner's step timeout)
    (
        "##[error]The action 'Verify Release is on NPM' has timed out after 3 minutes.",
        "gha.step_time_limit",
        {"step": "Verify Release is on NPM", "minutes": "3"},
    ),
    # pytorch/pytorch issue #94026 (a ROCm runner hung in setup-rocm until the job's limit)
    (
        "2023-02-03T02:23:22.8065126Z ##[error]The operation was canceled.",
        "gha.operation_canceled",
        {},
    ),
    # rendered: ScriptHandler after a SIGTERM (a runner-shutdown log's second line)
    ("##[error]Process completed with exit code 143.", "gha.process_exit_code", {"code": "143"}),
    ("Error: Process completed with exit code 1.", "gha.process_exit_code", {"code": "1"}),
    # rendered from ActionCommandManager (the command as a workflow would print it)
    (
        "Error: Unable to process command '::set-env name=CUDA_HOME::/usr/local/cuda' "
        "successfully.",
        "gha.unable_to_process_command",
        {"command": "::set-env name=CUDA_HOME::/usr/local/cuda"},
    ),
    # the runner's message since November 2020 (github.blog changelog 2020-10-01)
    (
        "Error: The `set-env` command is disabled. Please upgrade to using Environment Files or "
        "opt into unsecure command execution by setting the `ACTIONS_ALLOW_UNSECURE_COMMANDS` "
        "environment variable to `true`. For more information see: https://github.blog/changelog/"
        "2020-10-01-github-actions-deprecating-set-env-and-add-path-commands/",
        "gha.command_disabled",
        {"command": "set-env"},
    ),
    (
        "Error: The `add-path` command is disabled. Please upgrade to using Environment Files or "
        "opt into unsecure command execution by setting the `ACTIONS_ALLOW_UNSECURE_COMMANDS` "
        "environment variable to `true`.",
        "gha.command_disabled",
        {"command": "add-path"},
    ),
    # pytorch/pytorch issue #166866 (the runner's terminal line after its retries)
    (
        "2025-11-03T08:18:15.0477805Z ##[error]Action 'https://api.github.com/repos/actions/"
        "download-artifact/tarball/fa0a91b85d4f404e444e00e005971372dc801d16' download has timed "
        "out. Error: The operation was canceled.",
        "gha.action_download_timeout",
        {
            "action": "https://api.github.com/repos/actions/download-artifact/tarball/"
            "fa0a91b85d4f404e444e00e005971372dc801d16"
        },
    ),
    # the qemu-devel list (a patchew pipeline's build job) and xen-devel (fedora-gcc-debug)
    (
        "ERROR: Job failed: execution took longer than 1h0m0s seconds",
        "gitlab.job_timeout",
        {"limit": "1h0m0s"},
    ),
    # a cache plugin's notes (the script stage's warning before the error)
    (
        "WARNING: step_script could not run to completion because the timeout was exceeded. For "
        "more control over job and script timeouts see: https://docs.gitlab.com/ee/ci/runners/"
        "configure_runners.html#set-script-and-after_script-timeouts",
        "gitlab.job_timeout",
        {"stage": "step_script"},
    ),
    # GitLab CI triage notes quoting the OOM-killed job's last line
    ("ERROR: Job failed: exit code 137", "gitlab.job_exit_code", {"code": "137"}),
    # a GitLab CI tutorial (root-config not found in the image)
    (" ERROR: Job failed: exit code 1", "gitlab.job_exit_code", {"code": "1"}),
    # GitLab CI failure classifiers' fixtures (the Kubernetes executor's pod wait)
    (
        "ERROR: Job failed (system failure): prepare environment: waiting for pod running: timed "
        "out waiting for pod to start",
        "gitlab.pod_start_timeout",
        {},
    ),
    # an OpenShift gitlab-runner template's notes (the older wording)
    (
        "    ERROR: Job failed (system failure): timed out waiting for pod to start",
        "gitlab.pod_start_timeout",
        {},
    ),
    # a GitLab forum answer (node_modules in the artifacts) and the xen-devel list (ECLAIR)
    (
        'ERROR: Uploading artifacts as "archive" to coordinator... too large archive  id=31845 '
        "responseStatus=413 Payload Too Large status=413 token=YGCc9B7z",
        "gitlab.artifacts_too_large",
        {},
    ),
    (
        'ERROR: Uploading artifacts as "archive" to coordinator... 413 Payload',
        "gitlab.artifacts_too_large",
        {},
    ),
    # GitLab's job-artifacts troubleshooting page (a 500 from the object storage)
    (
        'WARNING: Uploading artifacts as "archive" to coordinator... failed id=12345 '
        "responseStatus=500 Internal Server Error status=500 token=abcd1234",
        "gitlab.artifacts_upload_failed",
        {},
    ),
    # GitLab's License Compliance docs (the pre-12.x wording)
    (
        "WARNING: Uploading artifacts to coordinator... failed id=:id responseStatus=400 Bad "
        "Request status=400 Bad Request token=:sha",
        "gitlab.artifacts_upload_failed",
        {},
    ),
    # ray-project/ray issue #29767 (a Windows Buildkite job; the siren garbled)
    (
        "  | ���� Error: The command exited with status 3221225786",
        "buildkite.command_exit_status",
        {"status": "3221225786"},
    ),
    # a dune test's expected Buildkite output (the siren as octal escapes)
    (
        "  \\240\\159\\154\\168 Error: The command exited with status 1",
        "buildkite.command_exit_status",
        {"status": "1"},
    ),
    # a Buildkite pipeline's troubleshooting page (insufficient memory for the job)
    (
        "🚨 Error: The command exited with status 137",
        "buildkite.command_exit_status",
        {"status": "137"},
    ),
    # buildkite/agent issue on bootstrap cancellation (the lines it expected after a cancel)
    ("🚨 Error: The command was interrupted by a signal", "buildkite.command_exit_status", {}),
    # ray-project/ray issue #29767 (master Windows builds cancelled)
    ("# Received cancellation signal, interrupting", "buildkite.job_cancelled", {}),
    # buildkite/agent-stack-k8s documentation (the job past its 6-hour deadline)
    ("Exited with status -1 (agent lost)", "buildkite.agent_lost", {}),
    # Jenkins troubleshooting guides (core's reportBrokenChannel)
    ("Agent went offline during the build", "jenkins.agent_channel_lost", {}),
    # rendered from jenkinsci/remoting (a JNLP4 agent's channel name)
    (
        "java.io.IOException: Backing channel 'JNLP4-connect connection from 10.248.88.35/"
        "10.248.88.35:34716' is disconnected.",
        "jenkins.agent_channel_lost",
        {"channel": "JNLP4-connect connection from 10.248.88.35/10.248.88.35:34716"},
    ),
    # an openEuler package build's Jenkins log (the agent's channel closed under docker build)
    (
        'Caused: hudson.remoting.ChannelClosedException: Channel "hudson.remoting.Channel@24d4cc0d:'
        'ecs-build-docker-x86-hk": Remote call on ecs-build-docker-x86-hk failed. The channel is '
        "closing down or has closed down",
        "jenkins.agent_channel_lost",
        {"closed": "hudson.remoting.Channel@24d4cc0d:ecs-build-docker-x86-hk"},
    ),
    (
        "Caused: java.io.IOException: Unexpected termination of the channel",
        "jenkins.agent_channel_lost",
        {},
    ),
    # rendered from workflow-durable-task-step DurableTaskStep ("Cannot contact " + node + ...)
    (
        "Cannot contact gpu-agent-3: java.lang.InterruptedException",
        "jenkins.agent_channel_lost",
        {"node": "gpu-agent-3"},
    ),
    # a Jenkins Gradle build's log (gradle not on the agent's PATH)
    ("FATAL: command execution failed", "jenkins.command_execution_failed", {}),
    # a Jenkins build-timeout plugin tutorial
    (
        "Build timed out (after 3 minutes). Marking the build as aborted.",
        "jenkins.build_timeout",
        {"minutes": "3", "result": "aborted"},
    ),
    # Azure DevOps support's problem-type guide (a hosted agent)
    (
        "##[error]We stopped hearing from agent Azure Pipelines 2. Verify the agent machine is "
        "running and has a healthy network connection. Anything that terminates the agent "
        "process, starves it for CPU, or blocks its network access can cause this error. For more "
        "information, see: https://go.microsoft.com/fwlink/?linkid=846610",
        "azpipelines.agent_lost",
        {"agent": "Azure Pipelines 2"},
    ),
    # a pipeline failure classifier's fixtures (a self-hosted agent)
    (
        "We stopped hearing from agent blue-green-agent. Verify the agent machine is running and "
        "has a healthy network connection.",
        "azpipelines.agent_lost",
        {"agent": "blue-green-agent"},
    ),
    # a deployment guide's troubleshooting section (the free hosted tier's 60 minutes)
    (
        "##[error]The job running on agent Hosted Agent ran longer than the maximum time of 60 "
        "minutes. For more information, see https://go.microsoft.com/fwlink/?linkid=2077134",
        "azpipelines.job_timeout",
        {"agent": "Hosted Agent", "minutes": "60"},
    ),
    # dotnet build-analysis notes (120 minutes on a hosted pool)
    (
        "The job running on agent Azure Pipelines 52 ran longer than the maximum time of 120 "
        "minutes. For more information, see https://go.microsoft.com/fwlink/?linkid=2077134",
        "azpipelines.job_timeout",
        {"agent": "Azure Pipelines 52", "minutes": "120"},
    ),
    # rendered from the Bash task's string resource
    (
        "##[error]Bash exited with code '137'.",
        "azpipelines.task_exit_code",
        {"tool": "Bash", "code": "137"},
    ),
    # CircleCI's troubleshooting docs and a Jest issue's reporters
    (
        "Too long with no output (exceeded 10m0s): context deadline exceeded",
        "circleci.no_output_timeout",
        {"limit": "10m0s"},
    ),
    # a MacPorts CI script's comment (a 30-minute no_output_timeout)
    (
        "#    Too long with no output (exceeded 30m0s): context deadline exceeded",
        "circleci.no_output_timeout",
        {"limit": "30m0s"},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # a retry's warning: harmless when a later attempt succeeds
    (
        "gha.action_download_timeout",
        "Warning: Failed to download action 'https://api.github.com/repos/actions/checkout/"
        "tarball/abc'. Error: The request was canceled due to the configured HttpClient.Timeout "
        "of 100 seconds elapsing.",
    ),
    # the runner's healthy job-log lines (actions/runner; a job that ran)
    ("gha.runner_lost_communication", "Job is about to start running on the runner: gpu-a100-1"),
    ("gha.runner_shutdown", "2024-11-04 14:30:19Z: Listening for Jobs"),
    ("gha.runner_shutdown", "Runner.Listener: Runner connect error: The HTTP request timed out."),
    ("gha.job_time_limit", "  timeout-minutes: 360"),
    ("gha.step_time_limit", "##[group]Run actions/checkout@v4"),
    ("gha.operation_canceled", "The operation was canceled."),
    ("gha.operation_canceled", "System.OperationCanceledException: The operation was canceled."),
    ("gha.process_exit_code", "Cleaning up orphan processes"),
    ("gha.process_exit_code", "Elevated process completed with exit code 0."),
    ("gha.unable_to_process_command", "::set-output name=dir::/home/runner/.cache/pip"),
    ("gha.command_disabled", "ACTIONS_ALLOW_UNSECURE_COMMANDS: true"),
    # GitLab Runner's healthy trace lines (a job that passed)
    ("gitlab.job_timeout", "Running with gitlab-runner 16.6.1 (f5da3c5a)"),
    ("gitlab.job_exit_code", "Job succeeded"),
    (
        "gitlab.pod_start_timeout",
        "Waiting for pod gitlab/runner-hr-xvaaf-project-88-concurrent-08rlqg to be running, status "
        "is Pending",
    ),
    (
        "gitlab.artifacts_too_large",
        'Uploading artifacts as "archive" to coordinator... 201 Created  id=583 responseStatus=201 '
        "Created token=glcbt-64",
    ),
    (
        "gitlab.artifacts_upload_failed",
        'Uploading artifacts as "archive" to coordinator... ok  id=1234 responseStatus=201 Created '
        "token=abcd",
    ),
    ("gitlab.artifacts_upload_failed", "Uploading artifacts to coordinator... ok"),
    # Buildkite's healthy job output and scripts that print a similar sentence themselves
    ("buildkite.command_exit_status", "Error: The command exited with status 1."),
    ("buildkite.command_exit_status", "~~~ Running commands"),
    ("buildkite.job_cancelled", "~~~ Running global environment hook"),
    ("buildkite.agent_lost", "Exited with status 0"),
    # Jenkins' healthy console lines
    ("jenkins.agent_channel_lost", "Agent gpu-agent-3 is online"),
    ("jenkins.agent_channel_lost", "Cannot contact KDC for realm EXAMPLE.COM"),
    ("jenkins.command_execution_failed", "Finished: SUCCESS"),
    ("jenkins.build_timeout", "[build-timeout] Global time out activated"),
    # Azure Pipelines' healthy job lines
    ("azpipelines.agent_lost", "Agent name: 'Azure Pipelines 2'"),
    ("azpipelines.job_timeout", "##[section]Finishing: Job"),
    ("azpipelines.task_exit_code", "##[section]Finishing: Bash"),
    # CircleCI's healthy step output
    ("circleci.no_output_timeout", "no_output_timeout: 30m"),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_family_keys_are_new_namespaced_and_pinned() -> None:
    assert_family_keys(
        FILE,
        KEYS,
        frozenset({"gha", "gitlab", "buildkite", "jenkins", "azpipelines", "circleci"}),
    )
    assert set(BLAME) == KEYS


def test_no_runner_line_names_a_node() -> None:
    """A runner or agent that went away names a CI machine, not the job's node: no entry acts on
    the node it was printed on, and none is hardware."""
    assert_no_node_action(KEYS)
    for key in KEYS:
        assert CATALOG.signatures[key].blame is not Blame.HARDWARE, key


BEFORE_ANY_STEP = {"gha.action_download_timeout"}


def test_a_runner_line_does_not_decide_alone() -> None:
    """A lost runner, a shutdown or a time limit is transient below the decisive weight (the same
    text follows a job that starved its runner, or a hang); restatements stay below a collective
    complaint. The one exception fails before any step of the job ran, so the job cannot have
    caused it: the runner's own infrastructure error for an action it could not download."""
    for key in KEYS - BEFORE_ANY_STEP:
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.TRANSIENT:
            assert sig.weight < 50, key
        if sig.blame is Blame.SYMPTOM:
            assert sig.weight < COLLECTIVE, key


def test_time_limits_stay_below_the_batch_time_limit() -> None:
    """A CI job's time limit weighs less than a batch scheduler's TIMEOUT (a test that hangs
    reads the same)."""
    slurm = CATALOG.signatures["slurm.time_limit"].weight
    for key in TIME_LIMITS:
        assert CATALOG.signatures[key].weight < slurm, key


def test_a_lost_jenkins_channel_is_not_the_generic_java_exception() -> None:
    """remoting's exceptions look like a Python `Name: message` line; the specific entry reads
    them instead of the generic application one."""
    line = "java.io.IOException: Backing channel 'gpu-agent-3' is disconnected."  # rendered
    found = hits(line)
    assert "jenkins.agent_channel_lost" in found
    assert "python.exception" not in found
