{{/* Names and labels shared by every object. */}}
{{- define "cds.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "cds.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "cds.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "cds.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "cds.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "cds.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one component: call with (dict "root" $ "component" "api"). */}}
{{- define "cds.selectorLabels" -}}
app.kubernetes.io/name: {{ include "cds.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "cds.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "cds.secretName" -}}
{{- .Values.secrets.existingSecret | default (include "cds.fullname" .) -}}
{{- end -}}

{{/*
Seconds the services give their shutdown steps after SIGTERM: fixed in code
(libs/lifecycle SHUTDOWN_DEADLINE_MS), so not a value. test/integration/k8s holds
every Deployment's grace period to it.
*/}}
{{- define "cds.shutdownDeadlineSeconds" -}}
25
{{- end -}}

{{/*
The four services: name, values key, entry point inside the image, node flags
and the secret-held variables the service reads (it gets those keys of the
Secret and no others: the internet-facing edge holds no OPERATOR_TOKEN, and
only the checker holds ACME_DNS_TSIG_KEY, the key that writes into the ACME
DNS zone). The
edge's young generation is larger than node's default (16 MiB): at thousands
of requests a second fewer objects outlive it, so fewer old-space collections
pause the edge (docs/benchmarks.md, p99).
*/}}
{{- define "cds.components" -}}
components:
  - name: api
    valuesKey: api
    main: services/api/dist/main.js
    secrets: [DATABASE_URL, AMQP_URL, OPERATOR_TOKEN, DATA_ENCRYPTION_KEY, DATA_ENCRYPTION_KEYS]
  - name: checker
    valuesKey: checker
    main: services/checker/dist/main.js
    secrets: [DATABASE_URL, AMQP_URL, DATA_ENCRYPTION_KEY, DATA_ENCRYPTION_KEYS, ASSERTION_DEPLOYMENT_KEY, ACME_DNS_TSIG_KEY]
  - name: webhook-dispatcher
    valuesKey: webhookDispatcher
    main: services/webhook-dispatcher/dist/main.js
    secrets: [DATABASE_URL, AMQP_URL, DATA_ENCRYPTION_KEY, DATA_ENCRYPTION_KEYS]
  - name: edge-proxy
    valuesKey: edgeProxy
    main: services/edge-proxy/dist/main.js
    nodeArgs: ["--max-semi-space-size=32"]
    secrets: [DATABASE_URL, AMQP_URL, DATA_ENCRYPTION_KEY, DATA_ENCRYPTION_KEYS, ASSERTION_DEPLOYMENT_KEY, SMTP_URL]
{{- end -}}

{{/*
Secret-held variables: the required ones, then the optional ones. Exactly one
of DATA_ENCRYPTION_KEY and DATA_ENCRYPTION_KEYS (a rotation's list) is set:
templates/secret.yaml checks it, the services refuse both at start.
*/}}
{{- define "cds.secretKeys" -}}
required: [DATABASE_URL, AMQP_URL, OPERATOR_TOKEN, ASSERTION_DEPLOYMENT_KEY]
optional: [DATA_ENCRYPTION_KEY, DATA_ENCRYPTION_KEYS, SMTP_URL, ACME_DNS_TSIG_KEY]
{{- end -}}

{{/*
Certificates before cutover (DECISIONS §13, docs/certificates.md): the ACME DNS
zone, its update server and the TSIG key go together, all three or none, as
the services require at start. The key is only seen here when the chart writes
the Secret; with secrets.existingSecret the checker checks it.
*/}}
{{- define "cds.checkAcmeDns" -}}
{{- $set := list -}}
{{- $missing := list -}}
{{- range list "ACME_DNS_ZONE" "ACME_DNS_UPDATE_SERVER" -}}
{{- if ne (index $.Values.config . | default "" | toString | trim) "" -}}
{{- $set = append $set (printf "config.%s" .) -}}
{{- else -}}
{{- $missing = append $missing (printf "config.%s" .) -}}
{{- end -}}
{{- end -}}
{{- if not .Values.secrets.existingSecret -}}
{{- if ne (.Values.secrets.ACME_DNS_TSIG_KEY | default "" | toString | trim) "" -}}
{{- $set = append $set "secrets.ACME_DNS_TSIG_KEY" -}}
{{- else -}}
{{- $missing = append $missing "secrets.ACME_DNS_TSIG_KEY" -}}
{{- end -}}
{{- end -}}
{{- if and $set $missing -}}
{{- fail (printf "%s is required when %s %s set: certificates before cutover need the zone, its update server and the TSIG key (docs/certificates.md, \"Certificates before cutover\")" (first $missing) (join " and " $set) (ternary "is" "are" (eq (len $set) 1))) -}}
{{- end -}}
{{- end -}}

{{/*
env entries reading secret-held variables from the Secret: call with
(dict "root" $ "names" .secrets), a component's list. A key of
cds.secretKeys.optional may be missing from the Secret.
*/}}
{{- define "cds.secretEnv" -}}
{{- $keys := fromYaml (include "cds.secretKeys" .root) -}}
{{- $secret := include "cds.secretName" .root -}}
{{- range .names }}
- name: {{ . }}
  valueFrom:
    secretKeyRef: { name: {{ $secret }}, key: {{ . }}{{ if has . $keys.optional }}, optional: true{{ end }} }
{{- end }}
{{- end -}}

{{/*
The checker's External Account Binding HMAC keys (DECISIONS §14): for each
config.ACME_EAB_KID_<n> that is set, ACME_EAB_HMAC_KEY_<n> from the Secret
(the chart's, from secrets.ACME_EAB_HMAC_KEY_<n>, or existingSecret's).
*/}}
{{- define "cds.eabSecretEnv" -}}
{{- $secret := include "cds.secretName" . -}}
{{- range $name, $value := .Values.config }}
{{- if and (regexMatch "^ACME_EAB_KID_[1-9][0-9]*$" $name) (ne (toString $value) "") }}
{{- $key := printf "ACME_EAB_HMAC_KEY_%s" (trimPrefix "ACME_EAB_KID_" $name) }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef: { name: {{ $secret }}, key: {{ $key }} }
{{- end }}
{{- end }}
{{- end -}}

{{/* The application API's paths, the only ones an Ingress routes (never /operator). */}}
{{- define "cds.apiIngressPaths" -}}
paths:
  - { path: /v1, pathType: Prefix }
  - { path: /v1/openapi.json, pathType: Exact }
  - { path: /domains, pathType: Prefix }
{{- end -}}
