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

{{- define "autorecover.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
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

{{/* The Secret and key the store URL is read from (the engine reads AUTORECOVER_STORE). */}}
{{- define "autorecover.store.secretName" -}}
{{- if and .Values.store.url .Values.store.existingSecret }}
{{- fail "set store.url or store.existingSecret, not both" }}
{{- end }}
{{- if .Values.store.existingSecret }}
{{- .Values.store.existingSecret }}
{{- else if .Values.store.url }}
{{- printf "%s-store" (include "autorecover.fullname" . | trunc 57 | trimSuffix "-") }}
{{- else }}
{{- fail "set store.url (postgresql://USER:PASSWORD@HOST:5432/DB) or store.existingSecret: the engine replicas share one store" }}
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
