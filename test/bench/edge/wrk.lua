-- wrk script of `make bench-edge`. The URL names the bench hostname
-- (https://bench.edge.test:<port>/1k), so wrk sends it as SNI and Host; this
-- script resolves that name to 127.0.0.1 itself, so no /etc/hosts entry is
-- needed. No request()/response() hooks: wrk's own fast path sends the requests.
-- done() prints one "BENCH key=value ..." line for run.sh; answers other than
-- 2xx/3xx (non2xx) and socket errors are counted there.

wrk.resolve = function(_, service)
  wrk.addrs = wrk.lookup("127.0.0.1", service)
end

function done(summary, latency, _)
  local e = summary.errors
  io.write(string.format(
    "BENCH requests=%d duration_us=%d bytes=%d p50_us=%d p99_us=%d non2xx=%d socket_errors=%d\n",
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(99),
    e.status, e.connect + e.read + e.write + e.timeout))
end
