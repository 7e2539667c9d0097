# shellcheck shell=bash
# Shell functions shared by the benchmarks under test/bench (sourced, not run):
# messages, the checks before a run, helpers of the run, and recording its
# result in docs/benchmarks-history.md. Before sourcing, the caller sets BENCH_NAME
# (its tag in messages, e.g. bench-api) and, when its stdout carries results
# another script reads, BENCH_LOG_FD=2.

log() { echo "[$BENCH_NAME] $*" >&"${BENCH_LOG_FD:-1}"; }
die() { echo "[$BENCH_NAME] FAILED: $*" >&2; exit 1; }

# --- checks ------------------------------------------------------------------
tool_hint() { # tool: where it comes from, for the message of a missing one
  case $1 in
    taskset) echo ' (apt-get install -y util-linux)' ;;
    rabbitmqctl) echo ': the bench makes its own RabbitMQ vhost' ;;
    nginx | wrk) echo ' (make bench-edge installs nginx and wrk)' ;;
  esac
}
need_tools() { # tool...: dies naming the first one not on PATH
  local tool
  for tool in "$@"; do command -v "$tool" >/dev/null 2>&1 || die "$tool is missing$(tool_hint "$tool")"; done
}
need_cpus() { # count why: dies on a machine with fewer CPUs
  [ "$(nproc)" -ge "$1" ] || die "needs $1 CPUs $2"
}
need_built() { # file...: dies unless each (a dist/main.js) is built
  local file
  for file in "$@"; do [ -f "$file" ] || die "build first (make build): no $file"; done
}
install_missing() { # command:package...: installs (apt-get) the package of each command not on PATH
  local pair need=()
  for pair in "$@"; do command -v "${pair%%:*}" >/dev/null 2>&1 || need+=("${pair#*:}"); done
  [ ${#need[@]} -gt 0 ] || return 0
  log "installing ${need[*]}"
  # Debian starts nginx and caddy on ports 80/443 when installed, unless
  # policy-rc.d forbids it; whatever starts anyway is stopped by its pid.
  local policy=/usr/sbin/policy-rc.d created_policy=0 before status=0 pid
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && created_policy=1
  fi
  before=$(pgrep -x 'nginx|caddy' || true)
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null; } || status=$?
  [ "$created_policy" = 0 ] || rm -f "$policy"
  for pid in $(pgrep -x 'nginx|caddy' || true); do
    grep -qx "$pid" <<<"$before" || { log "stopping $(cat "/proc/$pid/comm" 2>/dev/null) $pid started by the package"; kill -TERM "$pid" 2>/dev/null || true; }
  done
  [ "$status" = 0 ] || die "apt-get install ${need[*]} failed"
}

# --- during the run ------------------------------------------------------------
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
json_field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s)[process.argv[1]];if(v===undefined)process.exit(1);console.log(v)})' "$1"; }
now_ms() { date +%s%3N; }
random_base64() { node -e 'console.log(require("crypto").randomBytes(32).toString(process.argv[1]))' "${1:-base64}"; }
loadavg() { cut -d' ' -f1-"${1:-1}" /proc/loadavg; } # [n]: the 1-minute load average, or the first n of 1, 5, 15 minutes

stop_pid() { # pid: SIGTERM, then SIGKILL after 30 s
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 1 150); do kill -0 "$1" 2>/dev/null || break; sleep 0.2; done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

wait_ready() { # pid metrics-port log-file [attempts, 0.5 s apart; default 60]: until /readyz answers, or die
  for _ in $(seq 1 "${4:-60}"); do
    kill -0 "$1" 2>/dev/null || { cat "$3" >&2; die "the service exited at start-up"; }
    curl -fs "http://127.0.0.1:$2/readyz" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  cat "$3" >&2
  die "the service is not ready"
}

# The edge's node flags in the edge benches: as the Helm chart and k8s/ start it, unless
# EDGE_NODE_ARGS says otherwise (e.g. with --cpu-prof added).
EDGE_NODE_ARGS=${EDGE_NODE_ARGS:---max-semi-space-size=32}

# --- recording the result ------------------------------------------------------
# BENCH_DOCS=0 leaves the record alone; BENCH_DOCS_FILE is the record (default
# docs/benchmarks-history.md; docs/benchmarks.md has the methods and current figures).
BENCH_DOCS_FILE=${BENCH_DOCS_FILE:-docs/benchmarks-history.md}
bench_records() { [ "${BENCH_DOCS:-1}" != 0 ]; }
run_date() { date -u +%Y-%m-%dT%H:%MZ; }
bench_commit() { # BENCH_COMMIT, or the short HEAD with +dirty when tracked files differ
  if [ -n "${BENCH_COMMIT:-}" ]; then echo "$BENCH_COMMIT"; return; fi
  local commit
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  git diff --quiet HEAD 2>/dev/null || commit="$commit+dirty"
  echo "$commit"
}

# A bench's part of the record lies between its begin and end marker lines
# (HTML comments); the text goes through the environment, so awk leaves its
# backslashes alone.
md_rewrite() { # file awk-program: the file through the program (TEXT, BEGIN_MARK, END_MARK and KEEP in ENVIRON)
  local tmp
  tmp=$(mktemp)
  awk "$2" "$1" >"$tmp"
  cat "$tmp" >"$1"
  rm -f "$tmp"
}
md_add_section() { # file begin-marker text: appends the text (a section holding the markers) unless the marker is there
  if [ -f "$1" ] && grep -qF -- "$2" "$1"; then return 0; fi
  printf '%s\n' "$3" >>"$1"
}
md_insert_before() { # file end-marker text: the text goes right before the marker's line
  grep -qF -- "$2" "$1" || die "no $2 in $1"
  END_MARK=$2 TEXT=$3 md_rewrite "$1" '$0 == ENVIRON["END_MARK"] { print ENVIRON["TEXT"] } { print }'
}
md_replace_between() { # file begin-marker end-marker text: the text replaces what is between the markers
  grep -qF -- "$2" "$1" || die "no $2 in $1"
  BEGIN_MARK=$2 END_MARK=$3 TEXT=$4 md_rewrite "$1" '
    $0 == ENVIRON["BEGIN_MARK"] { print; print ENVIRON["TEXT"]; skip = 1; next }
    $0 == ENVIRON["END_MARK"] { skip = 0 }
    !skip { print }'
}
md_append_row() { # file begin-marker end-marker row [keep]: the row goes last in the table between the markers; keep: only the newest rows stay
  grep -qF -- "$2" "$1" || die "no $2 in $1"
  BEGIN_MARK=$2 END_MARK=$3 TEXT=$4 KEEP=${5:-0} md_rewrite "$1" '
    $0 == ENVIRON["BEGIN_MARK"] { inside = 1; print; next }
    inside && /^\| [0-9][0-9][0-9][0-9]-/ { rows[++n] = $0; next }
    inside && $0 == ENVIRON["END_MARK"] {
      rows[++n] = ENVIRON["TEXT"]
      keep = ENVIRON["KEEP"] + 0
      for (i = (keep > 0 && n > keep ? n - keep + 1 : 1); i <= n; i++) print rows[i]
      inside = 0; print; next
    }
    { print }'
}

# A PostgreSQL cluster of the bench's own (as test/soak/private-postgres.ts makes
# for the soak tests): initdb in a directory of its own, loopback TCP on a free
# port and a private socket directory, trust authentication, the machine's
# PostgreSQL left alone. initdb and the server refuse to run as root: under root
# they run as the `postgres` OS user. PG_BIN_DIR: the binaries (default the
# Debian PostgreSQL 15 ones).
pg_as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pg_cluster_start() { # dir port setting=value...: initdb, the settings into postgresql.conf, start
  local dir=$1 port=$2 bin=${PG_BIN_DIR:-/usr/lib/postgresql/15/bin}
  shift 2
  [ -x "$bin/initdb" ] || die "no PostgreSQL binaries in $bin (set PG_BIN_DIR)"
  mkdir -p "$dir/socket"
  [ "$(id -u)" != 0 ] || chown -R postgres:postgres "$dir"
  pg_as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  {
    echo "# set by the bench (everything else as initdb leaves it)"
    echo "listen_addresses = '127.0.0.1'"
    echo "port = $port"
    echo "unix_socket_directories = '$dir/socket'"
    local setting
    for setting in "$@"; do echo "$setting"; done
  } >>"$dir/data/postgresql.conf"
  pg_as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 120 start >/dev/null ||
    { cat "$dir/server.log" >&2; die "the PostgreSQL cluster did not start"; }
}
pg_cluster_stop() { # dir: fast shutdown (if running); the directory stays
  local bin=${PG_BIN_DIR:-/usr/lib/postgresql/15/bin}
  [ -d "$1/data" ] || return 0
  pg_as_owner "$bin/pg_ctl" -D "$1/data" -m fast -w -t 120 stop >/dev/null 2>&1 ||
    pg_as_owner "$bin/pg_ctl" -D "$1/data" -m immediate -w -t 60 stop >/dev/null 2>&1 || true
}
