-- wrk script for POST /v1/domains: every request registers a new hostname
-- b<tag><thread>-<counter>.bench-customer.com (the tag keeps the warm-up and
-- the measured run apart), so no request hits hostname_already_claimed.
-- Usage: BENCH_TOKEN=<credential> wrk ... -s create-domains.lua -- <tag>
-- done() prints one "BENCH key=value ..." line for run.sh; any answer other
-- than 201 is counted there (non201) and makes the bench fail.

local threads = {}
local next_id = 1

function setup(thread)
  thread:set("thread_id", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

function init(args)
  tag = args[1] or "x"
  counter = 0
  non201 = 0
  first_bad = ""
  headers = {
    ["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN"),
    ["Content-Type"] = "application/json",
  }
end

function request()
  counter = counter + 1
  local body = string.format('{"hostname":"b%s%d-%d.bench-customer.com","reference":"ws"}', tag, thread_id, counter)
  return wrk.format("POST", "/v1/domains", headers, body)
end

function response(status, _, body)
  if status ~= 201 then
    non201 = non201 + 1
    if first_bad == "" then first_bad = status .. " " .. string.sub(body or "", 1, 200) end
  end
end

function done(summary, latency, _)
  local bad, sample = 0, ""
  for _, t in ipairs(threads) do
    bad = bad + t:get("non201")
    if sample == "" then sample = t:get("first_bad") end
  end
  local e = summary.errors
  io.write(string.format(
    "BENCH requests=%d duration_us=%d p50_us=%d p99_us=%d mean_us=%.0f non201=%d socket_errors=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.mean, bad,
    e.connect + e.read + e.write + e.timeout))
  if sample ~= "" then io.write("BENCH first_non201: " .. sample .. "\n") end
end
