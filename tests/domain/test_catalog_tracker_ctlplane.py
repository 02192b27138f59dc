"""Golden lines from sweep 7 of issue 14 over the control planes around a job, first half: kubectl
and helm against the Kubernetes API server (etcd behind it, admission webhooks in front, kubelets
behind logs and exec), the cloud CLIs (gcloud, az, aws) and the Docker CLI and containerd pulling
images. Package managers, git-lfs, Slurm's client commands and Node.js / Go network errors are in
test_catalog_golden_ctlplane.py, with the family's contract.

Each line is real, cited beside it (one rendered from its format, said so), and goes through the
scanner's own matcher. The blame is pinned to what the line alone says: an overloaded control
plane or a zone out of capacity is transient; a connection that only failed is a symptom of weight
20-30 (the transient audit's rule); refused credentials, RBAC, a webhook's denial, a missing CRD or
kubeconfig are the job's own setup. None of these names a node. Look-alikes must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import golden_line_checks

BLAME: dict[str, Blame] = {
    "kubeapi.server_unavailable": Blame.TRANSIENT,
    "etcd.request_failed": Blame.TRANSIENT,
    "webhook.call_failed": Blame.TRANSIENT,
    "gcloud.tpu_no_capacity": Blame.TRANSIENT,
    "containerd.pull_timeout": Blame.TRANSIENT,
    "kubeapi.unreachable": Blame.SYMPTOM,
    "dockerd.daemon_unreachable": Blame.SYMPTOM,
    "kubeapi.wait_timed_out": Blame.SYMPTOM,
    "webhook.denied": Blame.APPLICATION,
    "kubeapi.no_kubeconfig": Blame.APPLICATION,
    "dockerd.socket_permission_denied": Blame.APPLICATION,
    "kubeapi.unauthorized": Blame.APPLICATION,
    "kubeapi.rbac_forbidden": Blame.APPLICATION,
    "dockerd.registry_unauthorized": Blame.APPLICATION,
    "kubeapi.kind_not_installed": Blame.APPLICATION,
    "azcli.not_logged_in": Blame.APPLICATION,
    "gcloud.no_active_account": Blame.APPLICATION,
    "awscli.credentials_refused": Blame.APPLICATION,
    "gcloud.quota_limit_exceeded": Blame.APPLICATION,
    "helm.repo_index_missing": Blame.APPLICATION,
    "helm.repo_unreachable": Blame.SYMPTOM,
    "dockerd.registry_eof": Blame.SYMPTOM,
    "kubeapi.kubelet_unreachable": Blame.SYMPTOM,
    "kubeapi.certificate_expired": Blame.SYMPTOM,
}

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
    # shieldworks/aegis issue #330 (a CI harness waiting for a SPIRE pod)
    (
        "error: timed out waiting for the condition on pods/spire-agent-9vncl",
        "kubeapi.wait_timed_out",
        {"object": "pods/spire-agent-9vncl"},
    ),
    # kubernetes/kubectl issue #1414 (a custom resource's Ready condition)
    (
        "error: timed out waiting for the condition on cephclusters/my-cluster",
        "kubeapi.wait_timed_out",
        {"object": "cephclusters/my-cluster"},
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
]

# (signal, line that must not be read as it)
NEGATIVE: list[tuple[str, str]] = [
    # the condition met (conbench/conbench issue #881)
    ("kubeapi.wait_timed_out", "pod/prometheus-k8s-0 condition met"),
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
    ("kubeapi.kind_not_installed", "pytorchjob.kubeflow.org/train created"),
    ("azcli.not_logged_in", "az login --identity"),
    ("gcloud.no_active_account", "Your active configuration is: [default]"),
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
]

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)
