-- wrk script of bench/soak.sh: report.lua's request and result line, with every "{n}" of
-- BENCH_BODY replaced by a token no other request of the run has (BENCH_TAG, the wrk thread, a
-- counter), so requests that create named things (domains, mailboxes) never collide.
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(here .. "report.lua")

local template = os.getenv("BENCH_BODY") or ""
local tag = os.getenv("BENCH_TAG") or "r"
local threads = 0
local n = 0

function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

function request()
  n = n + 1
  local token = tag .. "t" .. tostring(tid) .. "n" .. tostring(n)
  return wrk.format(nil, nil, nil, (template:gsub("{n}", token)))
end
