-- wrk script of bench/shards.sh: GET BENCH_PATH (default /v1/workspace/list), each request with the
-- next API key of BENCH_KEYS (comma-separated), so one run spreads its load over the shards the
-- keys name; the result line is report.lua's.
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(here .. "report.lua")

local path = os.getenv("BENCH_PATH") or "/v1/workspace/list"
local keys = {}
for k in string.gmatch(os.getenv("BENCH_KEYS") or "", "[^,]+") do keys[#keys + 1] = k end
local n = 0

function request()
  n = n + 1
  return wrk.format("GET", path, {["x-auth-service"] = keys[(n % #keys) + 1]})
end
