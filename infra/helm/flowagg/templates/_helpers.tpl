{{/* Names, labels and the configuration file shared by every template. */}}

{{- define "flowagg.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 52 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 52 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "flowagg.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one component: include "flowagg.selector" (list $ "ingest") */}}
{{- define "flowagg.selector" -}}
{{- $root := index . 0 -}}
app.kubernetes.io/name: {{ $root.Chart.Name }}
app.kubernetes.io/instance: {{ $root.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{- define "flowagg.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "flowagg.kafkaBrokers" -}}
{{- if .Values.kafka.enabled -}}
{{- printf "%s-kafka-0.%s-kafka-headless.%s.svc:9092" (include "flowagg.fullname" .) (include "flowagg.fullname" .) .Release.Namespace -}}
{{- else -}}
{{- .Values.kafka.bootstrapServers -}}
{{- end -}}
{{- end -}}

{{/*
The configuration file: .Values.config as written, with the keys the chart owns set from the values.
Everything else passes through untouched, so new flowagg keys need no template change.
*/}}
{{- define "flowagg.config" -}}
{{- $conf := deepCopy .Values.config -}}
{{- $_ := set $conf "mode" .Values.mode -}}
{{- $log := default (dict) (get $conf "log") -}}
{{- $_ := set $log "backend" "kafka" -}}
{{- $kafka := default (dict) (get $log "kafka") -}}
{{- $_ := set $kafka "brokers" (include "flowagg.kafkaBrokers" .) -}}
{{- $_ := set $log "kafka" $kafka -}}
{{- $_ := set $conf "log" $log -}}
{{- $k8s := default (dict) (get $conf "kubernetes") -}}
{{- $_ := set $k8s "antreaNamespace" .Values.antreaNamespace -}}
{{- $_ := set $conf "kubernetes" $k8s -}}
{{- $api := default (dict) (get $conf "apiServer") -}}
{{- $_ := set $api "apiPort" .Values.apiPort -}}
{{- $_ := set $conf "apiServer" $api -}}
{{- if .Values.clickhouse.enabled -}}
{{- $ch := default (dict) (get $conf "clickHouse") -}}
{{- $_ := set $ch "databaseURL" (printf "tcp://%s-clickhouse.%s.svc:9000" (include "flowagg.fullname" .) .Release.Namespace) -}}
{{- $_ := set $conf "clickHouse" $ch -}}
{{- end -}}
{{- toYaml $conf -}}
{{- end -}}

{{/* Exporter kinds enabled in the configuration, Antrea's section name → `flowagg export` kind. */}}
{{- define "flowagg.exporters" -}}
{{- $kinds := list -}}
{{- range $section, $kind := dict "flowCollector" "ipfix" "clickHouse" "clickhouse" "s3Uploader" "s3" "flowLogger" "flowlog" -}}
{{- $s := get $.Values.config $section -}}
{{- if and $s (get $s "enable") -}}
{{- $kinds = append $kinds $kind -}}
{{- end -}}
{{- end -}}
{{- toJson (sortAlpha $kinds) -}}
{{- end -}}

{{/* The probes' scheme: the API is HTTPS (Antrea's) unless the configuration asks for plain HTTP. */}}
{{- define "flowagg.apiScheme" -}}
{{- if eq (dig "apiServer" "protocol" "https" .Values.config) "http" }}HTTP{{ else }}HTTPS{{ end -}}
{{- end -}}

{{/*
The flowagg container of a component: include "flowagg.container" (dict "root" $ "args" (list "ingest") "resources" ... "extraEnv" ...)
*/}}
{{- define "flowagg.container" -}}
{{- $root := .root -}}
- name: flowagg
  image: {{ include "flowagg.image" $root }}
  imagePullPolicy: {{ $root.Values.image.pullPolicy }}
  {{- with $root.Values.image.command }}
  command: {{ toJson . }}
  {{- end }}
  args: {{ toJson (concat .args (list "--config" "/etc/flowagg/flow-aggregator.conf")) }}
  env:
    - name: POD_NAMESPACE
      valueFrom: { fieldRef: { fieldPath: metadata.namespace } }
    - name: POD_NAME
      valueFrom: { fieldRef: { fieldPath: metadata.name } }
    - name: FLOWAGG_LOG_LEVEL
      value: {{ $root.Values.logLevel | quote }}
    {{- with .extraEnv }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  ports:
    - { name: api, containerPort: {{ $root.Values.apiPort }}, protocol: TCP }
    {{- with .ports }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  livenessProbe:
    httpGet: { path: /healthz, port: api, scheme: {{ include "flowagg.apiScheme" $root }} }
    initialDelaySeconds: 10
    periodSeconds: 10
    timeoutSeconds: 5
  readinessProbe:
    httpGet: { path: /readyz, port: api, scheme: {{ include "flowagg.apiScheme" $root }} }
    periodSeconds: 5
    timeoutSeconds: 5
  resources: {{ toJson .resources }}
  {{- with $root.Values.securityContext }}
  securityContext: {{ toJson . }}
  {{- end }}
  volumeMounts:
    - { name: config, mountPath: /etc/flowagg, readOnly: true }
    # Where the API server writes its loopback token for antctl and flowagg get (Antrea's path).
    - { name: apiserver, mountPath: /var/run/antrea }
    {{- with .extraMounts }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end -}}

{{/* The Pod-level fields every flowagg Deployment shares: include "flowagg.podSpec" (dict "root" $ "sa" "ingest" "place" .Values.ingest) */}}
{{- define "flowagg.podSpec" -}}
{{- $root := .root -}}
serviceAccountName: {{ include "flowagg.fullname" $root }}-{{ .sa }}
{{- with $root.Values.imagePullSecrets }}
imagePullSecrets: {{ toJson . }}
{{- end }}
{{- with $root.Values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with $root.Values.podSecurityContext }}
securityContext: {{ toJson . }}
{{- end }}
{{- with .place.nodeSelector }}
nodeSelector: {{ toJson . }}
{{- end }}
{{- with .place.tolerations }}
tolerations: {{ toJson . }}
{{- end }}
{{- with .place.affinity }}
affinity: {{ toJson . }}
{{- end }}
{{- end -}}
