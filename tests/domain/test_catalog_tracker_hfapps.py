"""Golden lines from the sixth tracker sweep over the application layer of LLM training and
serving stacks (signatures-hfapps.toml): PyTorch's device, autograd-anomaly, AMP and meta-tensor
checks, torch.compile's bare BackendCompilerFailed, transformers / accelerate / peft loading and
configuration errors, bitsandbytes and xFormers builds that do not fit the job's torch, and
vLLM's dtype and architecture checks.

Each line is a real one users pasted in a public thread, cited beside it, with the wrapper it
came in (`[rank2]:`, a logger's prefix, an indented message line); it goes through the scanner's
own matcher. Every entry is the job's own and none may act on a node; a warning that only precedes
the failure stays below a decisive weight. Look-alikes, healthy lines of the same emitters among
them, must not match.
"""

from __future__ import annotations

import tomllib

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    DATA,
    assert_no_node_action,
    family_contract,
    family_keys,
    golden_line_checks,
)

FAMILY_FILE = "signatures-hfapps.toml"
NAMESPACES = frozenset(
    {"torch", "dynamo", "hf", "accelerate", "peft", "bnb", "xformers", "vllm", "datasets"}
)

BLAME: dict[str, Blame] = {
    "torch.device_mismatch": Blame.APPLICATION,
    "torch.anomaly_nan": Blame.APPLICATION,
    "torch.amp_fp16_unscale": Blame.APPLICATION,
    "torch.meta_tensor_copy": Blame.APPLICATION,
    "dynamo.backend_failed": Blame.APPLICATION,
    "hf.unknown_model_type": Blame.APPLICATION,
    "hf.tokenizer_class_missing": Blame.APPLICATION,
    "hf.lazy_import_failed": Blame.APPLICATION,
    "hf.zero3_device_map": Blame.APPLICATION,
    "hf.trainer_log_non_finite": Blame.APPLICATION,
    "hf.waiting_for_main_process": Blame.INFO,
    "datasets.preprocessing_progress": Blame.INFO,
    "accelerate.param_shape_mismatch": Blame.APPLICATION,
    "peft.target_modules_missing": Blame.APPLICATION,
    "bnb.cuda_setup_failed": Blame.APPLICATION,
    "bnb.native_library_missing": Blame.APPLICATION,
    "xformers.no_operator": Blame.APPLICATION,
    "xformers.extensions_unloadable": Blame.APPLICATION,
    "vllm.bf16_unsupported": Blame.APPLICATION,
    "vllm.architecture_unsupported": Blame.APPLICATION,
}

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, BLAME)

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # dhcode-cpp/X-R1 issue #21 (accelerate launching DeepSpeed on 4 GPUs, the rank's prefix)
    (
        "[rank2]: RuntimeError: Expected all tensors to be on the same device, but found at least "
        "two devices, cpu and cuda:2! (when checking argument for argument tensors in method "
        "wrapper_CUDA_cat)",
        "torch.device_mismatch",
        {"first": "cpu", "second": "cuda:2"},
    ),
    # princeton-vl/RAFT issue #179 (two GPUs; the paste cut the line short)
    (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two "
        "devices, cuda:0 and cuda:1! (when checking argument for argument mat1 in method "
        "wrapper_CUDA_addmm",
        "torch.device_mismatch",
        {"first": "cuda:0", "second": "cuda:1"},
    ),
    # BorealisAI/scaleformer issue #5 (the message alone, without the exception class)
    (
        "Expected all tensors to be on the same device, but found at least two devices, cuda:1 and "
        "cuda:0! (when checking argument for argument tensors in method wrapper_CUDA_cat)",
        "torch.device_mismatch",
        {"first": "cuda:1", "second": "cuda:0"},
    ),
    # PyTorch 2.6+ wording (rendered from aten's format string; no public line found)
    (
        "RuntimeError: Expected all tensors to be on the same device, but got index is on cpu, "
        "different from other tensors on cuda:0 (when checking argument in method "
        "wrapper_CUDA__index_select)",
        "torch.device_mismatch",
        {"argument": "index", "on": "cpu", "others": "cuda:0"},
    ),
    # huggingface/trl issue #2564 (DPO under DeepSpeed on 8 GPUs, anomaly detection on)
    (
        "RuntimeError: Function 'Log1PBackward0' returned nan values in its 0th output.",
        "torch.anomaly_nan",
        {"function": "Log1PBackward0", "output": "0"},
    ),
    # zai-org/CogVideo issue #775 (accelerate's clip_grad_norm_ under fp16)
    ("ValueError: Attempting to unscale FP16 gradients.", "torch.amp_fp16_unscale", {}),
    # AI4Bharat/IndicF5 issue #28
    (
        "NotImplementedError: Cannot copy out of meta tensor; no data! Please use "
        "torch.nn.Module.to_empty() instead of torch.nn.Module.to() when moving module from meta "
        "to a different device.",
        "torch.meta_tensor_copy",
        {},
    ),
    # unslothai/unsloth issue #2230 (a notebook prints the class without its module)
    (
        "BackendCompilerFailed: backend='inductor' raised: SystemError: PY_SSIZE_T_CLEAN macro "
        "must be defined for '#' formats",
        "dynamo.backend_failed",
        {"backend": "inductor"},
    ),
    # city96/ComfyUI_ExtraModels issue #114
    (
        "ValueError: The checkpoint you are trying to load has model type `gemma2` but Transformers "
        "does not recognize this architecture. This could be because of an issue with the "
        "checkpoint, or because your version of Transformers is out of date.",
        "hf.unknown_model_type",
        {"model_type": "gemma2"},
    ),
    # lm-sys/FastChat issue #206
    (
        "ValueError: Tokenizer class LlamaTokenizer does not exist or is not currently imported.",
        "hf.tokenizer_class_missing",
        {"tokenizer": "LlamaTokenizer"},
    ),
    # Dao-AILab/flash-attention issue #1612 (flash-attn built for another torch, under RL)
    (
        "RuntimeError: Failed to import transformers.models.bloom.modeling_bloom because of the "
        "following error (look up to see its traceback):",
        "hf.lazy_import_failed",
        {"module": "transformers.models.bloom.modeling_bloom"},
    ),
    # ymcui/Chinese-LLaMA-Alpaca issue #465 (three ranks' stderr interleaved by torchrun)
    (
        ": DeepSpeed Zero-3 is not compatible with `low_cpu_mem_usage=True` or with passing a "
        "`device_map`.ValueError",
        "hf.zero3_device_map",
        {},
    ),
    # shibing624/MedicalGPT issue #477 (the newer wording)
    (
        "ValueError: DeepSpeed Zero-3 is not compatible with passing a `device_map`.",
        "hf.zero3_device_map",
        {},
    ),
    # hiyouga/LlamaFactory issue #5627 (every step after the divergence, on 910B NPUs)
    (
        "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 4.549912997495027e-06, 'epoch': 0.66}",
        "hf.trainer_log_non_finite",
        {"metric": "grad_norm", "value": "nan"},
    ),
    # VITA-MLLM/VITA issue #27
    (
        'ValueError: Trying to set a tensor of shape torch.Size([4096, 4096]) in "weight" (which '
        "has shape torch.Size([4096, 20480])), this looks incorrect.",
        "accelerate.param_shape_mismatch",
        {"param": "weight"},
    ),
    # axolotl-ai-cloud/axolotl issue #1240 (multi-GPU; the older "look incorrect", quoted in the
    # thread's title)
    (
        "multi gpu - transformers/modeling_utils.py - Trying to set a tensor of shape "
        'torch.Size([32000, 4096]) in "weight" (which has shape torch.Size([0])), this look '
        "incorrect.",
        "accelerate.param_shape_mismatch",
        {"param": "weight"},
    ),
    # hiyouga/LlamaFactory issue #181 (LoRA targets of another architecture)
    (
        "ValueError: Target modules ['q_proj', 'v_proj'] not found in the base model. Please check "
        "the target modules and try again.",
        "peft.target_modules_missing",
        {"modules": "['q_proj', 'v_proj']"},
    ),
    # libozhu03/PassionSR issue #5
    (
        "ValueError: Target modules set() not found in the base model",
        "peft.target_modules_missing",
        {"modules": "set()"},
    ),
    # bitsandbytes-foundation/bitsandbytes issue #1522 (the RuntimeError's own indented line)
    (
        "        CUDA Setup failed despite GPU being available. Inspect the CUDA SETUP outputs above "
        "to fix your environment!",
        "bnb.cuda_setup_failed",
        {},
    ),
    # bitsandbytes-foundation/bitsandbytes issue #387 (the line wrapped by the terminal)
    (
        "CUDA SETUP: Required library version not found: libbitsandbytes_cuda121_nocublaslt.so. "
        "Maybe you need to ",
        "bnb.native_library_missing",
        {"library": "libbitsandbytes_cuda121_nocublaslt.so"},
    ),
    ("CUDA SETUP: Defaulting to libbitsandbytes_cpu.so..", "bnb.native_library_missing", {}),
    # bitsandbytes-foundation/bitsandbytes issue #1559
    (
        "Could not find the bitsandbytes CUDA binary at "
        "PosixPath('/notebooks/bitsandbytes/bitsandbytes/libbitsandbytes_cuda124.so')",
        "bnb.native_library_missing",
        {},
    ),
    # facebookresearch/xformers issue #1263
    (
        "NotImplementedError: No operator found for `memory_efficient_attention_forward` with "
        "inputs:",
        "xformers.no_operator",
        {"op": "memory_efficient_attention_forward"},
    ),
    # yangjianxin1/Firefly issue #258 (xFormers built for torch 2.3, the job on 2.1)
    (
        "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:",
        "xformers.extensions_unloadable",
        {},
    ),
    # vllm-project/vllm issue #1157
    (
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
        "Your Tesla T4 GPU has compute capability 7.5.",
        "vllm.bf16_unsupported",
        {"gpu": "Tesla T4", "capability": "7.5"},
    ),
    # NVIDIA-AI-Blueprints/bring-llms-to-nim issue #7 (NIM's logger, no exception class)
    (
        "ERROR 2025-07-21 14:34:24.934 async_trtllm_engine_factory.py:62] Bfloat16 is only "
        "supported on GPUs with compute capability of at least 8.0. Your Quadro RTX 6000 GPU has "
        "compute capability 7.5. You can use float16 instead by explicitly setting the `dtype` "
        "flag in CLI, for example: --dtype=half.",
        "vllm.bf16_unsupported",
        {"gpu": "Quadro RTX 6000", "capability": "7.5"},
    ),
    # vllm-project/vllm issue #9515 (tensor_parallel_size=4; the supported list cut short here)
    (
        "ValueError: Model architectures ['LlamaForCausalLM'] are not supported for now. Supported "
        "architectures: ['AquilaModel', 'AquilaForCausalLM', 'ArcticForCausalLM']",
        "vllm.architecture_unsupported",
        {"architectures": "'LlamaForCausalLM'"},
    ),
    # the tune bundle app-socket-timeout-tokenize-main-process-first (the training script's frame)
    (
        '    with training_args.main_process_first(desc="dataset map tokenization"):',
        "hf.waiting_for_main_process",
        {},
    ),
    # the frames transformers (training_args.py) and accelerate (state.py) add under it
    (
        '  File "/usr/local/lib/python3.10/dist-packages/transformers/training_args.py", '
        "line 2126, in main_process_first",
        "hf.waiting_for_main_process",
        {},
    ),
    (
        '  File "/opt/conda/lib/python3.10/site-packages/accelerate/state.py", line 1088, '
        "in _goes_first",
        "hf.waiting_for_main_process",
        {},
    ),
    # TrainingArguments.main_process_first's debug line
    (
        "3: waiting for the main local process to perform dataset map tokenization",
        "hf.waiting_for_main_process",
        {},
    ),
    # vllm-project/vllm issue #9624 (the registry's subprocess failed first)
    (
        "ERROR 10-23 23:20:26 registry.py:272] Error in inspecting model architecture "
        "'LlamaForCausalLM'",
        "vllm.architecture_unsupported",
        {"inspected": "LlamaForCausalLM"},
    ),  # the tune bundle app-nanotron-rank0-tokenizing-hf-dataset-others-allreduce-timeout-600s-slurm
    # (nanotron: rank 0 grouping texts, run_clm's desc, when the others timed out)
    (
        "[default0]:Grouping texts in chunks of 2049:   8%|▊         | 726000/9672101 "
        "[02:32<30:38, 4866.01 examples/s]",
        "datasets.preprocessing_progress",
        {"desc": "Grouping texts in chunks of 2049", "pct": "8"},
    ),
    (
        "[default0]:Running tokenizer on dataset (num_proc=32):  31%|███       | "
        "3010000/9672101 [02:11<04:50, 22931.40 examples/s]",
        "datasets.preprocessing_progress",
        {"desc": "Running tokenizer on dataset (num_proc=32)", "pct": "31"},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # a placement message, and a DDP device_ids note, are not the operator's check
    ("torch.device_mismatch", "All tensors are on the same device: cuda:0"),
    ("torch.device_mismatch", "Expected all ranks to use the same device type"),
    # anomaly mode switched on, and a finite output
    (
        "torch.anomaly_nan",
        "Anomaly Detection has been enabled. This mode will increase the runtime",
    ),
    ("torch.anomaly_nan", "Function 'MulBackward0' returned finite values"),
    # GradScaler's routine skip of an overflowed step
    (
        "torch.amp_fp16_unscale",
        "Gradient overflow. Skipping step, loss scaler 0 reducing loss scale",
    ),
    ("torch.meta_tensor_copy", "Moving module from meta device with to_empty()"),
    # the qualified form is python.compile_failed's, and a passing compile
    (
        "dynamo.backend_failed",
        "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:",
    ),
    ("dynamo.backend_failed", "backend='inductor' compiled 12 graphs in 41.2 s"),
    ("hf.unknown_model_type", "The checkpoint you are trying to load has model type `llama`"),
    ("hf.tokenizer_class_missing", "Tokenizer class LlamaTokenizerFast loaded from the cache"),
    ("hf.lazy_import_failed", "Failed to import wandb; logging to tensorboard only"),
    ("hf.zero3_device_map", "DeepSpeed Zero-3 is enabled, parameters are partitioned"),
    # the same Trainer line with finite values
    (
        "hf.trainer_log_non_finite",
        "{'loss': 1.4596, 'grad_norm': 0.8123, 'learning_rate': 4.55e-06, 'epoch': 0.66}",
    ),
    ("hf.trainer_log_non_finite", "{'eval_loss': 0.912, 'eval_runtime': 12.3, 'epoch': 1.0}"),
    ("accelerate.param_shape_mismatch", "Setting a tensor of shape torch.Size([4096]) in bias"),
    ("peft.target_modules_missing", "trainable params: 35,192,832 || all params: 529,225,600"),
    ("peft.target_modules_missing", "Target modules ['q_proj', 'v_proj'] found in the base model"),
    # bitsandbytes' healthy set-up lines
    ("bnb.native_library_missing", "CUDA SETUP: CUDA runtime path found: /usr/local/cuda/lib64"),
    (
        "bnb.native_library_missing",
        "CUDA SETUP: Loading binary /opt/venv/lib/python3.10/site-packages/bitsandbytes/"
        "libbitsandbytes_cuda121.so...",
    ),
    ("bnb.cuda_setup_failed", "CUDA SETUP: Highest compute capability among GPUs detected: 8.0"),
    ("xformers.no_operator", "memory_efficient_attention.cutlassF:               available"),
    ("xformers.extensions_unloadable", "xFormers 0.0.26.post1"),
    # the main process releasing the others, and a definition, are not a rank waiting
    (
        "hf.waiting_for_main_process",
        "0: main local process completed dataset map tokenization, releasing all replicas",
    ),
    ("hf.waiting_for_main_process", '    def main_process_first(self, local=True, desc="work"):'),
    # a training bar counts iterations, not examples
    (
        "datasets.preprocessing_progress",
        " 45%|████▌     | 450/1000 [01:23<01:42, 5.37it/s]",
    ),
    ("vllm.bf16_unsupported", "INFO 11-13 06:18:13 [cuda.py:417] Using FLASH_ATTN backend."),
    (
        "vllm.architecture_unsupported",
        "INFO 04-15 13:37:06 [config.py:549] This model supports multiple tasks: {'generate'}.",
    ),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_no_entry_acts_on_a_node() -> None:
    """The job's code, configuration and image: a healthy node must never be touched for them."""
    assert_no_node_action(BLAME)


def test_warnings_before_the_failure_do_not_decide_alone() -> None:
    """A logged NaN can be a skipped fp16 step; a CPU fallback or an unloadable extension fails
    only later: they point at the job without outweighing the error that follows."""
    for key in ("hf.trainer_log_non_finite",):
        assert CATALOG.signatures[key].weight < 50, key
    for key in ("bnb.native_library_missing", "xformers.extensions_unloadable"):
        assert 50 < CATALOG.signatures[key].weight < 60, key


def test_keys_are_defined_in_no_other_catalog_file() -> None:
    """Files merge by key in name order: a key defined twice would silently override one entry."""
    keys = family_keys(FAMILY_FILE)
    for entry in DATA.iterdir():
        if entry.name == FAMILY_FILE or not entry.name.startswith("signatures"):
            continue
        other = tomllib.loads(entry.read_text(encoding="utf-8")).get("signature", {})
        assert not keys & set(other), f"{entry.name}: {sorted(keys & set(other))}"
