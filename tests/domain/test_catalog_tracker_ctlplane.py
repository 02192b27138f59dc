"""Golden lines from sweep 7 of issue 14 over the tooling and control planes around a job: kubectl
and the Kubernetes API server (etcd behind it, admission webhooks in front), the Docker CLI and its
daemon, package managers at job start (apt, yum/dnf, git-lfs), gcloud creating TPUs, Slurm's client
commands talking to slurmctld and slurmdbd, and the network errors of Node.js and Go programs.

Each line is real, cited beside it (one rendered from its format, said so), and goes through the
scanner's own matcher. The blame is pinned to what the line alone says: an overloaded control
plane, a resolver that failed, a mirror's 5xx or a zone out of capacity is transient; a connection
that only failed is a symptom of weight 20-30 (the transient audit's rule); a package that does not
exist, a webhook's denial, a missing kubeconfig or a spent LFS quota is the job's own setup. None
of these names a node. Look-alikes (healthy output, the neighbouring entries' lines) must not match.
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

FAMILY_FILE = "signatures-ctlplane.toml"
NAMESPACES = frozenset(
    {
        "kubeapi",
        "etcd",
        "webhook",
        "gcloud",
        "dockerd",
        "apt",
        "yum",
        "gitlfs",
        "slurmcli",
        "nodejs",
        "gonet",
        "azcli",
        "containerd",
        "awscli",
        "helm",
    }
)

BLAME: dict[str, Blame] = {
    # the control plane or an outside service failed: retry, never a node
    "kubeapi.server_unavailable": Blame.TRANSIENT,
    "etcd.request_failed": Blame.TRANSIENT,
    "webhook.call_failed": Blame.TRANSIENT,
    "gcloud.tpu_no_capacity": Blame.TRANSIENT,
    "apt.resolve_temporary": Blame.TRANSIENT,
    "apt.mirror_http_error": Blame.TRANSIENT,
    "gitlfs.server_error": Blame.TRANSIENT,
    "slurmcli.controller_timeout": Blame.TRANSIENT,
    "apt.dpkg_lock_held": Blame.TRANSIENT,
    "containerd.pull_timeout": Blame.TRANSIENT,
    "gonet.resolver_failed": Blame.TRANSIENT,
    # a connection or a lookup that only failed: setup and outage read the same
    "kubeapi.unreachable": Blame.SYMPTOM,
    "dockerd.daemon_unreachable": Blame.SYMPTOM,
    "apt.resolve_unknown": Blame.SYMPTOM,
    "apt.mirror_connect_failed": Blame.SYMPTOM,
    "apt.fetch_restatement": Blame.SYMPTOM,
    "apt.clock_behind": Blame.SYMPTOM,
    "yum.repo_unreachable": Blame.SYMPTOM,
    "slurmcli.slurmd_timeout": Blame.SYMPTOM,
    "slurmcli.dbd_unreachable": Blame.SYMPTOM,
    "nodejs.connect_failed": Blame.SYMPTOM,
    # the job's own setup: a retry fails the same way
    "webhook.denied": Blame.APPLICATION,
    "kubeapi.no_kubeconfig": Blame.APPLICATION,
    "dockerd.socket_permission_denied": Blame.APPLICATION,
    "apt.package_file_gone": Blame.APPLICATION,
    "apt.package_not_found": Blame.APPLICATION,
    "yum.package_not_found": Blame.APPLICATION,
    "gitlfs.over_quota": Blame.APPLICATION,
    "kubeapi.unauthorized": Blame.APPLICATION,
    "kubeapi.rbac_forbidden": Blame.APPLICATION,
    "dockerd.registry_unauthorized": Blame.APPLICATION,
    "apt.release_file_missing": Blame.APPLICATION,
    "apt.gpg_key_missing": Blame.APPLICATION,
    "kubeapi.kind_not_installed": Blame.APPLICATION,
    "azcli.not_logged_in": Blame.APPLICATION,
    "gcloud.no_active_account": Blame.APPLICATION,
    "gitlfs.object_missing": Blame.APPLICATION,
    "awscli.credentials_refused": Blame.APPLICATION,
    "gcloud.quota_limit_exceeded": Blame.APPLICATION,
    "helm.repo_index_missing": Blame.APPLICATION,
    "helm.repo_unreachable": Blame.SYMPTOM,
    "dockerd.registry_eof": Blame.SYMPTOM,
    "gonet.x509_unknown_authority": Blame.APPLICATION,
    "gitlfs.fetch_restatement": Blame.SYMPTOM,
    "kubeapi.kubelet_unreachable": Blame.SYMPTOM,
    "kubeapi.certificate_expired": Blame.SYMPTOM,
}

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, BLAME)

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # --- Kubernetes API server, etcd, admission webhooks ---
    # XenitAB/azad-kube-proxy issue #206 (kubectl through a proxy answering 503)
    (
        "Error from server (ServiceUnavailable): the server is currently unable to handle the "
        "request (get pods)",
        "kubeapi.server_unavailable",
        {"reason": "ServiceUnavailable"},
    ),
    # vitobotta/hetzner-k3s issue #83 (k3s not serving yet)
    (
        "Error from server (ServiceUnavailable): the server is currently unable to handle the "
        "request",
        "kubeapi.server_unavailable",
        {"reason": "ServiceUnavailable"},
    ),
    # kubernetes/test-infra issue #16081 (the metrics.k8s.io aggregated API down)
    (
        "Error from server (ServiceUnavailable): the server is currently unable to handle the "
        "request (get nodes.metrics.k8s.io)",
        "kubeapi.server_unavailable",
        {"reason": "ServiceUnavailable"},
    ),
    # tektoncd/pipeline issue #3317 (kubectl apply -v9; klog's F-line)
    (
        "F1001 16:08:37.827839   14169 helpers.go:115] Error from server (Timeout): error when "
        "applying patch:",
        "kubeapi.server_unavailable",
        {"reason": "Timeout"},
    ),
    # etcd-io/etcd issue #12468 (a single-member etcd under load)
    (
        "Nov 11 18:52:40 haproxy-etcd etcd[2044]: got unexpected response error (etcdserver: "
        "request timed out)",
        "etcd.request_failed",
        {"error": "request timed out"},
    ),
    # etcd-io/etcd issue #1583
    (
        "2014/11/03 13:59:07 etcdserver: publish error: etcdserver: request timed out",
        "etcd.request_failed",
        {"error": "request timed out"},
    ),
    # etcd-io/etcd issue #2818 (etcd2 under systemd)
    (
        "May 12 20:12:44 wwserver194.alphalocal.com etcd2[1627]: 2015/05/12 20:12:44 etcdhttp: "
        "unexpected error: etcdserver: request timed out",
        "etcd.request_failed",
        {"error": "request timed out"},
    ),
    # etcd-io/etcd issue #5936 (its title)
    (
        "etcdhttp: etcdserver: request timed out, possibly due to previous leader failure",
        "etcd.request_failed",
        {"error": "request timed out, possibly due to previous leader failure"},
    ),
    # kyverno/kyverno issue #2869 (GKE; a firewall rule for the webhook's port)
    (
        "Error from server (InternalError): Internal error occurred: failed calling webhook "
        '"validate.kyverno.svc-fail": Post "https://kyverno-svc.kyverno.svc:443/validate?'
        'timeout=10s": context deadline exceeded',
        "webhook.call_failed",
        {"webhook": "validate.kyverno.svc-fail"},
    ),
    # zq2599/blog_demos issue #108 (cert-manager's webhook during make deploy)
    (
        'Error from server (InternalError): error when creating "STDIN": Internal error '
        'occurred: failed calling webhook "webhook.cert-manager.io": Post https://cert-manager-'
        "webhook.cert-manager.svc:443/validate?timeout=10s: context deadline exceeded",
        "webhook.call_failed",
        {"webhook": "webhook.cert-manager.io"},
    ),
    # chaos-mesh/chaos-mesh issue #2898
    (
        'Error from server (InternalError): error when creating "cpu.yaml": Internal error '
        'occurred: failed calling webhook "mstresschaos.kb.io": Post "https://chaos-mesh-'
        "controller-manager.chaos-testing.svc:443/mutate-chaos-mesh-org-v1alpha1-stresschaos?"
        'timeout=5s": context deadline exceeded.',
        "webhook.call_failed",
        {"webhook": "mstresschaos.kb.io"},
    ),
    # projectcalico/calico issue #3809 (the API server's own E-line)
    (
        "E0719 17:46:09.471986       1 dispatcher.go:169] failed calling webhook "
        '"couchbase-operator-admission.default.svc": Post https://couchbase-operator-admission.'
        "default.svc:443/couchbaseclusters/mutate?timeout=30s: context deadline exceeded",
        "webhook.call_failed",
        {"webhook": "couchbase-operator-admission.default.svc"},
    ),
    # helm/helm issue #9453 (a webhook denying every pod)
    (
        'Error from server: admission webhook "com.site.admission-webhook" denied the request: '
        "Not Allowed",
        "webhook.denied",
        {"webhook": "com.site.admission-webhook"},
    ),
    # kelseyhightower/grafeas-tutorial issue #8 (an image-signature webhook)
    (
        'Error from server: error when creating "pods/echod.yaml": admission webhook '
        '"image-signature.hightowerlabs.com" denied the request without explanation',
        "webhook.denied",
        {"webhook": "image-signature.hightowerlabs.com"},
    ),
    # chzbrgr71/container-hackfest issue #13 (AKS)
    (
        "Unable to connect to the server: dial tcp 52.183.119.19:443: i/o timeout",
        "kubeapi.unreachable",
        {"cause": "dial tcp 52.183.119.19:443: i/o timeout"},
    ),
    # kubernetes/kops issue #1526 (an admin-access CIDR that left the client out)
    (
        "Unable to connect to the server: dial tcp IP:443: i/o timeout",
        "kubeapi.unreachable",
        {"cause": "dial tcp IP:443: i/o timeout"},
    ),
    # kubernetes/kubectl issue #720
    (
        "Unable to connect to the server: net/http: TLS handshake timeout",
        "kubeapi.unreachable",
        {"cause": "net/http: TLS handshake timeout"},
    ),
    # kubernetes/kubernetes issue #21115 (the cluster had been deleted)
    (
        "error: couldn't read version from server: Get https://107.178.212.121/api: dial tcp "
        "107.178.212.121:443: i/o timeout",
        "kubeapi.unreachable",
        {},
    ),
    # kubernetes/website issue #19461 (the API server not running)
    (
        "The connection to the server 10.190.67.31:6443 was refused - did you specify the right "
        "host or port?",
        "kubeapi.unreachable",
        {"server": "10.190.67.31:6443"},
    ),
    # kubernetes/website issue #12075 (kubectl with no kubeconfig)
    (
        "The connection to the server localhost:8080 was refused - did you specify the right "
        "host or port?",
        "kubeapi.no_kubeconfig",
        {},
    ),
    # canonical/microk8s issue #1626 (a token the cluster did not accept)
    (
        "error: You must be logged in to the server (Unauthorized)",
        "kubeapi.unauthorized",
        {"reason": "Unauthorized"},
    ),
    # infrahq/infra issue #1181 (the newer wording)
    (
        "error: You must be logged in to the server (the server has asked for the client to "
        "provide credentials)",
        "kubeapi.unauthorized",
        {"reason": "the server has asked for the client to provide credentials"},
    ),
    # nais/naiserator issue #172 (a deploy service account without the role)
    (
        'Error from server (Forbidden): error when creating "./nais/nais-dev-deploy.yaml": '
        'services is forbidden: User "system:serviceaccount:default:serviceuser-teamdagpenger" '
        'cannot create resource "services" in API group "" in the namespace "default"',
        "kubeapi.rbac_forbidden",
        {
            "user": "system:serviceaccount:default:serviceuser-teamdagpenger",
            "verb": "create",
            "resource": "services",
        },
    ),
    # kubernetes/kubernetes issue #122554
    (
        'Error from server (Forbidden): namespaces is forbidden: User "minio-operator" cannot '
        'create resource "namespaces" in API group "" at the cluster scope',
        "kubeapi.rbac_forbidden",
        {"user": "minio-operator", "verb": "create", "resource": "namespaces"},
    ),
    # kubernetes/kubernetes issue #127720 (kubectl -v9's Status object, quotes escaped)
    (
        '  "message": "nodes is forbidden: User \\"system:serviceaccount:default:test\\" '
        'cannot list resource \\"nodes\\" in API group \\"\\" at the cluster scope",',
        "kubeapi.rbac_forbidden",
        {"user": "system:serviceaccount:default:test", "verb": "list", "resource": "nodes"},
    ),
    # kubeflow/kubeflow issue #4571 (the TFJob CRD not deployed)
    (
        'error: unable to recognize "test.yaml": no matches for kind "TFJob" in version '
        '"kubeflow.org/v1"',
        "kubeapi.kind_not_installed",
        {"kind": "TFJob", "version": "kubeflow.org/v1"},
    ),
    # kubeflow/katib issue #1228 (the trial controller's event)
    (
        'Failed to reconcile: no matches for kind "TFJob" in version "kubeflow.org/v1"',
        "kubeapi.kind_not_installed",
        {"kind": "TFJob", "version": "kubeflow.org/v1"},
    ),
    # aliyun/ack-set-context issue #1 (helm against a cluster with no public endpoint)
    (
        'Error: Kubernetes cluster unreachable: Get "https://192.168.0.224:6443/version?'
        'timeout=32s": dial tcp 192.168.0.224:6443: i/o timeout',
        "kubeapi.unreachable",
        {
            "helm_cause": 'Get "https://192.168.0.224:6443/version?timeout=32s": dial tcp '
            "192.168.0.224:6443: i/o timeout"
        },
    ),
    # cilium/cilium issue #18806 (helm with no kubeconfig)
    (
        'Error: Kubernetes cluster unreachable: Get "http://localhost:8080/version?timeout=32s": '
        "dial tcp [::1]:8080: connect: connection refused",
        "kubeapi.no_kubeconfig",
        {},
    ),
    # kubernetes/kubernetes issue #107186 (kubectl exec; OpenStack security groups)
    (
        "Error from server: error dialing backend: dial tcp 10.0.3.123:10250: i/o timeout",
        "kubeapi.kubelet_unreachable",
        {"kubelet": "10.0.3.123", "cause": "i/o timeout"},
    ),
    # kubernetes/kubernetes issue #62511
    (
        "Error from server: error dialing backend: dial tcp 192.168.1.14:10250: getsockopt: no "
        "route to host",
        "kubeapi.kubelet_unreachable",
        {"kubelet": "192.168.1.14", "cause": "getsockopt: no route to host"},
    ),
    # kubernetes/kubernetes issue #102139 (kubectl logs -f)
    (
        'Error from server: Get "https://192.168.1.109:10250/containerLogs/default/crm-dev-fe-'
        '55b9cd7c86-zlzkd/crm-dev-fe?follow=true": dial tcp 192.168.1.109:10250: i/o timeout',
        "kubeapi.kubelet_unreachable",
        {"kubelet": "192.168.1.109", "cause": "i/o timeout"},
    ),
    # kubernetes/website issue #19638
    (
        "Error from server: error dialing backend: dial tcp XX.XX.XX.XX:10250: connect: "
        "connection refused",
        "kubeapi.kubelet_unreachable",
        {"kubelet": "XX.XX.XX.XX", "cause": "connect: connection refused"},
    ),
    # canonical/microk8s issue #2638
    (
        "Unable to connect to the server: x509: certificate has expired or is not yet valid",
        "kubeapi.certificate_expired",
        {},
    ),
    # rootsongjc/kubernetes-vagrant-centos-cluster issue #112 (Go's newer wording)
    (
        "Unable to connect to the server: x509: certificate has expired or is not yet valid: "
        "current time 2023-01-09T22:08:46+08:00 is after 2023-01-09T09:34:00Z",
        "kubeapi.certificate_expired",
        {},
    ),
    # freifunkMUC/wg-access-server-chart issue #8 (no index.yaml published)
    (
        'Error: looks like "https://freifunkMUC.github.io/wg-access-server-chart/" is not a valid '
        "chart repository or cannot be reached: failed to fetch https://freifunkMUC.github.io/wg-"
        "access-server-chart/index.yaml : 404 Not Found",
        "helm.repo_index_missing",
        {"url": "https://freifunkMUC.github.io/wg-access-server-chart/index.yaml"},
    ),
    # ariga/atlas issue #3591 (an OCI registry used as a classic repository)
    (
        'Error: looks like "oci://ghcr.io/ariga/charts/atlas-operator" is not a valid chart '
        "repository or cannot be reached: ghcr.io/ariga/charts/atlas-operator/index.yaml@: not found",
        "helm.repo_index_missing",
        {"oci_index": "ghcr.io/ariga/charts/atlas-operator/index.yaml"},
    ),
    # rowanruseler/helm-charts issue #78 (a trailing slash; the host did not resolve)
    (
        'Error: looks like "https://helm.runix.net/" is not a valid chart repository or cannot be '
        "reached: Get https://helm.runix.net/index.yaml: dial tcp: lookup helm.runix.net on "
        "127.0.0.53:53: no such host",
        "helm.repo_unreachable",
        {"repo": "https://helm.runix.net/"},
    ),
    # acryldata/datahub-helm issue #172 (no resolver in the environment)
    (
        'Error: looks like "https://helm.datahubproject.io/" is not a valid chart repository or '
        'cannot be reached: Get "https://helm.datahubproject.io/index.yaml": dial tcp: lookup '
        "helm.datahubproject.io on [::1]:53: read udp [::1]:35408->[::1]:53: read: connection "
        "refused",
        "helm.repo_unreachable",
        {"repo": "https://helm.datahubproject.io/"},
    ),
    # helm/helm issue #1332 (an index that did not parse)
    (
        'Error: Looks like "http://storage.googleapis.com/orangesys-charts" is not a valid chart '
        "repository or cannot be reached: error unmarshaling JSON: json: cannot unmarshal string "
        "into Go value of type repo.IndexFile",
        "helm.repo_unreachable",
        {"repo": "http://storage.googleapis.com/orangesys-charts"},
    ),
    # --- cloud CLIs ---
    # Azure/azure-cli issue #23750 (az webapp up before az login)
    ("ERROR: Please run 'az login' to setup account.", "azcli.not_logged_in", {}),
    # jacksegal/google-compute-snapshot issue #33
    (
        "ERROR: (gcloud.compute.disks.list) You do not currently have an active account selected.",
        "gcloud.no_active_account",
        {"command": "compute.disks.list"},
    ),
    # akka/akka-core issue #30623 (a CI job whose secrets were missing)
    (
        "ERROR: (gcloud.config.set) You do not currently have an active account selected.",
        "gcloud.no_active_account",
        {"command": "config.set"},
    ),
    # thevasudevgupta/gsoc-wav2vec2 issue #11
    (
        "ERROR: (gcloud.compute.tpus.execution-groups.create) There is no more capacity in the "
        'zone "europe-west4-a"; you can try in another zone where Cloud TPU Nodes are offered '
        "(see https://cloud.google.com/tpu/docs/regions) [EID: 0xba393c906974e61]",
        "gcloud.tpu_no_capacity",
        {"zone": "europe-west4-a"},
    ),
    # hashicorp/terraform-provider-google issue #21243 (Cloud TPU's error code 8)
    (
        "        Error: Error waiting to create Vm: Error waiting for Creating Vm: Error code 8, "
        'message: There is no more capacity in the zone "us-central1-c"; you can try in another '
        "zone where Cloud TPU Nodes are offered (see https://cloud.google.com/tpu/docs/regions) "
        "[EID: 0x9f48947a7d57c8d]",
        "gcloud.tpu_no_capacity",
        {"zone": "us-central1-c"},
    ),
    # barnybug/cli53 issue #278 (wrong credentials through aws-sdk-go)
    (
        "Error: InvalidClientTokenId: The security token included in the request is invalid.",
        "awscli.credentials_refused",
        {"sdk_code": "InvalidClientTokenId"},
    ),
    # QT-DevOps/DevOpsIssues issue #451 (Terraform's AWS provider)
    (
        "* provider.aws: error validating provider credentials: error calling sts:"
        "GetCallerIdentity: InvalidClientTokenId: The security token included in the request is "
        "invalid.",
        "awscli.credentials_refused",
        {"sdk_code": "InvalidClientTokenId"},
    ),
    # rendered from botocore's ClientError format with EC2's UnauthorizedOperation code
    (
        "An error occurred (UnauthorizedOperation) when calling the RunInstances operation: You "
        "are not authorized to perform this operation.",
        "awscli.credentials_refused",
        {"code": "UnauthorizedOperation", "operation": "RunInstances"},
    ),
    # marin-community/marin pull request #1612 (a TPU v6e preemptible quota of 0 in a region)
    (
        "googleapiclient.errors.HttpError: <HttpError 429 when requesting https://tpu.googleapis."
        "com/v2alpha1/projects/hai-gcp-models/locations/us-east5-b/nodes?nodeId=ray-marin-us-"
        "east5-worker-0531b81a-tpu&alt=json returned \"Quota limit 'TPUV6EPreemptiblePerProject"
        "PerRegionForTPUAPI' has been exceeded. Limit: 0 in region us-east5.\">",
        "gcloud.quota_limit_exceeded",
        {
            "quota": "TPUV6EPreemptiblePerProjectPerRegionForTPUAPI",
            "limit": "0",
            "scope": "region us-east5",
        },
    ),
    # --- Docker daemon ---
    # moby/moby issue #32658
    (
        "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker "
        "daemon running?",
        "dockerd.daemon_unreachable",
        {"host": "unix:///var/run/docker.sock"},
    ),
    # docker/docs issue #11246 (its title)
    (
        "Server: ERROR: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is "
        "the docker daemon running?",
        "dockerd.daemon_unreachable",
        {"host": "unix:///var/run/docker.sock"},
    ),
    # docker/docs issue #12793
    (
        "docker: Got permission denied while trying to connect to the Docker daemon socket at "
        "unix:///var/run/docker.sock: Post http://%2Fvar%2Frun%2Fdocker.sock/v1.40/containers/"
        "create: dial unix /var/run/docker.sock: connect: permission denied.",
        "dockerd.socket_permission_denied",
        {"socket": "unix:///var/run/docker.sock"},
    ),
    # actions/actions-runner-controller issue #2538 (a runner pod's socket)
    (
        "Got permission denied while trying to connect to the Docker daemon socket at "
        'unix:///run/docker/docker.sock: Get "http://%2Frun%2Fdocker%2Fdocker.sock/v1.24/'
        'containers/json": dial unix /run/docker/docker.sock: connect: permission denied',
        "dockerd.socket_permission_denied",
        {"socket": "unix:///run/docker/docker.sock"},
    ),
    # NVlabs/BundleSDF issue #1 (an image on nvcr.io that was not public)
    (
        "Error response from daemon: unauthorized: authentication required",
        "dockerd.registry_unauthorized",
        {"detail": "authentication required"},
    ),
    # NVlabs/imaginaire issue #3 (a misspelt NGC org in FROM, printed bare by docker build)
    (
        "unauthorized: authentication required",
        "dockerd.registry_unauthorized",
        {"detail": "authentication required"},
    ),
    # NVlabs/alpasim issue #44 (an internal image)
    (
        "Error response from daemon: Head 'https://nvcr.io/v2/nvidian/alpamayo/nre/manifests/"
        '25.7.9-dc9a8043\': denied: {"errors": [{"code": "DENIED", "message": '
        '"Access Denied"}]}',
        "dockerd.registry_unauthorized",
        {},
    ),
    # inclavare-containers/inclavare-containers issue #1293 (a proxy)
    (
        'time="2021-08-19T12:58:41Z" level=fatal msg="running container: creating container '
        "failed: rpc error: code = Unknown desc = failed to pull and unpack image "
        '\\"docker.io/inclavarecontainers/occlum-hello-world:scratch\\": failed to resolve '
        'reference \\"docker.io/inclavarecontainers/occlum-hello-world:scratch\\": failed to do '
        'request: Head \\"https://registry-1.docker.io/v2/inclavarecontainers/occlum-hello-world/'
        'manifests/scratch\\": net/http: TLS handshake timeout"',
        "containerd.pull_timeout",
        {
            "image": "docker.io/inclavarecontainers/occlum-hello-world:scratch",
            "cause": "net/http: TLS handshake timeout",
        },
    ),
    # rancher/rke2 issue #6211 (Docker Hub's CDN unreachable without a mirror)
    (
        "ERRO[0039] Error encountered while importing /var/lib/rancher/rke2/agent/images/cloud-"
        "controller-manager-image.txt: failed to pull images from /var/lib/rancher/rke2/agent/"
        "images/cloud-controller-manager-image.txt: rpc error: code = DeadlineExceeded desc = "
        'failed to pull and unpack image "docker.io/rancher/rke2-cloud-provider:v1.29.3-'
        'build20240412": failed to copy: httpReadSeeker: failed open: failed to do request: Get '
        '"https://production.cloudflare.docker.com/registry-v2/docker/registry/v2/blobs/sha256/35/'
        'data": dial tcp 108.160.169.46:443: i/o timeout',
        "containerd.pull_timeout",
        {"image": "docker.io/rancher/rke2-cloud-provider:v1.29.3-build20240412"},
    ),
    # kubernetes/kubernetes issue #131521 (containerd's CRI giving up on a stalled pull)
    (
        'level=error msg="cancel pulling image private_registery.mydomain/csg/idrac_to_kafka:'
        '20250429T0012 because of no progress in 1m0s"',
        "containerd.pull_timeout",
        {
            "stalled_image": "private_registery.mydomain/csg/idrac_to_kafka:20250429T0012",
            "after": "1m0s",
        },
    ),
    # docker/hub-feedback issue #2082 (a Docker Hub incident)
    (
        "Error response from daemon: Get https://registry-1.docker.io/v2/: EOF",
        "dockerd.registry_eof",
        {"cause": "EOF"},
    ),
    # docker/for-mac issue #6528
    (
        'docker: Error response from daemon: Get "https://registry-1.docker.io/v2/": EOF.',
        "dockerd.registry_eof",
        {"cause": "EOF"},
    ),
    # distribution/distribution issue #2972 (the daemon's proxy configured wrong)
    (
        "Error response from daemon: Get https://registry-1.docker.io/v2/: unexpected EOF",
        "dockerd.registry_eof",
        {"cause": "unexpected EOF"},
    ),
    # docker/for-win issue #5868 (a home router cutting the token request)
    (
        "Error response from daemon: Get https://registry-1.docker.io/v2/library/hello-world/"
        "manifests/latest: Get https://auth.docker.io/token?scope=repository%3Alibrary%2Fhello-"
        "world%3Apull&service=registry.docker.io: unexpected EOF",
        "dockerd.registry_eof",
        {"cause": "unexpected EOF"},
    ),
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
    # kubectl's answers that are not the control plane's load
    ("kubeapi.server_unavailable", 'Error from server (NotFound): jobs.batch "train" not found'),
    # etcd's start-up banner (etcd-io/etcd issue #2276)
    ("etcd.request_failed", "2015/02/10 19:28:50 etcdserver: name = 042859A6"),
    ("etcd.request_failed", "2015/02/10 19:28:50 etcdserver: heartbeat = 100ms"),
    # the fail-open warning let the request through (projectcalico/calico issue #3809)
    (
        "webhook.call_failed",
        "W0719 17:46:09.471959       1 dispatcher.go:168] Failed calling webhook, failing open "
        'couchbase-operator-admission.default.svc: failed calling webhook "couchbase-operator-'
        'admission.default.svc": Post https://couchbase-operator-admission.default.svc:443/'
        "couchbaseclusters/mutate?timeout=30s: context deadline exceeded",
    ),
    # a webhook configuration being created (zq2599/blog_demos issue #108)
    (
        "webhook.denied",
        "validatingwebhookconfiguration.admissionregistration.k8s.io/tomcatweb-validating-"
        "webhook-configuration created",
    ),
    ("kubeapi.unreachable", "Kubernetes control plane is running at https://10.0.0.1:6443"),
    # the missing kubeconfig is its own entry, the refused address its neighbour's
    (
        "kubeapi.unreachable",
        "The connection to the server localhost:8080 was refused - did you specify the right "
        "host or port?",
    ),
    (
        "kubeapi.no_kubeconfig",
        "The connection to the server 10.190.67.31:6443 was refused - did you specify the right "
        "host or port?",
    ),
    # a reservation that is full or absent is not a zone out of stock (skypilot issue #4579)
    (
        "gcloud.tpu_no_capacity",
        "W 01-16 17:42:36 instance_utils.py:112] Got return code 8 in us-central1-a: "
        "'Insufficient reserved capacity. Contact customer support to increase your "
        "reservation. [EID: 0x7adf6d58c08b0aa4]'",
    ),
    # a build talking to a healthy daemon (OpenBMB/XAgent issue #7)
    ("dockerd.daemon_unreachable", "Sending build context to Docker daemon  59.82MB"),
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
    ("kubeapi.unauthorized", "Kubernetes control plane is running at https://10.0.0.1:6443"),
    # a namespace being deleted forbids new objects: not RBAC (kubeflow/community-distribution #2353)
    (
        "kubeapi.rbac_forbidden",
        'Error from server (Forbidden): error when creating "STDIN": serviceaccounts "eventing-'
        'controller" is forbidden: unable to create new content in namespace knative-eventing '
        "because it is being terminated",
    ),
    # a missing image is registry.image_not_found's, not a refused login
    (
        "dockerd.registry_unauthorized",
        "Error response from daemon: pull access denied for nvidia/cuda-fake, repository does not "
        "exist or may require 'docker login': denied: requested access to the resource is denied",
    ),
    ("dockerd.registry_unauthorized", "Login Succeeded"),
    ("apt.release_file_missing", "Get:2 http://archive.ubuntu.com/ubuntu jammy-updates InRelease"),
    ("apt.gpg_key_missing", "gpg: key A4B469963BF863CC: public key imported"),
    ("apt.clock_behind", "Get:1 http://kali.download/kali kali-rolling InRelease [30.5 kB]"),
    ("apt.dpkg_lock_held", "Waiting for cache lock"),
    ("kubeapi.kind_not_installed", "pytorchjob.kubeflow.org/train created"),
    ("azcli.not_logged_in", "az login --identity"),
    ("gcloud.no_active_account", "Your active configuration is: [default]"),
    ("gitlfs.object_missing", "Downloading public/hana-tweet.png (32 KB)"),
    ("gitlfs.fetch_restatement", "Fetching reference refs/heads/main"),
    # the node's address without the kubelet's port is another failure
    (
        "kubeapi.kubelet_unreachable",
        "Unable to connect to the server: dial tcp 52.183.119.19:443: i/o timeout",
    ),
    (
        "kubeapi.certificate_expired",
        "Unable to connect to the server: x509: certificate signed by unknown authority",
    ),
    # a proxy answering 400 is not a stalled registry (ciiiii/cloudflare-docker-proxy issue #98)
    (
        "containerd.pull_timeout",
        'E0102 21:10:37.610356   13696 remote_image.go:180] "PullImage from image service failed" '
        'err="rpc error: code = Unknown desc = failed to pull and unpack image \\"docker.io/'
        'library/nginx:latest\\": failed to copy: httpReadSeeker: failed open: unexpected status '
        'code https://docker.example/v2/library/nginx/blobs/sha256:566e: 400 Bad Request"',
    ),
    (
        "awscli.credentials_refused",
        "An error occurred (ThrottlingException) when calling the "
        "DescribeInstances operation (reached max retries: 4): Rate exceeded",
    ),
    (
        "gonet.x509_unknown_authority",
        "Unable to connect to the server: x509: certificate has expired or is not yet valid",
    ),
    ("gcloud.quota_limit_exceeded", "Quota 'GPUS_ALL_REGIONS' exceeded.  Limit: 0.0 globally."),
    # the missing index is helm.repo_index_missing's, not the weaker symptom's
    (
        "helm.repo_unreachable",
        'Error: looks like "https://sgl-project.github.io/ome" is not a valid chart repository or '
        "cannot be reached: failed to fetch https://sgl-project.github.io/ome/index.yaml : 404 "
        "Not Found",
    ),
    ("helm.repo_index_missing", '"bitnami" has been added to your repositories'),
    # a timeout is registry.pull_timeout's
    (
        "dockerd.registry_eof",
        "Error response from daemon: Get https://registry-1.docker.io/v2/: net/http: request "
        "canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)",
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
    for key in ("dockerd.daemon_unreachable", "apt.fetch_restatement", "gitlfs.fetch_restatement"):
        assert CATALOG.signatures[key].weight < 20, key


def test_an_overloaded_control_plane_is_a_retry() -> None:
    """An answer that says the service failed is transient at 45-60, below a decisive verdict."""
    for key, pinned in BLAME.items():
        if pinned is Blame.TRANSIENT:
            assert 45 <= CATALOG.signatures[key].weight <= 60, key
