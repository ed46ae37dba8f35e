{{/*
Values that cannot work fail at render, each with what to change (as Antrea's chart does in its own
_validate.tpl). Included by configmap.yaml, which every install renders.
*/}}
{{- define "flowagg.validate" -}}
{{- if not (has .Values.mode (list "Aggregate" "Proxy")) -}}
{{- fail (printf "flowagg: mode must be Aggregate or Proxy, not %q" .Values.mode) -}}
{{- end -}}
{{- $partitions := int (dig "log" "topics" "flowsRawPartitions" 4 .Values.config) -}}
{{- if and (eq .Values.mode "Aggregate") (gt (int .Values.processor.replicas) $partitions) -}}
{{- fail (printf "flowagg: processor.replicas is %d but config.log.topics.flowsRawPartitions is %d: in Aggregate mode each processor replica owns whole partitions of flows.raw, so at most %d replicas can work. Lower processor.replicas, or raise flowsRawPartitions (a topic's partitions can be raised, never lowered)." (int .Values.processor.replicas) $partitions $partitions) -}}
{{- end -}}
{{- if and .Values.processor.autoscaling.enabled (ne .Values.mode "Proxy") -}}
{{- fail "flowagg: processor.autoscaling.enabled works in Proxy mode only: in Aggregate mode the processor's state is partitioned, so scale it with processor.replicas (up to config.log.topics.flowsRawPartitions)." -}}
{{- end -}}
{{- if gt (int .Values.processor.autoscaling.minReplicas) (int .Values.processor.autoscaling.maxReplicas) -}}
{{- fail (printf "flowagg: processor.autoscaling.minReplicas (%d) is above maxReplicas (%d)" (int .Values.processor.autoscaling.minReplicas) (int .Values.processor.autoscaling.maxReplicas)) -}}
{{- end -}}
{{- if and .Values.kafka.enabled .Values.kafka.bootstrapServers -}}
{{- fail "flowagg: kafka.enabled runs a broker in the chart and kafka.bootstrapServers names an existing one: set one of them (kafka.enabled=false to use bootstrapServers)." -}}
{{- end -}}
{{- if and (not .Values.kafka.enabled) (not .Values.kafka.bootstrapServers) -}}
{{- fail "flowagg: the services share records through Kafka: set kafka.enabled=true (a single-node broker for small clusters) or kafka.bootstrapServers=host:9092,... (an existing cluster)." -}}
{{- end -}}
{{- $backend := dig "log" "backend" "kafka" .Values.config -}}
{{- if ne $backend "kafka" -}}
{{- fail (printf "flowagg: config.log.backend is %q, but the chart runs ingest, the processor and the exporters as separate Deployments, which share records through Kafka only. Remove config.log.backend (the chart sets kafka)." $backend) -}}
{{- end -}}
{{- if and .Values.clickhouse.enabled (not (dig "clickHouse" "enable" false .Values.config)) -}}
{{- fail "flowagg: clickhouse.enabled runs a ClickHouse server, but config.clickHouse.enable is false, so nothing would write to it. Set config.clickHouse.enable=true, or clickhouse.enabled=false." -}}
{{- end -}}
{{- end -}}
