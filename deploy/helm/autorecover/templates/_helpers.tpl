{{/* Names, labels and the pieces more than one template needs. */}}

{{- define "autorecover.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's base name; Kubernetes names are at most 63 characters. */}}
{{- define "autorecover.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "autorecover.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "autorecover.labels" -}}
helm.sh/chart: {{ include "autorecover.chart" . }}
{{ include "autorecover.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: autorecover
{{- end }}

{{- define "autorecover.selectorLabels" -}}
app.kubernetes.io/name: {{ include "autorecover.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The engine: Deployment, Service, ServiceAccount, its Lease and RBAC share this name. */}}
{{- define "autorecover.engine.name" -}}
{{- printf "%s-engine" (include "autorecover.fullname" . | trunc 56 | trimSuffix "-") }}
{{- end }}

{{- define "autorecover.agent.name" -}}
{{- printf "%s-agent" (include "autorecover.fullname" . | trunc 57 | trimSuffix "-") }}
{{- end }}

{{- define "autorecover.engine.selectorLabels" -}}
{{ include "autorecover.selectorLabels" . }}
app.kubernetes.io/component: engine
{{- end }}

{{- define "autorecover.agent.selectorLabels" -}}
{{ include "autorecover.selectorLabels" . }}
app.kubernetes.io/component: agent
{{- end }}

{{/* An image reference: include "autorecover.image" (list . "engine") or (list . "agent"). */}}
{{- define "autorecover.image" -}}
{{- $root := index . 0 }}
{{- $repository := index $root.Values.image (printf "%sRepository" (index . 1)) }}
{{- printf "%s:%s" $repository (default $root.Chart.AppVersion $root.Values.image.tag) }}
{{- end }}

{{/* The engine's in-cluster URL, which the agents send their signals to. */}}
{{- define "autorecover.engine.url" -}}
{{- printf "%s://%s.%s.svc:%v" (include "autorecover.engine.scheme" .) (include "autorecover.engine.name" .) .Release.Namespace .Values.service.port }}
{{- end }}

{{- define "autorecover.engine.scheme" -}}
{{- if .Values.tls.secretName }}https{{ else }}http{{ end }}
{{- end }}

{{/* The Secret and key of the tokens file; empty when there is none. Checks the auth values. */}}
{{- define "autorecover.tokens.secretName" -}}
{{- if and .Values.auth.tokens .Values.auth.existingSecret }}
{{- fail "set auth.tokens or auth.existingSecret, not both" }}
{{- end }}
{{- if and .Values.agent.enabled (not .Values.auth.kubernetes.enabled) }}
{{- fail "agent.enabled needs auth.kubernetes.enabled: agents prove their node with their pod's ServiceAccount token" }}
{{- end }}
{{- if not (or .Values.auth.kubernetes.enabled .Values.auth.tokens .Values.auth.existingSecret) }}
{{- fail "the engine authenticates every call: enable auth.kubernetes or give a tokens file (auth.tokens or auth.existingSecret)" }}
{{- end }}
{{- if .Values.auth.existingSecret }}
{{- .Values.auth.existingSecret }}
{{- else if .Values.auth.tokens }}
{{- printf "%s-tokens" (include "autorecover.fullname" . | trunc 56 | trimSuffix "-") }}
{{- end }}
{{- end }}

{{- define "autorecover.tokens.secretKey" -}}
{{- if .Values.auth.existingSecret }}{{ .Values.auth.existingSecretKey }}{{ else }}tokens.toml{{ end }}
{{- end }}

{{/*
Which store the engine opens: "sqlite" (the embedded default, store.url and
store.existingSecret both empty: one file on the chart's PersistentVolumeClaim) or
"postgresql". Checks the store values, so every template that includes it refuses the same.
*/}}
{{- define "autorecover.store.kind" -}}
{{- $url := .Values.store.url }}
{{- if and $url .Values.store.existingSecret }}
{{- fail "set store.url or store.existingSecret, not both" }}
{{- end }}
{{- if and $url (not (regexMatch "^postgres(ql)?://" $url)) }}
{{- /* Only the scheme is named: the rest of a URL may hold a password. */}}
{{- fail (printf "store.url must be a PostgreSQL URL (postgresql://USER:PASSWORD@HOST:5432/DB), not a %q one; leave store.url and store.existingSecret empty for SQLite on the chart's PersistentVolumeClaim" (regexFind "^[^:/]*" $url)) }}
{{- end }}
{{- if or $url .Values.store.existingSecret }}
{{- "postgresql" }}
{{- else }}
{{- if gt (int .Values.engine.replicas) 1 }}
{{- fail (printf "engine.replicas=%v needs PostgreSQL (store.url or store.existingSecret): the embedded SQLite store is one file on one ReadWriteOnce volume, for one replica (values-ha.yaml)" .Values.engine.replicas) }}
{{- end }}
{{- "sqlite" }}
{{- end }}
{{- end }}

{{/* The embedded store's claim: the chart's own, or store.sqlite.existingClaim. */}}
{{- define "autorecover.store.claimName" -}}
{{- default (printf "%s-data" (include "autorecover.engine.name" . | trunc 58 | trimSuffix "-")) .Values.store.sqlite.existingClaim }}
{{- end }}

{{/* Where the claim is mounted, and the SQLite URL pointing into it. */}}
{{- define "autorecover.store.dataDir" -}}
/var/lib/autorecover
{{- end }}

{{- define "autorecover.store.sqliteUrl" -}}
{{- printf "sqlite:///%s/autorecover.db" (include "autorecover.store.dataDir" .) }}
{{- end }}

{{/* The Secret and key the PostgreSQL URL is read from (the engine reads AUTORECOVER_STORE). */}}
{{- define "autorecover.store.secretName" -}}
{{- if .Values.store.existingSecret }}
{{- .Values.store.existingSecret }}
{{- else if .Values.store.url }}
{{- printf "%s-store" (include "autorecover.fullname" . | trunc 57 | trimSuffix "-") }}
{{- end }}
{{- end }}

{{- define "autorecover.store.secretKey" -}}
{{- if .Values.store.existingSecret }}{{ .Values.store.existingSecretKey }}{{ else }}url{{ end }}
{{- end }}

{{- define "autorecover.policies.name" -}}
{{- printf "%s-policies" (include "autorecover.fullname" . | trunc 54 | trimSuffix "-") }}
{{- end }}

{{/*
What the engine needs on pods and jobs. Cluster-wide in the ClusterRole when
.Values.namespaces is empty, else in a Role in each listed namespace. Why each verb is
needed: docs/deployment.md, "RBAC".
*/}}
{{- define "autorecover.engine.workloadRules" -}}
# Requeue: the old attempt's pods are deleted; their logs are streamed for failure lines.
- apiGroups: [""]
  resources: [pods]
  verbs: [delete]
- apiGroups: [""]
  resources: [pods/log]
  verbs: [get]
# Watch PyTorchJobs; requeue replaces the spec (exclusions), patches suspend and annotations,
# and clears a terminal condition in the status so the operator recreates the gang.
- apiGroups: [kubeflow.org]
  resources: [pytorchjobs]
  verbs: [get, list, watch, update, patch]
- apiGroups: [kubeflow.org]
  resources: [pytorchjobs/status]
  verbs: [patch]
# Watch JobSets (where JobSet is installed); requeue patches suspend and annotations, raises
# status.restarts (the JobSet controller then recreates its child Jobs) and writes the
# exclusions into the new child Jobs' pod templates while they are suspended.
- apiGroups: [jobset.x-k8s.io]
  resources: [jobsets]
  verbs: [get, list, watch, patch]
- apiGroups: [jobset.x-k8s.io]
  resources: [jobsets/status]
  verbs: [patch]
- apiGroups: [batch]
  resources: [jobs]
  verbs: [get, list, patch]
# Watch Kubeflow Trainer TrainJobs (they run as JobSets): requeue patches their suspend and
# annotations and clears a terminal condition so the Trainer reconciles them again.
- apiGroups: [trainer.kubeflow.org]
  resources: [trainjobs]
  verbs: [get, list, watch, patch]
- apiGroups: [trainer.kubeflow.org]
  resources: [trainjobs/status]
  verbs: [patch]
{{- end }}

{{/* What the engine needs cluster-wide whatever .Values.namespaces says. */}}
{{- define "autorecover.engine.clusterRules" -}}
# Cordon, taint and annotate nodes; our node condition lives in the status.
- apiGroups: [""]
  resources: [nodes]
  verbs: [get, list, watch, patch]
- apiGroups: [""]
  resources: [nodes/status]
  verbs: [patch]
# Drain sees every pod on a node, in any namespace, and evicts it (budgets honoured).
- apiGroups: [""]
  resources: [pods]
  verbs: [get, list, watch]
- apiGroups: [""]
  resources: [pods/eviction]
  verbs: [create]
# An Event per action on the node or job it is about (`kubectl get events`).
- apiGroups: [events.k8s.io]
  resources: [events]
  verbs: [create]
{{- if .Values.auth.kubernetes.enabled }}
# Agents' ServiceAccount tokens are checked with TokenReview (their pod's node: pods get, above).
- apiGroups: [authentication.k8s.io]
  resources: [tokenreviews]
  verbs: [create]
{{- end }}
{{- end }}
