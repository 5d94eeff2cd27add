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

{{/* An image reference from {repository, tag, digest}, the chart's imageRegistry and
imageDigests, and the appVersion: the repository moved under imageRegistry when one is set;
repository@digest when the image's own digest or imageDigests[<the repository's last path
element>] gives one, else repository:tag (tag "" = appVersion); "" when there is no repository. */}}
{{- define "batlehub.imageRef" -}}
{{- $img := .image | default dict -}}
{{- if $img.repository -}}
{{- $name := base $img.repository -}}
{{- $repo := ternary (printf "%s/%s" .registry $name) $img.repository (ne (.registry | default "") "") -}}
{{- $digest := $img.digest | default (get (.digests | default dict) $name) -}}
{{- if $digest -}}
{{- printf "%s@%s" $repo $digest -}}
{{- else -}}
{{- printf "%s:%s" $repo (default .appVersion $img.tag) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The worker's image reference. */}}
{{- define "batlehub.image" -}}
{{- include "batlehub.imageRef" (dict "image" .Values.image "registry" .Values.imageRegistry "digests" .Values.imageDigests "appVersion" .Chart.AppVersion) -}}
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
{{- include "batlehub.validateStorage" . -}}
{{- $_ := include "batlehub.cacheVolumes" . -}}
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

{{/* storage: what the worker's loader would refuse in the [storage] the chart renders, refused
here first, in the values' own names (and never a credential's value). */}}
{{- define "batlehub.validateStorage" -}}
{{- $st := .Values.storage -}}
{{- $backends := $st.backends | default list -}}
{{- if $backends -}}
{{- range $k := list "type" "bucket" "region" "prefix" "endpointUrl" "caFile" -}}
{{- if and (ne $k "type") (get $st $k) -}}
{{- fail (printf "storage.%s belongs to the single shape (one backend, storage.backends empty); with storage.backends set, give it to the backend entry it is for" $k) -}}
{{- end -}}
{{- end -}}
{{- if eq (toString $st.type) "s3" -}}
{{- fail "storage.type = s3 belongs to the single shape (one backend, storage.backends empty); with storage.backends set, each entry has its own type" -}}
{{- end -}}
{{- if $st.forcePathStyle -}}
{{- fail "storage.forcePathStyle belongs to the single shape (one backend, storage.backends empty); with storage.backends set, give it to the backend entry it is for" -}}
{{- end -}}
{{- $names := list -}}
{{- range $i, $b := $backends -}}
{{- $where := printf "storage.backends[%d]" $i -}}
{{- if not (kindIs "map" $b) -}}
{{- fail (printf "%s: each backend is a map (name, type, and that type's keys)" $where) -}}
{{- end -}}
{{- $name := toString (required (printf "%s.name is required: storage.default and a registry's storage select a backend by it" $where) $b.name) -}}
{{- if has $name $names -}}
{{- fail (printf "%s.name = %q: two backends with one name (upstream would keep the later one silently); give each its own" $where $name) -}}
{{- end -}}
{{- $names = append $names $name -}}
{{- include "batlehub.validateBackend" (dict "b" $b "where" $where "single" false) -}}
{{- end -}}
{{- $def := toString (required (printf "storage.default is required with storage.backends: the name of the backend used when a registry names none (one of: %s)" (join ", " $names)) $st.default) -}}
{{- if not (has $def $names) -}}
{{- fail (printf "storage.default = %q names no backend of storage.backends (declared: %s)" $def (join ", " $names)) -}}
{{- end -}}
{{- else -}}
{{- if $st.default -}}
{{- fail (printf "storage.default = %q names a backend of storage.backends, which is empty: the single shape (storage.type and its keys) has one backend, named \"default\"; leave storage.default \"\" or declare storage.backends" (toString $st.default)) -}}
{{- end -}}
{{- include "batlehub.validateBackend" (dict "b" $st "where" "storage" "single" true) -}}
{{- end -}}
{{- $wi := $st.webIdentity | default dict -}}
{{- if and $wi.roleArn ($st.s3Credentials | default dict).existingSecret -}}
{{- fail "storage.webIdentity.roleArn and storage.s3Credentials.existingSecret are both set: the AWS credential chain takes the environment's AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY first, so the role would never be assumed; set one of the two" -}}
{{- end -}}
{{- if $wi.roleArn -}}
{{- if not $wi.audience -}}
{{- fail "storage.webIdentity.audience must not be empty: the projected token's audience, which the role's trust policy names (sts.amazonaws.com on AWS)" -}}
{{- end -}}
{{- if lt (int64 ($wi.expirationSeconds | default 0)) 600 -}}
{{- fail "storage.webIdentity.expirationSeconds must be at least 600 (Kubernetes' minimum for a projected token)" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* One backend (.b: storage itself, or a storage.backends entry; .where: its values path;
.single: .b is storage itself, whose path has a default whatever the type): its type, the keys
that type requires, and none of the other type's. */}}
{{- define "batlehub.validateBackend" -}}
{{- $b := .b -}}
{{- $where := .where -}}
{{- range $k := list "accessKeyId" "secretAccessKey" "sessionToken" "access_key_id" "secret_access_key" "session_token" -}}
{{- if hasKey $b $k -}}
{{- fail (printf "%s.%s: credentials are never rendered into the ConfigMap (nor read from config.toml, by upstream or this worker): put them in a Secret and name it in storage.s3Credentials.existingSecret, or use storage.webIdentity" $where $k) -}}
{{- end -}}
{{- end -}}
{{- $renamed := dict "endpoint" "endpointUrl" "endpoint_url" "endpointUrl" "pathStyle" "forcePathStyle" "path_style" "forcePathStyle" "force_path_style" "forcePathStyle" "ca_file" "caFile" -}}
{{- range $old, $new := $renamed -}}
{{- if hasKey $b $old -}}
{{- $note := ternary "; its default is false, as upstream's" "" (eq $new "forcePathStyle") -}}
{{- fail (printf "%s.%s: write %s (rendered as upstream's %s%s)" $where $old $new (regexReplaceAll "([A-Z])" $new "_${1}" | lower) $note) -}}
{{- end -}}
{{- end -}}
{{- $type := toString (required (printf "%s.type is required: filesystem or s3" $where) $b.type) -}}
{{- if eq $type "filesystem" -}}
{{- $_ := required (printf "%s.path is required for a filesystem backend" $where) $b.path -}}
{{- range $k := list "bucket" "region" "prefix" "endpointUrl" "caFile" "forcePathStyle" -}}
{{- if get $b $k -}}
{{- fail (printf "%s.%s is an s3 key, and %s.type is filesystem (the chart would not render it)" $where $k $where) -}}
{{- end -}}
{{- end -}}
{{- else if eq $type "s3" -}}
{{- $_ := required (printf "%s.bucket is required for an s3 backend" $where) $b.bucket -}}
{{- $_ := required (printf "%s.region is required for an s3 backend: the signing region, e.g. us-east-1 (upstream has no default)" $where) $b.region -}}
{{- if and (not .single) $b.path -}}
{{- fail (printf "%s.path is a filesystem key, and %s.type is s3 (the chart would not render it)" $where $where) -}}
{{- end -}}
{{- else -}}
{{- fail (printf "%s.type = %q is not one of upstream's storage types: filesystem, s3" $where $type) -}}
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

{{/* Whether the worker pod mounts its ServiceAccount token: serviceAccount.automountToken when
set, else true on runtime kubernetes only. "true" or "false". */}}
{{- define "batlehub.automountToken" -}}
{{- $automount := eq .Values.worker.sandbox.runtime "kubernetes" -}}
{{- if not (kindIs "invalid" .Values.serviceAccount.automountToken) -}}{{- $automount = .Values.serviceAccount.automountToken -}}{{- end -}}
{{- if $automount }}true{{ else }}false{{ end -}}
{{- end -}}

{{/* The stores' volumes: one per distinct path of a filesystem backend (the single shape's
storage.path, or each storage.backends entry of type filesystem), as JSON
{"mounts": [{name, path, claim}], "provided": [path]}. name is cache-<n> in the order the
paths first appear; claim is the PersistentVolumeClaim (storage.cache.existingClaim, or the
entry's existingClaim), "" = an emptyDir (storage.cache.sizeLimit). A path that
worker.extraVolumeMounts already covers (the same path, or a directory above it) is
"provided" and gets no volume of the chart's. Refused: a relative path, "/", a path equal to,
inside or above a directory the chart mounts (the ConfigMap, the scratch /tmp, the state
volume, a ServiceAccount token), two claims for one path, a claim given where nothing is
mounted. */}}
{{- define "batlehub.cacheVolumes" -}}
{{- $st := .Values.storage -}}
{{- $cache := $st.cache | default dict -}}
{{- $entries := list -}}
{{- if $st.backends -}}
{{- if $cache.existingClaim -}}
{{- fail "storage.cache.existingClaim belongs to the single shape (one backend, storage.backends empty); with storage.backends set, give existingClaim to the filesystem entry it is for (storage.backends[<i>].existingClaim)" -}}
{{- end -}}
{{- range $i, $b := $st.backends -}}
{{- $where := printf "storage.backends[%d]" $i -}}
{{- if eq (toString $b.type) "filesystem" -}}
{{- $entries = append $entries (dict "path" (toString $b.path) "where" (printf "%s.path" $where) "claim" (toString ($b.existingClaim | default "")) "claimKey" (printf "%s.existingClaim" $where)) -}}
{{- else if $b.existingClaim -}}
{{- fail (printf "%s.existingClaim is a filesystem key, and %s.type is %s: the chart mounts a volume at a filesystem backend's path only" $where $where (toString $b.type)) -}}
{{- end -}}
{{- end -}}
{{- else if eq (toString $st.type) "filesystem" -}}
{{- $entries = append $entries (dict "path" (toString $st.path) "where" "storage.path" "claim" (toString ($cache.existingClaim | default "")) "claimKey" "storage.cache.existingClaim") -}}
{{- else if $cache.existingClaim -}}
{{- fail (printf "storage.cache.existingClaim is mounted at a filesystem backend's path, and storage.type is %s: nothing would mount it" (toString $st.type)) -}}
{{- end -}}
{{/* What the chart itself mounts in the worker container (templates/deployment.yaml). */}}
{{- $taken := list (dict "path" "/etc/batlehub" "what" "the ConfigMap (config.toml)") (dict "path" "/tmp" "what" "the scratch volume (/tmp)") (dict "path" (clean (toString .Values.worker.stateDir)) "what" "the state volume (worker.stateDir)") -}}
{{- if ($st.webIdentity | default dict).roleArn -}}
{{- $taken = append $taken (dict "path" "/var/run/secrets/batlehub/aws-web-identity" "what" "the web identity token (storage.webIdentity)") -}}
{{- end -}}
{{- if eq (include "batlehub.automountToken" .) "true" -}}
{{- $taken = append $taken (dict "path" "/var/run/secrets/kubernetes.io/serviceaccount" "what" "the worker's ServiceAccount token (the kubelet's mount)") -}}
{{- end -}}
{{- $mounts := list -}}
{{- $provided := list -}}
{{- $paths := list -}}
{{- $seen := dict -}}
{{- range $e := $entries -}}
{{- if not (isAbs $e.path) -}}
{{- fail (printf "%s = %q must be an absolute path: the chart mounts the store's volume there (the worker's root filesystem is read-only)" $e.where $e.path) -}}
{{- end -}}
{{- $p := clean $e.path -}}
{{- if eq $p "/" -}}
{{- fail (printf "%s = %q: the chart cannot mount the store's volume over the container's root; name a directory of its own, e.g. /var/cache/batlehub" $e.where $e.path) -}}
{{- end -}}
{{- range $t := $taken -}}
{{- if or (eq $p $t.path) (hasPrefix (printf "%s/" $t.path) $p) (hasPrefix (printf "%s/" $p) $t.path) -}}
{{- fail (printf "%s = %q: the chart already mounts %s at %s, and a store's volume may not be mounted at, inside or above it; give the store a directory of its own, e.g. /var/cache/batlehub" $e.where $e.path $t.what $t.path) -}}
{{- end -}}
{{- end -}}
{{- if hasKey $seen $p -}}
{{- $prev := get $seen $p -}}
{{- if and $e.claim $prev.claim (ne $e.claim $prev.claim) -}}
{{- fail (printf "%s and %s both name a PersistentVolumeClaim for the path %s (%q, %q): one path is one volume" $prev.claimKey $e.claimKey $p $prev.claim $e.claim) -}}
{{- end -}}
{{- if and $e.claim (not $prev.claim) -}}
{{- $_ := set $prev "claim" $e.claim -}}
{{- $_ := set $prev "claimKey" $e.claimKey -}}
{{- end -}}
{{- else -}}
{{- $_ := set $seen $p (dict "path" $p "claim" $e.claim "claimKey" $e.claimKey) -}}
{{- $paths = append $paths $p -}}
{{- end -}}
{{- end -}}
{{/* The distinct paths, in order: the chart's volumes, or already on the user's. */}}
{{- range $p := $paths -}}
{{- $v := get $seen $p -}}
{{- $covered := "" -}}
{{- range $.Values.worker.extraVolumeMounts -}}
{{- $mp := clean (toString .mountPath) -}}
{{- if or (eq $mp $p) (eq $mp "/") (hasPrefix (printf "%s/" $mp) $p) -}}{{- $covered = $mp -}}{{- end -}}
{{- end -}}
{{- if $covered -}}
{{- if $v.claim -}}
{{- fail (printf "%s = %q: the path %s is already on a volume of worker.extraVolumeMounts (mounted at %s); name the claim in one place only" $v.claimKey $v.claim $p $covered) -}}
{{- end -}}
{{- $provided = append $provided $p -}}
{{- else -}}
{{- $mounts = append $mounts (dict "name" (printf "cache-%d" (len $mounts)) "path" $p "claim" $v.claim) -}}
{{- end -}}
{{- end -}}
{{- toJson (dict "mounts" $mounts "provided" $provided) -}}
{{- end -}}
