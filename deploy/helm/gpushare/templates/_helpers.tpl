{{/*
Shared names and labels. Every object is named <prefix>-<component> (prefix: nameOverride, default
"gpushare"); the selector label app.kubernetes.io/name is that name and never changes across
upgrades (selectors are immutable).
*/}}

{{- define "gpushare.prefix" -}}
{{- default "gpushare" .Values.nameOverride -}}
{{- end -}}

{{/* The name of one component's objects: include "gpushare.name" (list $ "webhook"). */}}
{{- define "gpushare.name" -}}
{{- printf "%s-%s" (include "gpushare.prefix" (index . 0)) (index . 1) -}}
{{- end -}}

{{/* Labels of one component's objects: include "gpushare.labels" (list $ "webhook"). */}}
{{- define "gpushare.labels" -}}
{{- $root := index . 0 -}}
app.kubernetes.io/part-of: gpushare
app.kubernetes.io/component: {{ index . 1 }}
app.kubernetes.io/instance: {{ $root.Release.Name }}
app.kubernetes.io/managed-by: {{ $root.Release.Service }}
app.kubernetes.io/version: {{ $root.Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" $root.Chart.Name $root.Chart.Version }}
{{- end -}}

{{/* Pod template labels: the selector label and the component's labels. */}}
{{- define "gpushare.podLabels" -}}
app.kubernetes.io/name: {{ include "gpushare.name" . }}
{{ include "gpushare.labels" . }}
{{- end -}}

{{- define "gpushare.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* imagePullPolicy, when one is set. */}}
{{- define "gpushare.pullPolicy" -}}
{{- with .Values.image.pullPolicy }}
imagePullPolicy: {{ . }}
{{- end -}}
{{- end -}}

{{/* nodeSelector, tolerations and imagePullSecrets of a pod spec: include "gpushare.placement" (list $ .Values.webhook). */}}
{{- define "gpushare.placement" -}}
{{- $root := index . 0 -}}
{{- $component := index . 1 -}}
{{- with $root.Values.imagePullSecrets }}
imagePullSecrets:
{{- toYaml . | nindent 2 }}
{{- end }}
{{- with $component.nodeSelector }}
nodeSelector:
{{- toYaml . | nindent 2 }}
{{- end }}
{{- with $component.tolerations }}
tolerations:
{{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The DNS names of a Service in the release's namespace: include "gpushare.serviceNames" (list $ "webhook"). */}}
{{- define "gpushare.serviceNames" -}}
{{- $name := include "gpushare.name" . -}}
{{- $ns := (index . 0).Release.Namespace -}}
{{- list $name (printf "%s.%s" $name $ns) (printf "%s.%s.svc" $name $ns) (printf "%s.%s.svc.cluster.local" $name $ns) | toJson -}}
{{- end -}}

{{/*
hostNetwork of a pod spec, when the component asks for it: include "gpushare.hostNetwork" .Values.webhook.
Such a pod still resolves cluster names (dnsPolicy ClusterFirstWithHostNet).
*/}}
{{- define "gpushare.hostNetwork" -}}
{{- if .hostNetwork }}
hostNetwork: true
dnsPolicy: ClusterFirstWithHostNet
{{- end -}}
{{- end -}}

{{/*
The API server's address for the in-cluster client, when kubernetesApi.host is set (clusters
without kube-proxy): environment entries of a container's env list.
*/}}
{{- define "gpushare.apiServerEnv" -}}
{{- with .Values.kubernetesApi.host }}
- name: KUBERNETES_SERVICE_HOST
  value: {{ . | quote }}
- name: KUBERNETES_SERVICE_PORT
  value: {{ $.Values.kubernetesApi.port | toString | quote }}
{{- end -}}
{{- end -}}

{{/*
The node affinity that keeps the node agent and the DRA driver apart: a node labelled
gpushare.io/gpu-api=dra runs the DRA driver only, every other node the node agent only (decision
0044). include "gpushare.gpuApiAffinity" "In" (the DRA driver) or "NotIn" (the node agent).
*/}}
{{- define "gpushare.gpuApiAffinity" -}}
affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions:
        - key: gpushare.io/gpu-api
          operator: {{ . }}
          values:
          - dra
{{- end -}}
