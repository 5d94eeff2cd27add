{{/* Names and labels. */}}
{{- define "batlehub.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "batlehub.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "batlehub.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The labels every object carries; a component label is added by each template. */}}
{{- define "batlehub.labels" -}}
helm.sh/chart: {{ include "batlehub.chart" . }}
app.kubernetes.io/name: {{ include "batlehub.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: batlehub
{{- end -}}

{{/* The worker pods' selector. Sandbox pods carry app.kubernetes.io/component=sandbox and no
instance label, so the Deployment never selects them. */}}
{{- define "batlehub.selectorLabels" -}}
app.kubernetes.io/name: {{ include "batlehub.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: worker
{{- end -}}

{{- define "batlehub.workerServiceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "batlehub.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name must name an existing ServiceAccount when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The worker's image reference: repository@digest, else repository:tag (tag "" = appVersion). */}}
{{- define "batlehub.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* A scanner's image reference from its image: {repository, tag, digest}; "" when none. */}}
{{- define "batlehub.scannerImage" -}}
{{- $img := .image | default dict -}}
{{- if $img.repository -}}
{{- if $img.digest -}}
{{- printf "%s@%s" $img.repository $img.digest -}}
{{- else -}}
{{- printf "%s:%s" $img.repository (default .appVersion $img.tag) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The sandbox namespace: worker.sandbox.kubernetes.namespace, else the release's. */}}
{{- define "batlehub.sandboxNamespace" -}}
{{- default .Release.Namespace .Values.worker.sandbox.kubernetes.namespace -}}
{{- end -}}

{{/* A Kubernetes memory quantity ("4Gi", "4096Mi", "4G", "4294967296") in whole MiB,
rounded down; "" when it is not one. */}}
{{- define "batlehub.quantityMiB" -}}
{{- $q := toString . | trim -}}
{{- $num := regexFind "^[0-9]+(\\.[0-9]+)?" $q -}}
{{- if $num -}}
{{- $suffix := trimPrefix $num $q -}}
{{- $factors := dict "" (divf 1 1048576) "Ki" (divf 1 1024) "Mi" 1.0 "Gi" 1024.0 "Ti" 1048576.0 "k" (divf 1000 1048576) "M" (divf 1000000 1048576) "G" (divf 1000000000 1048576) "T" (divf 1000000000000 1048576) -}}
{{- if hasKey $factors $suffix -}}
{{- mulf (float64 $num) (get $factors $suffix) | floor | int64 -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The number of sandbox runs one worker has in flight, as the chart sizes the ResourceQuota
for it (runtime kubernetes): worker.poolSlots when > 0; else ⌊resources.limits.memory ÷
(memoryLimitMb + maxExtractedMb)⌋, at least 1, when that limit is set; else 1. */}}
{{- define "batlehub.pool" -}}
{{- $s := .Values.worker.sandbox -}}
{{- $cost := add (int64 $s.memoryLimitMb) (int64 $s.maxExtractedMb) -}}
{{- $slots := int64 .Values.worker.poolSlots -}}
{{- if gt $slots 0 -}}
{{- $slots -}}
{{- else -}}
{{- $limit := "" -}}
{{- with .Values.resources -}}{{- with .limits -}}{{- with .memory -}}{{- $limit = include "batlehub.quantityMiB" . -}}{{- end -}}{{- end -}}{{- end -}}
{{- if $limit -}}
{{- max 1 (div (int64 $limit) $cost) -}}
{{- else -}}
1
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Refusals at render time, for what the worker's loader could not catch (or the chart
must never render). */}}
{{- define "batlehub.validate" -}}
{{- $s := .Values.worker.sandbox -}}
{{- $runtimes := list "none" "bwrap" "oci" "kubernetes" -}}
{{- if not (has $s.runtime $runtimes) -}}
{{- fail (printf "worker.sandbox.runtime = %q is not one of none, bwrap, oci, kubernetes" (toString $s.runtime)) -}}
{{- end -}}
{{- if and (eq $s.runtime "none") (not $s.unsafeNoSandbox) -}}
{{- fail "worker.sandbox.runtime = none runs every scanner in the worker's own process, next to its credentials; the worker refuses it unless BATLEHUB_UNSAFE_NO_SANDBOX=1, which the chart sets only with worker.sandbox.unsafeNoSandbox=true (tests only). In a cluster, use runtime kubernetes" -}}
{{- end -}}
{{- range $b := .Values.storage.backends -}}
{{- range $k := list "accessKeyId" "secretAccessKey" "sessionToken" "access_key_id" "secret_access_key" "session_token" -}}
{{- if hasKey $b $k -}}
{{- fail (printf "storage.backends[%s].%s: credentials are never rendered into the ConfigMap; put them in a Secret and name it in storage.s3Credentials.existingSecret" (toString $b.name) $k) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $url := toString .Values.database.url -}}
{{- if or (regexMatch "://[^/@]*:[^/@]*@" $url) (regexMatch "(?i)password\\s*=" $url) -}}
{{- fail "database.url must not carry a password (the ConfigMap is not a Secret): put it in a Secret and name it in database.passwordSecret, which the worker gets as PGPASSWORD" -}}
{{- end -}}
{{- if eq $s.runtime "kubernetes" -}}
{{- $k := $s.kubernetes -}}
{{- if and $k.createNamespace (eq (include "batlehub.sandboxNamespace" .) .Release.Namespace) -}}
{{- fail "worker.sandbox.kubernetes.createNamespace needs worker.sandbox.kubernetes.namespace to name a namespace other than the release's (Helm does not own the release namespace)" -}}
{{- end -}}
{{- if ne (toString $k.fqdnPolicy) "cilium" -}}
{{- fail (printf "worker.sandbox.kubernetes.fqdnPolicy = %q: only \"cilium\" is supported" (toString $k.fqdnPolicy)) -}}
{{- end -}}
{{- range $r := concat ($k.storageEgress | default list) ($k.egressAllowlist | default list) -}}
{{- $forms := 0 -}}
{{- if $r.cidr -}}{{- $forms = add1 $forms -}}{{- end -}}
{{- if or $r.namespaceSelector $r.podSelector -}}{{- $forms = add1 $forms -}}{{- end -}}
{{- if or $r.fqdn $r.matchPattern -}}{{- $forms = add1 $forms -}}{{- end -}}
{{- if ne $forms 1 -}}
{{- fail (printf "worker.sandbox.kubernetes.storageEgress / egressAllowlist: each rule is exactly one of {cidr}, {namespaceSelector and/or podSelector} or {fqdn | matchPattern} (with ports); got %s" (toJson $r)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* A NetworkPolicy's egress list, as YAML: the cidr and selector rules of .rules (fqdn rules
go to the CiliumNetworkPolicy), then UDP and TCP 53 to the cluster's DNS pods (.dns), then
the rules of .allow. A port's protocol is TCP when unsaid. */}}
{{- define "batlehub.npEgress" -}}
{{- $out := list -}}
{{- $dnsRule := dict "to" (list (dict "namespaceSelector" .dns.namespaceSelector "podSelector" .dns.podSelector)) "ports" (list (dict "protocol" "UDP" "port" 53) (dict "protocol" "TCP" "port" 53)) -}}
{{- range $part := list "rules" "dns" "allow" -}}
{{- if eq $part "dns" -}}
{{- $out = append $out $dnsRule -}}
{{- else -}}
{{- range (get $ $part | default list) -}}
{{- $peer := dict -}}
{{- if .cidr -}}
{{- $ib := dict "cidr" .cidr -}}
{{- with .except -}}{{- $_ := set $ib "except" . -}}{{- end -}}
{{- $_ := set $peer "ipBlock" $ib -}}
{{- else -}}
{{- with .namespaceSelector -}}{{- $_ := set $peer "namespaceSelector" . -}}{{- end -}}
{{- with .podSelector -}}{{- $_ := set $peer "podSelector" . -}}{{- end -}}
{{- end -}}
{{- if $peer -}}
{{- $rule := dict "to" (list $peer) -}}
{{- $ports := list -}}
{{- range .ports -}}
{{- $p := dict "protocol" (.protocol | default "TCP") "port" .port -}}
{{- with .endPort -}}{{- $_ := set $p "endPort" . -}}{{- end -}}
{{- $ports = append $ports $p -}}
{{- end -}}
{{- if $ports -}}{{- $_ := set $rule "ports" $ports -}}{{- end -}}
{{- $out = append $out $rule -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/* A TOML string (JSON's escapes are TOML basic-string escapes). */}}
{{- define "batlehub.tomlStr" -}}
{{- toString . | toJson -}}
{{- end -}}

{{/* A TOML key: bare when it may be, else quoted. */}}
{{- define "batlehub.tomlKey" -}}
{{- if regexMatch "^[A-Za-z0-9_-]+$" (toString .) -}}{{ . }}{{- else -}}{{ toString . | toJson }}{{- end -}}
{{- end -}}

{{/* A TOML array of strings. */}}
{{- define "batlehub.tomlStrings" -}}
{{- $out := list -}}
{{- range . -}}{{- $out = append $out (toString . | toJson) -}}{{- end -}}
[{{ join ", " $out }}]
{{- end -}}

{{/* A TOML inline table of strings. */}}
{{- define "batlehub.tomlStringMap" -}}
{{- $out := list -}}
{{- range $k, $v := . -}}{{- $out = append $out (printf "%s = %s" (toJson $k) (toString $v | toJson)) -}}{{- end -}}
{{- if $out -}}{ {{ join ", " $out }} }{{- else -}}{}{{- end -}}
{{- end -}}

{{- define "batlehub.tomlBool" -}}
{{- if . }}true{{ else }}false{{ end -}}
{{- end -}}
