"""Golden lines from the sweep over the JAX stack (signatures-jaxstack.toml): jax and jaxlib's
version and plugin checks, the CUDA backend's component check and the CPU fallback, the TPU
runtime's HBM reservation, donated buffers, tracer errors, the persistent compilation cache's
warnings, Pallas lowering and the Mosaic TPU compiler, Orbax's CheckpointManager and async
checkpointer, TensorStore's HTTP transport, its server errors and missing metadata, Flax's scope
errors and Grain's worker processes.

Each line is a real one from the public thread cited beside it, or rendered from the emitter's
format string where no public line was found (marked so), and goes through the scanner's own
matcher. Blame is pinned to what the emitter means: versions out of step, an install without the
accelerator's libraries, memory the chip does not have, a kernel the compiler refuses, a step that
already exists are the job's (application); TensorStore's network and server errors are a shared
service's (transient, below the decisive weight alone); Orbax's barrier timeout, a failed
background save and a Grain worker's death restate an error elsewhere; the compilation cache's
warnings leave the job running. Look-alikes (healthy lines of the same emitters, and lines other
entries read) must not match.
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

FILE = "signatures-jaxstack.toml"
KEYS = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "jax.jaxlib_version_mismatch": Blame.APPLICATION,
    "jax.plugin_version_mismatch": Blame.APPLICATION,
    "jax.accelerator_jaxlib_missing": Blame.APPLICATION,
    "jax.cuda_components_unusable": Blame.APPLICATION,
    "jax.tpu_hbm_exhausted": Blame.APPLICATION,
    "jax.buffer_deleted_or_donated": Blame.APPLICATION,
    "jax.tracer_error": Blame.APPLICATION,
    "jax.compilation_cache_warning": Blame.INFO,
    "mosaic.compile_failed": Blame.APPLICATION,
    "mosaic.cannot_partition": Blame.APPLICATION,
    "pallas.lowering_unsupported": Blame.APPLICATION,
    "ocp.step_already_exists": Blame.APPLICATION,
    "ocp.async_barrier_timeout": Blame.SYMPTOM,
    "ocp.background_save_failed": Blame.SYMPTOM,
    "tensorstore.curl_error": Blame.TRANSIENT,
    "tensorstore.ca_bundle_missing": Blame.APPLICATION,
    "tensorstore.http_server_error": Blame.TRANSIENT,
    "tensorstore.metadata_missing": Blame.APPLICATION,
    "flax.scope_param_error": Blame.APPLICATION,
    "grain.worker_failed": Blame.SYMPTOM,
    # real-line mining (session 23), tests/domain/test_catalog_mined_mstore.py
    "ocp.save_future_timeout": Blame.SYMPTOM,
    "tensorstore.file_lock_failed": Blame.SYMPTOM,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # google-research/t5x issue #452 (a checkpoint on GPFS; mstore, session 23)
    (
        'ValueError: Error opening "zarr" driver: Error writing local file "/gpfs/scratch/t5/'
        'checkpoint_100.tmp-1650949633/state.step/.zarray": Failed to acquire lock on file: '
        "/gpfs/scratch/t5/checkpoint_100.tmp-1650949633/state.step/.zarray.__lock",
        "tensorstore.file_lock_failed",
        {"path": "/gpfs/scratch/t5/checkpoint_100.tmp-1650949633/state.step/.zarray.__lock"},
    ),
    # keras-team/keras issue #23609 (an async Orbax save timed out; mstore, session 23)
    (
        "ChainedFuture completed 0/1 futures but timed out after 1199.96 seconds",
        "ocp.save_future_timeout",
        {"done": "0", "total": "1", "seconds": "1199.96"},
    ),
    # alpa-projects/alpa docs/install.rst (troubleshooting: a jaxlib pulled in by another package)
    (
        "RuntimeError: jaxlib version 0.3.7 is newer than and incompatible with jax version 0.3.5. "
        "Please update your jax and/or jaxlib packages",
        "jax.jaxlib_version_mismatch",
        {"jaxlib": "0.3.7", "jax": "0.3.5"},
    ),
    # a pasted downgrade (jax 0.4.21 under jaxlib 0.6.0) found in the public code index; its
    # repository was not recorded
    (
        "RuntimeError: jaxlib version 0.6.0 is newer than and incompatible with jax version "
        "0.4.21. Please update your jax and/or jaxlib packages.",
        "jax.jaxlib_version_mismatch",
        {"jaxlib": "0.6.0", "jax": "0.4.21"},
    ),
    # rendered from jax/_src/lib/__init__.py check_jaxlib_version (the too-old branch)
    (
        "RuntimeError: jaxlib is version 0.4.16, but this version of jax requires version >= "
        "0.4.19.",
        "jax.jaxlib_version_mismatch",
        {"old_jaxlib": "0.4.16", "required": "0.4.19"},
    ),
    # ma-gilles/recovar issue #64 (jax-cuda12-plugin 0.9.2 beside jaxlib 0.9.0.1)
    (
        "RuntimeWarning: JAX plugin jax_cuda12_plugin version 0.9.2 is installed, but it is not "
        "compatible with the installed jaxlib version 0.9.0.1",
        "jax.plugin_version_mismatch",
        {"plugin": "jax_cuda12_plugin", "plugin_version": "0.9.2"},
    ),
    # rendered from jax/_src/xla_bridge.py _suggest_missing_backends (GPU and TPU)
    (
        "WARNING:jax._src.xla_bridge:An NVIDIA GPU may be present on this machine, but a "
        "CUDA-enabled jaxlib is not installed. Falling back to cpu.",
        "jax.accelerator_jaxlib_missing",
        {"accelerator": "An NVIDIA GPU"},
    ),
    (
        "WARNING:jax._src.xla_bridge:A Google TPU may be present on this machine, but either a "
        "TPU-enabled jaxlib or libtpu is not installed. Falling back to cpu.",
        "jax.accelerator_jaxlib_missing",
        {"accelerator": "A Google TPU"},
    ),
    # rgommers/pixi-dev-scipystack issue #1 (conda-forge jaxlib with an outdated cuDNN)
    (
        "E   RuntimeError: Backend 'cuda' failed to initialize: Unable to use CUDA because of the "
        "following issues with CUDA components:",
        "jax.cuda_components_unusable",
        {},
    ),
    # NixOS/nixpkgs pull request #375186 (jax's CUDA check without the CUDA libraries)
    (
        "RuntimeError: Unable to use CUDA because of the following issues with CUDA components:",
        "jax.cuda_components_unusable",
        {},
    ),
    # huggingface/transformers issue #22328 (a TPU v3-8's HBM; the TPU runtime's text)
    (
        "2023-03-23 02:02:25.057202: E tensorflow/compiler/xla/xla_client/xla_util.cc:90]   "
        "OP_REQUIRES failed at tpu_execute_op.cc:266 : RESOURCE_EXHAUSTED: Attempting to reserve "
        "10.51G at the bottom of memory. That was not possible. There are 8.97G free, 0B "
        "reserved, and 8.97G reservable.",
        "jax.tpu_hbm_exhausted",
        {"op": "reserve", "size": "10.51G", "free": "8.97G"},
    ),
    # rendered from the same runtime's allocate branch
    (
        "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: "
        "Attempting to allocate 1.00G. That was not possible. There are 726.39M free.",
        "jax.tpu_hbm_exhausted",
        {"op": "allocate", "size": "1.00G", "free": "726.39M"},
    ),
    # rendered from jax/_src/array.py and jaxlib/py_array.cc
    (
        "RuntimeError: Array has been deleted with shape=float32[1024,1024].",
        "jax.buffer_deleted_or_donated",
        {"aval": "float32[1024,1024]"},
    ),
    (
        "jaxlib.xla_extension.XlaRuntimeError: INVALID_ARGUMENT: BlockHostUntilReady() called on "
        "deleted or donated buffer",
        "jax.buffer_deleted_or_donated",
        {"api": "BlockHostUntilReady"},
    ),
    # rendered from jax/_src/errors.py
    (
        "jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete "
        "value is expected: traced array with shape bool[]",
        "jax.tracer_error",
        {"error": "ConcretizationTypeError"},
    ),
    (
        "jax._src.errors.UnexpectedTracerError: Encountered an unexpected tracer. A function "
        "transformed by JAX had a side effect, allowing for a reference to an intermediate value "
        "with type float32[] wrapped in a DynamicJaxprTracer to escape the scope of the "
        "transformation.",
        "jax.tracer_error",
        {"error": "UnexpectedTracerError"},
    ),
    # jax-ml/jax issue #22364 (a gs:// cache the program may not write)
    (
        "/home/ayx/miniconda3/envs/my_env/lib/python3.10/site-packages/jax/_src/compiler.py:686: "
        "UserWarning: Error writing persistent compilation cache entry for 'jit_some_fun': "
        "OSError: Forbidden: https://storage.googleapis.com/upload/storage/v1/b/ayaka-cache/o",
        "jax.compilation_cache_warning",
        {"op": "writing", "entry": "jit_some_fun", "error": "OSError"},
    ),
    # jax-ml/jax issue #22281 (an entry another jaxlib serialised)
    (
        "/usr/local/lib/python3.10/dist-packages/jax/_src/compiler.py:522: UserWarning: Error "
        "reading persistent compilation cache entry for 'jit_convert_element_type': "
        "XlaRuntimeError: INTERNAL: Failed to parse serialized GpuThunkAotCompilationResult.",
        "jax.compilation_cache_warning",
        {"op": "reading", "entry": "jit_convert_element_type", "error": "XlaRuntimeError"},
    ),
    # jax-ml/jax issue #30104 (a bf16 comparison on v5p)
    (
        "XlaRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: Target does not support "
        "this comparison",
        "mosaic.compile_failed",
        {"reason": "Target does not support this comparison"},
    ),
    # pytorch/xla issue #8732 (the same compiler under PyTorch/XLA)
    (
        "RuntimeError: Bad StatusOr access: INVALID_ARGUMENT: Mosaic failed to compile TPU "
        "kernel: Failed to verify layout for Mosaic kernel operand 3",
        "mosaic.compile_failed",
        {"reason": "Failed to verify layout for Mosaic kernel operand 3"},
    ),
    # marin-community/marin issue #4122 (a Pallas loss kernel on v5p-8)
    (
        "  NotImplementedError: Mosaic kernels cannot be automatically partitioned. Please wrap "
        "the call in a shard_map.",
        "mosaic.cannot_partition",
        {},
    ),
    # erfanzar/EasyDeL issue #149 (flash attention on a v3-8)
    (
        "Mosaic kernels cannot be automatically partitioned. Please wrap the call in a shard_map "
        "or xmap.",
        "mosaic.cannot_partition",
        {},
    ),
    # rendered from jax/_src/pallas/mosaic/lowering.py and triton/lowering.py
    (
        "NotImplementedError: Unimplemented primitive in Pallas TPU lowering for tc: erf_inv. "
        "Please file an issue on https://github.com/jax-ml/jax/issues.",
        "pallas.lowering_unsupported",
        {"backend": "TPU", "primitive": "erf_inv"},
    ),
    (
        "NotImplementedError: Unimplemented primitive in Pallas Triton lowering: cumsum. Please "
        "file an issue on https://github.com/jax-ml/jax/issues.",
        "pallas.lowering_unsupported",
        {"backend": "Triton", "primitive": "cumsum"},
    ),
    # jax-ml/jax issue #20908 (Pallas without its TPU lowering)
    (
        "ValueError: Cannot lower pallas_call on platform: tpu. To use Pallas on GPU, install "
        "jaxlib GPU 0.4.24 or newer. To use Pallas on TPU, install jaxlib TPU and libtpu.",
        "pallas.lowering_unsupported",
        {"platform": "tpu"},
    ),
    # google/orbax issue #2657 (the last save of a three-hour run refused)
    (
        "orbax.checkpoint.checkpoint_manager.StepAlreadyExistsError: Checkpoint for step 2000 "
        "already exists.",
        "ocp.step_already_exists",
        {"step": "2000"},
    ),
    # rendered from orbax checkpointers/checkpointer.py
    (
        "ValueError: Destination gs://my-bucket/run-7/checkpoints/1000 already exists.",
        "ocp.step_already_exists",
        {"directory": "gs://my-bucket/run-7/checkpoints/1000"},
    ),
    # rendered from orbax _src/checkpointers/async_checkpointer.py (both barriers)
    (
        "TimeoutError: Timed out while waiting for async_write_complete barrier.",
        "ocp.async_barrier_timeout",
        {"barrier": "async_write_complete"},
    ),
    (
        "TimeoutError: Timed out while waiting for async_commit_complete barrier.",
        "ocp.async_barrier_timeout",
        {"barrier": "async_commit_complete"},
    ),
    # rendered from orbax _src/checkpointers/async_checkpointer.py _thread_func
    (
        "E0702 10:14:03.512311 140012 async_checkpointer.py:264] [process=3] Failed to run 2 "
        "Handler Commit operations or the Commit callback in background save thread, directory: "
        "gs://my-bucket/run-7/checkpoints/12000.orbax-checkpoint-tmp-1751450000",
        "ocp.background_save_failed",
        {"process": "3", "count": "2"},
    ),
    # marin-community/levanter issue #578 (a GCS save stalling; TensorStore's curl transport)
    (
        "W0000 00:00:1715498963.019816  583764 curl_transport.cc:444] Error [28]=Timeout was "
        "reached in curl operation",
        "tensorstore.curl_error",
        {"transport_code": "28", "transport_error": "Timeout was reached"},
    ),
    # a public TensorStore volume service's comment quoting its ValueError (older "CURL error[N]"
    # form; found in the code index, repository not recorded)
    (
        'ValueError: Error opening "neuroglancer_precomputed" driver: Error reading '
        '"gs://vnc-v3-seg/rc4_wsexp/info": CURL error[16] Error in the HTTP2 framing layer',
        "tensorstore.curl_error",
        {"code": "16", "error": "Error in the HTTP2 framing layer"},
    ),
    # rendered from tensorstore/internal/curl/curl_wrappers.cc (the current form)
    (
        'ValueError: DEADLINE_EXCEEDED: Error writing "gs://my-bucket/ckpt/12000/d/4f1c": CURL '
        "error Timeout was reached: Operation too slow. Less than 1024 bytes/sec transferred the "
        "last 60 seconds",
        "tensorstore.curl_error",
        {"error": "Timeout was reached"},
    ),
    # google/tensorstore tensorstore/kvstore/gcs/index.rst (the documented CA-bundle symptom)
    (
        "CURL error[77] Problem with the SSL CA cert (path? access rights?):",
        "tensorstore.ca_bundle_missing",
        {},
    ),
    # rendered from tensorstore/internal/http/http_response.cc (before and since 2024)
    (
        'ValueError: UNAVAILABLE: Error writing "gs://my-bucket/ckpt/12000/state/d/4f1c": HTTP '
        "response code: 429 with body: The rate of change requests to the object exceeds the "
        "rate limit.",
        "tensorstore.http_server_error",
        {"code": "429"},
    ),
    (
        'ValueError: UNAVAILABLE: Error reading "s3://my-bucket/ckpt/12000/manifest.ocdbt": '
        "Unknown [HTTP code 503]",
        "tensorstore.http_server_error",
        {"new_code": "503"},
    ),
    # google/orbax issue #924 (an OCDBT checkpoint read as a plain zarr one)
    (
        'ValueError: NOT_FOUND: Error opening "zarr" driver: Metadata at local file '
        '"/home/black/monopi/orbax-test/a/.zarray" does not exist',
        "tensorstore.metadata_missing",
        {"driver": "zarr", "path": 'local file "/home/black/monopi/orbax-test/a/.zarray"'},
    ),
    # rendered from flax/errors.py (current and pre-2022 ScopeParamShapeError, ScopeParamNotFound)
    (
        'flax.errors.ScopeParamShapeError: For parameter "kernel" in "/Dense_0", the given '
        "initializer is expected to generate shape (4, 8), but the existing parameter it received "
        "has shape (3, 8).",
        "flax.scope_param_error",
        {"param": "kernel", "scope": "/Dense_0"},
    ),
    (
        "flax.errors.ScopeParamShapeError: Inconsistent shapes between value and initializer for "
        'parameter "embedding" in "/Embed_0": (32128, 512), (32000, 512).',
        "flax.scope_param_error",
        {"old_param": "embedding"},
    ),
    (
        'flax.errors.ScopeParamNotFoundError: Could not find parameter named "kernel" in scope '
        '"/Dense_1".',
        "flax.scope_param_error",
        {"missing": "kernel", "missing_scope": "/Dense_1"},
    ),
    # rendered from grain process_prefetch.py and grain_pool.py
    (
        "RuntimeError: Worker process was terminated unexpectedly with exit code -9. Search the "
        "logs above for the source of the crash.",
        "grain.worker_failed",
        {"code": "-9"},
    ),
    (
        "E0412 08:31:55.104512 139872 grain_pool.py:541] Processing Failed. Shutting down.",
        "grain.worker_failed",
        {},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # jax's own version banner and plugin discovery in a working install (jax.print_environment_info)
    ("jax.jaxlib_version_mismatch", "jaxlib: 0.4.30"),
    ("jax.plugin_version_mismatch", "jax-cuda12-plugin    0.4.30"),
    # the fail-quietly INFO lines of a healthy GPU run (ikostrikov/walk_in_the_park issue #5)
    (
        "jax.cuda_components_unusable",
        "I0919 21:58:29.120949 139995721590592 xla_bridge.py:350] Unable to initialize backend "
        "'rocm': NOT_FOUND: Could not find registered platform with name: \"rocm\". Available "
        "platform names are: Interpreter CUDA Host",
    ),
    # the CUDA backend's library reasons stay xla.cuda_backend_env's
    (
        "jax.cuda_components_unusable",
        "WARNING:jax._src.xla_bridge:CUDA backend failed to initialize: Unable to load CUDA. "
        "(Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)",
    ),
    # XLA's GPU allocator stays xla.oom's; a reservation that worked is not read
    (
        "jax.tpu_hbm_exhausted",
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to "
        "allocate 17179869184 bytes.",
    ),
    ("jax.buffer_deleted_or_donated", "Donation is not implemented for cpu."),
    ("jax.tracer_error", "See https://docs.jax.dev/en/latest/errors.html for JAX's errors"),
    # the cache's own healthy DEBUG lines (jax-ml/jax issue #25768)
    (
        "jax.compilation_cache_warning",
        "DEBUG:jax._src.compilation_cache:Writing jit_f to persistent compilation cache with key "
        "'jit_f-7a8d'",
    ),
    (
        "mosaic.compile_failed",
        "I0000 00:00:1719000000.000000  12345 tpu_compilation_cache.cc:123] Compiled Mosaic "
        "kernel in 1.2s",
    ),
    ("pallas.lowering_unsupported", "Lowering jit(pallas_call) to StableHLO"),
    # Orbax's routine save lines (Physical-Intelligence/openpi issue #566)
    (
        "ocp.step_already_exists",
        "00:28:21.238 [I] [process=0][thread=MainThread][step=30000] Starting CheckpointManager "
        "Save Finalize thread=save_finalize (305741:checkpoint_manager.py:1453)",
    ),
    (
        "ocp.async_barrier_timeout",
        "00:28:21.248 [I] [process=0][thread=save_finalize] Waiting for background save "
        "thread=async_save. (305741:async_checkpointer.py:258)",
    ),
    (
        "ocp.background_save_failed",
        "[process=0] Background save thread was cancelled cleanly.",
    ),
    # levanter's healthy serialization line (marin-community/levanter issue #578)
    (
        "tensorstore.curl_error",
        "2024-05-12T07:29:27 - 41 - jax.experimental.array_serialization.serialization - "
        "serialization.py:492 - INFO :: Finished waiting at barrier for process 41",
    ),
    (
        "tensorstore.ca_bundle_missing",
        "export TENSORSTORE_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt",
    ),
    # a 4xx is the caller's, not a server error; the AWS SDK's own wording stays awssdk's
    (
        "tensorstore.http_server_error",
        'ValueError: PERMISSION_DENIED: Error reading "gs://b/o": HTTP response code: 403 with '
        "body: Access denied.",
    ),
    (
        "tensorstore.http_server_error",
        "2024-01-01 00:00:00.000000: E tensorflow/core/platform/s3/aws_logging.cc:60] HTTP "
        "response code: 503",
    ),
    ("tensorstore.metadata_missing", 'Opened "zarr" driver at local file "/tmp/a/"'),
    ("flax.scope_param_error", 'Initializing parameter "kernel" in "/Dense_0"'),
    ("grain.worker_failed", "Grain worker process 3 started."),
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
        FILE, KEYS, frozenset({"jax", "mosaic", "pallas", "ocp", "tensorstore", "flax", "grain"})
    )
    assert set(BLAME) == KEYS


def test_no_jax_stack_line_names_a_node() -> None:
    """Versions, kernels, checkpoints and storage are the job's or a shared service's: no entry
    acts on the node it was printed on, and none is hardware."""
    assert_no_node_action(KEYS)
    for key in KEYS:
        assert CATALOG.signatures[key].blame is not Blame.HARDWARE, key


def test_outages_and_restatements_do_not_decide_alone() -> None:
    """A storage service's error is transient below the decisive weight; a restatement stays
    at most a barrier timeout's weight; the compilation cache's warnings decide nothing."""
    for key in KEYS:
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.TRANSIENT:
            assert sig.weight < 50, key
        if sig.blame is Blame.SYMPTOM:
            assert sig.weight <= COLLECTIVE + 5, key
        if sig.blame is Blame.INFO:
            assert sig.weight == 0, key


def test_backend_initialisation_reasons_stay_with_their_entries() -> None:
    """A CUDA backend that failed to initialise is read by the entry for its reason: the library
    versions by xla.cuda_backend_env, no visible GPU by cuda.no_gpu_visible; this family adds no
    second reading of those lines (jax-ml/jax issues #22416 and #24866)."""
    mismatched = (
        "RuntimeError: Unable to initialize backend 'cuda': INVALID_ARGUMENT: Mismatched PJRT "
        "plugin PJRT API version (0.54) and framework PJRT API version 0.51)."
    )
    assert set(hits(mismatched)) & KEYS == set()
    assert "xla.cuda_backend_env" in hits(mismatched)
    no_gpu = "jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: No visible GPU devices."
    assert set(hits(no_gpu)) & KEYS == set()
