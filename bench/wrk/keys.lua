-- wrk script of bench/shards.sh: GET BENCH_PATH (default /v1/workspace/list), each request with the
-- next API key of BENCH_KEYS (comma-separated), so one run spreads its load over the shards the
-- keys name; prints the same result line as report.lua.
local path = os.getenv("BENCH_PATH") or "/v1/workspace/list"
local keys = {}
for k in string.gmatch(os.getenv("BENCH_KEYS") or "", "[^,]+") do keys[#keys + 1] = k end
local n = 0

function request()
  n = n + 1
  return wrk.format("GET", path, {["x-auth-service"] = keys[(n % #keys) + 1]})
end

function done(summary, latency, requests)
  local e = summary.errors
  local seconds = summary.duration / 1000000
  io.write(string.format(
    "WRK requests=%d rps=%.1f p50_us=%d p99_us=%d socket_errors=%d status_errors=%d\n",
    summary.requests, summary.requests / seconds, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.timeout, e.status))
end
