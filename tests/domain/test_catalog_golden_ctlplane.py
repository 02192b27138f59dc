"""Golden tests for the control-plane family (signatures-ctlplane.toml), second half of sweep 7 of
issue 14: package managers fetching at job start (apt, yum/dnf, git-lfs), Slurm's client commands
talking to slurmctld and slurmdbd, and the network errors of Node.js and Go programs. The first
half (Kubernetes, cloud CLIs, Docker and containerd) is test_catalog_tracker_ctlplane.py; the
family's contract here pins every key of both.

Each line is real, cited beside it (one rendered from its format, said so), and goes through the
scanner's own matcher. A resolver that says it failed, a mirror's 5xx or a Slurm controller that
timed out is transient; a connection that only failed is a symptom of weight 20-30; a package,
LFS object or quota that is the job's own is the application's. None of these names a node.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    assert_no_node_action,
    family_contract,
    family_keys,
    golden_line_checks,
)
from domain.test_catalog_tracker_ctlplane import BLAME as CONTROL_PLANE_BLAME

FAMILY_FILE = "signatures-ctlplane.toml"
NAMESPACES = frozenset(
    {
        "kubeapi",
        "etcd",
        "webhook",
        "gcloud",
        "azcli",
        "awscli",
        "helm",
        "dockerd",
        "containerd",
        "apt",
        "yum",
        "gitlfs",
        "slurmcli",
        "nodejs",
        "gonet",
    }
)

BLAME: dict[str, Blame] = {
    "apt.resolve_temporary": Blame.TRANSIENT,
    "apt.mirror_http_error": Blame.TRANSIENT,
    "gitlfs.server_error": Blame.TRANSIENT,
    "slurmcli.controller_timeout": Blame.TRANSIENT,
    "apt.dpkg_lock_held": Blame.TRANSIENT,
    "gonet.resolver_failed": Blame.TRANSIENT,
    "apt.resolve_unknown": Blame.SYMPTOM,
    "apt.mirror_connect_failed": Blame.SYMPTOM,
    "apt.fetch_restatement": Blame.SYMPTOM,
    "apt.clock_behind": Blame.SYMPTOM,
    "yum.repo_unreachable": Blame.SYMPTOM,
    "slurmcli.slurmd_timeout": Blame.SYMPTOM,
    "slurmcli.dbd_unreachable": Blame.SYMPTOM,
    "nodejs.connect_failed": Blame.SYMPTOM,
    "apt.package_file_gone": Blame.APPLICATION,
    "apt.package_not_found": Blame.SYMPTOM,
    "yum.package_not_found": Blame.SYMPTOM,
    "gitlfs.over_quota": Blame.APPLICATION,
    "apt.release_file_missing": Blame.APPLICATION,
    "apt.gpg_key_missing": Blame.APPLICATION,
    "gitlfs.object_missing": Blame.APPLICATION,
    "gonet.x509_unknown_authority": Blame.APPLICATION,
    "gitlfs.fetch_restatement": Blame.SYMPTOM,
}

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, {**CONTROL_PLANE_BLAME, **BLAME})

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # --- apt ---
    # mikeizbicki/cmc-csci143 issue #626 (the Err: line's reason)
    (
        "  Temporary failure resolving 'archive.ubuntu.com'",
        "apt.resolve_temporary",
        {"host": "archive.ubuntu.com"},
    ),
    # giantbranch/pwn_deploy_chroot issue #1 (on GCE)
    (
        "E: Failed to fetch http://security.ubuntu.com/ubuntu/pool/main/p/perl/libperl5.22_"
        "5.22.1-9ubuntu0.5_amd64.deb  Temporary failure resolving "
        "'asia-east1.gce.archive.ubuntu.com'",
        "apt.resolve_temporary",
        {"host": "asia-east1.gce.archive.ubuntu.com"},
    ),
    # webanck/docker-wine-steam issue #3 (a build container without DNS)
    (
        "W: Failed to fetch http://archive.ubuntu.com/ubuntu/dists/trusty/Release.gpg  Could "
        "not resolve 'archive.ubuntu.com'",
        "apt.resolve_unknown",
        {"host": "archive.ubuntu.com"},
    ),
    # pop-os/popsicle issue #174
    (
        "E: Failed to fetch http://us.archive.ubuntu.com/ubuntu/pool/main/u/util-linux/mount_"
        "2.36.1-8ubuntu2.2_amd64.deb  Connection failed [IP: 91.189.91.38 80]",
        "apt.mirror_connect_failed",
        {"reason": "Connection failed", "ip": "91.189.91.38", "port": "80"},
    ),
    # ntop/ntopng issue #7250 (a Raspbian mirror)
    (
        "E: Failed to fetch http://raspbian.mirror.net.in/raspbian/raspbian/pool/main/s/sudo/"
        "sudo_1.9.5p2-3+deb11u1_armhf.deb  Connection failed [IP: 103.195.68.3 80]",
        "apt.mirror_connect_failed",
        {"reason": "Connection failed", "ip": "103.195.68.3", "port": "80"},
    ),
    # microsoft/WSL issue #2914 (the Err: line's reason; an antivirus's firewall)
    (
        "  Connection failed [IP: 91.189.88.162 80]",
        "apt.mirror_connect_failed",
        {"reason": "Connection failed", "ip": "91.189.88.162", "port": "80"},
    ),
    # km4ack/pi-build issue #89 (an IPv6 mirror)
    (
        "  Connection failed [IP: 2605:5800:1:1::7 80]",
        "apt.mirror_connect_failed",
        {"ip": "2605:5800:1:1::7", "port": "80"},
    ),
    # rendered from apt's http method format ("<status>  <reason> [IP: <addr> <port>]"); no
    # attributable public line found for a 5xx
    (
        "E: Failed to fetch http://archive.ubuntu.com/ubuntu/pool/main/r/rdma-core/libibverbs-"
        "dev_39.0-1_amd64.deb  503  Service Unavailable [IP: 91.189.91.38 80]",
        "apt.mirror_http_error",
        {"status": "503", "ip": "91.189.91.38", "port": "80"},
    ),
    # sassoftware/viya4-deployment issue #44 (a stale package index in a docker build)
    (
        "E: Failed to fetch http://security.ubuntu.com/ubuntu/pool/main/c/curl/libcurl3-gnutls_"
        "7.68.0-1ubuntu2.2_amd64.deb  404  Not Found [IP: 91.189.88.152 80]",
        "apt.package_file_gone",
        {"ip": "91.189.88.152", "port": "80"},
    ),
    # kivy/buildozer pull request #1107 (one space between the status and the reason)
    (
        "E: Failed to fetch http://security.ubuntu.com/ubuntu/pool/main/f/file/libmagic-mgc_"
        "5.32-2ubuntu0.3_amd64.deb 404 Not Found [IP: 91.189.88.142 80]",
        "apt.package_file_gone",
        {"ip": "91.189.88.142", "port": "80"},
    ),
    # google/clusterfuzz pull request #1929 (CUDA packages before their repository)
    ("E: Unable to locate package cuda-10-1", "apt.package_not_found", {"package": "cuda-10-1"}),
    # Lancelot39/Causal-Copilot issue #49
    (
        "E: Unable to locate package cuda-toolkit-dev",
        "apt.package_not_found",
        {"package": "cuda-toolkit-dev"},
    ),
    # ntop/ntopng issue #7250
    (
        "E: Unable to fetch some archives, maybe run apt-get update or try with --fix-missing?",
        "apt.fetch_restatement",
        {},
    ),
    # Lab41/PySEAL issue #30 (an end-of-life Ubuntu release)
    (
        "E: The repository 'http://archive.ubuntu.com/ubuntu artful Release' does not have a "
        "Release file.",
        "apt.release_file_missing",
        {"repo": "http://archive.ubuntu.com/ubuntu artful Release"},
    ),
    # docker/docs issue #10741 (older apt warns)
    (
        "W: The repository 'https://apt.dockerproject.org/repo ubuntu-xenial Release' does not "
        "have a Release file.",
        "apt.release_file_missing",
        {"repo": "https://apt.dockerproject.org/repo ubuntu-xenial Release"},
    ),
    # acbull/pyHGT issue #58 (NVIDIA's CUDA repository key rotation)
    (
        "GPG error: https://developer.download.nvidia.com/compute/cuda/repos/ubuntu1804/x86_64  "
        "InRelease: The following signatures couldn't be verified because the public key is not "
        "available: NO_PUBKEY A4B469963BF863CC",
        "apt.gpg_key_missing",
        {"key": "A4B469963BF863CC"},
    ),
    # ZANSIN-sec/ZANSIN issue #62 (the clock 17 days behind, through Ansible)
    (
        "E:Release file for http://security.ubuntu.com/ubuntu/dists/jammy-security/InRelease is "
        "not valid yet (invalid for another 17d 11h 5min 38s). Updates for this repository will "
        "not be applied.",
        "apt.clock_behind",
        {
            "url": "http://security.ubuntu.com/ubuntu/dists/jammy-security/InRelease",
            "delta": "17d 11h 5min 38s",
        },
    ),
    # servo/ci-runners issue #57 (unattended-upgrades at boot)
    (
        "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 2448 "
        "(unattended-upgr)",
        "apt.dpkg_lock_held",
        {"lock": "/var/lib/dpkg/lock-frontend", "pid": "2448", "holder": "unattended-upgr"},
    ),
    # QuickBox/QB issue #185 (older apt's wording)
    (
        "E: Could not get lock /var/lib/dpkg/lock-frontend - open (11: Resource temporarily "
        "unavailable)",
        "apt.dpkg_lock_held",
        {"lock": "/var/lib/dpkg/lock-frontend"},
    ),
    # --- yum / dnf ---
    # devopshydclub/vprofile-project issue #213 (CentOS 7's retired mirrorlist)
    (
        "Could not retrieve mirrorlist http://mirrorlist.centos.org/?release=7&arch=x86_64&repo="
        "os&infra=stock error was",
        "yum.repo_unreachable",
        {"url": "http://mirrorlist.centos.org/?release=7&arch=x86_64&repo=os&infra=stock"},
    ),
    # wazuh/wazuh-qa issue #5575
    (
        "Cannot find a valid baseurl for repo: centos-sclo-rh/x86_64",
        "yum.repo_unreachable",
        {"repo": "centos-sclo-rh/x86_64"},
    ),
    # conda/conda issue #5481 (yum on CentOS 6 behind timing-out mirrors)
    (
        "Error: Cannot retrieve repository metadata (repomd.xml) for repository: base. Please "
        "verify its path and try again",
        "yum.repo_unreachable",
        {"repomd_repo": "base"},
    ),
    # furlongm/patchman issue #548 (the repository host timing out)
    (
        "Error: Failed to download metadata for repo 'openbytes': Cannot download repomd.xml: "
        "Cannot download repodata/repomd.xml: All mirrors were tried",
        "yum.repo_unreachable",
        {"metadata_repo": "openbytes"},
    ),
    # openshift/jenkins issue #1774 (its title)
    ("Unable to find a match: file", "yum.package_not_found", {"package": "file"}),
    # --- git-lfs ---
    # git-lfs/git-lfs issue #4919 (a push answered 503; the URL printed through a format bug)
    (
        "Fatal error: Server error &{%!!(string=https) %!!(string=) %!!(*url.Userinfo=<nil>) "
        "%!!(string=[the remote server URL]) %!!(string=/storage/lfs/207381/objects/deca65f30949"
        "43a1af148cf64fd6c0deb503219d12de0e172b7f948d07a8e6a8) %!!(string=) %!!(bool=false) "
        "%!!(string=) %!!(string=) %!!(string=)}s(MISSING) from HTTP 503",
        "gitlfs.server_error",
        {"status": "503"},
    ),
    # rendered from git-lfs lfshttp/errors.go defaultError (500: "Server error: %s") behind
    # tq/api.go's "batch response: " (git-lfs/git-lfs issue #1858 is titled with it)
    (
        "batch response: Fatal error: Server error: https://github.com/org/repo.git/info/lfs/"
        "objects/batch",
        "gitlfs.server_error",
        {"batch_error": "Server error"},
    ),
    # cBioPortal/datahub issue #1990
    (
        "batch response: This repository is over its data quota. Account responsible for LFS "
        "bandwidth should purchase more data packs to restore access.",
        "gitlfs.over_quota",
        {},
    ),
    # git-lfs/git-lfs issue #2752 (the remote renamed)
    (
        "Error downloading object: Assets/Plugins/PS4/libfmodL_stub.a (7ac611e): Smudge error: "
        "Error downloading Assets/Plugins/PS4/libfmodL_stub.a (7ac611ee2a2f2d8f992c892fd7e2a9be"
        "49768d7c945ae154883ca1e7bd6c3d6e): [7ac611ee2a2f2d8f992c892fd7e2a9be49768d7c945ae15488"
        "3ca1e7bd6c3d6e] Object does not exist on the server or you don't have permissions to "
        "access it: [404] Object does not exist on the server or you don't have permissions to "
        "access it",
        "gitlfs.object_missing",
        {},
    ),
    # git-lfs/git-lfs issue #4036 (an enterprise server's batch endpoint answering 404)
    (
        "Error downloading object: 01_Supporting_Process/05_Presentation/UseCases/SaFu_UseCase"
        "Overview.pptx (b8fd4bc): Smudge error: Error downloading 01_Supporting_Process/05_"
        "Presentation/UseCases/SaFu_UseCaseOverview.pptx (b8fd4bc6280de16642d6955237194c3701d98d0"
        "fdb366b3bf42737779fba8ba8): batch response: Repository or object not found: "
        "http://github.conti.de/_lfs/ADAS/SaFu/objects/batch",
        "gitlfs.object_missing",
        {"batch_url": "http://github.conti.de/_lfs/ADAS/SaFu/objects/batch"},
    ),
    # chrundle/biprop issue #4 (after the quota refusal)
    (
        "Failed to fetch some objects from 'https://github.com/chrundle/biprop.git/info/lfs'",
        "gitlfs.fetch_restatement",
        {"url": "https://github.com/chrundle/biprop.git/info/lfs"},
    ),
    # wx-chevalier/Awesome-Books-Notes issue #8 (older lower-case wording)
    (
        "error: failed to fetch some objects from 'https://github.com/wx-chevalier/Awesome-CS-"
        "Books-and-Digests.git/info/lfs'",
        "gitlfs.fetch_restatement",
        {"url": "https://github.com/wx-chevalier/Awesome-CS-Books-and-Digests.git/info/lfs"},
    ),
    # --- Slurm client commands ---
    # ReactionMechanismGenerator/ARC issue #394 (squeue while the cluster struggled)
    (
        "squeue: error: slurm_receive_msg: Socket timed out on send/recv operation, ",
        "slurmcli.controller_timeout",
        {"command": "squeue", "reason": "Socket timed out on send/recv operation"},
    ),
    # awslabs/awsome-distributed-ai pull request #452 (scontrol reconfigure)
    (
        "slurm_reconfigure error: Socket timed out on send/recv operation",
        "slurmcli.controller_timeout",
        {"call": "reconfigure", "call_reason": "Socket timed out on send/recv operation"},
    ),
    # the retry message sbatch prints while slurmctld does not answer, as quoted in a public
    # job runner's retry code (find_string); format from Slurm src/api/allocate.c
    (
        "sbatch: error: Slurm controller not responding, sleeping and retrying.",
        "slurmcli.controller_timeout",
        {"retry_command": "sbatch"},
    ),
    # aws/aws-parallelcluster issue #4179 (a step launch over hundreds of nodes)
    (
        "srun: error: slurm_receive_msgs: [[ip-172-31-230-255.ec2.internal]:6818] failed: Socket "
        "timed out on send/recv operation",
        "slurmcli.slurmd_timeout",
        {"host": "ip-172-31-230-255.ec2.internal", "port": "6818"},
    ),
    # giovtorres/slurm-docker-cluster issue #33 (slurmdbd not up yet)
    (
        "sacctmgr: error: slurm_persist_conn_open_without_init: failed to open persistent "
        "connection to slurmdbd:6819: Connection timed out",
        "slurmcli.dbd_unreachable",
        {"host": "slurmdbd", "port": "6819", "reason": "Connection timed out"},
    ),
    (
        "sacctmgr: error: slurmdbd: Sending PersistInit msg: Connection timed out",
        "slurmcli.dbd_unreachable",
        {"init_reason": "Connection timed out"},
    ),
    (
        "sacctmgr: error: Problem talking to the database: Connection timed out",
        "slurmcli.dbd_unreachable",
        {"db_reason": "Connection timed out"},
    ),
    # aws-samples/aws-parallelcluster-hpc-quickstart issue #119 (the database host refusing)
    (
        "STDERR: sacctmgr: error: slurm_persist_conn_open_without_init: failed to open persistent "
        "connection to host:ip-172-25-7-120:6819: Connection refused",
        "slurmcli.dbd_unreachable",
        {"host": "ip-172-25-7-120", "port": "6819", "reason": "Connection refused"},
    ),
    # --- Node.js and Go ---
    # nodejs/node issue #31469
    (
        "{ Error: connect ETIMEDOUT 13.110.0.73:443",
        "nodejs.connect_failed",
        {"code": "ETIMEDOUT", "address": "13.110.0.73:443"},
    ),
    # npm/npm issue #15889
    (
        "npm ERR! network connect ETIMEDOUT 151.101.64.162:80",
        "nodejs.connect_failed",
        {"code": "ETIMEDOUT", "address": "151.101.64.162:80"},
    ),
    # npm/npm issue #14509
    (
        "676 silly fetchPackageMetaData Error: connect ETIMEDOUT 151.101.8.162:443",
        "nodejs.connect_failed",
        {"code": "ETIMEDOUT", "address": "151.101.8.162:443"},
    ),
    # docker-library/hello-world issue #86 (a corporate proxy)
    (
        "Error response from daemon: Get https://registry-1.docker.io/v2/: x509: certificate "
        "signed by unknown authority",
        "gonet.x509_unknown_authority",
        {},
    ),
    # docker/docs issue #15142
    (
        'docker: Error response from daemon: Get "https://registry-1.docker.io/v2/": x509: '
        "certificate signed by unknown authority.",
        "gonet.x509_unknown_authority",
        {},
    ),
    # docker-archive-public/docker.kitematic issue #4117 (a pull through Docker Desktop's DNS)
    (
        "Error response from daemon: Get https://registry-1.docker.io/v2/: dial tcp: lookup "
        "registry-1.docker.io on 192.168.65.1:53: server misbehaving",
        "gonet.resolver_failed",
        {"host": "registry-1.docker.io", "resolver": "192.168.65.1:53"},
    ),
    # gophish/gophish issue #672
    (
        "dial tcp: lookup mailserver.fred3riksberg.dk on 192.168.0.20:53: server misbehaving",
        "gonet.resolver_failed",
        {"host": "mailserver.fred3riksberg.dk", "resolver": "192.168.0.20:53"},
    ),
    # coaidev/coai issue #363 (Docker's embedded DNS failing now and then)
    (
        "[WARNING] - [2025-04-10 22:24:48] - [connection] failed to connect to mysql server: "
        "mysql_3ic5CC (message: dial tcp: lookup mysql_3ic5CC on 127.0.0.53:53: server "
        "misbehaving), will retry in 5 seconds",
        "gonet.resolver_failed",
        {"host": "mysql_3ic5CC", "resolver": "127.0.0.53:53"},
    ),
    # Windscribe/Desktop-App issue #199 (the resolver not answering)
    (
        "dial tcp4: lookup site.com on 127.0.0.1:53: server misbehaving",
        "gonet.resolver_failed",
        {"host": "site.com", "resolver": "127.0.0.1:53"},
    ),
]

# (signal, line that must not be read as it)
NEGATIVE: list[tuple[str, str]] = [
    # glibc's EAI_AGAIN text is service.dns_failure's
    ("apt.resolve_temporary", "socket.gaierror: [Errno -3] Temporary failure in name resolution"),
    # apt's healthy progress lines
    (
        "apt.mirror_connect_failed",
        "Get:1 http://archive.ubuntu.com/ubuntu xenial InRelease [247 kB]",
    ),
    ("apt.mirror_http_error", "Hit:4 http://archive.ubuntu.com/ubuntu noble InRelease"),
    ("apt.package_file_gone", "Ign:1 http://archive.ubuntu.com/ubuntu noble InRelease"),
    ("apt.package_not_found", "Reading package lists... Done"),
    ("apt.fetch_restatement", "Fetched 64.3 MB in 7min 18s (147 kB/s)"),
    ("apt.release_file_missing", "Get:2 http://archive.ubuntu.com/ubuntu jammy-updates InRelease"),
    ("apt.gpg_key_missing", "gpg: key A4B469963BF863CC: public key imported"),
    ("apt.clock_behind", "Get:1 http://kali.download/kali kali-rolling InRelease [30.5 kB]"),
    ("apt.dpkg_lock_held", "Waiting for cache lock"),
    ("gitlfs.object_missing", "Downloading public/hana-tweet.png (32 KB)"),
    ("gitlfs.fetch_restatement", "Fetching reference refs/heads/main"),
    (
        "gonet.x509_unknown_authority",
        "Unable to connect to the server: x509: certificate has expired or is not yet valid",
    ),
    ("yum.repo_unreachable", "Loading mirror speeds from cached hostfile"),
    ("yum.package_not_found", "Package git-2.39.3-1.el8_8.x86_64 is already installed."),
    # git-lfs progress, and the quota refusal is not the server's outage
    ("gitlfs.server_error", "Downloading LFS objects: 100% (12/12), 1.2 GB | 30 MB/s"),
    (
        "gitlfs.server_error",
        "batch response: This repository is over its data quota. Account responsible for LFS "
        "bandwidth should purchase more data packs to restore access.",
    ),
    ("gitlfs.over_quota", "Uploading LFS objects: 100% (3/3), 40 MB | 5.1 MB/s, done."),
    # slurm_load_* is slurm.controller_unreachable's, not counted twice
    (
        "slurmcli.controller_timeout",
        "slurm_load_jobs error: Socket timed out on send/recv operation",
    ),
    ("slurmcli.controller_timeout", "squeue: error: Invalid user: nobody"),
    (
        "slurmcli.slurmd_timeout",
        "srun: Job 1234 step creation temporarily disabled, retrying (Requested nodes are busy)",
    ),
    ("slurmcli.dbd_unreachable", "sacctmgr: Adding Cluster(s)"),
    ("nodejs.connect_failed", "Server listening on http://0.0.0.0:3000"),
    ("nodejs.connect_failed", "Error: read ECONNRESET"),
    # a name that does not exist is service.dns_unknown_host's
    ("gonet.resolver_failed", "dial tcp: lookup registry-1.docker.io: no such host"),
]

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_no_entry_names_or_acts_on_a_node() -> None:
    """The control plane, a mirror or a cloud's stock is never the job's node."""
    assert_no_node_action(family_keys(FAMILY_FILE))
    for key in family_keys(FAMILY_FILE):
        assert CATALOG.signatures[key].blame is not Blame.HARDWARE, key


def test_a_connection_that_only_failed_is_a_weak_symptom() -> None:
    """Setup and outage read the same in a failed connect: 20-30 (the transient audit's rule),
    and a daemon that is not running or a restatement weaker still."""
    for key in ("kubeapi.unreachable", "apt.resolve_unknown", "apt.mirror_connect_failed",
                "yum.repo_unreachable", "slurmcli.slurmd_timeout", "slurmcli.dbd_unreachable",
                "nodejs.connect_failed", "dockerd.registry_eof", "helm.repo_unreachable"):  # fmt: skip
        assert 20 <= CATALOG.signatures[key].weight <= 30, key
    for key in ("dockerd.daemon_unreachable", "apt.fetch_restatement", "gitlfs.fetch_restatement",
                "kubeapi.wait_timed_out"):  # fmt: skip
        assert CATALOG.signatures[key].weight < 20, key


def test_an_outage_of_the_control_plane_is_a_retry() -> None:
    """An answer that says the service failed is transient at 45-60, below a decisive verdict."""
    for key, pinned in {**CONTROL_PLANE_BLAME, **BLAME}.items():
        if pinned is Blame.TRANSIENT:
            assert 45 <= CATALOG.signatures[key].weight <= 60, key
