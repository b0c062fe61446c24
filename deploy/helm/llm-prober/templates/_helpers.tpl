{{/* The objects' name: the release name, or release-chart when it lacks the chart's name. */}}
{{- define "llm-prober.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "llm-prober.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "llm-prober.labels" -}}
{{ include "llm-prober.selectorLabels" . }}
app.kubernetes.io/part-of: llm-prober
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "llm-prober.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "llm-prober.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* llm-prober.yml: the values' config, or the kustomize base's. */}}
{{- define "llm-prober.config" -}}
{{- if .Values.config -}}
{{- toYaml .Values.config -}}
{{- else -}}
{{- .Files.Get "files/llm-prober.yml" -}}
{{- end -}}
{{- end -}}

{{- define "llm-prober.secretName" -}}
{{- default (printf "%s-secrets" (include "llm-prober.fullname" .)) .Values.existingSecret -}}
{{- end -}}
