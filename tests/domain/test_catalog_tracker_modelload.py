"""Golden lines from the model- and checkpoint-loading sweep (signatures-modelload.toml): the
detail lines torch prints under "Weights only load failed" and "Error(s) in loading state_dict", a
zip archive torch.save did not write, safetensors header kinds and missing tensors, transformers'
file, model-id, revision, gated-repo, remote-code and model-type resolution, its tokenizer and
weights loaders, PEFT's adapter lookup, torch.distributed.checkpoint's .metadata and global plan,
accelerate's FSDP sync_module_states check and DeepSpeed's ZeRO checkpoint shards.

Each line is a real one from the public thread cited beside it, or rendered from the emitter's
format string where no public line was found (marked so), and goes through the scanner's own
matcher. Blame is pinned to what the emitter means: a file, key, shape, name or revision the job
asks for that does not match is the job's; a file cut short or a checkpoint saved in part is a
symptom below the collective weight (a retry from the previous checkpoint passes); a loader that
cannot tell a wrong name from an unreachable hub is a symptom. Look-alikes (healthy lines of the
same emitters) must not match.
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
)

FILE = "signatures-modelload.toml"
KEYS = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "torchser.weights_unpickler_rejected": Blame.APPLICATION,
    "torchser.zip_not_torch_archive": Blame.APPLICATION,
    "torchser.state_dict_keys": Blame.APPLICATION,
    "torchser.state_dict_size_mismatch": Blame.APPLICATION,
    "safetensors.header_corrupt": Blame.SYMPTOM,
    "safetensors.tensor_not_found": Blame.APPLICATION,
    "transformers.file_missing": Blame.APPLICATION,
    "transformers.shard_missing": Blame.SYMPTOM,
    "transformers.no_weights_in_dir": Blame.APPLICATION,
    "transformers.not_a_model_id": Blame.APPLICATION,
    "transformers.revision_not_found": Blame.APPLICATION,
    "transformers.gated_repo": Blame.APPLICATION,
    "transformers.unrecognized_model": Blame.APPLICATION,
    "transformers.remote_code_required": Blame.APPLICATION,
    "transformers.loader_unresolved": Blame.SYMPTOM,
    "transformers.git_lfs_pointer": Blame.APPLICATION,
    "transformers.weights_unreadable": Blame.SYMPTOM,
    "peftadapter.config_not_found": Blame.APPLICATION,
    "peftadapter.weights_not_found": Blame.APPLICATION,
    "torchdcp.metadata_missing": Blame.SYMPTOM,
    "torchdcp.global_plan_invalid": Blame.APPLICATION,
    "accelckpt.sync_module_states_required": Blame.APPLICATION,
    "dsckpt.zero_optim_states_missing": Blame.INFO,
    "dsckpt.zero_shards_incomplete": Blame.SYMPTOM,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # rhasspy/piper issue #718 (PyTorch 2.6's weights_only default, a pathlib global)
    (
        "        WeightsUnpickler error: Unsupported global: GLOBAL pathlib.PosixPath was not an "
        "allowed global by default. Please use `torch.serialization.add_safe_globals([PosixPath])` "
        "or the `torch.serialization.safe_globals([PosixPath])` context manager to allowlist this "
        "global if you trust this class/function.",
        "torchser.weights_unpickler_rejected",
        {"global": "pathlib.PosixPath"},
    ),
    # sktime/pytorch-forecasting issue #1998 (pytest's "E" prefix kept)
    (
        "E                           \tWeightsUnpickler error: Unsupported global: GLOBAL "
        "pytorch_forecasting.data.encoders.GroupNormalizer was not an allowed global by default. "
        "Please use `torch.serialization.add_safe_globals([pytorch_forecasting.data.encoders."
        "GroupNormalizer])` or the `torch.serialization.safe_globals([pytorch_forecasting.data."
        "encoders.GroupNormalizer])` context manager to allowlist this global if you trust this "
        "class/function.",
        "torchser.weights_unpickler_rejected",
        {"global": "pytorch_forecasting.data.encoders.GroupNormalizer"},
    ),
    # rendered from torch/_weights_only_unpickler.py (a git-lfs pointer: 'v' is operand 118)
    (
        "\tWeightsUnpickler error: Unsupported operand 118",
        "torchser.weights_unpickler_rejected",
        {"operand": "118"},
    ),
    # VDIGPKU/CBNetV2 issue #36 (a release zip given to torch.load)
    (
        "RuntimeError: [enforce fail at inline_container.cc:108] . file in archive is not in a "
        "subdirectory: htc_cbv2_swin_large22k_patch4_window7_mstrain_400-1400_giou_4conv1f_adamw_1x"
        "_coco.pth",
        "torchser.zip_not_torch_archive",
        {
            "name": "htc_cbv2_swin_large22k_patch4_window7_mstrain_400-1400_giou_4conv1f_adamw_1x_coco.pth"
        },
    ),
    # microsoft/CoCosNet-v2 issue #22 (the later wording)
    (
        "[enforce fail at ..\\caffe2\\serialize\\inline_container.cc:211] . file in archive is not "
        "in a subdirectory archive/: latest_net_D.pth",
        "torchser.zip_not_torch_archive",
        {"name": "latest_net_D.pth"},
    ),
    # aks2203/deep-thinking issue #5 (a DataParallel "module." prefix)
    (
        '\tMissing key(s) in state_dict: "projection.0.weight", "recur_block.0.0.conv1.weight", '
        '"recur_block.0.0.conv2.weight", "head.0.weight", "head.2.weight", "head.4.weight". ',
        "torchser.state_dict_keys",
        {"kind": "Missing", "first_key": "projection.0.weight"},
    ),
    (
        '\tUnexpected key(s) in state_dict: "module.projection.0.weight", '
        '"module.recur_block.0.0.conv1.weight", "module.head.4.weight".',
        "torchser.state_dict_keys",
        {"kind": "Unexpected", "first_key": "module.projection.0.weight"},
    ),
    # hou-yz/MVDet issue #7 (a renamed module)
    (
        'Missing key(s) in state_dict: "map_classifier.0.weight", "map_classifier.0.bias", '
        '"map_classifier.2.weight", "map_classifier.2.bias", "map_classifier.4.weight". ',
        "torchser.state_dict_keys",
        {"first_key": "map_classifier.0.weight"},
    ),
    # Deci-AI/super-gradients issue #1476
    (
        "\tsize mismatch for heads.head1.stem.seq.bn.weight: copying a param with shape "
        "torch.Size([96]) from checkpoint, the shape in current model is torch.Size([128]).",
        "torchser.state_dict_size_mismatch",
        {
            "param": "heads.head1.stem.seq.bn.weight",
            "saved": "torch.Size([96])",
            "current": "torch.Size([128])",
        },
    ),
    # nkolot/SPIN issue #58
    (
        "\tsize mismatch for layer4.2.conv2.weight: copying a param with shape torch.Size([512, "
        "512, 3, 3]) from checkpoint, the shape in current model is torch.Size([512, 512, 7, 7]).",
        "torchser.state_dict_size_mismatch",
        {"param": "layer4.2.conv2.weight", "current": "torch.Size([512, 512, 7, 7])"},
    ),
    # rendered from safetensors/src/tensor.rs read_metadata (no public line found)
    (
        "safetensors_rust.SafetensorError: Error while deserializing header: InvalidHeaderLength",
        "safetensors.header_corrupt",
        {"kind": "InvalidHeaderLength"},
    ),
    (
        'safetensors_rust.SafetensorError: Error while deserializing header: InvalidOffset("model.'
        'layers.31.mlp.down_proj.weight")',
        "safetensors.header_corrupt",
        {"kind": 'InvalidOffset("model.layers.31.mlp.down_proj.weight")'},
    ),
    # rendered from safetensors bindings/python/src/lib.rs get_tensor (no public issue line found)
    (
        "safetensors_rust.SafetensorError: File does not contain tensor model.embed_tokens.weight",
        "safetensors.tensor_not_found",
        {"tensor": "model.embed_tokens.weight"},
    ),
    # Stephen-SMJ/LLamaCare issue #1 (its title)
    (
        "OSError: Stephen-smj/LlamaCare does not appear to have a file named config.json. Checkout "
        "'https://huggingface.co/Stephen-smj/LlamaCare/tree/main' for available files.",
        "transformers.file_missing",
        {"repo": "Stephen-smj/LlamaCare", "file": "config.json"},
    ),
    # dome272/Wuerstchen issue #11 (the older '/main' link)
    (
        "OSError: laion/CLIP-ViT-H-14-laion2B-s32B-b79K does not appear to have a file named "
        "config.json. Checkout 'https://huggingface.co/laion/CLIP-ViT-H-14-laion2B-s32B-b79K/main' "
        "for available files.",
        "transformers.file_missing",
        {"repo": "laion/CLIP-ViT-H-14-laion2B-s32B-b79K", "file": "config.json"},
    ),
    # oobabooga/textgen issue #6392
    (
        "OSError: models/meta-llama_Meta-Llama-3-8B does not appear to have a file named config.json",
        "transformers.file_missing",
        {"repo": "models/meta-llama_Meta-Llama-3-8B", "file": "config.json"},
    ),
    # rendered from transformers utils/hub.py cached_files, a shard (no public line found)
    (
        "OSError: /checkpoints/run7/checkpoint-4000 does not appear to have a file named "
        "model-00003-of-00004.safetensors. Checkout 'https://huggingface.co//checkpoints/run7/"
        "checkpoint-4000/tree/main' for available files.",
        "transformers.shard_missing",
        {"file": "model-00003-of-00004.safetensors"},
    ),
    # yongliu20/DreamLight issue #5 (its title)
    (
        "OSError: Error no file named config.json found in directory /home/notebook/code/personal/"
        "S9059881/DreamLight/ckpt/SD15/vqmodel.",
        "transformers.no_weights_in_dir",
        {"dir": "/home/notebook/code/personal/S9059881/DreamLight/ckpt/SD15/vqmodel"},
    ),
    # liucongg/ChatGLM-Finetuning issue #116 (its title)
    (
        "OSError: ChatGLM2-6B is not a local folder and is not a valid model identifier listed on "
        "'https://huggingface.co/models'",
        "transformers.not_a_model_id",
        {"model": "ChatGLM2-6B"},
    ),
    # EleutherAI/lm-evaluation-harness issue #995
    (
        "OSError: model is not a local folder and is not a valid model identifier listed on "
        "'https://huggingface.co/models'",
        "transformers.not_a_model_id",
        {"model": "model"},
    ),
    # rendered from transformers utils/hub.py cached_files (no public line found)
    (
        "OSError: v2.1 is not a valid git identifier (branch name, tag name or commit id) that "
        "exists for this model name. Check the model page at 'https://huggingface.co/meta-llama/"
        "Llama-2-7b-hf' for available revisions.",
        "transformers.revision_not_found",
        {"revision": "v2.1"},
    ),
    # rendered from transformers utils/hub.py cached_files (no public first line on its own found)
    ("OSError: You are trying to access a gated repo.", "transformers.gated_repo", {}),
    # huggingface/transformers issue #37302
    (
        "ValueError: Unrecognized model in lmsys/vicuna-7b-v1.5. Should have a `model_type` key in "
        "its config.json, or contain one of the following strings in its name: albert, align, "
        "altclip, aria",
        "transformers.unrecognized_model",
        {"path": "lmsys/vicuna-7b-v1.5"},
    ),
    # thu-coai/SentiLARE issue #11
    (
        "ValueError: Unrecognized model in ../SentiLARE. Should have a `model_type` key in its "
        "config.json, or contain one of the following strings in its name: fnet, gptj",
        "transformers.unrecognized_model",
        {"path": "../SentiLARE"},
    ),
    # rendered from transformers models/auto/auto_factory.py (no public line found)
    (
        "ValueError: Unrecognized configuration class <class 'transformers.models.t5.configuration_"
        "t5.T5Config'> for this kind of AutoModel: AutoModelForCausalLM.",
        "transformers.unrecognized_model",
        {"auto": "AutoModelForCausalLM"},
    ),
    # jhc13/taggui issue #45 (its title)
    (
        "Please pass the argument `trust_remote_code=True` to allow custom code to be run.",
        "transformers.remote_code_required",
        {},
    ),
    # rendered from transformers dynamic_module_utils.py before 4.35 (no public line found)
    (
        "ValueError: Loading THUDM/chatglm2-6b requires you to execute the configuration file in "
        "that repo on your local machine. Make sure you have read the code there to avoid malicious "
        "use, then set the option `trust_remote_code=True` to remove this error.",
        "transformers.remote_code_required",
        {"file": "configuration"},
    ),
    # LAION-AI/CLAP issue #134
    (
        "OSError: Can't load tokenizer for 'bert-base-uncased'. If you were trying to load it from "
        "'https://huggingface.co/models', make sure you don't have a local directory with the same "
        "name. Otherwise, make sure 'bert-base-uncased' is the correct path to a directory "
        "containing all relevant files for a BertTokenizer tokenizer.",
        "transformers.loader_unresolved",
        {"what": "tokenizer for", "model": "bert-base-uncased"},
    ),
    # ZHO-ZHO-ZHO/ComfyUI-InstantID issue #104
    (
        "Can't load tokenizer for 'openai/clip-vit-large-patch14'. If you were trying to load it "
        "from 'https://huggingface.co/models', make sure you don't have a local directory with the "
        "same name.",
        "transformers.loader_unresolved",
        {"model": "openai/clip-vit-large-patch14"},
    ),
    # rendered from transformers configuration_utils.py (no public line found)
    (
        "OSError: Can't load the configuration of '/models/llama'. If you were trying to load it "
        "from 'https://huggingface.co/models', make sure you don't have a local directory with the "
        "same name.",
        "transformers.loader_unresolved",
        {"what": "the configuration of", "model": "/models/llama"},
    ),
    # rendered from transformers modeling_utils.py load_state_dict (no public line found)
    (
        "OSError: You seem to have cloned a repository without having git-lfs installed. Please "
        "install git-lfs and run `git lfs install` followed by `git lfs pull` in the folder you "
        "cloned.",
        "transformers.git_lfs_pointer",
        {},
    ),
    (
        "OSError: Unable to load weights from pytorch checkpoint file for '/models/llama-7b/"
        "pytorch_model-00001-of-00002.bin' at '/models/llama-7b/pytorch_model-00001-of-00002.bin'. "
        "If you tried to load a PyTorch model from a TF 2.0 checkpoint, please set from_tf=True.",
        "transformers.weights_unreadable",
        {"file": "/models/llama-7b/pytorch_model-00001-of-00002.bin"},
    ),
    (
        "OSError: Unable to locate the file /models/llama-7b/pytorch_model.bin which is necessary "
        "to load this pretrained model. Make sure you have saved the model properly.",
        "transformers.weights_unreadable",
        {"missing": "/models/llama-7b/pytorch_model.bin"},
    ),
    # EvilPsyCHo/train_custom_LLM issue #5 (its title)
    (
        "ValueError: Can't find 'adapter_config.json' at './output/baichuan_lorasft/'",
        "peftadapter.config_not_found",
        {"path": "./output/baichuan_lorasft/"},
    ),
    # njucckevin/SeeClick issue #37 (its title)
    (
        "ValueError: Can't find 'adapter_config.json' at 'cckevinn/SeeClick'",
        "peftadapter.config_not_found",
        {"path": "cckevinn/SeeClick"},
    ),
    # rendered from peft utils/save_and_load.py load_peft_weights (no public line found)
    (
        "ValueError: Can't find weights for ./lora-out in ./lora-out or in the Hugging Face Hub. "
        "Please check that the file adapter_model.bin or adapter_model.safetensors is present at "
        "./lora-out.",
        "peftadapter.weights_not_found",
        {"adapter": "./lora-out"},
    ),
    # rendered from torch/distributed/checkpoint/filesystem.py read_metadata (no public line found)
    (
        "FileNotFoundError: [Errno 2] No such file or directory: '/ckpt/step_2000/"
        "pytorch_model_fsdp_0/.metadata'",
        "torchdcp.metadata_missing",
        {"path": "/ckpt/step_2000/pytorch_model_fsdp_0/.metadata"},
    ),
    # rendered from torch/distributed/checkpoint/default_planner.py (quoted in pytorch/pytorch PR
    # #176728)
    ("ValueError: Failed to validate global plan", "torchdcp.global_plan_invalid", {}),
    # rendered from accelerate src/accelerate/utils/fsdp_utils.py load_fsdp_model (no public line)
    (
        "ValueError: Set the `sync_module_states` flag to `True` so that model states are synced "
        "across processes when initializing FSDP object",
        "accelckpt.sync_module_states_required",
        {},
    ),
    # rendered from deepspeed/runtime/engine.py _get_all_zero_checkpoints (READMEs quote it abridged)
    (
        "[WARNING] [engine.py:2869:_get_all_zero_checkpoints] The following zero checkpoints paths "
        "are missing: ['/ckpt/global_step200/zero_pp_rank_0_mp_rank_00_optim_states.pt']",
        "dsckpt.zero_optim_states_missing",
        {"first": "'/ckpt/global_step200/zero_pp_rank_0_mp_rank_00_optim_states.pt'"},
    ),
    # rendered from deepspeed/utils/zero_to_fp32.py (no public line found)
    (
        "ValueError: Expected 8 of '*_optim_states.pt' under '/ckpt/global_step4000' but found 6 "
        "files",
        "dsckpt.zero_shards_incomplete",
        {"expected": "8", "dir": "/ckpt/global_step4000", "found": "6"},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # torch 2.4-2.5's FutureWarning on a load that worked (a routine line of many runs)
    (
        "torchser.weights_unpickler_rejected",
        "FutureWarning: You are using `torch.load` with `weights_only=False` (the current default "
        "value), which uses the default pickle module implicitly.",
    ),
    # the header line torch.state_dict_mismatch reads, and load_state_dict's non-strict result
    ("torchser.state_dict_keys", "RuntimeError: Error(s) in loading state_dict for GPT:"),
    (
        "torchser.state_dict_keys",
        "_IncompatibleKeys(missing_keys=['fc.weight', 'fc.bias'], unexpected_keys=[])",
    ),
    # mmengine's warning of a non-strict load (worded otherwise)
    (
        "torchser.state_dict_keys",
        "missing keys in source state_dict: fc.weight, fc.bias",
    ),
    # transformers' warning of an ignore_mismatched_sizes load that worked
    (
        "torchser.state_dict_size_mismatch",
        "- classifier.weight: found shape torch.Size([2, 768]) in the checkpoint and "
        "torch.Size([10, 768]) in the model instantiated",
    ),
    # the header kinds checkpoint.file_unreadable reads
    (
        "safetensors.header_corrupt",
        "safetensors_rust.SafetensorError: Error while deserializing header: "
        "InvalidHeaderDeserialization",
    ),
    (
        "safetensors.header_corrupt",
        "safetensors_rust.SafetensorError: Error while deserializing header: HeaderTooLarge",
    ),
    # SGLang carrying on without a generation config (a healthy start)
    (
        "transformers.file_missing",
        "[2026-05-14 09:44:58] Failed to load generation config for BAAI/bge-reranker-v2-m3: "
        "BAAI/bge-reranker-v2-m3 does not appear to have a file named generation_config.json. "
        "Checkout 'https://huggingface.co/BAAI/bge-reranker-v2-m3/tree/main' for available files.. "
        "Proceeding without generation config.",
    ),
    (
        "transformers.file_missing",
        "OSError: /checkpoints/run7/checkpoint-4000 does not appear to have a file named "
        "model-00003-of-00004.safetensors.",
    ),
    (
        "transformers.shard_missing",
        "OSError: Stephen-smj/LlamaCare does not appear to have a file named config.json.",
    ),
    # transformers' routine warnings of a fine-tuning start
    (
        "transformers.no_weights_in_dir",
        "Some weights of BertForSequenceClassification were not initialized from the model "
        "checkpoint at bert-base-uncased and are newly initialized: ['classifier.bias', "
        "'classifier.weight']",
    ),
    (
        "transformers.remote_code_required",
        "You can avoid this prompt in future by passing the argument `trust_remote_code=True`.",
    ),
    (
        "transformers.remote_code_required",
        "The repository for THUDM/chatglm2-6b contains custom code which must be executed to "
        "correctly load the model. You can inspect the repository content at "
        "https://hf.co/THUDM/chatglm2-6b.",
    ),
    ("transformers.gated_repo", "Access to model meta-llama/Llama-2-7b-hf is restricted."),
    # an application that logs the text for an optional model and carries on (chatchat-space/
    # Langchain-Chatchat issue #2368): only the raised exception's line is read
    (
        "transformers.not_a_model_id",
        "**None is not a local folder and is not a valid model identifier listed on "
        "'https://huggingface.co/models'",
    ),
    (
        "transformers.loader_unresolved",
        "loading file tokenizer.json from cache at /root/.cache/huggingface/hub/models--bert-base-"
        "uncased/snapshots/1dbc166cf8765166998eff31ade2eb64c8a40076/tokenizer.json",
    ),
    (
        "transformers.weights_unreadable",
        "loading weights file model.safetensors from cache at /root/.cache/huggingface/hub/"
        "models--gpt2/snapshots/607a30d783dfa663caf39e06633721c8d4cfcd7e/model.safetensors",
    ),
    ("peftadapter.config_not_found", "loading adapter_config.json from ./output/baichuan_lorasft/"),
    # DCP's healthy shard files, a plain missing file elsewhere
    (
        "torchdcp.metadata_missing",
        "FileNotFoundError: [Errno 2] No such file or directory: '/ckpt/step_2000/config.yaml'",
    ),
    ("torchdcp.global_plan_invalid", "Saving a checkpoint: creating global plan"),
    (
        "dsckpt.zero_optim_states_missing",
        "successfully loaded 8 ZeRO state_dicts for rank 0",
    ),
    (
        "dsckpt.zero_shards_incomplete",
        "Detected checkpoint of type zero stage 3, world_size: 8",
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
        frozenset(
            {
                "torchser",
                "safetensors",
                "transformers",
                "peftadapter",
                "torchdcp",
                "accelckpt",
                "dsckpt",
            }
        ),
    )
    assert set(BLAME) == KEYS


def test_no_loading_line_here_names_a_node() -> None:
    """Loading a model or checkpoint is the job's or its storage's: no entry acts on the node it
    was printed on, and none is hardware."""
    assert_no_node_action(KEYS)
    for key in KEYS:
        assert CATALOG.signatures[key].blame is not Blame.HARDWARE, key


def test_a_cut_file_never_reads_as_the_application() -> None:
    """A file cut short or a checkpoint saved in part is a symptom below the collective weight, so a
    retry from the previous checkpoint is not stopped; transient would be below 50 too."""
    for key in KEYS:
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.SYMPTOM:
            assert sig.weight < COLLECTIVE, key
        if sig.blame is Blame.TRANSIENT:
            assert sig.weight < 50, key
