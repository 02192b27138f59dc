"""Golden lines from the numerics sweep (signatures-numerics.toml): the fp16 loss scalers' own
skipped-step notes (apex amp and FP16_Optimizer, DeepSpeed's fused FP16_Optimizer, fairseq), a
loss scale apex halved to almost nothing, GradScaler's step without an inf check, the Megatron rerun
state machine's tracker file and rerun request, Megatron's weight-hash check across data-parallel
replicas, Megatron-FSDP's NaN check and the iteration log's nan count, JAX's debug_nans, Lightning's
finite checks, autograd anomaly mode's forward traceback and PaddlePaddle's check_nan_inf.

Each line is a real one from the public thread cited beside it, or rendered from the emitter's
format string where no public line was found (marked so), and goes through the scanner's own
matcher. Blame is pinned to what the emitter means: a framework stopping on NaN/Inf is the job's
numerics; a skipped fp16 step is routine; a rerun that did not reproduce on the same GPU, or a rank
whose weights no longer hash like rank 0's, is weak hardware evidence on that node; the rest restate
an error printed elsewhere. Look-alikes (healthy lines of the same emitters, and other programs'
wordings) must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame, NodeAction
from autorecover.domain.shape import COLLECTIVE
from domain.golden import CATALOG, assert_family_keys, family_keys, golden_line_checks, hits

FILE = "signatures-numerics.toml"
KEYS = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "apexamp.gradient_overflow": Blame.INFO,
    "apexamp.loss_scale_collapsed": Blame.APPLICATION,
    "dsfp16.overflow_detected": Blame.INFO,
    "fairseqamp.overflow_rescaled": Blame.INFO,
    "gradscaler.no_inf_checks": Blame.APPLICATION,
    "rerunsm.tracker_not_reproducible": Blame.HARDWARE,
    "rerunsm.tracker_other_gpu_faulty": Blame.SYMPTOM,
    "rerunsm.tracker_reproduced_elsewhere": Blame.APPLICATION,
    "rerunsm.tracker_rejected": Blame.SYMPTOM,
    "rerunsm.rerun_requested": Blame.SYMPTOM,
    "mcorehash.param_mismatch": Blame.HARDWARE,
    "mcorehash.replicas_diverged": Blame.SYMPTOM,
    "mcorefsdp.nan_in_wgrad": Blame.APPLICATION,
    "mcorelog.nan_iterations": Blame.INFO,
    "jaxnans.invalid_value": Blame.APPLICATION,
    "jaxnans.deoptimized_rerun": Blame.SYMPTOM,
    "plnan.loss_not_finite": Blame.APPLICATION,
    "plnan.params_not_finite": Blame.APPLICATION,
    "autograd.anomaly_traceback": Blame.SYMPTOM,
    "paddlenan.check_nan_inf": Blame.APPLICATION,
}

_NAN_BUCKET = (
    "message='found NaN in local grad norm for bucket #0 in backward pass before data-parallel "
    "communication collective'"
)

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # kenziyuliu/MS-G3D issue #9 (its title: apex O2 on an RTX 2080 Ti)
    (
        "Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to 131072.0",
        "apexamp.gradient_overflow",
        {"loss_id": "0", "scale": "131072.0"},
    ),
    # a public benchmark README's apex O1 run on an RTX 2080 Ti (the print's own two spaces)
    (
        "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 32768.0",
        "apexamp.gradient_overflow",
        {"scale": "32768.0"},
    ),
    # whai362/PVT issue #94 (a small scale, still a number apex can train with)
    (
        "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 0.03125, ",
        "apexamp.gradient_overflow",
        {"scale": "0.03125"},
    ),
    # rendered from apex/fp16_utils/fp16_optimizer.py step and apex/amp/opt.py (no public line)
    (
        "Gradient overflow.  Skipping step, reducing loss scale to 1024.0",
        "apexamp.gradient_overflow",
        {"scale": "1024.0"},
    ),
    ("Gradient overflow, skipping update", "apexamp.gradient_overflow", {}),
    # NVIDIA/apex issue #318 (a scale halved every step for hundreds of steps)
    (
        "Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to "
        "8.165126103939127e-202",
        "apexamp.loss_scale_collapsed",
        {"loss_id": "0", "scale": "8.165126103939127e-202"},
    ),
    # rendered: apex's FP16_Optimizer once the scale underflowed
    (
        "Gradient overflow.  Skipping step, reducing loss scale to 0.0",
        "apexamp.loss_scale_collapsed",
        {"scale": "0.0"},
    ),
    # rendered from deepspeed/runtime/fp16/fused_optimizer.py (step, _update_scale) and
    # runtime/utils.py CheckOverflow (no public line found)
    (
        "[2024-03-05 10:12:44,103] [INFO] [logging.py:96:log_dist] [Rank 0] Overflow detected. "
        "Skipping step. Attempted loss scale: 65536, reducing to 32768",
        "dsfp16.overflow_detected",
        {"scale": "65536", "next": "32768"},
    ),
    (
        "[2024-03-05 10:12:44,101] [INFO] [fused_optimizer.py:393:_update_scale] Reducing dynamic "
        "loss scale from 65536.0 to 32768.0",
        "dsfp16.overflow_detected",
        {"from": "65536.0", "to": "32768.0"},
    ),
    (
        "[2024-03-05 10:12:44,099] [INFO] [utils.py:302:_handle_overflow] rank 3 detected overflow "
        "inf in tensor 0:12 shape torch.Size([4096, 4096])",
        "dsfp16.overflow_detected",
        {"rank": "3", "value": "inf"},
    ),
    # JZ-Azure/2024-AI-GBB-Bootcamp, its fairseq README (the expected output of a working run)
    (
        "2024-02-29 07:59:08 | INFO | fairseq.trainer | NOTE: gradient overflow detected, "
        "ignoring gradient, setting loss scale to: 16.0",
        "fairseqamp.overflow_rescaled",
        {"scale": "16.0"},
    ),
    # open-mmlab/mmsegmentation issue #3230; huggingface/accelerate issue #1990
    (
        "AssertionError: No inf checks were recorded for this optimizer.",
        "gradscaler.no_inf_checks",
        {},
    ),
    # yoshitomo-matsubara/torchdistill issue #386 (its title)
    (
        "[BUG] fp16 causes AssertionError: No inf checks were recorded for this optimizer",
        "gradscaler.no_inf_checks",
        {},
    ),
    # rendered from megatron/core/rerun_state_machine.py _log_validation_error_to_file (no public
    # tracker file found), with both spellings of the status the file's reader accepts
    (
        "ts=2025-06-12 03:41:27.512093 node=gpu-b17 device=5 jobID=418233 rank=45 "
        "iteration=18212 status=first_rerun_not_reproducible result=nan " + _NAN_BUCKET,
        "rerunsm.tracker_not_reproducible",
        {"host": "gpu-b17", "device": "5", "rank": "45", "iteration": "18212"},
    ),
    (
        "ts=2025-06-12 03:41:27.512093 node=dgx-a100-031 device=0 jobID=N/A rank=8 "
        "iteration=907 status=RerunValidationStatus.FIRST_RERUN_NOT_REPRODUCIBLE "
        "result=tensor(12.5000, device='cuda:0') message='Spiky loss'",
        "rerunsm.tracker_not_reproducible",
        {"host": "dgx-a100-031", "device": "0", "rank": "8"},
    ),
    (
        "ts=2025-06-12 04:10:02.004871 node=gpu-c03 device=2 jobID=418240 rank=45 "
        "iteration=18212 status=second_rerun_not_reproducible result=0.4375 " + _NAN_BUCKET,
        "rerunsm.tracker_other_gpu_faulty",
        {"host": "gpu-c03", "device": "2"},
    ),
    (
        "ts=2025-06-12 04:10:02.004871 node=gpu-c03 device=2 jobID=418240 rank=45 "
        "iteration=18212 status=RerunValidationStatus.SECOND_RERUN_REPRODUCIBLE result=nan "
        + _NAN_BUCKET,
        "rerunsm.tracker_reproduced_elsewhere",
        {"rank": "45", "iteration": "18212"},
    ),
    (
        "ts=2025-06-12 03:41:19.880412 node=gpu-b17 device=5 jobID=418233 rank=45 "
        "iteration=18212 status=RerunValidationStatus.INITIAL_RUN result=nan " + _NAN_BUCKET,
        "rerunsm.tracker_rejected",
        {"status": "INITIAL_RUN"},
    ),
    (
        "ts=2025-06-12 03:41:19.880412 node=gpu-b17 device=5 jobID=418233 rank=45 "
        "iteration=-1 status=rerun_disabled result=nan " + _NAN_BUCKET,
        "rerunsm.tracker_rejected",
        {"status": "rerun_disabled", "iteration": "-1"},
    ),
    # rendered from rerun_state_machine.py should_run_forward_backward
    (
        "WARNING:megatron.core.rerun_state_machine:Need to rerun step to check reproducibility of "
        "initial result",
        "rerunsm.rerun_requested",
        {},
    ),
    # rendered from megatron/core/utils.py check_param_hashes_across_dp_replicas
    (
        "INFO:megatron.core.utils:[Rank 37] Hash not matching for "
        "module.decoder.layers.11.mlp.linear_fc1.weight in model chunk0",
        "mcorehash.param_mismatch",
        {"rank": "37", "param": "module.decoder.layers.11.mlp.linear_fc1.weight", "chunk": "0"},
    ),
    # rendered from megatron/training/training.py (the assertion's message, as a traceback ends)
    (
        "[rank5]: AssertionError: Parameter hashes not matching across DP replicas",
        "mcorehash.replicas_diverged",
        {},
    ),
    # rendered from megatron_fsdp/param_and_grad_buffer.py _check_nan_in_grad
    (
        "ValueError: [Megatron-FSDP](check_for_nan_in_grad=True) Detected NaN or Inf in wgrad: "
        "tensor([nan, nan, nan,  ..., nan, nan, nan], device='cuda:3', dtype=torch.bfloat16)",
        "mcorefsdp.nan_in_wgrad",
        {},
    ),
    # rendered from megatron/training/training.py training_log with a non-zero count
    (
        " [2025-04-13 23:41:12] iteration       10/    1000 | consumed samples:          160 | "
        "elapsed time per iteration (ms): 1147.6 | learning rate: 1.000000E-04 | global batch "
        "size:    16 | loss scale: 1.0 | number of skipped iterations:   2 | number of nan "
        "iterations:   2 |",
        "mcorelog.nan_iterations",
        {"count": "2"},
    ),
    # jax-ml/jax issue #24732 (its title)
    (
        "median FloatingPointError: invalid value (nan) encountered in jit(convert_element_type)",
        "jaxnans.invalid_value",
        {"value": "nan", "where": "jit(convert_element_type)"},
    ),
    # google/brax issue #412
    (
        "FloatingPointError: invalid value (nan) encountered in jit(scan)",
        "jaxnans.invalid_value",
        {"where": "jit(scan)"},
    ),
    # jax-ml/jax issue #9092 (jax 0.2 on Colab)
    (
        "FloatingPointError: invalid value (nan) encountered in xla_call",
        "jaxnans.invalid_value",
        {"where": "xla_call"},
    ),
    # jax-ml/jax pull request #25519 (the traceback's last line under a transformation)
    (
        "jax._src.source_info_util.JaxStackTraceBeforeTransformation: FloatingPointError: invalid "
        "value (nan) encountered in mul",
        "jaxnans.invalid_value",
        {"where": "mul"},
    ),
    # jax-ml/jax issue #24939 (the de-optimized function did not reproduce it; the paste is cut
    # after "config.jax_", the rest of the line rendered from jax/_src/api_util.py)
    (
        '"message": "invalid value (nan) encountered in jit(log). Because '
        "jax_config.debug_nans.value and/or config.jax_debug_infs is set, the de-optimized "
        "function (i.e., the function as if the `jit` decorator were removed) was called",
        "jaxnans.invalid_value",
        {"where": "jit(log)"},
    ),
    # rendered from jax/_src/shard_map.py
    (
        "FloatingPointError: Invalid value (inf) encountered in sharded computation.",
        "jaxnans.invalid_value",
        {"value": "inf", "where": "sharded computation"},
    ),
    # jax-ml/jax pull request #25519
    (
        "Invalid nan value encountered in the backward pass of a C++-jit/pmap function. Calling "
        "the de-optimized backward pass.",
        "jaxnans.deoptimized_rerun",
        {"where": "backward pass"},
    ),
    # rendered from jax/_src/api_util.py maybe_recursive_nan_check
    (
        "Invalid nan value encountered in the output of a jax.jit function. Calling the "
        "de-optimized version.",
        "jaxnans.deoptimized_rerun",
        {"where": "output"},
    ),
    # rendered from lightning/pytorch/loops/utilities.py check_finite_loss (no public line found)
    (
        "ValueError: The loss returned in `training_step` is tensor(nan, device='cuda:0', "
        "grad_fn=<NllLossBackward0>).",
        "plnan.loss_not_finite",
        {"value": "tensor(nan"},
    ),
    (
        "ValueError: The loss returned in `training_step` is inf.",
        "plnan.loss_not_finite",
        {"value": "inf"},
    ),
    # rendered from pytorch_lightning/utilities/finite_checks.py detect_nan_parameters
    (
        "ValueError: Detected nan and/or inf values in `encoder.layers.3.self_attn.in_proj_weight`."
        " Check your forward pass for numerically unstable operations.",
        "plnan.params_not_finite",
        {"param": "encoder.layers.3.self_attn.in_proj_weight"},
    ),
    # stas00/ml-engineering (the debugging chapter's anomaly-mode run, a CUDA OOM in backward)
    (
        "/home/stas/miniconda3/envs/dev/lib/python3.12/site-packages/torch/autograd/graph.py:841: "
        "UserWarning: Error detected in MulBackward0. Traceback of forward call that caused the "
        "error:",
        "autograd.anomaly_traceback",
        {"function": "MulBackward0"},
    ),
    # a public project README's training paste (a panda-gym agent, torch 1.7)
    (
        "/home/ollie/.virtualenvs/ug4_project/lib/python3.6/site-packages/torch/autograd/"
        "__init__.py:132: UserWarning: Error detected in AddmmBackward. Traceback of forward call "
        "that caused the error:",
        "autograd.anomaly_traceback",
        {"function": "AddmmBackward"},
    ),
    # rendered from paddle's nan_inf_utils_detail (CheckNanInf, check_nan_inf_level 0)
    (
        "(PreconditionNotMet) There are NAN or INF (num_nan=4096, num_inf=0, num_zero=0) in "
        "[device=gpu:0, op=softmax_with_cross_entropy, tensor=softmax_0.tmp_0, dtype=fp32].",
        "paddlenan.check_nan_inf",
        {"num_nan": "4096", "num_inf": "0"},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # apex's healthy start-up (a benchmark README's O1 run) and DeepSpeed's own overflow wording,
    # which deepspeed.fp16_overflow reads
    ("apexamp.gradient_overflow", "loss_scale             : dynamic"),
    (
        "apexamp.gradient_overflow",
        "[2023-06-07 22:16:00,018] [INFO] [loss_scaler.py:181:update_scale] [deepspeed] OVERFLOW! "
        "Rank 0 Skipping step. Attempted loss scale: 64, reducing to 32",
    ),
    (
        "apexamp.loss_scale_collapsed",
        "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 0.03125",
    ),
    (
        "apexamp.gradient_overflow",
        "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 6.103515625e-05",
    ),
    # DeepSpeed's routine scale growth and creation lines (deepspeed/runtime/fp16)
    (
        "dsfp16.overflow_detected",
        "[INFO] [fused_optimizer.py:401:_update_scale] Increasing dynamic loss scale from 32768.0 "
        "to 65536.0",
    ),
    ("dsfp16.overflow_detected", "[Rank 0] Creating fp16 optimizer with dynamic loss scale"),
    # a user's own GradScaler log that copies fairseq's wording without its NOTE
    (
        "fairseqamp.overflow_rescaled",
        "gradient overflow detected, ignoring gradient, setting loss scale to: 32768.0",
    ),
    # Megatron's healthy iteration line (a count of zero)
    (
        "mcorelog.nan_iterations",
        "iteration      200/    1000 | consumed samples:          800 | elapsed time per "
        "iteration (ms): 430.0 | learning rate: 1.342E-04 | global batch size:     4 | lm loss: "
        "7.399415E+00 | loss scale: 16384.0 | grad norm: 2.918 | number of skipped iterations:   0 "
        "| number of nan iterations:   0 |",
    ),
    # the rerun state machine's start-up lines (rerun_state_machine.py)
    (
        "rerunsm.rerun_requested",
        "WARNING:megatron.core.rerun_state_machine:RerunStateMachine initialized in mode "
        "RerunMode.VALIDATE_RESULTS",
    ),
    (
        "rerunsm.rerun_requested",
        "WARNING:megatron.core.rerun_state_machine:Result validation enabled",
    ),
    # the hash check's healthy log (nothing printed but the assertion passing) and a hash mismatch
    # of a checkpoint download, another program's wording
    ("mcorehash.param_mismatch", "Hash mismatch for model.safetensors: expected 3f2a, got 9b1c"),
    # NumPy's runtime warnings, which JAX's check is not
    ("jaxnans.invalid_value", "RuntimeWarning: invalid value encountered in divide"),
    (
        "jaxnans.invalid_value",
        "FloatingPointError: divide by zero encountered in divide",
    ),
    # Lightning's routine warnings
    (
        "plnan.loss_not_finite",
        "UserWarning: `training_step` returned `None`. If this was on purpose, ignore this warning...",
    ),
    # anomaly mode's own start-up warning
    (
        "autograd.anomaly_traceback",
        "UserWarning: Anomaly Detection has been enabled. This mode will increase the runtime and "
        "should only be enabled for debugging.",
    ),
    # another program's NaN wording
    ("paddlenan.check_nan_inf", "There are NaN or Inf values in the coordinates of your points!"),
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
        frozenset(
            {
                "apexamp",
                "dsfp16",
                "fairseqamp",
                "gradscaler",
                "rerunsm",
                "mcorehash",
                "mcorefsdp",
                "mcorelog",
                "jaxnans",
                "plnan",
                "autograd",
                "paddlenan",
            }
        ),
    )
    assert set(BLAME) == KEYS


def test_only_rerun_and_hash_evidence_names_a_node_and_weakly() -> None:
    """Only a rerun the same GPU did not reproduce, and a rank whose weights stopped hashing like
    rank 0's, point at the node they were printed on: weak hardware, to inspect, never decisive
    alone. Every other entry acts on no node."""
    for key in KEYS:
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.HARDWARE:
            assert key in {"rerunsm.tracker_not_reproducible", "mcorehash.param_mismatch"}, key
            assert sig.weight < 50, key
            assert sig.node_action is NodeAction.INSPECT, key
        else:
            assert sig.node_action is NodeAction.NONE, key


def test_skipped_steps_are_routine_and_restatements_stay_light() -> None:
    """A skipped fp16 step is info 0; restatements stay below a collective complaint; the loss
    scale halved to nothing is the job's but stops nothing itself."""
    for key in (
        "apexamp.gradient_overflow",
        "dsfp16.overflow_detected",
        "fairseqamp.overflow_rescaled",
    ):
        assert CATALOG.signatures[key].weight == 0, key
    for key in KEYS:
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.SYMPTOM:
            assert sig.weight <= COLLECTIVE, key
    assert CATALOG.signatures["apexamp.loss_scale_collapsed"].weight < 50


def test_the_tracker_reads_each_status_once() -> None:
    """One tracker line, one verdict: no two entries of the family read the same status."""
    line = (
        "ts=2025-06-12 03:41:27.512093 node=gpu-b17 device=5 jobID=1 rank=45 iteration=3 "
        "status=RerunValidationStatus.{} result=nan message='x'"
    )
    for status in (
        "RERUN_DISABLED",
        "INITIAL_RUN",
        "FIRST_RERUN_NOT_REPRODUCIBLE",
        "FIRST_RERUN_REPRODUCIBLE",
        "SECOND_RERUN_NOT_REPRODUCIBLE",
        "SECOND_RERUN_REPRODUCIBLE",
    ):
        for text in (line.format(status), line.format(status).replace(
            "RerunValidationStatus." + status, status.lower())):  # fmt: skip
            assert len(set(hits(text)) & KEYS) == 1, text
