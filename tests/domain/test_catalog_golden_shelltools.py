"""Golden lines for what a job's shell, its fetch tools and the C++ runtimes under it print
(signatures-shelltools.toml): glog / abseil fatal lines and failed CHECKs, the shell's and the
Python interpreter's startup errors, pip / uv / conda resolver and index errors, git / curl /
wget network and HTTP errors, and OpenSSH's errors under a multi-node launcher.

Each line is cited beside it (a public issue, or the emitter's source where the line is
rendered from its format) and goes through the scanner's own matcher. The job's own
configuration (a missing command or file, a pin, credentials, a wrong URL) reads as the
application; an outside service failing in flight as transient; what could be either (a name
that does not resolve, a peer ssh cannot reach, a runtime's fatal line) as a symptom. No entry
acts on a node.
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

FAMILY_FILE = "signatures-shelltools.toml"
NAMESPACES = frozenset({"glog", "shell", "pip", "conda", "fetch", "ssh"})
FAMILY_KEYS = family_keys(FAMILY_FILE)

BLAME: dict[str, Blame] = {
    "glog.check_failed": Blame.APPLICATION,
    "glog.fatal": Blame.SYMPTOM,
    "glog.check_failure_trace": Blame.SYMPTOM,
    "shell.command_not_found": Blame.APPLICATION,
    "shell.no_such_file": Blame.APPLICATION,
    "shell.permission_denied": Blame.APPLICATION,
    "shell.exec_format_error": Blame.APPLICATION,
    "shell.python_cant_open": Blame.APPLICATION,
    "shell.unbound_variable": Blame.APPLICATION,
    "shell.syntax_error": Blame.APPLICATION,
    "pip.version_not_found": Blame.APPLICATION,
    "pip.no_versions": Blame.SYMPTOM,
    "pip.no_matching_distribution": Blame.SYMPTOM,
    "pip.uv_fetch_failed": Blame.SYMPTOM,
    "pip.uv_request_failed": Blame.TRANSIENT,
    "conda.connection_failed": Blame.SYMPTOM,
    "conda.http_unavailable": Blame.TRANSIENT,
    "conda.http_refused": Blame.APPLICATION,
    "fetch.resolve_failed": Blame.SYMPTOM,
    "fetch.connect_timeout": Blame.TRANSIENT,
    "fetch.connect_failed": Blame.SYMPTOM,
    "fetch.transfer_broken": Blame.TRANSIENT,
    "fetch.http_unavailable": Blame.TRANSIENT,
    "fetch.http_refused": Blame.APPLICATION,
    "fetch.git_access_refused": Blame.APPLICATION,
    "fetch.git_hung_up": Blame.SYMPTOM,
    "fetch.git_unable_to_access": Blame.SYMPTOM,
    "ssh.connect_failed": Blame.SYMPTOM,
    "ssh.host_key_failed": Blame.APPLICATION,
    "ssh.auth_denied": Blame.APPLICATION,
    "ssh.connection_closed": Blame.SYMPTOM,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # --- glog / abseil ---
    # chuanqi305/MobileNet-SSD issue #180 (Caffe training)
    (
        "F0407 01:31:07.673615  5759 math_functions.cpp:250] Check failed: a <= b (0 vs. "
        "-1.19209e-07) ",
        "glog.check_failed",
        {"check": "a <= b (0 vs. -1.19209e-07)"},
    ),
    # cookyecat/SSD-on-Custom-Dataset issue #3
    (
        "F0917 14:56:28.086491  4302 data_reader.cpp:112] Check failed: new_queue_pairs_.size() "
        "== 0 (1 vs. 0) ",
        "glog.check_failed",
        {"check": "new_queue_pairs_.size() == 0 (1 vs. 0)"},
    ),
    # gnina/scripts issue #65 (a train.py that built an empty net)
    (
        "F1204 12:22:43.597359  9247 net.cpp:523] Check failed: end < layers_.size() (-1 vs. 0) ",
        "glog.check_failed",
        {"check": "end < layers_.size() (-1 vs. 0)"},
    ),
    # rendered from glog 0.7 logging.cc (the year in the prefix) and TensorFlow's tsl logging
    (
        "F20240101 12:00:00.000000 12345 trainer.cc:88] Check failed: x.size() == y.size() "
        "(3 vs. 4)",
        "glog.check_failed",
        {"check": "x.size() == y.size() (3 vs. 4)"},
    ),
    (
        "2019-05-08 14:32:43.123456: F tensorflow/core/framework/tensor_shape.cc:44] Check "
        "failed: NDIMS == dims() (2 vs. 3)",
        "glog.check_failed",
        {"check": "NDIMS == dims() (2 vs. 3)"},
    ),
    # an "Install Caffe on Ubuntu" note in a public repository (a GPU solver on a CPU-only build)
    (
        "F0930 16:44:30.997221 17607 common.cpp:66] Cannot use GPU in CPU-only Caffe: check mode.",
        "glog.fatal",
        {"message": "Cannot use GPU in CPU-only Caffe: check mode."},
    ),
    # qibinc's GSoC 2019 blog post on wav2letter++ (a vocabulary mismatch at decoding)
    (
        "F0729 14:57:30.904127  9274 Dictionary.cpp:51] Unknown token in dictionary: '_'",
        "glog.fatal",
        {"message": "Unknown token in dictionary: '_'"},
    ),
    # a device-status CHECK stays generic (rendered from glog's CHECK_EQ over an NCCL result)
    (
        "F0312 10:01:02.123456  4411 nccl_utils.cc:45] Check failed: result == ncclSuccess "
        "(2 vs. 0) ",
        "glog.fatal",
        {"message": "Check failed: result == ncclSuccess (2 vs. 0)"},
    ),
    # ray-project/ray issue #7788 (a worker whose raylet had gone; ray.raylet_unhealthy reads it)
    (
        "F0328 18:49:23.675355 81818 raylet_client.cc:83] Could not connect to socket "
        "/tmp/ray/session_2020-03-28_18-07-49_270759_76175/sockets/raylet",
        "glog.fatal",
        {},
    ),
    # ethanhe42/resnet-cifar10-caffe issue #10; gnina/scripts issue #65
    ("*** Check failure stack trace: ***", "glog.check_failure_trace", {}),
    # --- the shell and the interpreter ---
    # hiyouga/LlamaFactory issue #5216 (dash, multi-node)
    ("/bin/sh: 1: torchrun: not found", "shell.command_not_found", {"command": "torchrun"}),
    # AndyJZhao/GLEM issue #11 (dash, a torchrun path)
    (
        "sh: 1: /home/gyn/miniconda/envs/ct/bin/torchrun: not found",
        "shell.command_not_found",
        {"command": "/home/gyn/miniconda/envs/ct/bin/torchrun"},
    ),
    # datahq/dataflows issue #121
    ("/bin/sh: 1: python: not found", "shell.command_not_found", {"command": "python"}),
    # ctfhacker/bombly issue #19 (bash, interactive)
    ("bash: python: command not found", "shell.command_not_found", {"command": "python"}),
    # open-compass/opencompass issue #563 (its title: a login shell without the env)
    ("/bin/sh: torchrun: command not found", "shell.command_not_found", {"command": "torchrun"}),
    # Jacksgong/android-project-combine issue #3 (a script's line prefix)
    (
        "./refresh.sh: line 5: python: command not found",
        "shell.command_not_found",
        {"command": "python"},
    ),
    # rendered from zsh's wording and from a pdsh-prefixed bash line
    ("zsh: command not found: torchrun", "shell.command_not_found", {"zsh_command": "torchrun"}),
    (
        "node2: bash: torchrun: command not found",
        "shell.command_not_found",
        {"command": "torchrun"},
    ),
    # rendered from bash execute_cmd.c / shell.c and coreutils env.c
    ("bash: ./train.sh: No such file or directory", "shell.no_such_file", {"path": "./train.sh"}),
    (
        "/var/spool/slurmd/job123/slurm_script: line 14: cd: /workspace/llm: No such file or "
        "directory",
        "shell.no_such_file",
        {"path": "/workspace/llm"},
    ),
    (
        "bash: ./run.sh: /bin/bash^M: bad interpreter: No such file or directory",
        "shell.no_such_file",
        {"path": "./run.sh"},
    ),
    (
        "/usr/bin/env: 'python': No such file or directory",
        "shell.no_such_file",
        {"program": "python"},
    ),
    ("sh: 0: cannot open train.sh: No such file", "shell.no_such_file", {"script": "train.sh"}),
    ("bash: ./train.sh: Permission denied", "shell.permission_denied", {"path": "./train.sh"}),
    (
        "/bin/sh: 1: /opt/job/launch.sh: Permission denied",
        "shell.permission_denied",
        {"path": "/opt/job/launch.sh"},
    ),
    # the enroot hook on SR-IOV virtual functions (corpus bundle
    # app-oke-slurm-pyxis-sriov-vf-mellanox-visible-devices-enroot-hook-ifaces-unbound-variable)
    (
        "/etc/enroot/hooks.d/99-mellanox.sh: line 88: ifaces[id]: unbound variable",
        "shell.unbound_variable",
        {"variable": "ifaces[id]"},
    ),
    # the same under mpirun --tag-output's prefix
    (
        "[1,0]<stderr>:/etc/enroot/hooks.d/99-mellanox.sh: line 88: ifaces[id]: unbound variable",
        "shell.unbound_variable",
        {"variable": "ifaces[id]"},
    ),
    # rendered from bash error.c / subst.c and dash expand.c
    ("bash: NODE_RANK: unbound variable", "shell.unbound_variable", {"variable": "NODE_RANK"}),
    (
        "./launch.sh: line 4: NODE_RANK: parameter null or not set",
        "shell.unbound_variable",
        {"variable": "NODE_RANK"},
    ),
    ("/bin/sh: 3: MASTER_ADDR: parameter not set", "shell.unbound_variable", {}),
    # rendered from bash parse.y and dash parser.c
    (
        "/var/spool/slurmd/job4711/slurm_script: line 21: syntax error near unexpected token `('",
        "shell.syntax_error",
        {"token": "("},
    ),
    ("train.sh: line 40: syntax error: unexpected end of file", "shell.syntax_error", {}),
    ('sh: 12: Syntax error: "(" unexpected', "shell.syntax_error", {"dash": '"(" unexpected'}),
    # duckdb/duckdb issue #7255 (an amd64 build on aarch64)
    (
        "-bash: ./duckdb: cannot execute binary file: Exec format error",
        "shell.exec_format_error",
        {"path": "./duckdb"},
    ),
    # nextcloud/notify_push issue #720 (the exec builtin in a start script)
    (
        "nextcloud /start.sh: line 63: exec: /var/www/html/custom_apps/notify_push/bin/aarch64/"
        "notify_push: cannot execute: Exec format error",
        "shell.exec_format_error",
        {"path": "/var/www/html/custom_apps/notify_push/bin/aarch64/notify_push"},
    ),
    # Charleshhy/Grapy-ML issue #1; magic282/NeuSum issue #10; NVlabs/nvdiffrec issue #48
    (
        "python: can't open file './exp/single_syn/train_dlab.py': [Errno 2] No such file or "
        "directory",
        "shell.python_cant_open",
        {"program": "python", "path": "./exp/single_syn/train_dlab.py", "errno": "2"},
    ),
    (
        "python: can't open file 'C:\\WINDOWS\\system32\\train.py': [Errno 2] No such file or "
        "directory",
        "shell.python_cant_open",
        {"errno": "2"},
    ),
    # the same after Open MPI's --tag-output prefix
    (
        "[1,0]<stderr>:python: can't open file '/home/ray/samples/sample_code.ppy': [Errno 2] No "
        "such file or directory",
        "shell.python_cant_open",
        {"program": "python", "path": "/home/ray/samples/sample_code.ppy"},
    ),
    # --- pip / uv / conda ---
    # SKRohit/Generating_Text_Summary_With_GPT2 issue #7
    (
        "ERROR: Could not find a version that satisfies the requirement "
        "googlesearch-python==2020.0.2 (from versions: 1.0.0, 1.0.1, 1.1.0)",
        "pip.version_not_found",
        {"requirement": "googlesearch-python==2020.0.2", "versions": "1.0.0, 1.0.1, 1.1.0"},
    ),
    # google-deepmind/alphageometry issue #62
    (
        "ERROR: Could not find a version that satisfies the requirement array-record==0.4.1 "
        "(from -r requirements.txt (line 28)) (from versions: none)",
        "pip.no_versions",
        {"requirement": "array-record==0.4.1"},
    ),
    # facebookresearch/consistent_depth issue #63; an old pip's empty list (noaa-oar-arl/monet #3)
    (
        "ERROR: Could not find a version that satisfies the requirement project (from versions: "
        "none)",
        "pip.no_versions",
        {"requirement": "project"},
    ),
    (
        "Could not find a version that satisfies the requirement MONET (from versions: )",
        "pip.no_versions",
        {"requirement": "MONET"},
    ),
    # imsatoshi/GeneTrader issue #3; google-deepmind/alphageometry issue #62
    (
        "ERROR: No matching distribution found for python>=3.7",
        "pip.no_matching_distribution",
        {"requirement": "python>=3.7"},
    ),
    # rendered from uv's client error and reqwest's transport error
    (
        "error: Failed to fetch: `https://pypi.org/simple/torch/`",
        "pip.uv_fetch_failed",
        {"url": "https://pypi.org/simple/torch/"},
    ),
    (
        "  Caused by: error sending request for url (https://pypi.org/simple/torch/)",
        "pip.uv_request_failed",
        {"url": "https://pypi.org/simple/torch/"},
    ),
    # conda/conda issue #9948; conda/conda issue #6868 (the older .bz2 repodata)
    (
        "CondaHTTPError: HTTP 000 CONNECTION FAILED for url <https://repo.anaconda.com/pkgs/main/"
        "linux-64/current_repodata.json>",
        "conda.connection_failed",
        {"url": "https://repo.anaconda.com/pkgs/main/linux-64/current_repodata.json"},
    ),
    (
        "CondaHTTPError: HTTP 000 CONNECTION FAILED for url <https://repo.continuum.io/pkgs/main/"
        "win-64/repodata.json.bz2>",
        "conda.connection_failed",
        {},
    ),
    # rendered from conda/exceptions.py CondaHTTPError
    (
        "CondaHTTPError: HTTP 502 BAD GATEWAY for url <https://conda.anaconda.org/conda-forge/"
        "linux-64/repodata.json>",
        "conda.http_unavailable",
        {"code": "502"},
    ),
    (
        "CondaHTTPError: HTTP 404 NOT FOUND for url <https://conda.anaconda.org/pytorch-nightlyy/"
        "noarch/repodata.json>",
        "conda.http_refused",
        {"code": "404"},
    ),
    # --- git / curl / wget ---
    # desktop/desktop issue #4800; egen/concourse-tutorial issue #240
    (
        "fatal: unable to access 'https://github.com/tensorflow/tensorflow.git/': Could not "
        "resolve host: github.com",
        "fetch.resolve_failed",
        {"host": "github.com"},
    ),
    # ytdl-org/youtube-dl issue #9526 (curl and wget side by side)
    ("curl: (6) Could not resolve host: yt-dl.org", "fetch.resolve_failed", {"host": "yt-dl.org"}),
    (
        "wget: unable to resolve host address ‘yt-dl.org’",
        "fetch.resolve_failed",
        {"wget_host": "yt-dl.org"},
    ),
    # markziemann/dee2 issue #24 (wget on an HPC cluster)
    (
        "wget: unable to resolve host address 'vm-118-138-240-228.erc.monash.edu.au'",
        "fetch.resolve_failed",
        {"wget_host": "vm-118-138-240-228.erc.monash.edu.au"},
    ),
    # spdk/spdk issue #3834 (CI, intermittent); curl/curl issue #18484
    (
        "curl: (28) Failed to connect to packages.daos.io port 443 after 133825 ms: Could not "
        "connect to server",
        "fetch.connect_timeout",
        {},
    ),
    (
        "curl: (28) Failed to connect to www.google.com port 81 after 5006 ms: Timeout was reached",
        "fetch.connect_timeout",
        {
            "detail": "Failed to connect to www.google.com port 81 after 5006 ms: Timeout was reached"
        },
    ),
    # shanmiteko/LotteryAutoScript issue #317 (an older curl without the elapsed time)
    (
        "curl: (28) Failed to connect to cdn.staticaly.com port 443: Connection timed out",
        "fetch.connect_timeout",
        {},
    ),
    # xzhih/one-key-hidpi issue #88 (macOS's ETIMEDOUT text, exit 7)
    (
        "curl: (7) Failed to connect to raw.githubusercontent.com port 443: Operation timed out",
        "fetch.connect_timeout",
        {"host": "raw.githubusercontent.com", "port": "443"},
    ),
    # rendered from curl lib/transfer.c and wget src/connect.c
    (
        "curl: (28) Operation timed out after 300000 milliseconds with 0 out of 0 bytes received",
        "fetch.connect_timeout",
        {},
    ),
    (
        "Connecting to huggingface.co (huggingface.co)|18.239.50.16|:443... failed: Connection "
        "timed out.",
        "fetch.connect_timeout",
        {},
    ),
    # curl/curl issue #18484 (its quoted line); meefik/linuxdeploy issue #1159 (git)
    (
        "curl: (7) Failed to connect to gmplib.org port 443 after 343 ms: Connection refused",
        "fetch.connect_failed",
        {"host": "gmplib.org", "port": "443"},
    ),
    (
        "\tfatal: unable to access 'https://github.com/tyler-smith/go-bip39/': Couldn't connect "
        "to server",
        "fetch.connect_failed",
        {},
    ),
    # git/git-scm.com issue #717; caicloud/cyclone issue #1250; adoptium/aqa-tests issue #4308
    (
        "error: RPC failed; curl 56 GnuTLS recv error (-9): A TLS packet with unexpected length "
        "was received.",
        "fetch.transfer_broken",
        {},
    ),
    (
        "01:28:20  error: RPC failed; curl 56 GnuTLS recv error (-54): Error in the pull function.",
        "fetch.transfer_broken",
        {},
    ),
    # kata-containers/tests issue #4307 (GitHub's side); git-for-windows/git issue #2374
    (
        "error: RPC failed; curl 56 OpenSSL SSL_read: Connection reset by peer, errno 104",
        "fetch.transfer_broken",
        {},
    ),
    # rendered from curl lib/http2.c and lib/transfer.c
    (
        "error: RPC failed; curl 92 HTTP/2 stream 0 was not closed cleanly: CANCEL (err 8)",
        "fetch.transfer_broken",
        {},
    ),
    ("curl: (18) transfer closed with 3242 bytes remaining to read", "fetch.transfer_broken", {}),
    ("curl: (52) Empty reply from server", "fetch.transfer_broken", {}),
    # rendered from curl lib/http.c and git http.c, wget src/http.c
    (
        "fatal: unable to access 'https://github.com/foo/bar.git/': The requested URL returned "
        "error: 502",
        "fetch.http_unavailable",
        {"status": "502"},
    ),
    (
        "2024-03-04 10:12:01 ERROR 502: Bad Gateway.",
        "fetch.http_unavailable",
        {"wget_status": "502"},
    ),
    (
        "fatal: unable to access 'https://github.com/foo/private.git/': The requested URL "
        "returned error: 403",
        "fetch.http_refused",
        {"status": "403"},
    ),
    ("curl: (22) The requested URL returned error: 404", "fetch.http_refused", {"status": "404"}),
    ("2024-03-04 10:12:01 ERROR 404: Not Found.", "fetch.http_refused", {"wget_status": "404"}),
    # rendered from git's credential and remote-curl messages
    (
        "fatal: Authentication failed for 'https://github.com/foo/bar.git/'",
        "fetch.git_access_refused",
        {"url": "https://github.com/foo/bar.git/"},
    ),
    (
        "fatal: repository 'https://github.com/foo/bar.git/' not found",
        "fetch.git_access_refused",
        {"repo_url": "https://github.com/foo/bar.git/"},
    ),
    (
        "fatal: could not read Username for 'https://github.com': terminal prompts disabled",
        "fetch.git_access_refused",
        {"prompt_url": "https://github.com"},
    ),
    # git/git-scm.com issue #908; haveno-dex/haveno issue #71; iq9891/blog issue #14
    ("fatal: The remote end hung up unexpectedly", "fetch.git_hung_up", {}),
    ("fatal: early EOF", "fetch.git_hung_up", {}),
    ("fatal: Could not read from remote repository.", "fetch.git_hung_up", {}),
    # rendered from git http.c with curl's certificate error
    (
        "fatal: unable to access 'https://github.com/foo/bar.git/': SSL certificate problem: "
        "unable to get local issuer certificate",
        "fetch.git_unable_to_access",
        {"url": "https://github.com/foo/bar.git/"},
    ),
    # --- ssh ---
    # deepspeedai/DeepSpeedExamples issue #894 (pdsh to a host without sshd)
    (
        "localhost: ssh: connect to host localhost port 22: Connection refused",
        "ssh.connect_failed",
        {"host": "localhost", "port": "22", "reason": "Connection refused"},
    ),
    # rendered from OpenSSH sshconnect.c (a peer node that is down)
    (
        "gpu-b07: ssh: connect to host gpu-b07 port 22: No route to host",
        "ssh.connect_failed",
        {"host": "gpu-b07", "reason": "No route to host"},
    ),
    # pmodels/mpich issue #4712; microsoft/VirtualClient pull request #752
    ("Host key verification failed.", "ssh.host_key_failed", {}),
    # kftsehk/phy-clusters issue #29 (a reinstalled node)
    (
        "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @",
        "ssh.host_key_failed",
        {},
    ),
    # horovod/horovod issue #467 (its title and its peer's address); git's form rendered
    (
        "root@10.94.1.165: Permission denied (publickey,password).",
        "ssh.auth_denied",
        {"user": "root", "host": "10.94.1.165", "methods": "publickey,password"},
    ),
    (
        "git@github.com: Permission denied (publickey).",
        "ssh.auth_denied",
        {"user": "git", "host": "github.com", "methods": "publickey"},
    ),
    # rendered from OpenSSH packet.c and kex.c
    (
        "Connection closed by 10.0.0.2 port 22",
        "ssh.connection_closed",
        {"host": "10.0.0.2", "port": "22"},
    ),
    ("kex_exchange_identification: read: Connection reset by peer", "ssh.connection_closed", {}),
]

NEGATIVE: list[tuple[str, str]] = [
    # sgl-project/sglang issue #4208: the router's routine wait for a worker still starting
    (
        "pip.uv_request_failed",
        "Worker http://10.0.0.5:30001 health check is pending with error: error sending request "
        "for url (http://10.0.0.5:30001/health)",
    ),
    # glog's other severities and a healthy line that mentions a check
    ("glog.fatal", "I0407 01:31:07.666636  5755 net.cpp:100] Creating Layer conv9"),
    ("glog.fatal", "W0407 01:31:07.666636  5755 net.cpp:100] Check failed: nothing"),
    ("glog.check_failed", "E0917 14:56:28.086491  4302 data_reader.cpp:112] Check failed: x"),
    ("glog.check_failed", "Health check failed: retrying in 5s"),
    # a device-status check is not the application's
    (
        "glog.check_failed",
        "F1014 08:55:30.083176 23568 cudnn_conv_layer.cpp:30] Check failed: status == "
        "CUDNN_STATUS_SUCCESS (6 vs. 0)  CUDNN_STATUS_ARCH_MISMATCH",
    ),
    # a failed CHECK is not also a generic fatal line
    (
        "glog.fatal",
        "F0917 14:56:28.086491  4302 data_reader.cpp:112] Check failed: new_queue_pairs_.size() "
        "== 0 (1 vs. 0) ",
    ),
    # "not found" without a shell's prefix, ssh's prefix, a Python exception
    (
        "shell.command_not_found",
        "Checking for torchrun: not found, using python -m torch.distributed.run",
    ),
    ("shell.command_not_found", "ssh: node2: not found"),
    ("shell.no_such_file", "FileNotFoundError: [Errno 2] No such file or directory: 'train.py'"),
    ("shell.no_such_file", "ls: cannot access '/data': No such file or directory"),
    ("shell.permission_denied", "PermissionError: [Errno 13] Permission denied: '/ckpt'"),
    ("shell.permission_denied", "git@github.com: Permission denied (publickey)."),
    # Python's own syntax error, a word in a message, a YAML parser's syntax error
    ("shell.syntax_error", "SyntaxError: invalid syntax"),
    ("shell.syntax_error", "yaml.scanner.ScannerError: syntax error near unexpected token"),
    (
        "shell.unbound_variable",
        "UnboundLocalError: local variable 'rank' referenced before assignment",
    ),
    ("shell.unbound_variable", "WARNING: NCCL_SOCKET_IFNAME: parameter not set, using default"),
    # pip's healthy lines
    ("pip.version_not_found", "Collecting torch==2.1.0"),
    ("pip.no_versions", "Requirement already satisfied: torch==2.1.0 in ./venv/lib/python3.11"),
    # curl's progress, wget's healthy steps
    (
        "fetch.connect_timeout",
        "Connecting to huggingface.co (huggingface.co)|18.239.50.16|:443... connected.",
    ),
    ("fetch.resolve_failed", "Resolving huggingface.co (huggingface.co)... 18.239.50.16"),
    ("fetch.http_refused", "HTTP request sent, awaiting response... 200 OK"),
    ("fetch.http_unavailable", "2024-03-04 10:12:01 (12.3 MB/s) - 'model.bin' saved [1234/1234]"),
    # ssh's own connection that worked, and bash's Permission denied
    ("ssh.auth_denied", "bash: ./train.sh: Permission denied"),
    ("ssh.connection_closed", "Connection to node2 closed."),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, BLAME)


def test_no_entry_acts_on_a_node() -> None:
    """The job's shell, its downloads and its runtimes' fatal lines name no node to act on."""
    assert_no_node_action(FAMILY_KEYS)


def test_ambiguous_lines_stay_weak() -> None:
    """What the job's setup prints as often as an outage (a name that does not resolve, a
    connection refused, a channel with no answer, a peer ssh cannot reach, pip with no versions)
    and a runtime's fatal line stay weak symptoms; a failed CHECK stays under the application
    threshold (runtimes check their devices through it too)."""
    for key in (
        "fetch.resolve_failed",
        "fetch.connect_failed",
        "conda.connection_failed",
        "ssh.connect_failed",
        "pip.no_versions",
        "glog.fatal",
    ):
        sig = CATALOG.signatures[key]
        assert sig.blame is Blame.SYMPTOM and sig.weight <= 25, key
    assert CATALOG.signatures["glog.check_failed"].weight < 50


def test_a_versions_list_decides_between_the_pin_and_the_index() -> None:
    """pip with versions listed reached the index (the pin is wrong); with none it may not have."""
    listed = (
        "ERROR: Could not find a version that satisfies the requirement x==9 (from versions: 1.0)"
    )
    none = (
        "ERROR: Could not find a version that satisfies the requirement x==9 (from versions: none)"
    )
    assert set(hits(listed)) & FAMILY_KEYS == {"pip.version_not_found"}
    assert set(hits(none)) & FAMILY_KEYS == {"pip.no_versions"}


def test_a_peer_ssh_cannot_reach_is_not_blamed_as_a_peer() -> None:
    """ssh's host is a configuration as often as a dead node: it is not captured as `peer`."""
    assert "peer" not in CATALOG.signatures["ssh.connect_failed"].compiled().groupindex
