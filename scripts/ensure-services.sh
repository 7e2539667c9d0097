#!/usr/bin/env bash
# Makes sure the servers the integration tests talk to are installed and running:
# PostgreSQL and RabbitMQ (installed from Debian's packages when missing), and the
# tools the Kubernetes tests use.
set -euo pipefail
need_apt=()
command -v pg_ctlcluster >/dev/null 2>&1 || need_apt+=(postgresql)
command -v pgbench >/dev/null 2>&1 || need_apt+=(postgresql-contrib)
command -v rabbitmq-server >/dev/null 2>&1 || need_apt+=(rabbitmq-server)
# The chart tests: helm-render is built offline from Debian's Go sources (GOPATH
# mode under /usr/share/gocode); `kubectl kustomize` renders k8s/ (needs kubectl
# >= 1.21: this machine kind's apt sources carry a current `kubectl` package).
command -v go >/dev/null 2>&1 || need_apt+=(golang-go)
[ -d /usr/share/gocode/src/github.com/Masterminds/sprig ] || need_apt+=(golang-github-masterminds-sprig-dev)
[ -d /usr/share/gocode/src/gopkg.in/yaml.v3 ] || need_apt+=(golang-gopkg-yaml.v3-dev)
command -v kubectl >/dev/null 2>&1 || need_apt+=(kubectl)
# pebble and pebble-challtestsrv: the ACME server and programmable DNS of the checker's tests.
[ -x /usr/bin/pebble-challtestsrv ] || need_apt+=(pebble)
# promtool checks and unit-tests the alert rules; prometheus scrapes the services
# in the dashboard test (test/integration/k8s). Both come with Debian's prometheus.
command -v promtool >/dev/null 2>&1 || need_apt+=(prometheus)
# haproxy: a real load balancer sending PROXY protocol headers to the edge (test/integration/edge).
[ -x /usr/sbin/haproxy ] || need_apt+=(haproxy)
# pgbouncer: migrations through a pooler in transaction mode (test/integration/data); the tests start their own.
[ -x /usr/sbin/pgbouncer ] || need_apt+=(pgbouncer)
# bind9 (named) and unbound: the authoritative zone of the ACME DNS-01 delegation, taking
# TSIG-signed RFC 2136 updates, and the recursive resolver Pebble and the checker ask
# (test/support/bind9.ts, test/support/unbound.ts); bind9-dnsutils gives nsupdate and dig.
[ -x /usr/sbin/named ] || need_apt+=(bind9)
command -v nsupdate >/dev/null 2>&1 || need_apt+=(bind9-dnsutils)
[ -x /usr/sbin/unbound ] || need_apt+=(unbound)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "installing ${need_apt[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

pg_up() { pg_isready -h 127.0.0.1 -p 5432 -q; }
if ! pg_up; then
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  for _ in $(seq 1 30); do pg_up && break; sleep 1; done
fi
pg_up || { echo "PostgreSQL is not reachable on 127.0.0.1:5432" >&2; exit 1; }

rabbit_up() { (exec 3<>/dev/tcp/127.0.0.1/5672) 2>/dev/null; }
if ! rabbit_up; then
  echo "starting RabbitMQ"
  rabbitmq-server -detached || true
  for _ in $(seq 1 60); do rabbit_up && break; sleep 1; done
  rabbitmqctl await_startup >/dev/null 2>&1 || true
fi
rabbit_up || { echo "RabbitMQ is not reachable on 127.0.0.1:5672" >&2; exit 1; }
echo "PostgreSQL and RabbitMQ are up"
