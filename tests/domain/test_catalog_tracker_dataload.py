"""Golden lines from sweep 8 over data loading and checkpoint I/O (signatures-dataload.toml): what
torch.load, pickle and zipfile, PyTorch's DataLoader, Hugging Face datasets, MosaicML streaming,
NVIDIA DALI, TensorFlow's checkpoint reader and Apache Arrow print when a job's data or
checkpoints cannot be read.

Each line is a real one from the public thread cited beside it (or rendered from the emitter's
format where the comment says so) and goes through the scanner's own matcher. Blame is pinned to
what the emitter means: a file that is not what it claims, a split, column or path that is not
there, the job's own (application); a read failing underneath, a worker that timed out or
crashed and a wrapper restating an error printed above it, rank-local symptoms below the
collective weight. Look-alikes (progress bars, healthy loading lines) must not match.
"""

from __future__ import annotations

import tomllib

from autorecover.domain.records import Blame
from autorecover.domain.shape import COLLECTIVE, STRONG
from domain.golden import (
    CATALOG,
    DATA,
    assert_no_match,
    assert_no_node_action,
    family_contract,
    family_keys,
    golden_line_checks,
)

FAMILY_FILE = "signatures-dataload.toml"
NAMESPACES = frozenset(
    {
        *("torchload", "pickle", "zipfile", "dataloader", "datasets", "streaming", "dali"),
        *("deepspeed", "tfckpt", "orbax", "arrow"),
    }
)

BLAME: dict[str, Blame] = {
    "torchload.invalid_load_key": Blame.APPLICATION,
    "torchload.empty_pickle": Blame.APPLICATION,
    "torchload.zip_record_missing": Blame.APPLICATION,
    "torchload.zip_read_failed": Blame.SYMPTOM,
    "torchload.weights_only_rejected": Blame.APPLICATION,
    "torchload.cuda_device_unavailable": Blame.SYMPTOM,
    "torchload.zip_format_unsupported": Blame.APPLICATION,
    "torchload.legacy_truncated": Blame.APPLICATION,
    "pickle.class_not_found": Blame.APPLICATION,
    "pickle.unpicklable": Blame.APPLICATION,
    "deepspeed.checkpoint_shard_missing": Blame.APPLICATION,
    "zipfile.bad_zip": Blame.APPLICATION,
    "dataloader.timeout": Blame.SYMPTOM,
    "dataloader.pin_memory_exited": Blame.SYMPTOM,
    "dataloader.fd_limit": Blame.APPLICATION,
    "dataloader.worker_fault": Blame.SYMPTOM,
    "datasets.generation_failed": Blame.SYMPTOM,
    "datasets.schema_mismatch": Blame.APPLICATION,
    "datasets.unknown_split": Blame.APPLICATION,
    "datasets.verification_failed": Blame.APPLICATION,
    "datasets.disk_space_check": Blame.APPLICATION,
    "datasets.data_files_not_found": Blame.APPLICATION,
    "datasets.cache_fs_unsupported": Blame.APPLICATION,
    "streaming.local_dir_reused": Blame.SYMPTOM,
    "streaming.index_wait_timeout": Blame.SYMPTOM,
    "streaming.index_corrupt": Blame.APPLICATION,
    "streaming.shard_unavailable": Blame.APPLICATION,
    "dali.pipeline_failed": Blame.SYMPTOM,
    "tfckpt.not_a_table": Blame.APPLICATION,
    "tfckpt.restore_mismatch": Blame.APPLICATION,
    "orbax.incomplete_checkpoint": Blame.SYMPTOM,
    "orbax.ocdbt_lock_missing": Blame.TRANSIENT,
    "orbax.tmp_dir_exists": Blame.APPLICATION,
    "arrow.capacity_exceeded": Blame.APPLICATION,
    "arrow.json_invalid": Blame.APPLICATION,
}

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, BLAME)

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # yunjey/pytorch-tutorial issue #131 (torch.load of an encoder checkpoint)
    (
        "_pickle.UnpicklingError: invalid load key, '\\x00'.",
        "torchload.invalid_load_key",
        {"key": "\\x00"},
    ),
    # catcathh/UltraPixel issue #23 (an HTML page where the checkpoint should be)
    ("_pickle.UnpicklingError: invalid load key, '<'.", "torchload.invalid_load_key", {"key": "<"}),
    # vc-bonn/Spline_PINN issue #4 (a git-lfs pointer: the maintainer asks about git-lfs)
    ("_pickle.UnpicklingError: invalid load key, 'v'.", "torchload.invalid_load_key", {"key": "v"}),
    # pytorch/examples issue #169 (a .jpg given as the model: Python 2's cPickle)
    ("cPickle.UnpicklingError: invalid load key, '?'.", "torchload.invalid_load_key", {"key": "?"}),
    # soda-inria/carte issue #24
    (
        "_pickle.UnpicklingError: invalid load key, '\\xba'",
        "torchload.invalid_load_key",
        {"key": "\\xba"},
    ),
    # r9y9/deepvoice3_pytorch issue #67 (the maintainer: an empty checkpoint); genforce/genforce #10
    ("EOFError: Ran out of input", "torchload.empty_pickle", {}),
    # yxuansu/PandaGPT issue #11 (a 4 KB delta checkpoint)
    (
        "RuntimeError: PytorchStreamReader failed locating file data.pkl: file not found",
        "torchload.zip_record_missing",
        {"record": "data.pkl"},
    ),
    # yeyupiaoling/MASR issue #62 (torch.jit.load of a model that was not exported)
    (
        "RuntimeError: PytorchStreamReader failed locating file constants.pkl: file not found",
        "torchload.zip_record_missing",
        {"record": "constants.pkl"},
    ),
    # modelscope/FunASR issue #2078 (a tensor record missing from a fine-tuned checkpoint)
    (
        "RuntimeError: PytorchStreamReader failed locating file data/2: file not found",
        "torchload.zip_record_missing",
        {"record": "data/2"},
    ),
    # MLI-lab/DeepDeWedge issue #37 (random read failures on a shared file system; the file exists)
    (
        "Error message is: PytorchStreamReader failed reading file data.pkl: file read failed",
        "torchload.zip_read_failed",
        {"record": "data.pkl"},
    ),
    # tencent-ailab/SongGeneration issue #63
    (
        "_pickle.UnpicklingError: Weights only load failed. In PyTorch 2.6, we changed the default "
        "value of the weights_only argument in torch.load from False to True. Re-running "
        "torch.load with weights_only set to False will likely succeed, but it can result in "
        "arbitrary code execution. Do it only if you got the file from a trusted source. Please "
        "file an issue with the following so that we can make weights_only=True compatible with "
        "your use case: WeightsUnpickler error: Unsupported operand 118",
        "torchload.weights_only_rejected",
        {"reason": "Unsupported operand"},
    ),
    # gpoesia/minimo pull request #21 (the first line of the newer wording)
    (
        "_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do "
        "so you have two options, do those steps only if you trust the source of the checkpoint.",
        "torchload.weights_only_rejected",
        {},
    ),
    # hkchengrex/Cutie issue #37; keunsoo-ko/CMT issue #1 (a GPU, torch.cuda.is_available() True
    # in the shell)
    (
        "RuntimeError: Attempting to deserialize object on a CUDA device but "
        "torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use "
        "torch.load with map_location=torch.device('cpu') to map your storages to the CPU.",
        "torchload.cuda_device_unavailable",
        {},
    ),
    # rendered from torch/serialization.py's validate_cuda_device (no public line found)
    (
        "RuntimeError: Attempting to deserialize object on CUDA device 3 but "
        "torch.cuda.device_count() is 1. Please use torch.load with map_location to map your "
        "storages to an existing device.",
        "torchload.cuda_device_unavailable",
        {"device": "3", "count": "1"},
    ),
    # mahmoodlab/CLAM issue #128 (PyTorch 1.3 reading a PyTorch 1.6 file)
    (
        "RuntimeError: /my_data_directory/features/ResNet50_ImageNet/pt_files/"
        "GO30140_07290266C0001S_HE_mrxs.pt is a zip archive (did you mean to use "
        "torch.jit.load()?)",
        "torchload.zip_format_unsupported",
        {},
    ),
    # HuangLK/transpeeder issue #28
    (
        "[Errno 2] No such file or directory: 'llama_13b_pp/global_step001/"
        "zero_pp_rank_0_mp_rank_03_optim_states.pt'",
        "deepspeed.checkpoint_shard_missing",
        {"shard": "zero_pp_rank_0_mp_rank_03_optim_states"},
    ),
    # rendered from DeepSpeed's model-state checkpoint name (no public line found)
    (
        "FileNotFoundError: [Errno 2] No such file or directory: "
        "'/ckpt/global_step500/mp_rank_00_model_states.pt'",
        "deepspeed.checkpoint_shard_missing",
        {
            "shard": "mp_rank_00_model_states",
            "path": "/ckpt/global_step500/mp_rank_00_model_states.pt",
        },
    ),
    # NVIDIA/earth2studio issue #217 (a checkpoint package); MedMNIST/MedMNIST issue #39 (np.load)
    (
        "zipfile.BadZipFile: File is not a zip file",
        "zipfile.bad_zip",
        {"reason": "File is not a zip file"},
    ),
    # pytorch/pytorch issue #68643 (the loader's own test run)
    ("RuntimeError: DataLoader timed out after 5 seconds", "dataloader.timeout", {"seconds": "5"}),
    # milesial/Pytorch-UNet issue #517; open-mmlab/mmpretrain issue #392
    ("RuntimeError: Pin memory thread exited unexpectedly", "dataloader.pin_memory_exited", {}),
    # initze/thaw-slump-segmentation issue #53 (the raise line of the traceback)
    (
        "**raise RuntimeError('Pin memory thread exited unexpectedly')",
        "dataloader.pin_memory_exited",
        {},
    ),
    # roytseng-tw/Detectron.pytorch issue #9; voldemortX/pytorch-auto-drive issue #138
    ("RuntimeError: received 0 items of ancdata", "dataloader.fd_limit", {}),
    # the loader's newer message, as calo_cluster's README quotes it (code index)
    (
        "RuntimeError: Too many open files. Communication with the workers is no longer possible. "
        "Please increase the limit using `ulimit -n` in the shell or change the sharing strategy "
        "by calling `torch.multiprocessing.set_sharing_strategy('file_system')` at the beginning "
        "of your code",
        "dataloader.fd_limit",
        {},
    ),
    # facebookresearch/pycls issue #146; pytorch/pytorch issue #53894
    (
        "ERROR: Unexpected segmentation fault encountered in worker.",
        "dataloader.worker_fault",
        {"fault": "segmentation fault"},
    ),
    # PaddlePaddle/PaddleClas issue #1149 (Paddle's reader)
    (
        "ERROR: Unexpected segmentation fault encountered in DataLoader workers.",
        "dataloader.worker_fault",
        {"fault": "segmentation fault"},
    ),
    # hiyouga/ChatGLM-Efficient-Tuning issue #374; SCIR-HI/Huatuo-Llama-Med-Chinese issue #71
    (
        "datasets.builder.DatasetGenerationError: An error occurred while generating the dataset",
        "datasets.generation_failed",
        {},
    ),
    # Babelscape/rebel issue #70 (the data set was not downloaded properly)
    (
        "DatasetGenerationError: An error occurred while generating the dataset",
        "datasets.generation_failed",
        {},
    ),
    # ibrahimethemhamamci/CT-CLIP issue #9; huggingface/datasets pull request #7170
    ("datasets.table.CastError: Couldn't cast", "datasets.schema_mismatch", {}),
    # qiufengqijun/mini_qwen issue #2 (the per-file form, datasets' builder logging the error)
    (
        "Generating train split: 173687 examples [00:04, 39483.40 examples/s]Failed to read file "
        "'/root/autodl-tmp/mini_qwen/data/pt/accommodation_catering_hotel/chinese/high/"
        "rank_00000.parquet' with error <class 'datasets.table.CastError'>: Couldn't cast",
        "datasets.schema_mismatch",
        {},
    ),
    # YuxinWenRick/tree-ring-watermark issue #33 (the message's last line)
    ("because column names don't match", "datasets.schema_mismatch", {}),
    # scicode-bench/SciCode issue #40
    (
        "datasets.exceptions.DatasetGenerationCastError: An error occurred while generating the "
        "dataset",
        "datasets.schema_mismatch",
        {},
    ),
    (
        "All the data files must have the same columns, but at some point there are 1 missing "
        "columns ({'general_solution'})",
        "datasets.schema_mismatch",
        {},
    ),
    # clovaai/donut issue #57
    (
        "ValueError: Unknown split \"validation\". Should be one of ['train'].",
        "datasets.unknown_split",
        {"split": "validation"},
    ),
    # ziansu/prorec issue #2
    (
        "ValueError: Unknown split \"train\". Should be one of ['test'].",
        "datasets.unknown_split",
        {"split": "train"},
    ),
    # moojink/openvla-oft issue #148 (TensorFlow Datasets)
    (
        "ValueError: Unknown split 'val'. Should be one of ['train'].",
        "datasets.unknown_split",
        {"tfds_split": "val"},
    ),
    # huggingface/datasets issue #3051 (crd3: the source archive changed)
    (
        "datasets.utils.info_utils.NonMatchingChecksumError: Checksums didn't match for dataset "
        "source files:",
        "datasets.verification_failed",
        {"error": "NonMatchingChecksumError"},
    ),
    # huggingface/datasets issue #3807 (xcopa)
    (
        "NonMatchingChecksumError: Checksums didn't match for dataset source files:",
        "datasets.verification_failed",
        {"error": "NonMatchingChecksumError"},
    ),
    # huggingface/datasets issue #3750 (cats_vs_dogs: 12 examples removed upstream)
    (
        "NonMatchingSplitsSizesError: [{'expected': SplitInfo(name='train', num_bytes=7503250, "
        "num_examples=23422, dataset_name='cats_vs_dogs'), 'recorded': SplitInfo(name='train', "
        "num_bytes=7262410, num_examples=23410, dataset_name='cats_vs_dogs')}]",
        "datasets.verification_failed",
        {"error": "NonMatchingSplitsSizesError"},
    ),
    # huggingface/datasets issue #2972 (the check reading the root disk, not the cache's mount)
    (
        "OSError: Not enough disk space. Needed: 134.92 GiB (download: 41.97 GiB, generated: "
        "92.95 GiB, post-processed: Unknown size)",
        "datasets.disk_space_check",
        {"needed": "134.92 GiB"},
    ),
    # huggingface/datasets issue #1785 (a cluster's shared disk the check cannot size)
    (
        "OSError: Not enough disk space. Needed: Unknown size (download: Unknown size, generated: "
        "Unknown size, post-processed: Unknown size)",
        "datasets.disk_space_check",
        {"needed": "Unknown size"},
    ),
    # FanqingM/MM-Eureka-V0 issue #9
    (
        "[rank0]: FileNotFoundError: Couldn't find any data file at /lpai/R1-Multimodal-Journey-"
        "main/local_scripts/geo_data/train-00000-of-00001.parquet.",
        "datasets.data_files_not_found",
        {},
    ),
    # huggingface/datasets issue #6187
    (
        "FileNotFoundError: Couldn't find a dataset script at /content/tsv/tsv.py or any data file "
        "in the same directory. Couldn't find 'tsv' on the Hugging Face Hub either: "
        "FileNotFoundError: Dataset 'tsv' doesn't exist on the Hub",
        "datasets.data_files_not_found",
        {},
    ),
    # MMMU-Benchmark/MMMU issue #20
    (
        "datasets.exceptions.DataFilesNotFoundError: No (supported) data files found in /MMMU/MMMU",
        "datasets.data_files_not_found",
        {},
    ),
    # IBM/unitxt issue #234; huggingface/datasets issue #6183 (a wrong path read as no rows)
    (
        "datasets.arrow_writer.SchemaInferenceError: Please pass `features` or at least one "
        "example when writing data",
        "datasets.data_files_not_found",
        {},
    ),
    # rendered from streaming/base/shared/prefix.py (mosaicml/streaming pull request #325 quotes
    # the format)
    (
        "ValueError: Reused local directory: ['/tmp/mds-cache/train'] vs ['/tmp/mds-cache/train']. "
        "Provide a different one. If using a unique local directory, try deleting the local "
        "directory and call `streaming.base.util.clean_stale_shared_memory()` only once in your "
        "script to clean up the stale shared memory before instantiation of `StreamingDataset`.",
        "streaming.local_dir_reused",
        {},
    ),
    # rendered from streaming/base/stream.py (no public line found)
    (
        "RuntimeError: Index file s3://bucket/mds/train/index.json -> /tmp/mds-cache/train/"
        "index.json took too long to download or failed to download. Either increase the "
        "`download_timeout` value or check the local rank 0 traceback.60.000 < 60.012 secs.",
        "streaming.index_wait_timeout",
        {"index": "s3://bucket/mds/train/index.json", "local": "/tmp/mds-cache/train/index.json"},
    ),
    # mosaicml/streaming issue #345
    (
        "json.decoder.JSONDecodeError: Index file at /tmp/local_path_1/train/index.json is empty "
        "or corrupted. Expecting value: line 1 column 1 (char 0)",
        "streaming.index_corrupt",
        {"path": "/tmp/local_path_1/train/index.json"},
    ),
    # rendered from streaming/base/dataset.py (no public line found)
    (
        "RuntimeError: [Errno 2] No such file or directory: '/tmp/mds-cache/train/shard.00042.mds'"
        ". Check if the shard file exists in your remote location or have you deleted the shard "
        "file from the local directory?",
        "streaming.shard_unavailable",
        {},
    ),
    # NVIDIA/DALI issue #3599 (C++ API, std::bad_alloc)
    (
        "  what():  Critical error in pipeline: std::bad_alloc",
        "dali.pipeline_failed",
        {"stage": "in pipeline"},
    ),
    # NVIDIA/DALI issue #6149 (an operator's CUDA error restated)
    ("Current pipeline object is no longer valid.", "dali.pipeline_failed", {}),
    # NVIDIA/DALI issue #4429 (an LMDB reader given a bad path)
    (
        "RuntimeError: Critical error when building pipeline:",
        "dali.pipeline_failed",
        {"stage": "when building pipeline"},
    ),
    # mit-acl/rl_collision_avoidance issue #11; tensorflow/tensorflow issue #23326
    (
        "tensorflow.python.framework.errors_impl.DataLossError: not an sstable (bad magic number)",
        "tfckpt.not_a_table",
        {},
    ),
    # imcaspar/gpt2-ml issue #29 (the .data file given as the checkpoint prefix)
    (
        "2019-12-04 11:03:11.980040: W tensorflow/core/util/tensor_slice_reader.cc:95] Could not "
        "open models/mega/model.ckpt-100000.data: Data loss: not an sstable (bad magic number): "
        "perhaps your file is in a different file format and you need to use a different restore "
        "operator?",
        "tfckpt.not_a_table",
        {},
    ),
    # tensorflow/tensorflow issue #6644
    (
        "W tensorflow/core/framework/op_kernel.cc:975] Data loss: file is too short to be an "
        "sstable",
        "tfckpt.not_a_table",
        {},
    ),
    # safreita1/Resnet-Emotion-Recognition issue #1
    (
        "NotFoundError: Restoring from checkpoint failed. This is most likely due to a Variable "
        "name or other graph key that is missing from the checkpoint. Please ensure that you have "
        "not altered the graph expected based on the checkpoint. Original error:",
        "tfckpt.restore_mismatch",
        {},
    ),
    # google/mannequinchallenge issue #17; ESanchezLozano/Action-Units-Heatmaps issue #7
    (
        "RuntimeError: unexpected EOF, expected 109330 more bytes. The file might be corrupted.",
        "torchload.legacy_truncated",
        {"bytes": "109330"},
    ),
    # yxlijun/DSFD.pytorch issue #2 (an older PyTorch's wording)
    ("RuntimeError: unexpected EOF. The file might be corrupted", "torchload.legacy_truncated", {}),
    # Tandon-A/emotic issue #15
    (
        "AttributeError: Can't get attribute 'Emotic' on <module '__main__' from 'main.py'>",
        "pickle.class_not_found",
        {"attr": "Emotic", "module": "__main__"},
    ),
    # yhjo09/AdaTarget issue #5 (loaded from an interactive session)
    (
        "AttributeError: Can't get attribute 'LocNet' on <module '__main__' (built-in)>",
        "pickle.class_not_found",
        {"attr": "LocNet"},
    ),
    # taoyang1122/MutualNet issue #5 (a lambda in the dataset, workers spawned on Windows)
    (
        "AttributeError: Can't pickle local object 'get_cifar.<locals>.<lambda>'",
        "pickle.unpicklable",
        {"object": "get_cifar.<locals>.<lambda>"},
    ),
    # SACLabs/TransWorldNG issue #4; pytorch/pytorch issue #51836 (the older wording)
    (
        "TypeError: cannot pickle '_thread.lock' object",
        "pickle.unpicklable",
        {"type": "_thread.lock"},
    ),
    (
        "TypeError: can't pickle _thread.lock objects",
        "pickle.unpicklable",
        {"type": "_thread.lock"},
    ),
    # facebookresearch/pytorchvideo issue #21 (num_workers=8 in a notebook)
    (
        "TypeError: cannot pickle 'torch._C.Generator' object",
        "pickle.unpicklable",
        {"type": "torch._C.Generator"},
    ),
    # AI-Hypercomputer/maxtext pull request #5260 (a slice lost while step 1820 was written)
    (
        "ValueError: Found incomplete checkpoint at .../checkpoints/1820",
        "orbax.incomplete_checkpoint",
        {"path": ".../checkpoints/1820"},
    ),
    # AMD-AGI/maxtext-slurm's diagnosis guide (an eight-node MI355X run, the head node's save)
    (
        "Training stopped: Checkpointing failed. [Errno 2] No such file or directory: "
        "'manifest.ocdbt.__lock'",
        "orbax.ocdbt_lock_missing",
        {"path": "manifest.ocdbt.__lock"},
    ),
    # rendered: Python's FileNotFoundError text around the same file in a step's directory
    (
        "FileNotFoundError: [Errno 2] No such file or directory: "
        "'/nfs/ckpt/run7/2800/manifest.ocdbt.__lock'",
        "orbax.ocdbt_lock_missing",
        {"path": "/nfs/ckpt/run7/2800/manifest.ocdbt.__lock"},
    ),
    # Physical-Intelligence/openpi issue #566
    (
        "FileExistsError: [Errno 17] File exists: '/home/lyx/openpi/checkpoints/"
        "cobot_put_pen_into_cantainer/cobot_putpen_chw/30000.orbax-checkpoint-tmp-0'",
        "orbax.tmp_dir_exists",
        {
            "path": "/home/lyx/openpi/checkpoints/cobot_put_pen_into_cantainer/cobot_putpen_chw/"
            "30000.orbax-checkpoint-tmp-0"
        },
    ),
    # huggingface/datasets issue #6352; modal-labs/doppel-bot issue #7
    (
        "NotImplementedError: Loading a dataset cached in a LocalFileSystem is not supported.",
        "datasets.cache_fs_unsupported",
        {"fs": "LocalFileSystem"},
    ),
    # huggingface/datasets issue #6315 (the maintainers' own report)
    (
        "E   pyarrow.lib.ArrowInvalid: JSON parse error: Invalid value. in row 0",
        "arrow.json_invalid",
        {"reason": "Invalid value. in row 0"},
    ),
    # ShishirPatil/gorilla issue #371
    (
        "pyarrow.lib.ArrowInvalid: JSON parse error: Column(/execution_result/[]) changed from "
        "number to string in row 13",
        "arrow.json_invalid",
        {"reason": "Column(/execution_result/[]) changed from number to string in row 13"},
    ),
    # huggingface/datasets issue #369
    (
        "pyarrow.lib.ArrowInvalid: straddling object straddles two block boundaries",
        "arrow.json_invalid",
        {},
    ),
    # Eventual-Inc/Daft issue #3049 (writing Parquet)
    (
        "pyarrow.lib.ArrowCapacityError: array cannot contain more than 2147483646 bytes, have "
        "2230017098",
        "arrow.capacity_exceeded",
        {"limit": "2147483646", "have": "2230017098"},
    ),
    # apache/arrow issue #2485 (pyarrow 0.10 reading a large Parquet file)
    (
        "ArrowIOError: Arrow error: Capacity error: BinaryArray cannot contain more than "
        "2147483646 bytes, have 2147483655",
        "arrow.capacity_exceeded",
        {"have": "2147483655"},
    ),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # pickle's other errors are not a file's first byte
    ("torchload.invalid_load_key", "_pickle.UnpicklingError: pickle data was truncated"),
    # a different EOF: a stream closed, not an empty pickle
    ("torchload.empty_pickle", "EOFError: EOF when reading a line"),
    # the archive's central directory is checkpoint.file_unreadable's
    (
        "torchload.zip_record_missing",
        "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central "
        "directory",
    ),
    (
        "torchload.zip_read_failed",
        "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central "
        "directory",
    ),
    # the dispatch warning of a healthy TorchScript load
    (
        "torchload.zip_format_unsupported",
        "UserWarning: 'torch.load' received a zip file that looks like a TorchScript archive "
        "dispatching to 'torch.jit.load' (call 'torch.jit.load' directly to silence this warning)",
    ),
    (
        "torchload.weights_only_rejected",
        "FutureWarning: You are using `torch.load` with "
        "`weights_only=False` (the current default value)",
    ),
    # a zipfile warning, not an unreadable archive
    ("zipfile.bad_zip", "UserWarning: Duplicate name: 'data/0'"),
    # the loader's own configuration error (issue #106634) and MXNet's worker timeout
    ("dataloader.timeout", "ValueError: timeout option should be non-negative"),
    ("dataloader.timeout", "Worker timed out after 120 seconds. This might be caused by"),
    # a worker's signal as the parent reports it is process.crashed's; the bus error is
    # torch.dataloader_bus_error's
    (
        "dataloader.worker_fault",
        "RuntimeError: DataLoader worker (pid 624) is killed by signal: Segmentation fault.",
    ),
    (
        "dataloader.worker_fault",
        "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient "
        "shared memory (shm).",
    ),
    # a generic descriptor limit elsewhere is the storage and OS lines'
    ("dataloader.fd_limit", "OSError: [Errno 24] Too many open files: '/dev/null'"),
    # the cast error's own class is schema_mismatch's, not the generic wrapper's
    (
        "datasets.generation_failed",
        "datasets.exceptions.DatasetGenerationCastError: An error occurred while generating the "
        "dataset",
    ),
    # progress bars and healthy verification lines
    (
        "datasets.generation_failed",
        "Generating train split: 47149 examples [00:00, 135849.06 examples/s]",
    ),
    (
        "datasets.verification_failed",
        "All the checksums matched successfully for dataset source files",
    ),
    (
        "datasets.disk_space_check",
        "Downloading and preparing dataset openwebtext/plain_text "
        "(download: 12.00 GiB, generated: 37.04 GiB, post-processed: Unknown size, total: 49.03 GiB)",
    ),
    # an unknown configuration name is another error
    ("datasets.unknown_split", "ValueError: BuilderConfig 'val' not found. Available: ['default']"),
    (
        "datasets.data_files_not_found",
        "Resolving data files: 100%|██████████| 276/276 [00:00<00:00, 10537.68it/s]",
    ),
    # streaming's healthy configuration warnings
    (
        "streaming.local_dir_reused",
        "Because `shuffle_block_size` was not specified, it will default to max(4_000_000 // "
        "num_canonical_nodes, 1 << 18) if num_canonical_nodes is not None, otherwise 262144.",
    ),
    ("streaming.index_corrupt", "Index file at /tmp/mds/train/index.json loaded: 1024 shards"),
    # a DALI operator's own error names its cause; the restatement is the pipeline's
    (
        "dali.pipeline_failed",
        'Error when executing CPU operator readers__Numpy, instance name: "ReaderY", encountered:',
    ),
    # TensorFlow restoring normally
    (
        "tfckpt.restore_mismatch",
        "INFO:tensorflow:Restoring parameters from models/DNCNN__gaussian_"
        "0.02__40-40-1__128/model.ckpt",
    ),
    (
        "tfckpt.not_a_table",
        "W tensorflow/core/util/tensor_slice_reader.cc:95] Could not open "
        "/ckpt/model.ckpt-1000: Not found: /ckpt/model.ckpt-1000; No such file or directory",
    ),
    (
        "arrow.capacity_exceeded",
        "pyarrow.lib.ArrowInvalid: Column 1 named text expected length 10 but got length 9",
    ),
    # a healthy prose mention and a healthy orbax save
    ("pickle.unpicklable", "I don't pickle objects here"),
    ("pickle.class_not_found", "AttributeError: 'RACNN' object has no attribute '__echo_apn'"),
    ("torchload.legacy_truncated", "EOFError: Ran out of input"),
    (
        "orbax.tmp_dir_exists",
        "Starting CheckpointManager Save Finalize thread=save_finalize",
    ),
    ("orbax.incomplete_checkpoint", "Finished restoring checkpoint from /ckpt/1800."),
    (
        "datasets.cache_fs_unsupported",
        "Found cached dataset csv (file:///home/ubuntu/.cache/"
        "huggingface/datasets/csv/default-bbf0a8365d693d2c/0.0.0/eea64c71ca8b46dd)",
    ),
    (
        "arrow.json_invalid",
        "pyarrow.lib.ArrowInvalid: Column 1 named text expected length 10 but got length 9",
    ),
    # DeepSpeed saving a shard is not a missing one
    (
        "deepspeed.checkpoint_shard_missing",
        "[INFO] [engine.py:3591:_save_zero_checkpoint] zero checkpoint saved "
        "/ckpt/global_step500/zero_pp_rank_0_mp_rank_00_optim_states.pt",
    ),
]

# Progress bars and routine loading lines the family must leave alone.
HEALTHY: list[str] = [
    "Generating train split: 173687 examples [00:04, 39483.40 examples/s]",
    "Downloading data: 100%|██████████| 276/276 [00:00<00:00, 12836.15files/s]",
    "Loading checkpoint shards: 100%|██████████| 4/4 [00:05<00:00,  1.32s/it]",
    "Map (num_proc=16): 100%|██████████| 52002/52002 [00:03<00:00, 14312.57 examples/s]",
    "Downloading and preparing dataset glue/qqp (download: 57.73 MiB, generated: 107.02 MiB, "
    "post-processed: Unknown size, total: 164.75 MiB) to ./datasets/glue/qqp/1.0.0/7c99657241",
    "2021-10-04 15:14:51,428 - mmcls - INFO - Saving checkpoint at 1 epochs",
    "load checkpoint from local path: checkpoint/tevit_r50.pth",
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_healthy_lines_match_no_entry_of_the_family() -> None:
    """Progress bars and routine loading lines are not failures."""
    family = family_keys(FAMILY_FILE)
    for line in HEALTHY:
        assert_no_match("*", line, family)


def test_no_entry_acts_on_a_node() -> None:
    """A job's files, data and loader settings: a healthy node must never be touched for them."""
    assert_no_node_action(BLAME)


def test_rank_local_symptoms_stay_below_the_collective_weight() -> None:
    """A worker that timed out or crashed, a read that failed, a wrapper restating an error: one
    rank's trouble, never a complaint about a peer that would point at a silent node."""
    for key, blame in BLAME.items():
        if blame is Blame.SYMPTOM:
            assert 0 < CATALOG.signatures[key].weight < COLLECTIVE, key


def test_no_entry_decides_for_hardware() -> None:
    """Nothing here names a node, and the job's own errors stay at or below a decisive weight."""
    for key in BLAME:
        sig = CATALOG.signatures[key]
        assert sig.blame is not Blame.HARDWARE, key
        assert sig.weight <= STRONG + 5, key


def test_keys_are_defined_in_no_other_catalog_file() -> None:
    """Files merge by key in name order: a key defined twice would silently override one entry."""
    keys = family_keys(FAMILY_FILE)
    for entry in DATA.iterdir():
        if entry.name == FAMILY_FILE or not entry.name.endswith(".toml"):
            continue
        others = tomllib.loads(entry.read_text(encoding="utf-8")).get("signature", {})
        assert not keys & set(others), entry.name
