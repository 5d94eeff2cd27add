{{/* config.toml, as src/config/load.cc reads it (docs/configuration.md). Tables of another
runtime are left out (the worker warns about an inert one), and so is a scanner's image
under none and bwrap (the worker refuses it there). [storage] is in upstream's shapes
(batlehub.storageToml, below), so that upstream's processes read the same file. No secret
is ever rendered here. */}}
{{- define "batlehub.configToml" -}}
{{- $w := .Values.worker -}}
{{- $s := $w.sandbox -}}
{{- $k := $s.kubernetes -}}
{{- $imageRuntime := or (eq $s.runtime "oci") (eq $s.runtime "kubernetes") -}}
# Rendered by the batlehub chart {{ .Chart.Version }} (release {{ .Release.Name }}); edit the
# chart's values, not this file. Reference: docs/configuration.md.

[server]
host = "0.0.0.0"
port = {{ int64 $w.port }}

[database]
url = {{ include "batlehub.tomlStr" .Values.database.url }}
{{ include "batlehub.storageToml" . }}

[worker]
max_concurrent = {{ int64 $w.maxConcurrent }}
job_timeout_secs = {{ int64 $w.jobTimeoutSecs }}
max_attempts = {{ int64 $w.maxAttempts }}
registries = {{ include "batlehub.tomlStrings" ($w.registries | default list) }}
state_dir = {{ include "batlehub.tomlStr" $w.stateDir }}
{{- if eq $s.runtime "kubernetes" }}
# the pool the chart sized the sandbox namespace's ResourceQuota for
pool_slots = {{ include "batlehub.pool" . }}
{{- else }}
pool_slots = {{ int64 $w.poolSlots }}
{{- end }}
shutdown_grace_secs = {{ int64 $w.shutdownGraceSecs }}

[worker.sandbox]
runtime = {{ include "batlehub.tomlStr" $s.runtime }}
memory_limit_mb = {{ int64 $s.memoryLimitMb }}
cpu_seconds = {{ int64 $s.cpuSeconds }}
max_extracted_mb = {{ int64 $s.maxExtractedMb }}
max_entries = {{ int64 $s.maxEntries }}
start_timeout_secs = {{ int64 $s.startTimeoutSecs }}
probe_interval_secs = {{ int64 $s.probeIntervalSecs }}
{{- if kindIs "slice" $s.probeCanaries }}
probe_canaries = {{ include "batlehub.tomlStrings" $s.probeCanaries }}
{{- end }}
accept_per_process_limits = {{ include "batlehub.tomlBool" $s.acceptPerProcessLimits }}
bundle_backend = {{ include "batlehub.tomlStr" $s.bundleBackend }}
bundle_prefix = {{ include "batlehub.tomlStr" $s.bundlePrefix }}
bundle_ttl_secs = {{ int64 $s.bundleTtlSecs }}
rooms_dir = {{ include "batlehub.tomlStr" $s.roomsDir }}
{{- if eq $s.runtime "bwrap" }}

[worker.sandbox.bwrap]
binary = {{ include "batlehub.tomlStr" $s.bwrap.binary }}
cgroup_parent = {{ include "batlehub.tomlStr" $s.bwrap.cgroupParent }}
{{- end }}
{{- if eq $s.runtime "oci" }}

[worker.sandbox.oci]
engine = {{ include "batlehub.tomlStr" $s.oci.engine }}
{{- with $s.oci.binary }}
binary = {{ include "batlehub.tomlStr" . }}
{{- end }}
image = {{ include "batlehub.tomlStr" $s.oci.image }}
transport = {{ include "batlehub.tomlStr" $s.oci.transport }}
storage_network = {{ include "batlehub.tomlStr" $s.oci.storageNetwork }}
extra_args = {{ include "batlehub.tomlStrings" ($s.oci.extraArgs | default list) }}
{{- end }}
{{- if eq $s.runtime "kubernetes" }}

[worker.sandbox.kubernetes]
namespace = {{ include "batlehub.tomlStr" (include "batlehub.sandboxNamespace" .) }}
service_account = {{ include "batlehub.tomlStr" $k.serviceAccount }}
image = {{ include "batlehub.tomlStr" $k.image }}
runtime_class = {{ include "batlehub.tomlStr" $k.runtimeClass }}
node_selector = {{ include "batlehub.tomlStringMap" ($k.nodeSelector | default dict) }}
image_pull_secrets = {{ include "batlehub.tomlStrings" ($k.imagePullSecrets | default list) }}
orphan_after_secs = {{ int64 $k.orphanAfterSecs }}
{{- end }}
{{- range $sc := .Values.scanners }}
{{- if or (not (hasKey $sc "enabled")) $sc.enabled }}
{{- $type := default $sc.name $sc.type }}

[scanners.{{ include "batlehub.tomlKey" (required "every scanners[] entry needs a name" $sc.name) }}]
{{- with $sc.type }}
type = {{ include "batlehub.tomlStr" . }}
{{- end }}
{{- if or (eq $type "postmortem") (eq $type "guarddog") }}
command = {{ include "batlehub.tomlStr" (required (printf "scanners[%s].command is required for a %s scanner" $sc.name $type) $sc.command) }}
{{- else if and (or (eq $type "trivy") (eq $type "yara")) $sc.command }}
command = {{ include "batlehub.tomlStr" $sc.command }}
{{- end }}
{{- if eq $type "postmortem" }}
{{- if hasKey $sc "online" }}
online = {{ include "batlehub.tomlBool" $sc.online }}
{{- end }}
{{- if hasKey $sc "timeline" }}
timeline = {{ include "batlehub.tomlBool" $sc.timeline }}
{{- end }}
{{- else if eq $type "guarddog" }}
{{- if hasKey $sc "ecosystems" }}
ecosystems = {{ include "batlehub.tomlStrings" ($sc.ecosystems | default list) }}
{{- end }}
{{- else if eq $type "trivy" }}
endpoint = {{ include "batlehub.tomlStr" ($sc.endpoint | default "") }}
{{- with $sc.dbRepository }}
db_repository = {{ include "batlehub.tomlStr" . }}
{{- end }}
{{- if hasKey $sc "timeoutSecs" }}
timeout_secs = {{ int64 $sc.timeoutSecs }}
{{- end }}
{{- else if eq $type "yara" }}
rules = {{ include "batlehub.tomlStr" (required (printf "scanners[%s].rules (an absolute path in the worker pod) is required for a yara scanner" $sc.name) $sc.rules) }}
{{- else if eq $type "osv" }}
{{- with $sc.apiUrl }}
api_url = {{ include "batlehub.tomlStr" . }}
{{- end }}
{{- with $sc.onOutage }}
on_outage = {{ include "batlehub.tomlStr" . }}
{{- end }}
{{- with $sc.caFile }}
ca_file = {{ include "batlehub.tomlStr" . }}
{{- end }}
{{- if hasKey $sc "timeoutSecs" }}
timeout_secs = {{ int64 $sc.timeoutSecs }}
{{- end }}
{{- end }}
{{- if and $imageRuntime (ne $type "osv") }}
{{- $ref := include "batlehub.imageRef" (dict "image" $sc.image "registry" $.Values.imageRegistry "digests" $.Values.imageDigests "appVersion" $.Chart.AppVersion) }}
{{- if $ref }}
image = {{ include "batlehub.tomlStr" $ref }}
{{- end }}
{{- end }}
{{- with $sc.escalation }}
escalation = { kinds = {{ include "batlehub.tomlStrings" (.kinds | default list) }}, count = {{ int64 .count }}, from = {{ include "batlehub.tomlStr" .from }}, to = {{ include "batlehub.tomlStr" .to }} }
{{- end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* [storage], in upstream's two shapes: one backend described by [storage] itself when
storage.backends is empty (its name is then "default"), else `default` and one
[[storage.backends]] entry per backend, each with its type's keys flat. camelCase values
become upstream's snake_case keys. An optional key that is empty is left out rather than
rendered "" (upstream would take endpoint_url = "" as an endpoint), and force_path_style is
always rendered, so the ConfigMap says what runs. batlehub.validate has refused, before
this is rendered, what the worker would refuse. */}}
{{- define "batlehub.storageToml" -}}
{{- $st := .Values.storage }}
[storage]
{{- if $st.backends }}
default = {{ include "batlehub.tomlStr" $st.default }}
{{- range $b := $st.backends }}

[[storage.backends]]
name = {{ include "batlehub.tomlStr" $b.name }}
{{- include "batlehub.storageBackendToml" $b }}
{{- end }}
{{- else }}
{{- include "batlehub.storageBackendToml" $st }}
{{- end }}
{{- end -}}

{{/* One backend's keys, each on a line of its own preceded by a newline: `type`, then that
type's. The argument is storage itself (the single shape) or a storage.backends entry. */}}
{{- define "batlehub.storageBackendToml" -}}
{{- $type := toString .type }}
type = {{ include "batlehub.tomlStr" $type }}
{{- if eq $type "filesystem" }}
path = {{ include "batlehub.tomlStr" .path }}
{{- else if eq $type "s3" }}
bucket = {{ include "batlehub.tomlStr" .bucket }}
region = {{ include "batlehub.tomlStr" .region }}
{{- with .prefix }}
prefix = {{ include "batlehub.tomlStr" . }}
{{- end }}
{{- with .endpointUrl }}
endpoint_url = {{ include "batlehub.tomlStr" . }}
{{- end }}
force_path_style = {{ include "batlehub.tomlBool" .forcePathStyle }}
{{- with .caFile }}
ca_file = {{ include "batlehub.tomlStr" . }}
{{- end }}
{{- end }}
{{- end -}}
