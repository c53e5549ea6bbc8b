#!/usr/bin/env bash
# --data-dir (README "Persistence"): kill -9 under concurrent writers over seeded rounds, a torn
# WAL and bit flips in the main file (scripts/crash-test.py), then the flags as a user meets them:
# a second emsim on the same directory, EMSIM_DATA_DIR, a bad --durability. Prints "N passed, N failed".
# EMSIM_CRASH_ROUNDS / EMSIM_CRASH_DAMAGE / EMSIM_CRASH_SEED size and seed the crash test.
set -uo pipefail
build=${1:?build dir}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/lib/start-emsim.sh"
pass=0 fail=0
check() {  # check NAME COMMAND...
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $name"; fi
}

out=$(python3 "$root/scripts/crash-test.py" "$build/emsim" 2>&1)
echo "$out" | grep -v '^torn WAL cut' | tail -n 20
summary=$(echo "$out" | tail -n 1)
p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' <<<"$summary")
f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' <<<"$summary")
if [ -z "$p" ]; then fail=$((fail + 1)); echo "FAIL: crash test did not finish"; else pass=$((pass + p)); fail=$((fail + f)); fi

start_emsim first --data-dir "$tmp/d1"
first_pid=${pids[-1]}
check "a second emsim on the same data dir is refused, naming the first one's pid" \
  bash -c "'$build/emsim' serve --port 0 --data-dir '$tmp/d1' 2>&1 | grep -q 'in use by another emsim (pid $first_pid'"
check "the file opens in sqlite3 with a table per kind" \
  bash -c "[ \"\$(sqlite3 '$tmp/d1/emsim.db' \"select count(*) from accounts\")\" -ge 1 ]"
kill "$first_pid"; wait "$first_pid" 2>/dev/null
check "EMSIM_DATA_DIR is the flag's variable" \
  bash -c "EMSIM_DATA_DIR='$tmp/d1' '$build/emsim' serve --port 0 >'$tmp/env.out' 2>&1 & p=\$!; for _ in \$(seq 200); do grep -q 'emsim ready' '$tmp/env.out' && break; sleep 0.05; done; kill \$p; wait \$p; grep -q 'world recovered from the data dir' '$tmp/env.out'"
check "bad --durability is refused" bash -c "'$build/emsim' serve --durability sometimes 2>&1 | grep -q 'full or process'"
# Tenants' own clocks (README "Parallel tests: tenants") survive kill -9: a tenant's manual clock
# 3h ahead of the instance's comes back where it was; a deleted tenant stays deleted.
start_emsim tenants --data-dir "$tmp/d3" --clock manual
tenants_pid=${pids[-1]}
sim() { curl -s -X "$1" "http://127.0.0.1:$port$2" -H 'Content-Type: application/json' ${3:+-H "x-auth-service: $3"} ${4:+-d "$4"}; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
kept=$(sim POST /_sim/tenants "" '{}'); gone=$(sim POST /_sim/tenants "" '{}')
kept_key=$(field '["apiKey"]' <<<"$kept"); gone_id=$(field '["accountId"]' <<<"$gone")
sim POST /_sim/clock/advance "$kept_key" '{"duration":"3h"}' >/dev/null
kept_now=$(sim GET /_sim/clock "$kept_key" | field '["epochMs"]')
sim DELETE "/_sim/tenants/$gone_id" >/dev/null
kill -9 "$tenants_pid"; wait "$tenants_pid" 2>/dev/null
start_emsim tenants2 --data-dir "$tmp/d3" --clock manual
check "a tenant's own clock is where it was after kill -9" \
  test "$(sim GET /_sim/clock "$kept_key" | field '["epochMs"]')" = "$kept_now"
check "its clock is its own: the instance clock is 3h behind" \
  test "$(( kept_now - $(sim GET /_sim/clock | field '["epochMs"]') ))" = 10800000
check "a deleted tenant stays deleted" \
  test "$(sim GET /_sim/tenants | field '["tenants"].__len__()')" = 1
echo "persistence: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
