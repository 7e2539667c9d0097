# Shell functions shared by the benchmarks under test/bench (sourced, not run).
# The caller defines log and die.

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
json_field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s)[process.argv[1]];if(v===undefined)process.exit(1);console.log(v)})' "$1"; }
now_ms() { date +%s%3N; }
random_base64() { node -e 'console.log(require("crypto").randomBytes(32).toString(process.argv[1]))' "${1:-base64}"; }
loadavg() { cut -d' ' -f1 /proc/loadavg; }

stop_pid() { # pid: SIGTERM, then SIGKILL after 30 s
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 1 150); do kill -0 "$1" 2>/dev/null || break; sleep 0.2; done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

wait_ready() { # pid metrics-port log-file: until /readyz answers, or die
  for _ in $(seq 1 60); do
    kill -0 "$1" 2>/dev/null || { cat "$3" >&2; die "the service exited at start-up"; }
    curl -fs "http://127.0.0.1:$2/readyz" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  cat "$3" >&2
  die "the service is not ready"
}

bench_commit() { # BENCH_COMMIT, or the short HEAD with +dirty when tracked files differ
  if [ -n "${BENCH_COMMIT:-}" ]; then echo "$BENCH_COMMIT"; return; fi
  local commit
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  git diff --quiet HEAD 2>/dev/null || commit="$commit+dirty"
  echo "$commit"
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
