"""Golden lines from sweep 9 over what the job's Python tooling and its environment print when a
step cannot start or stops on its own terms (signatures-pytooling.toml): argparse, click and absl
usage errors, pip / uv / conda / mamba resolver and installer errors, ld.so's LD_PRELOAD warning,
CPython's start-up path warnings, Lmod and Environment Modules, TensorFlow 1 / Keras NaN hooks and
git at job start.

Each line is a real one from the public thread cited beside it, or, where none was found, the
emitter's format string rendered (said so beside it); every line goes through the scanner's own
matcher. Blame is pinned to what a careful SRE reads from the one line: a command line,
requirement set, environment or module the job asks for that does not exist or does not fit is
the application's; a package index answering 5xx, a download cut short or a git transfer cut
mid-pack is transient; git's lines after a broken transfer are symptoms; ld.so ignoring a
preload is information. Healthy look-alikes (usage lines, help hints, a step's loss) must not
match.
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

FILE = "signatures-pytooling.toml"
FAMILY = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "argparse.unrecognized_arguments": Blame.APPLICATION,
    "argparse.argument_error": Blame.APPLICATION,
    "click.usage_error": Blame.APPLICATION,
    "absl.flags_parsing_error": Blame.APPLICATION,
    "pip.resolution_impossible": Blame.APPLICATION,
    "pip.hash_mismatch": Blame.TRANSIENT,
    "pip.index_http_unavailable": Blame.TRANSIENT,
    "pip.uv_no_solution": Blame.APPLICATION,
    "pip.requires_python": Blame.APPLICATION,
    "pip.requirements_unusable": Blame.APPLICATION,
    "pip.requirements_file_io": Blame.SYMPTOM,
    "conda.download_ca_unreadable": Blame.APPLICATION,
    "pip.wheel_build_failed": Blame.APPLICATION,
    "conda.download_failed": Blame.TRANSIENT,
    "conda.shell_not_initialized": Blame.APPLICATION,
    "git.repository_not_found": Blame.APPLICATION,
    "tfhooks.check_numerics": Blame.APPLICATION,
    "conda.packages_not_found": Blame.APPLICATION,
    "conda.unsatisfiable": Blame.APPLICATION,
    "conda.environment_not_found": Blame.APPLICATION,
    "ldso.preload_ignored": Blame.INFO,
    "python.prefix_not_found": Blame.APPLICATION,
    "lmod.module_unavailable": Blame.APPLICATION,
    "tfhooks.nan_loss": Blame.APPLICATION,
    "tfhooks.keras_invalid_loss": Blame.APPLICATION,
    "git.ref_not_found": Blame.APPLICATION,
    "git.transfer_interrupted": Blame.TRANSIENT,
    "git.pack_aborted": Blame.SYMPTOM,
    "pip.subprocess_failed": Blame.APPLICATION,  # mapp (session 23)
    "pip.uv_build_failed": Blame.APPLICATION,  # mapp (session 23)
}

NAMESPACES = frozenset(
    {"argparse", "click", "absl", "pip", "conda", "ldso", "python", "lmod", "tfhooks", "git"}
)

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FILE: NAMESPACES}, BLAME)

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # XPixelGroup/BasicSR issue #626 and babylm/baseline-pretraining issue #2 (torch.distributed
    # .launch passing --local-rank to a script declaring --local_rank)
    (
        "train.py: error: unrecognized arguments: --local-rank=0",
        "argparse.unrecognized_arguments",
        {"prog": "train.py", "args": "--local-rank=0"},
    ),
    (
        "general_train.py: error: unrecognized arguments: --local-rank=0",
        "argparse.unrecognized_arguments",
        {"prog": "general_train.py"},
    ),
    # hkchengrex/XMem issue #18 (the older launcher's underscore form)
    (
        "train.py: error: unrecognized arguments: --local_rank=0",
        "argparse.unrecognized_arguments",
        {"args": "--local_rank=0"},
    ),
    # javiribera/locating-objects-without-bboxes issue #12 (an option only the README knew)
    (
        "train.py: error: unrecognized arguments: --env-name sorghum",
        "argparse.unrecognized_arguments",
        {"args": "--env-name sorghum"},
    ),
    # kensakurada/sscdnet issue #11, AstarLight/Keras-image-classifer-framework issue #5
    (
        "train.py: error: the following arguments are required: --checkpointdir, --datadir",
        "argparse.argument_error",
        {"prog": "train.py"},
    ),
    (
        "train.py: error: the following arguments are required: -dtest/--dataset_test, "
        "-dtrain/--dataset_train, -m/--model",
        "argparse.argument_error",
        {},
    ),
    # tronikos/opower issue #28 (both forms), vmware/vmware-vcf-operations-integration-sdk issue
    # #246 (a range given as choices)
    (
        "demo.py: error: argument --aggregate_type: invalid choice: 'hour' (choose from "
        "<AggregateType.BILL: 'bill'>, <AggregateType.DAY: 'day'>, <AggregateType.HOUR: 'hour'>)",
        "argparse.argument_error",
        {"prog": "demo.py", "argument": "--aggregate_type"},
    ),
    (
        "demo.py: error: argument --aggregate_type: invalid AggregateType value: 'foo'",
        "argparse.argument_error",
        {"argument": "--aggregate_type"},
    ),
    (
        "mp-test: error: argument -P/--port: invalid choice: -1 (choose from 0, 65536)",
        "argparse.argument_error",
        {"prog": "mp-test", "argument": "-P/--port"},
    ),
    # CPython Lib/argparse.py _match_argument and _parse_optional, rendered
    (
        "train.py: error: argument --config: expected one argument",
        "argparse.argument_error",
        {"argument": "--config"},
    ),
    (
        "train.py: error: ambiguous option: --lr could match --lr-scheduler, --lr-warmup",
        "argparse.argument_error",
        {"error": "ambiguous option: --lr could match --lr-scheduler, --lr-warmup"},
    ),
    # pallets/click issue #392 (click before 8)
    ("Error: no such option: -d", "click.usage_error", {"option": "-d"}),
    # pallets/click src/click/exceptions.py and core.py (click 8), rendered
    ("Error: No such option: --lr", "click.usage_error", {"option": "--lr"}),
    ("Error: Missing option '--config'.", "click.usage_error", {"missing": "--config"}),
    (
        "Error: Invalid value for '--epochs': 'ten' is not a valid integer.",
        "click.usage_error",
        {"param": "--epochs"},
    ),
    ("Error: Got unexpected extra argument (foo)", "click.usage_error", {}),
    # google-deepmind/alphafold issue #548,
    # Nagakiran1/Extending-Google-BERT-as-Question-and-Answering-model-and-Chatbot issue #5
    (
        "FATAL Flags parsing error: Unknown command line flag 'num_multimer_predictions_per_model'",
        "absl.flags_parsing_error",
        {"error": "Unknown command line flag 'num_multimer_predictions_per_model'"},
    ),
    ("FATAL Flags parsing error: Unknown command line flag 'f'", "absl.flags_parsing_error", {}),
    # mozilla/telemetry-airflow pull request #860 (bq through a pod launcher's log)
    (
        "[2020-02-21 18:32:14,717] {logging_mixin.py:95} INFO - [2020-02-21 18:32:14,717] "
        "{pod_launcher.py:104} INFO - FATAL Flags parsing error: Unknown command line flag '-'",
        "absl.flags_parsing_error",
        {"error": "Unknown command line flag '-'"},
    ),
    # pypa/pip issue #9168 (both lines of one failure)
    (
        "ERROR: Cannot install aiobotocore==1.1.2 and botocore 1.17.63 (from "
        "/tmp/pipinstalls/digital-2.2.5/wheelhouse/botocore-1.17.63-py2.py3-none-any.whl) "
        "because these package versions have conflicting dependencies.",
        "pip.resolution_impossible",
        {},
    ),
    (
        "ERROR: ResolutionImpossible: for help visit "
        "https://pip.pypa.io/en/latest/user_guide/#fixing-conflicting-dependencies",
        "pip.resolution_impossible",
        {},
    ),
    # maurosoria/dirsearch issue #1363 (the current link)
    (
        "ERROR: ResolutionImpossible: for help visit "
        "https://pip.pypa.io/en/latest/topics/dependency-resolution/"
        "#dealing-with-dependency-conflicts",
        "pip.resolution_impossible",
        {},
    ),
    # pypa/pipenv issue #6004 (pipenv's log of pip's resolver)
    (
        "CRITICAL:pipenv.patched.pip._internal.resolution.resolvelib.factory:Cannot install "
        "my-package==1.0.50 because these package versions have conflicting dependencies.",
        "pip.resolution_impossible",
        {"requirements": "my-package==1.0.50"},
    ),
    # pytorch/pytorch issue #110847 (a torch wheel cut short), issue #104598 (under docker build)
    (
        "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have "
        "updated the package versions, please update the hashes. Otherwise, examine the package "
        "contents carefully; someone may have tampered with them.",
        "pip.hash_mismatch",
        {},
    ),
    (
        "#0 11.07 ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If "
        "you have updated the package versions, please update the hashes. Otherwise, examine the "
        "package contents carefully; someone may have tampered with them.",
        "pip.hash_mismatch",
        {},
    ),
    # pypi/warehouse issue #3710 and RobotLocomotion/pytorch-dense-correspondence issue #42
    (
        "  HTTP error 503 while getting https://files.pythonhosted.org/packages/45/4d/"
        "79a9a1f71de22fbc6c6433ac135f68d005de72fbe73e2137d2e77da9252c/testresources-2.0.1-py2.py3"
        "-none-any.whl#sha256=67a361c3a2412231963b91ab04192209aa91a1aa052f0ab87245dbea889d1282 "
        "(from https://pypi.org/simple/testresources/)",
        "pip.index_http_unavailable",
        {"status": "503"},
    ),
    (
        "  HTTP error 503 while getting https://files.pythonhosted.org/packages/62/a1/"
        "0d452b6901b0157a0134fd27ba89bf95a857fbda64ba52e1ca2cf61d8412/pip-10.0.0-py2.py3-none-any"
        ".whl#sha256=86a60a96d85e329962a9e6f6af612cbc11106293dbc83f119802b5bee9874cf3 (from "
        "https://pypi.org/simple/pip/)",
        "pip.index_http_unavailable",
        {"status": "503"},
    ),
    # astral-sh/uv issue #16784 and pytorch/vision issue #9470 (uv, the PyTorch index's hashes)
    (
        "  ╰─▶ Hash mismatch for `nvidia-nvtx-cu12==12.6.77`",
        "pip.hash_mismatch",
        {"package": "nvidia-nvtx-cu12==12.6.77"},
    ),
    (
        "#39 12.61   ╰─▶ Hash mismatch for `torchvision==0.26.0+cu128`",
        "pip.hash_mismatch",
        {"package": "torchvision==0.26.0+cu128"},
    ),
    # darkdragn/party issue #30, IdentityPython/pysaml2 pull request #750
    (
        "ERROR: Package 'party' requires a different Python: 3.8.10 not in '>=3.9,<4.0'",
        "pip.requires_python",
        {"package": "party", "python": "3.8.10", "specifier": ">=3.9,<4.0"},
    ),
    (
        "> ERROR: Package 'pysaml2' requires a different Python: 3.5.9 not in '~=3.6'",
        "pip.requires_python",
        {"specifier": "~=3.6"},
    ),
    # fanjunkai1/DVD issue #1, bytesc/Django_Management_System_template issue #2 (a misspelt name)
    (
        "ERROR: Could not open requirements file: [Errno 2] No such file or directory: "
        "'requirements.txt'",
        "pip.requirements_unusable",
        {"error": "[Errno 2] No such file or directory: 'requirements.txt'"},
    ),
    (
        "ERROR: Could not open requirements file: [Errno 2] No such file or directory: "
        "'requirement.txt'",
        "pip.requirements_unusable",
        {},
    ),
    # rendered from pip's req_file.py get_file_content (depth review s22-dapp): the same open on a
    # stale NFS handle is the storage's, not the job's file list
    (
        "ERROR: Could not open requirements file: [Errno 116] Stale file handle: "
        "'/shared/project/requirements.txt'",
        "pip.requirements_file_io",
        {"errno": "116"},
    ),
    # rendered from libmamba's build_download_error with curl's CURLE_SSL_CACERT_BADFILE text
    (
        "critical libmamba Download error (77) Problem with the SSL CA cert (path? access "
        "rights?) [https://conda.anaconda.org/conda-forge/linux-64/repodata.json]",
        "conda.download_ca_unreadable",
        {"code": "77"},
    ),
    # MzeroMiko/VMamba issue #32, victorbai2/TFpackageText issue #1, antgroup/LLMOPT pull
    # request #8 (pip 24's parser message after the quote)
    (
        "ERROR: Invalid requirement: 'pytest chardet yacs termcolor' (from line 7 of "
        "requirements.txt)",
        "pip.requirements_unusable",
        {"requirement": "'pytest chardet yacs termcolor'"},
    ),
    (
        "ERROR: Invalid requirement: 'Package Version' (from line 1 of requirements.txt)",
        "pip.requirements_unusable",
        {"requirement": "'Package Version'"},
    ),
    (
        "ERROR: Invalid requirement: 'pip install transformers==4.42.0': Expected end or "
        "semicolon (after name and no valid version specifier)",
        "pip.requirements_unusable",
        {"requirement": "'pip install transformers==4.42.0'"},
    ),
    # QwenLM/Qwen issue #10 (both lines), Dao-AILab/flash-attention issue #1503 (pip 24)
    (
        "  ERROR: Failed building wheel for flash-attn",
        "pip.wheel_build_failed",
        {"package": "flash-attn"},
    ),
    (
        "ERROR: Could not build wheels for flash-attn, which is required to install "
        "pyproject.toml-based projects",
        "pip.wheel_build_failed",
        {"packages": "flash-attn"},
    ),
    (
        "ERROR: Failed to build installable wheels for some pyproject.toml based projects "
        "(flash-attn)",
        "pip.wheel_build_failed",
        {"projects": "flash-attn"},
    ),
    # astral-sh/uv issue #6437 (uv's build frontend; mapp, session 23)
    (
        "  ╰─▶ Call to `setuptools.build_meta:__legacy__.build_wheel` failed (exit code: 1)",
        "pip.uv_build_failed",
        {"call": "setuptools.build_meta:__legacy__.build_wheel", "status": "1"},
    ),
    # Dao-AILab/flash-attention issue #304 (pip's build subprocess; mapp, session 23)
    (
        "  × python setup.py bdist_wheel did not run successfully.",
        "pip.subprocess_failed",
        {"command": "python setup.py bdist_wheel"},
    ),
    # astral-sh/uv issues #4303 and #10604 (Unicode), #2538 (ASCII), #12578 (a universal lock)
    ("  × No solution found when resolving dependencies:", "pip.uv_no_solution", {}),
    ("  x No solution found when resolving dependencies:", "pip.uv_no_solution", {}),
    (
        "  × No solution found when resolving dependencies for split (python_full_version >= "
        "'3.12' and platform_machine == 'x86_64' and sys_platform == 'darwin'):",
        "pip.uv_no_solution",
        {},
    ),
    # sameerkhurana10/DSOL_rv0.2 issue #11, conda/conda issue #13659
    (
        "PackagesNotFoundError: The following packages are not available from current channels:",
        "conda.packages_not_found",
        {},
    ),
    # mosheman5/DNP issue #10, hacheyz/PMMAA issue #3, geocompx/docker issue #29 (micromamba)
    (
        "UnsatisfiableError: The following specifications were found to be incompatible with "
        "each other:",
        "conda.unsatisfiable",
        {},
    ),
    (
        "LibMambaUnsatisfiableError: Encountered problems while solving:",
        "conda.unsatisfiable",
        {},
    ),
    ("  - nothing provides requested quarto", "conda.unsatisfiable", {"spec": "quarto"}),
    ("error    libmamba Could not solve for environment specs", "conda.unsatisfiable", {}),
    ("critical libmamba UnsatisfiableError", "conda.unsatisfiable", {}),
    # danpursuit/all-is-one issue #1, skDooley/TRACR_RNA issue #6 (conda activate's bare form),
    # ContinuumIO/anaconda-issues issue #3139 (the older exception)
    (
        "EnvironmentNameNotFound: Could not find conda environment: test-stable",
        "conda.environment_not_found",
        {"environment": "test-stable"},
    ),
    (
        "Could not find conda environment: cas",
        "conda.environment_not_found",
        {"environment": "cas"},
    ),
    (
        "CondaEnvironmentNotFoundError: Could not find environment: "
        "/home/fbranki/anaconda3/envs/orange3 .",
        "conda.environment_not_found",
        {"path": "/home/fbranki/anaconda3/envs/orange3"},
    ),
    # dptech-corp/Uni-Dock2 issue #1 (mamba's final error and libmamba's line before it)
    (
        " RuntimeError: Download error (28) Timeout was reached "
        "[http://quetz.dp.tech:8088/get/baymax/noarch/repodata.json]",
        "conda.download_failed",
        {"code": "28", "url": "http://quetz.dp.tech:8088/get/baymax/noarch/repodata.json"},
    ),
    (
        "Download error (28) Timeout was reached "
        "[http://quetz.dp.tech:8088/get/baymax/noarch/repodata.json]",
        "conda.download_failed",
        {"error": "Timeout was reached"},
    ),
    # conda/conda issue #8536 (a Slurm job), conda/conda issue #14147
    (
        "CommandNotFoundError: Your shell has not been properly configured to use 'conda "
        "activate'.",
        "conda.shell_not_initialized",
        {},
    ),
    ("CondaError: Run 'conda init' before 'conda activate'", "conda.shell_not_initialized", {}),
    # lutris/lutris issue #5658, haad/proxychains issue #7, DynamoRIO/drmemory issue #34 (glibc
    # before 2.23, no reason), dalance/procs issue #73
    (
        "ERROR: ld.so: object 'libgamemodeauto.so.0' from LD_PRELOAD cannot be preloaded "
        "(cannot open shared object file): ignored.",
        "ldso.preload_ignored",
        {"library": "libgamemodeauto.so.0", "reason": "cannot open shared object file"},
    ),
    (
        "ERROR: ld.so: object 'libdynamorio.so' from LD_PRELOAD cannot be preloaded: ignored.",
        "ldso.preload_ignored",
        {"library": "libdynamorio.so"},
    ),
    (
        "ERROR: ld.so: object 'libgtk3-nocsd.so.0' from LD_PRELOAD cannot be preloaded (failed "
        "to map segment from shared object): ignored.",
        "ldso.preload_ignored",
        {"reason": "failed to map segment from shared object"},
    ),
    # fospald/fibergen issue #12, LibreQoE/LibreQoS issue #615 (under systemd's journal)
    (
        "Could not find platform independent libraries <prefix>",
        "python.prefix_not_found",
        {"kind": "independent"},
    ),
    (
        "Could not find platform dependent libraries <exec_prefix>",
        "python.prefix_not_found",
        {"kind": "dependent"},
    ),
    (
        "Dec 19 04:46:32 libreqos python3[22841]: Could not find platform independent libraries "
        "<prefix>",
        "python.prefix_not_found",
        {},
    ),
    ("Consider setting $PYTHONHOME to <prefix>[:<exec_prefix>]", "python.prefix_not_found", {}),
    # llnl/hiop issue #524 (both Lmod errors), TACC/Lmod issue #592 (the module on the next line)
    (
        'Lmod has detected the following error:  The following module(s) are unknown: "gcc/7.4.0"',
        "lmod.module_unavailable",
        {"module": "gcc/7.4.0"},
    ),
    (
        "Lmod has detected the following error:  These module(s) or extension(s) exist but cannot "
        'be loaded as requested: "m4/1.4.18"',
        "lmod.module_unavailable",
        {"hierarchy_module": "m4/1.4.18"},
    ),
    # Alliance wiki, Running_jobs ("Job cannot load a module"): Lmod before extensions' wording
    (
        "Lmod has detected the following error:  These module(s) exist but cannot be loaded as "
        'requested: "quantumespresso/6.1"',
        "lmod.module_unavailable",
        {"hierarchy_module": "quantumespresso/6.1"},
    ),
    (
        "Lmod has detected the following error:  The following module(s) are unknown: ",
        "lmod.module_unavailable",
        {},
    ),
    # envmodules/modules issue #192 (modules 4), ai4d-iasc/trixie issue #17 (3.2 in a Slurm job),
    # easybuilders/easybuild-easyblocks issue #2283 (captured stderr)
    (
        "ERROR: Unable to locate a modulefile for 'gcc/4.2.1'",
        "lmod.module_unavailable",
        {"modulefile": "gcc/4.2.1"},
    ),
    (
        "ModuleCmd_Load.c(213):ERROR:105: Unable to locate a modulefile for 'conda'",
        "lmod.module_unavailable",
        {"modulefile": "conda"},
    ),
    (
        "stderr: ERROR: Unable to locate a modulefile for 'PrgEnv-pgi'",
        "lmod.module_unavailable",
        {"modulefile": "PrgEnv-pgi"},
    ),
    # JiDong-CS/icme2019-bytedance-grand-challenge issue #14 (the hook's log, absl's form, the
    # raise), melonwan/denseReg issue #21 (a script's assert of the same text)
    ("ERROR:tensorflow:Model diverged with loss = NaN.", "tfhooks.nan_loss", {}),
    (
        "E0410 22:34:13.729731 4483055104 basic_session_run_hooks.py:760] Model diverged with "
        "loss = NaN.",
        "tfhooks.nan_loss",
        {},
    ),
    (
        "tensorflow.python.training.basic_session_run_hooks.NanLossDuringTrainingError: NaN loss "
        "during training. ",
        "tfhooks.nan_loss",
        {},
    ),
    ("AssertionError: Model diverged with loss = NaN", "tfhooks.nan_loss", {}),
    # bricewalker/Hey-Jetson issue #7 (after the progress bar), keras-team/keras issue #6747
    (
        "1883/3455 [===============>..............] - ETA: 2:39:53 - loss: nan     Batch 1882: "
        "Invalid loss, terminating training",
        "tfhooks.keras_invalid_loss",
        {"batch": "1882"},
    ),
    ("Batch 6: Invalid loss, terminating training", "tfhooks.keras_invalid_loss", {"batch": "6"}),
    # tensorflow/models issue #5516 (the Coordinator's report), dennybritz/chatbot-retrieval #10
    (
        "INFO:tensorflow:Error reported to Coordinator: <class "
        "'tensorflow.python.framework.errors_impl.InvalidArgumentError'>, LossTensor is inf or "
        "nan. : Tensor had NaN values",
        "tfhooks.check_numerics",
        {"values": "NaN"},
    ),
    (
        "tensorflow.python.framework.errors.InvalidArgumentError: Loss is inf or nan : Tensor had "
        "NaN values",
        "tfhooks.check_numerics",
        {},
    ),
    # eliotsykes/real-world-rails issue #205, puavo-org/puavo-os issue #778 (submodule clones)
    ("ERROR: Repository not found.", "git.repository_not_found", {}),
    # everruler12/roam2github issue #9, mozilla-mobile/focus-android issue #6499, pre-commit-ci
    # issue #12 (a short SHA), archlinux/asp issue #6 (capitalised, older git)
    (
        "Error: fatal: couldn't find remote ref refs/heads/main",
        "git.ref_not_found",
        {"ref": "refs/heads/main"},
    ),
    (
        "[vcs 2022-02-22T19:36:38.470Z] fatal: Couldn't find remote ref "
        "refs/heads/relbot/AC-Nightly-99.0.20220222190123",
        "git.ref_not_found",
        {"ref": "refs/heads/relbot/AC-Nightly-99.0.20220222190123"},
    ),
    ("    fatal: couldn't find remote ref b59a524", "git.ref_not_found", {"ref": "b59a524"}),
    # easybuilders/easybuild-framework issue #3870, aslafy-z/helm-git pull request #83
    (
        "- Dalton-2020.0-foss-2021a.eb: error: pathspec 'refs/tags/release/2016' did not match "
        "any file(s) known to git",
        "git.ref_not_found",
        {"pathspec": "refs/tags/release/2016"},
    ),
    (
        "error: pathspec 'v0.0.2-alpha.7' did not match any file(s) known to git",
        "git.ref_not_found",
        {"pathspec": "v0.0.2-alpha.7"},
    ),
    # git builtin/checkout.c, rendered
    (
        "fatal: reference is not a tree: 3f2a9c1d0b7e4f6a8c5d2e1f0a9b8c7d6e5f4a3b",
        "git.ref_not_found",
        {"tree": "3f2a9c1d0b7e4f6a8c5d2e1f0a9b8c7d6e5f4a3b"},
    ),
    # golang/go issue #52490 (Go's builders, intermittent), shorebirdtech/shorebird issue #2397,
    # git-for-windows/git issue #5702, catppuccin/userstyles issue #1379 (send-pack)
    ("            \terror: 46048 bytes of body are still expected", "git.transfer_interrupted", {}),
    (
        "fetch-pack: unexpected disconnect while reading sideband packet",
        "git.transfer_interrupted",
        {},
    ),
    (
        "send-pack: unexpected disconnect while reading sideband packet",
        "git.transfer_interrupted",
        {},
    ),
    # dail8859/NotepadNext issue #533 (the RPC failure before the disconnect)
    (
        "error: RPC failed; curl 16 Error in the HTTP2 framing layer",
        "git.transfer_interrupted",
        {},
    ),
    # processing/p5.js-web-editor issue #2887, OpenNeuroOrg/openneuro issue #2121
    ("fatal: fetch-pack: invalid index-pack output", "git.pack_aborted", {}),
    ("fatal: protocol error: bad pack header", "git.pack_aborted", {}),
]

# (key, healthy or other look-alike it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # argparse's usage line before the error (weiaicunzai/Bag_of_Tricks_for_Image_Classification_
    # with_Convolutional_Neural_Networks issue #5), and Lib/argparse.py's "%(prog)s: error: %s"
    # rendered with a program's own parser.error() message (not a usage error argparse found)
    (
        "argparse.argument_error",
        "usage: train.py [-h] -net NET [-w W] [-b B] [-lr LR] [-e E] [-warm WARM]",
    ),
    ("argparse.argument_error", "train.py: error: could not open dataset"),
    ("argparse.unrecognized_arguments", "usage: train.py [-h] --config CONFIG"),
    # click's help hint (src/click/exceptions.py, rendered with pallets/click issue #393's
    # program) and roam2github's "Error: " line (everruler12/roam2github issue #9, git's own)
    ("click.usage_error", "Try 'scancode --help' for help."),
    ("click.usage_error", "Error: fatal: couldn't find remote ref refs/heads/main"),
    # absl's hint after the error
    ("absl.flags_parsing_error", "Pass --helpshort or --helpfull to see help on flags."),
    # pip's resolver explaining a conflict (pypa/pip issue #8377, the lines between the two it
    # matches) and the hash lines that follow the mismatch banner (pytorch/pytorch issue #110847)
    ("pip.resolution_impossible", "The conflict is caused by:"),
    (
        "pip.hash_mismatch",
        "        Expected sha256 bcb17e2de6ca634d326203694d0bfb552587335e536c1917be3f28c5664b5506",
    ),
    # pypa/pip issue #5252: a 404 (a file the index no longer served) is not an outage here
    (
        "pip.index_http_unavailable",
        "  HTTP error 404 while getting https://files.pythonhosted.org/packages/62/a1/"
        "0d452b6901b0157a0134fd27ba89bf95a857fbda64ba52e1ca2cf61d8412/pip-10.0.0-py2.py3-none-any"
        ".whl#sha256=86a60a96d85e329962a9e6f6af612cbc11106293dbc83f119802b5bee9874cf3 (from "
        "https://pypi.org/simple/pip/) (requires-python:>=2.7,!=3.0.*,!=3.1.*,!=3.2.*)",
    ),
    # uv's verbose resolver log (astral-sh/uv issue #10604) and conda's progress (conda/conda
    # issue #10443)
    ("pip.uv_no_solution", "DEBUG Solving with target Python version: >=3.10.16"),
    (
        "conda.unsatisfiable",
        "Solving environment: failed with initial frozen solve. Retrying with flexible solve.",
    ),
    ("conda.unsatisfiable", "Collecting package metadata (repodata.json): done"),
    (
        "conda.environment_not_found",
        "You can list all discoverable environments with `conda info --envs`.",
    ),
    # dptech-corp/Uni-Dock2 issue #1: libmamba's per-attempt warning (a retry) stays unread
    (
        "conda.download_failed",
        "warning  libmamba Download error (56) Failure when receiving data from the peer "
        "[http://quetz.oss-cn-zhangjiakou.aliyuncs.com/prod/baymax/linux-64/"
        "ambertools_stable-22.5-py310hf0f9f84_0.tar.bz2?OSSAccessKeyId=LTAI5tNzst8hYUUtk2XcEgyu",
    ),
    # pip's build progress (QwenLM/Qwen issue #10, Dao-AILab/flash-attention issue #875)
    ("pip.wheel_build_failed", "  Running setup.py clean for flash-attn"),
    ("pip.wheel_build_failed", "  Building wheel for flash_attn (setup.py) ... error"),
    # git's hint after a repository error (eliotsykes/real-world-rails issue #205)
    ("git.repository_not_found", "Please make sure you have the correct access rights"),
    # ld.so's real load failures belong to the glibc entries, not the preload warning
    (
        "ldso.preload_ignored",
        "libcudart.so.11.0: cannot open shared object file: No such file or directory",
    ),
    # CPython's path dump after the warning (fospald/fibergen issue #12)
    ("python.prefix_not_found", "  PYTHONHOME = (not set)"),
    ("python.prefix_not_found", "Python path configuration:"),
    # Lmod's advice lines (NOAA-EMC/rrfs-workflow issue #962) and a successful load
    (
        "lmod.module_unavailable",
        'Please check the spelling or version number. Also try "module spider ..."',
    ),
    (
        "lmod.module_unavailable",
        'Lmod is automatically replacing "intel/2025.2" with "intel-classic/2023.2.0".',
    ),
    # a healthy step's loss (tensorflow/models issue #8549) and Keras' progress with a finite loss
    # (kr-colab/ReLERNN issue #26)
    (
        "tfhooks.nan_loss",
        "I0521 14:43:59.269938 140033274427136 basic_session_run_hooks.py:260] loss = "
        "1.3336712, step = 400 (85.220 sec)",
    ),
    (
        "tfhooks.keras_invalid_loss",
        "99/100 [============================>.] - ETA: 2s - loss: 0.2445",
    ),
    # git's own progress lines (processing/p5.js-web-editor issue #2887, pingbird/puro issue #82)
    ("git.transfer_interrupted", "remote: Compressing objects: 100% (315/315), done."),
    ("git.ref_not_found", "Cloning into 'p5.js-web-editor'..."),
    ("git.pack_aborted", "    Receiving objects:   5% (28560/532810), 19.44 MiB | 336.00 KiB/s"),
]

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_no_entry_of_the_family_acts_on_a_node() -> None:
    """Every line here is the job's, a service's or a restatement: none names a node's device."""
    assert_no_node_action(FAMILY)


def test_weights_follow_the_house_rules() -> None:
    """Symptoms weigh 5-30, information 0; the hash mismatch, which a stale pin also prints, stays
    under the deciding weight; the start-up path warning, printed by programs that go on, is weak."""
    for key in sorted(FAMILY):
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.SYMPTOM:
            assert 5 <= sig.weight <= 30, key
        elif sig.blame is Blame.INFO:
            assert sig.weight == 0, key
        else:
            assert 40 <= sig.weight <= 70, key
    assert CATALOG.signatures["pip.hash_mismatch"].weight < 50
    assert CATALOG.signatures["python.prefix_not_found"].weight < 50


def test_the_probed_lines_now_read_as_the_sweep_meant() -> None:
    """The lines the sweep's probe found unread (rendered where no public paste exists)."""
    assert "argparse.unrecognized_arguments" in hits(
        "train.py: error: unrecognized arguments: --local-rank=0"
    )
    assert "argparse.argument_error" in hits(
        "train.py: error: the following arguments are required: --config"
    )
    assert "tfhooks.nan_loss" in hits("[ERROR] Model diverged with loss = NaN")
    preload = hits(
        "ERROR: ld.so: object 'libnccl.so' from LD_PRELOAD cannot be preloaded (cannot open "
        "shared object file): ignored."
    )
    assert set(preload) == {"ldso.preload_ignored"}
