-- wrk script of `make bench-edge-names`: like wrk.lua (the bench hostname
-- resolved to 127.0.0.1, one "BENCH ..." line at the end), but each connection
-- waits BENCH_DELAY_MS (10) after each answer, so the ready domain's load is
-- about connections * 1000 / (10 + latency) requests a second and leaves the
-- edge room: its p99 then shows what the flood beside it costs, not a CPU
-- already at 100%.

local delay_ms = tonumber(os.getenv("BENCH_DELAY_MS") or "10")

wrk.resolve = function(_, service)
  wrk.addrs = wrk.lookup("127.0.0.1", service)
end

function delay()
  return delay_ms
end

function done(summary, latency, _)
  local e = summary.errors
  io.write(string.format(
    "BENCH requests=%d duration_us=%d bytes=%d p50_us=%d p99_us=%d non2xx=%d socket_errors=%d\n",
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(99),
    e.status, e.connect + e.read + e.write + e.timeout))
end
