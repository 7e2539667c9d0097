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
