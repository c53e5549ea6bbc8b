-- wrk script of bench/run.sh: the request (method and JSON body from the environment, so one
-- script serves every endpoint) and one machine-readable result line.
--   BENCH_METHOD  GET (default) or POST
--   BENCH_BODY    JSON body of a POST
local method = os.getenv("BENCH_METHOD") or "GET"
local body = os.getenv("BENCH_BODY")

wrk.method = method
if body ~= nil and body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end

-- socket_errors: connect/read/write/timeout; status_errors: answers with a status >= 400
-- (expected for the 400 path, an error everywhere else).
function done(summary, latency, requests)
  local e = summary.errors
  local seconds = summary.duration / 1000000
  io.write(string.format(
    "WRK requests=%d rps=%.1f p50_us=%d p99_us=%d socket_errors=%d status_errors=%d\n",
    summary.requests, summary.requests / seconds, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.timeout, e.status))
end
