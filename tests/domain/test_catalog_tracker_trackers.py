"""Golden lines from the experiment trackers' sweep (signatures-trackers.toml): W&B's refused key,
entity, project and permission, its local service that does not start or is missing from the
install, its dropped stream and its "resolved" notice; MLflow's REST error codes, its param length
check, its second start_run and its old per-attempt retry line; Comet's and Neptune's refused API
keys and Neptune's connection notice; ClearML's refused credentials; and TensorFlow's file-system
registry under TensorBoard writers.

Each line is a real one from the public thread cited beside it, or rendered from the emitter's
format string where no public line was found (marked so), and goes through the scanner's own
matcher. Blame is pinned to what the emitter means: a missing or refused key, a project, run or
permission the key cannot reach, a param too long are the job's configuration; a tracker's service
unavailable or throttling is transient below the decisive weight; a local service that did not
start and a stream that dropped data are symptoms that decide nothing; a retry or reconnect
notice while the run goes on is info. Look-alikes (healthy lines of the same emitters, and lines
the services and storesvc files already read) must not match.
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

FILE = "signatures-trackers.toml"
KEYS = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "wandbsdk.api_key_missing": Blame.APPLICATION,
    "wandbsdk.api_refused": Blame.APPLICATION,
    "wandbsdk.permission_denied": Blame.APPLICATION,
    "wandbsdk.api_client_error": Blame.APPLICATION,
    "wandbsdk.service_start_failed": Blame.SYMPTOM,
    "wandbsdk.core_unavailable": Blame.APPLICATION,
    "wandbsdk.stream_chunk_dropped": Blame.SYMPTOM,
    "wandbsdk.network_resolved": Blame.INFO,
    "mlflowsdk.experiment_exists": Blame.APPLICATION,
    "mlflowsdk.experiment_deleted": Blame.APPLICATION,
    "mlflowsdk.resource_not_found": Blame.APPLICATION,
    "mlflowsdk.permission_denied": Blame.APPLICATION,
    "mlflowsdk.service_unavailable": Blame.TRANSIENT,
    "mlflowsdk.param_too_long": Blame.APPLICATION,
    "mlflowsdk.invalid_parameter": Blame.APPLICATION,
    "mlflowsdk.run_already_active": Blame.APPLICATION,
    "mlflowsdk.request_retry": Blame.INFO,
    "cometml.api_key_rejected": Blame.APPLICATION,
    "cometml.tracking_disabled": Blame.SYMPTOM,
    "neptune.api_token_rejected": Blame.APPLICATION,
    "neptune.connection_interrupted": Blame.INFO,
    "clearml.credentials_rejected": Blame.APPLICATION,
    "clearml.login_server_error": Blame.TRANSIENT,
    "tensorboard.fs_scheme_unimplemented": Blame.APPLICATION,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # --- W&B ---
    # unslothai/unsloth issue #1914 (a GRPO run under the transformers Trainer's W&B callback)
    (
        "wandb: ERROR api_key not configured (no-tty). call wandb.login(key=[your_api_key])",
        "wandbsdk.api_key_missing",
        {},
    ),
    # ultralytics/yolov5 issue #2848
    (
        "wandb.errors.UsageError: api_key not configured (no-tty). call "
        "wandb.login(key=[your_api_key])",
        "wandbsdk.api_key_missing",
        {},
    ),
    # fraunhoferhhi/Self-Organizing-Gaussians issue #4 (wandb 0.19's module path)
    (
        "wandb.errors.errors.UsageError: api_key not configured (no-tty). call "
        "wandb.login(key=[your_api_key])",
        "wandbsdk.api_key_missing",
        {},
    ),
    # rendered from wandb/sdk/lib/wbauth/authenticate.py (the newer wording; no public line found)
    (
        "wandb.errors.errors.UsageError: No API key configured. Use `wandb login` to log in.",
        "wandbsdk.api_key_missing",
        {},
    ),
    # POSTECH-CVLab/SCNeRF issue #1 (an entity the key cannot write to)
    (
        "wandb: ERROR Error while calling W&B API: project not found (<Response [404]>)",
        "wandbsdk.api_refused",
        {"message": "project not found", "status": "404"},
    ),
    # Sharath-girish/LilNetX issue #4
    (
        "wandb: ERROR Error while calling W&B API: permission denied (<Response [403]>)",
        "wandbsdk.api_refused",
        {"message": "permission denied", "status": "403"},
    ),
    # Sharath-girish/LilNetX issue #4 (the printed form of the CommError that follows)
    (
        "wandb: ERROR It appears that you do not have permission to access the requested "
        "resource. Please reach out to the project owner to grant you access. If you have the "
        "correct permissions, verify that there are no issues with your networking setup.(Error "
        "403: Forbidden)",
        "wandbsdk.permission_denied",
        {},
    ),
    # Ads97/ForwardForward issue #7 (the message alone, a 404 behind it)
    (
        "It appears that you do not have permission to access the requested resource. Please "
        "reach out to the project owner to grant you access. If you have the correct permissions, "
        "verify that there are no issues with your networking setup.(Error 404: Not Found)",
        "wandbsdk.permission_denied",
        {},
    ),
    # rendered: wandb/apis/normalize.py, the Public API's 4xx (and its reason-only form)
    (
        "wandb.errors.CommError: HTTP 404: project not found",
        "wandbsdk.api_client_error",
        {"status": "404"},
    ),
    (
        "wandb.errors.errors.CommError: HTTP 403 (Forbidden)",
        "wandbsdk.api_client_error",
        {"status": "403"},
    ),
    # dotchen/LAV issue #45 (an evaluation script wrapping the message)
    (
        "Could not set up the required agent: > It appears that you do not have permission to "
        "access the requested resource. Please reach out to the project owner to grant you access. "
        "If you have the correct permissions, verify that there are no issues with your networking "
        "setup.(Error 403: Forbidden)",
        "wandbsdk.permission_denied",
        {},
    ),
    # wandb/wandb issues #5214 and #8023 (an HPC cluster; 360 Slurm array tasks starting at once)
    (
        "Error: Timed out waiting for wandb service to start after 30.0 seconds. Try increasing "
        "the timeout with the `_service_wait` setting.",
        "wandbsdk.service_start_failed",
        {"seconds": "30.0"},
    ),
    # a user's notes on wandb/wandb issue #6290 (wandb under debugpy's remote debugging)
    (
        "wandb.sdk.service.service.ServiceStartProcessError: The wandb service process exited "
        "with 1. Ensure that `sys.executable` is a valid python interpreter. You can override it "
        "with the `_executable` setting or with the `WANDB__EXECUTABLE` environment variable.",
        "wandbsdk.service_start_failed",
        {"code": "1"},
    ),
    # rendered from wandb/sdk/lib/service/service_port_file.py (no public line found)
    (
        "wandb.sdk.lib.service.service_port_file.ServicePollForTokenError: wandb-core exited "
        "with code 1",
        "wandbsdk.service_start_failed",
        {"core_code": "1"},
    ),
    (
        "wandb.sdk.lib.service.service_port_file.ServicePollForTokenError: Failed to read port "
        "info after 30.0 seconds (wandb-core PID=41877): /tmp/tmpa1b2c3d4/port-41850.txt",
        "wandbsdk.service_start_failed",
        {"port_seconds": "30.0"},
    ),
    # rendered from wandb/util.py get_core_path (no public line found)
    (
        "wandb.errors.errors.WandbCoreNotAvailableError: File not found: "
        "/opt/conda/lib/python3.11/site-packages/wandb/bin/wandb-core. Please contact support at "
        "support@wandb.com. Your platform is: Linux-5.15.0-1063-aws-aarch64-with-glibc2.35.",
        "wandbsdk.core_unavailable",
        {"path": "/opt/conda/lib/python3.11/site-packages/wandb/bin/wandb-core"},
    ),
    # wandb/wandb issue #4163 (after hours of training)
    (
        "wandb: ERROR Dropped streaming file chunk (see wandb/debug-internal.log)",
        "wandbsdk.stream_chunk_dropped",
        {},
    ),
    # wandb/wandb issue #2928 (the old spelling, glued to a progress bar)
    (
        "0% [###########################   ] 100% | ETA: 00:29:04wandb: ERROR Droppped streaming "
        "file chunk (see wandb/debug.log)",
        "wandbsdk.stream_chunk_dropped",
        {},
    ),
    # ultralytics/yolov5 issue #4015 (on every progress-bar refresh of a training that went on)
    (
        "      27/99     2.57G   0.01694   0.01456   0.06814   0.09964         3       832:  18%|▎ "
        "| 334/1860 [01:20<06:34,  3.87it/s]wandb: Network error resolved after 0:01:38.877099, "
        "resuming normal operation.",
        "wandbsdk.network_resolved",
        {"after": "0:01:38.877099"},
    ),
    # --- MLflow ---
    # NVIDIA/NVFlare issue #2698 (sites creating the same experiment at once)
    (
        "mlflow.exceptions.RestException: RESOURCE_ALREADY_EXISTS: Experiment 'monai_nvflare' "
        "already exists.",
        "mlflowsdk.experiment_exists",
        {"experiment": "monai_nvflare"},
    ),
    # rendered from mlflow/store/tracking (the deleted-state message; no attributable issue line)
    (
        "mlflow.exceptions.RestException: RESOURCE_ALREADY_EXISTS: Experiment 'interstate94' "
        "already exists in deleted state. You can restore the experiment, or permanently delete "
        "the experiment from the .trash folder (under tracking server's root folder) in order to "
        "use this experiment name again.",
        "mlflowsdk.experiment_deleted",
        {"experiment": "interstate94"},
    ),
    # zenml-io/zenml issue #4207 (MLflow on AzureML)
    (
        "mlflow.exceptions.RestException: RESOURCE_DOES_NOT_EXIST: Run with "
        "id=2bf891a5-5cb5-4e0e-8615-5b6ad4bd3504 not found",
        "mlflowsdk.resource_not_found",
        {"message": "Run with id=2bf891a5-5cb5-4e0e-8615-5b6ad4bd3504 not found"},
    ),
    # mlflow/mlflow issue #2958 (its title: a remote run on Databricks)
    (
        "mlflow.exceptions.RestException: RESOURCE_DOES_NOT_EXIST: Run "
        "'d1aabdea68ab4d919b5687cfedb32065' not found.",
        "mlflowsdk.resource_not_found",
        {"message": "Run 'd1aabdea68ab4d919b5687cfedb32065' not found."},
    ),
    # mlflow/mlflow issue #7795 (an experiment id from another server)
    (
        "mlflow.exceptions.RestException: RESOURCE_DOES_NOT_EXIST: No Experiment with "
        "id=433051632486373249 exists",
        "mlflowsdk.resource_not_found",
        {"message": "No Experiment with id=433051632486373249 exists"},
    ),
    # rendered from RestException's "%s: %s" with the Azure Databricks knowledge-base message
    (
        "RestException: PERMISSION_DENIED: User alice@example.com does not have permission to "
        "'Edit' experiment with id 3316157234861220",
        "mlflowsdk.permission_denied",
        {"code": "PERMISSION_DENIED"},
    ),
    (
        "mlflow.exceptions.RestException: UNAUTHENTICATED: Invalid credentials",
        "mlflowsdk.permission_denied",
        {"code": "UNAUTHENTICATED"},
    ),
    # rendered from RestException with the databricks.proto error codes (no public line found)
    (
        "mlflow.exceptions.RestException: REQUEST_LIMIT_EXCEEDED: Too many requests. Please wait "
        "a moment and try again.",
        "mlflowsdk.service_unavailable",
        {"code": "REQUEST_LIMIT_EXCEEDED"},
    ),
    (
        "mlflow.exceptions.RestException: TEMPORARILY_UNAVAILABLE: The service is temporarily "
        "unavailable.",
        "mlflowsdk.service_unavailable",
        {"code": "TEMPORARILY_UNAVAILABLE"},
    ),
    # mlflow/mlflow issue #4992 (a command line logged as a param)
    (
        "mlflow.exceptions.MlflowException: Param value '<my-super-long-string>' had length 260, "
        "which exceeded length limit of 250",
        "mlflowsdk.param_too_long",
        {"entity": "Param value", "length": "260", "limit": "250"},
    ),
    # microsoft/qlib issue #1317 (its title: every benchmark after MLflow 1.28)
    (
        "mlflow.exceptions.MlflowException: Param value .... had length 780, which exceeded "
        "length limit of 500 ",
        "mlflowsdk.param_too_long",
        {"length": "780", "limit": "500"},
    ),
    # verl-project/verl issue #1242 (an SFT run's metric name)
    (
        'mlflow.exceptions.MlflowException: Invalid value "train/lr(1e-3)" for parameter '
        "'metrics[1].name' supplied:",
        "mlflowsdk.invalid_parameter",
        {"value": '"train/lr(1e-3)"', "parameter": "metrics[1].name"},
    ),
    # mlflow/mlflow issue #7807 (a comma in a metric name)
    (
        "RestException: INVALID_PARAMETER_VALUE: Response: {'error_code': "
        "'INVALID_PARAMETER_VALUE'}",
        "mlflowsdk.invalid_parameter",
        {"message": "Response: {'error_code': 'INVALID_PARAMETER_VALUE'}"},
    ),
    # mlflow/mlflow issue #6066 (the server's JSON answer to an empty param value)
    (
        "    \"message\": \"Invalid value [{'key': 'save_strategy', 'value': ''}] for parameter "
        "'params' supplied. Hint: Value was of type 'list'. See the API docs for more information "
        'about request parameters."',
        "mlflowsdk.invalid_parameter",
        {"parameter": "params"},
    ),
    # rendered from mlflow/tracking/fluent.py start_run (the UUID invented)
    (
        "Exception: Run with UUID 8d780125c14d43e18f3e2e96969065de is already active. To start a "
        "new run, first end the current run with mlflow.end_run(). To start a nested run, call "
        "start_run with nested=True",
        "mlflowsdk.run_already_active",
        {"run_id": "8d780125c14d43e18f3e2e96969065de"},
    ),
    # mlflow/mlflow issue #979 (concurrent set_experiment; the client's per-attempt retry)
    (
        "2019/03/11 17:31:08 ERROR mlflow.utils.rest_utils: API request to "
        "http://172.17.0.1:5000/api/2.0/preview/mlflow/experiments/create failed with code 500 != "
        '200, retrying up to 2 more times. API response body: {"error_code": '
        '"RESOURCE_ALREADY_EXISTS", "message": "Experiment \'foobar\' already exists."}',
        "mlflowsdk.request_retry",
        {"status": "500", "left": "2"},
    ),
    # --- Comet ---
    # 51N84D/Virtual-Try-On issue #17
    (
        "ValueError: Comet.ml requires an API key. Please provide as the first argument to "
        "Experiment(api_key) or as an environment variable named COMET_API_KEY",
        "cometml.api_key_rejected",
        {},
    ),
    # comet-ml/cometx issue #3 (a deployment's build; the key masked by the reporter)
    (
        'comet_ml.exceptions.InvalidRestAPIKey: "xxxxxxxxxxxxxxxxxxxxx"',
        "cometml.api_key_rejected",
        {},
    ),
    # ultralytics/ultralytics issue #23224 (caught: the training goes on untracked)
    (
        "COMET ERROR: Failed to create Comet experiment, reason: ValueError('Comet.ml requires an "
        "API key. Please provide as the first argument to Experiment(api_key) or as an environment "
        "variable named COMET_API_KEY ')",
        "cometml.tracking_disabled",
        {},
    ),
    # granularai/fabric issue #9 (its title)
    (
        "COMET ERROR: The given api key QQFXdJ5M7GZRGri7CWxwGxPDN is invalid, please check it "
        "against the dashboard. Your experiment would not be logged ",
        "cometml.tracking_disabled",
        {},
    ),
    # --- Neptune ---
    # neptune-ai/neptune-client issue #350 (its title)
    (
        "neptune.api_exceptions.InvalidApiKey: The provided API key is invalid.",
        "neptune.api_token_rejected",
        {},
    ),
    # Solacex/CCM issue #5 (the legacy client)
    (
        'neptune.exceptions.MissingApiToken: Missing API token. Use "NEPTUNE_API_TOKEN" '
        "environment variable or pass it as an argument",
        "neptune.api_token_rejected",
        {},
    ),
    # rendered from neptune/exceptions.py (the banner that opens the message)
    (
        "----NeptuneInvalidApiTokenException------------------------------------------------",
        "neptune.api_token_rejected",
        {"kind": "Invalid"},
    ),
    (
        "neptune.exceptions.NeptuneMissingApiTokenException: ",
        "neptune.api_token_rejected",
        {"kind": "Missing"},
    ),
    # rendered from neptune-client's operation processor and backend retry (no public line found)
    (
        "Experiencing connection interruptions. Will try to reestablish communication with "
        "Neptune. Internal exception was: RequestsFutureAdapterConnectionError",
        "neptune.connection_interrupted",
        {},
    ),
    (
        "[neptune] [warning] We have been experiencing connection interruptions during your run. "
        "Neptune client will now try to resume connection and sync data for the next 300 seconds.",
        "neptune.connection_interrupted",
        {},
    ),
    # --- ClearML ---
    # clearml/clearml-server issue #174 (the agent-services container)
    (
        "2023-01-18 16:41:56 clearml_agent: ERROR: Failed getting token (error 401 from "
        "http://clearml-apiserver:8008): Unauthorized (invalid credentials) (failed to locate "
        "provided credentials)",
        "clearml.credentials_rejected",
        {"status": "401", "server": "http://clearml-apiserver:8008"},
    ),
    # clearml/clearml issue #1118 (Task.init against a local server)
    (
        "2023-09-19 12:06:25,270 - clearml.Task - ERROR - Action failed <401/22: "
        "projects.get_all/v1.0 (Unauthorized (invalid credentials) (failed to locate provided "
        r"credentials))> (name=^great\ project\ 2$, only_fields=['id'], shallow_search=False, "
        "search_hidden=True)",
        "clearml.credentials_rejected",
        {"endpoint": "projects.get_all"},
    ),
    # rendered from session.py refresh_token (depth review s22-dapp): the server's own 5xx
    (
        "clearml.backend_api.session.defs.LoginError: Failed getting token (error 500 from "
        "http://clearml-apiserver:8008): General data error",
        "clearml.login_server_error",
        {"status": "500", "server": "http://clearml-apiserver:8008"},
    ),
    # --- TensorBoard / TensorFlow file systems ---
    # argonne-lcf/dlio_benchmark issue #87 (a Docker image without tensorflow-io's S3)
    (
        "tensorflow.python.framework.errors_impl.UnimplementedError: File system scheme 's3' not "
        "implemented (file: 's3://perf/resnet50')",
        "tensorboard.fs_scheme_unimplemented",
        {"scheme": "s3", "path": "s3://perf/resnet50"},
    ),
    # tensorflow/io issue #1731 (tensorboard --logdir on S3)
    (
        "tensorflow.python.framework.errors_impl.UnimplementedError: File system scheme 's3' not "
        "implemented (file: 's3://minst/log/xxxxxxxxxxxxxxxx')",
        "tensorboard.fs_scheme_unimplemented",
        {"scheme": "s3", "path": "s3://minst/log/xxxxxxxxxxxxxxxx"},
    ),
    # tensorflow/tensorboard issue #5480 (the reporter's summary)
    (
        "I get `File system scheme 's3' not implemented` error.",
        "tensorboard.fs_scheme_unimplemented",
        {"scheme": "s3"},
    ),
    # tensorflow/tensorboard issue #4294 (its title: TensorBoard without TensorFlow or boto3)
    (
        "No recognized filesystem for prefix s3",
        "tensorboard.fs_scheme_unimplemented",
        {"prefix": "s3"},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # the service's own failures stay the service's (service.wandb_init_timeout)
    ("wandbsdk.api_client_error", "wandb.errors.CommError: HTTP 429: rate limit exceeded"),
    ("wandbsdk.api_client_error", "wandb.errors.CommError: HTTP 502 (Bad Gateway)"),
    # W&B's routine login and start lines (MarkFzp/act-plus-plus issue #14, wandb/examples #57)
    (
        "wandbsdk.api_key_missing",
        "wandb: W&B API key is configured. Use `wandb login --relogin` to force relogin",
    ),
    (
        "wandbsdk.api_key_missing",
        "wandb: Currently logged in as: buckler (use `wandb login --relogin` to force relogin)",
    ),
    # a 5xx is the service's (wandb.api_server_error, signatures-storesvc.toml)
    (
        "wandbsdk.api_refused",
        "wandb: ERROR Error while calling W&B API: internal database error (<Response [500]>)",
    ),
    ("wandbsdk.service_start_failed", "wandb: Tracking run with wandb version 0.19.8"),
    (
        "wandbsdk.stream_chunk_dropped",
        "wandb: Synced 5 W&B file(s), 0 media file(s), 0 artifact file(s) and 1 other file(s)",
    ),
    # the retry loop's opening notice is service.wandb_network_retry's (wandb/wandb issue #5948)
    ("wandbsdk.network_resolved", "wandb: Network error (TransientError), entering retry loop."),
    # MLflow: the deleted-state refusal, the per-attempt retry body, a routine creation notice
    (
        "mlflowsdk.experiment_exists",
        "RestException: RESOURCE_ALREADY_EXISTS: Experiment 'interstate94' already exists in "
        "deleted state. You can restore the experiment, or permanently delete the experiment from "
        "the .trash folder (under tracking server's root folder) in order to use this experiment "
        "name again.",
    ),
    (
        "mlflowsdk.experiment_exists",
        'API response body: {"error_code": "RESOURCE_ALREADY_EXISTS", "message": "Experiment '
        "'foobar' already exists.\"}",
    ),
    ("mlflowsdk.resource_not_found", "INFO: 'foobar' does not exist. Creating a new experiment"),
    # the HTTP form is service.access_denied's (mlflow/mlflow issue #7795, its title)
    (
        "mlflowsdk.permission_denied",
        "mlflow giving following exception: API request to endpoint /api/2.0/mlflow/runs/create "
        "failed with error code 403 != 200. Response body: ''",
    ),
    (
        "mlflowsdk.service_unavailable",
        "🏃 View run worker_22_run_1754356447 at: "
        "http://localhost:5004/#/experiments/2/runs/72374f16bf43416687d5cdfd20e0f1e8",
    ),
    # a param logged again with another value is mlflow.param_changed's (ecmwf/WeatherGenerator
    # issue #2437, signatures-storesvc.toml)
    (
        "mlflowsdk.invalid_parameter",
        "mlflow.exceptions.RestException: INVALID_PARAMETER_VALUE: Parameter with key general was "
        "already logged with a value of {'istep': 0, 'rank': '???'}. The attempted new value was "
        "{'istep': 0}",
    ),
    ("mlflowsdk.param_too_long", "Worker 59 logged 500 metrics to run e8c843c22bdc4f52b542d04e"),
    (
        "mlflowsdk.run_already_active",
        "🧪 View experiment at: http://localhost:5004/#/experiments/2",
    ),
    # the final failure after the retries is service.mlflow_request_failed's (mlflow issue #12154)
    (
        "mlflowsdk.request_retry",
        "MlflowException: API request to http://localhost:5000/api/2.0/mlflow/experiments/"
        "get-by-name failed with exception HTTPConnectionPool(host='localhost', port=5000): Max "
        "retries exceeded with url:",
    ),
    # Comet: the routine start line and Ultralytics' warning that goes on untracked
    (
        "cometml.api_key_rejected",
        "COMET INFO: Experiment is live on comet.com https://www.comet.com/prashant-lakhera/"
        "my-model-project/4ea3ce89906d4067abbfe81c4e924a6b",
    ),
    (
        "cometml.api_key_rejected",
        "WARNING Comet installed but not initialized correctly, not logging this run. Comet.ml "
        "requires an API key. Please provide as the first argument to Experiment(api_key) or as an "
        "environment variable named COMET_API_KEY",
    ),
    ("cometml.tracking_disabled", "COMET INFO: Comet.ml Experiment Summary"),
    # Neptune's offline sync (neptune-ai/neptune-client issue #911)
    ("neptune.api_token_rejected", "Synchronising raphaelreme/MyExp/TRAC-10"),
    (
        "neptune.connection_interrupted",
        "Synchronization of run raphaelreme/MyExp/TRAC-10 completed.",
    ),
    # ClearML's routine token refresh (clearml/clearml issue #1118)
    (
        "clearml.credentials_rejected",
        "2023-09-19 12:06:25,116 - clearml.session - INFO - Received new token",
    ),
    # TensorBoard's start-up (tensorflow/tensorboard issues #5797 and #6712)
    (
        "tensorboard.fs_scheme_unimplemented",
        "TensorBoard 2.9.1 at http://localhost:6006/ (Press CTRL+C to quit)",
    ),
    (
        "tensorboard.fs_scheme_unimplemented",
        "TensorFlow installation not found - running with reduced feature set.",
    ),
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
        frozenset({"wandbsdk", "mlflowsdk", "cometml", "neptune", "clearml", "tensorboard"}),
    )
    assert set(BLAME) == KEYS


def test_no_tracker_line_names_a_node() -> None:
    """A tracker's service, keys and settings are the job's or the service's, never a node's: no
    entry acts on the node it was printed on, and none is hardware."""
    assert_no_node_action(KEYS)
    for key in KEYS:
        assert CATALOG.signatures[key].blame is not Blame.HARDWARE, key


def test_weights_follow_the_family_policy() -> None:
    """A tracker's outage does not decide alone (transient below 50), its restatements stay below
    a collective complaint, and its retry or reconnect notices weigh nothing."""
    for key in KEYS:
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.TRANSIENT:
            assert sig.weight < 50, key
        if sig.blame is Blame.SYMPTOM:
            assert sig.weight < COLLECTIVE, key
        if sig.blame is Blame.INFO:
            assert sig.weight == 0, key


def test_the_commerror_permission_line_is_the_jobs_refusal() -> None:
    """W&B's permission text raised as wandb.errors.CommError is its 403/404 refusal: read by
    this family's entry, not as the service's timeout (NivC/SINBAD issue #5)."""
    line = (
        "wandb.errors.CommError: It appears that you do not have permission to access the "
        "requested resource. Please reach out to the project owner to grant you access. If you "
        "have the correct permissions, verify that there are no issues with your networking "
        "setup.(Error 404: Not Found)"
    )
    assert set(hits(line)) == {"wandbsdk.permission_denied"}
    assert set(hits("wandb.errors.CommError: Run initialization has timed out")) == {
        "service.wandb_init_timeout"
    }


def test_no_golden_line_is_read_with_two_blames() -> None:
    """Every golden line's specific readings agree on the blame (the generic Python entries
    excepted, which give way to a specific one)."""
    for line, _key, _ in GOLDEN:
        blames = {
            CATALOG.signatures[k].blame
            for k in hits(line)
            if k not in {"python.exception", "python.exception_elsewhere"}
        }
        assert len(blames) == 1, (line, blames)


def test_a_public_api_client_error_is_the_jobs_and_a_server_error_the_services() -> None:
    refused = hits("wandb.errors.CommError: HTTP 404: project not found")
    assert "wandbsdk.api_client_error" in refused
    assert "service.wandb_init_timeout" not in refused
    failed = hits("wandb.errors.CommError: HTTP 502 (Bad Gateway)")
    assert "service.wandb_init_timeout" in failed and "wandbsdk.api_client_error" not in failed
