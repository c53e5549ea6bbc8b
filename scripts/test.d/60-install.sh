#!/usr/bin/env bash
# emsim as a user gets it outside the checkout: `cmake --install --strip` and the .deb `cpack`
# makes. The installed binary must find its data relative to itself (no path of the build
# machine is compiled in), so it is run from other directories than the checkout and the build:
#   (a) the install layout, no checkout path in the binary, its stripped size;
#   (b) the installed emsim from elsewhere: the default fixture it picks, the contract suite
#       against it (once, in the background while the rest runs), EMSIM_SHARE_DIR, configuration
#       by environment variables;
#   (c) the .deb: its control fields and Depends, and its usr/bin/emsim, unpacked, serving.
# Nothing is built here. Prints one line per check and ends with "install: N passed, N failed".
set -uo pipefail
build=$(cd "${1:?build dir}" && pwd -P)
root=$(cd "$(dirname "$0")/../.." && pwd -P)
pass=0 fail=0
check() {  # check NAME COMMAND...
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); echo "ok: $name"; else fail=$((fail + 1)); echo "FAIL: $name"; fi
}
# The caller's EMSIM_* variables would configure every emsim started here (that is the feature
# under test): start from none, and set them per command below.
for v in $(compgen -e | grep '^EMSIM_' || true); do unset "$v"; done
# pwd -P: emsim reports paths from /proc/self/exe, which has symlinks resolved.
tmp=$(cd "$(mktemp -d)" && pwd -P)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/elsewhere" "$tmp/empty-share"

# start NAME DIR [VAR=VALUE...] PROGRAM ARGS...: PROGRAM in the background, from DIR, with those
# variables; waits up to 10 s for its ready line (or its exit) and sets $port (empty when it did
# not start; its output is shown then) and $last_pid. Output in $tmp/NAME.out and .err.
start() {
  local name=$1 dir=$2
  shift 2
  (cd "$dir" && exec env "$@") >"$tmp/$name.out" 2>"$tmp/$name.err" &
  last_pid=$!
  pids+=("$last_pid")
  for _ in $(seq 1 200); do
    grep -q 'emsim ready' "$tmp/$name.out" 2>/dev/null && break
    kill -0 "$last_pid" 2>/dev/null || break
    sleep 0.05
  done
  port=$(grep -o 'ready on http://[^ ]*' "$tmp/$name.out" | head -1 | sed 's/.*://')
  if [ -z "$port" ]; then
    echo "$name: emsim did not start:"
    cat "$tmp/$name.out" "$tmp/$name.err"
  fi
}
stop() { kill -TERM "$last_pid" 2>/dev/null; wait "$last_pid" 2>/dev/null; }  # returns emsim's exit status
ready_has() { grep -qF -- "$2" "$tmp/$1.out"; }  # ready_has NAME TEXT
# no_checkout_path BINARY: none of its strings names the checkout (nor the build dir, which may
# lie outside it). Shows the offending strings when there are some.
no_checkout_path() {
  local hits
  hits=$(strings -n 4 "$1" | grep -F -e "$root" -e "$build" | head -5)
  [ -z "$hits" ] || { echo "  strings naming the build machine in $1:"; sed 's/^/    /' <<<"$hits"; return 1; }
}
# stripped BINARY: no symbol table and no debug info left.
stripped() { ! readelf -S -W "$1" | grep -qE '\.symtab|\.debug_info'; }

# ---- (a) cmake --install --strip ----------------------------------------------------------------
prefix=$tmp/prefix
check "cmake --install --prefix P --strip" bash -c "cmake --install '$build' --prefix '$prefix' --strip >'$tmp/install.log' 2>&1 || { cat '$tmp/install.log'; exit 1; }"
for f in bin/emsim share/emsim/schemas/operations.json share/emsim/fixtures/default.yaml; do
  check "installed: $f" test -s "$prefix/$f"
done
check "installed: share/emsim/scenarios/ (with files)" bash -c "[ -n \"\$(ls -A '$prefix/share/emsim/scenarios')\" ]"
check "installed: bin/emsim is executable" test -x "$prefix/bin/emsim"
check "installed binary is stripped (no .symtab, no .debug_info)" stripped "$prefix/bin/emsim"
check "installed binary names no path of the build machine ($root)" no_checkout_path "$prefix/bin/emsim"
size=$(stat -c %s "$prefix/bin/emsim")
echo "    installed binary size (stripped): $size bytes ($(numfmt --to=iec-i --suffix=B "$size"))"

# ---- (b) the installed emsim, run from elsewhere ---------------------------------------------------
start installed "$tmp/elsewhere" "$prefix/bin/emsim" serve --port 0 --clock manual
check "installed emsim starts from another directory" test -n "$port"
check "its ready line names the installed default fixture" ready_has installed "fixtures=$prefix/share/emsim/fixtures/default.yaml "
contract_pid=""
if [ -n "$port" ]; then
  check "installed emsim: health answers ok" bash -c "curl -sf -m 5 http://127.0.0.1:$port/_sim/health | grep -q '\"status\":\"ok\"'"
  # The contract suite takes a minute or two: it runs in the background while the checks below
  # (each on an emsim of its own) go on, and is waited for at the end.
  "$build/emsim-contract-tests" --base-url "http://127.0.0.1:$port" --allow-mutations --allow-spending \
    --gtest_brief=1 >"$tmp/contract.log" 2>&1 &
  contract_pid=$!
  pids+=("$contract_pid")
fi
installed_pid=$last_pid

# EMSIM_SHARE_DIR wins over the binary's own share/emsim: a copy elsewhere is used, and an empty
# directory is refused with a message about the schemas it lacks.
cp -r "$prefix/share/emsim" "$tmp/share-copy"
start share-copy "$tmp/elsewhere" EMSIM_SHARE_DIR="$tmp/share-copy" "$prefix/bin/emsim" serve --port 0
check "EMSIM_SHARE_DIR=<copy>: the fixture comes from the copy" ready_has share-copy "fixtures=$tmp/share-copy/fixtures/default.yaml "
stop
(cd "$tmp/elsewhere" && EMSIM_SHARE_DIR="$tmp/empty-share" timeout 20 "$prefix/bin/emsim" serve --port 0) \
  >/dev/null 2>"$tmp/empty-share.err"
rc=$?
check "EMSIM_SHARE_DIR=<empty dir>: exits 2 (got $rc)" test "$rc" -eq 2
check "EMSIM_SHARE_DIR=<empty dir>: the message names schemas" grep -q schemas "$tmp/empty-share.err"

# Configuration by environment variables, on the installed binary (no flags at all here).
start env "$tmp/elsewhere" EMSIM_PORT=0 EMSIM_CLOCK=manual EMSIM_SEED=7 "$prefix/bin/emsim" serve
check "EMSIM_PORT=0 EMSIM_CLOCK=manual EMSIM_SEED=7: starts" test -n "$port"
check "... the ready line says clock=manual and seed=7" bash -c "grep -q ' clock=manual ' '$tmp/env.out' && grep -qE ' seed=7( |\$)' '$tmp/env.out'"
stop
start flag-wins "$tmp/elsewhere" EMSIM_PORT=0 EMSIM_SEED=7 "$prefix/bin/emsim" serve --seed 9
check "EMSIM_SEED=7 with --seed 9: the flag wins (seed=9)" grep -qE ' seed=9( |$)' "$tmp/flag-wins.out"
stop
(cd "$tmp/elsewhere" && EMSIM_PORT=0 EMSIM_CLOCK=sometimes timeout 20 "$prefix/bin/emsim" serve) >/dev/null 2>"$tmp/bad-clock.err"
rc=$?
check "EMSIM_CLOCK=sometimes: exits 2 (got $rc)" test "$rc" -eq 2
check "EMSIM_CLOCK=sometimes: the message names EMSIM_CLOCK" grep -q EMSIM_CLOCK "$tmp/bad-clock.err"

# ---- (c) the .deb ------------------------------------------------------------------------------------
# -B: the package goes to our scratch dir, not the build dir's package/.
check "cpack makes a .deb" bash -c "cpack --config '$build/CPackConfig.cmake' -B '$tmp/pkg' >'$tmp/cpack.log' 2>&1 || { cat '$tmp/cpack.log'; exit 1; }"
deb=$(ls "$tmp"/pkg/*.deb 2>/dev/null | head -1)
check "the .deb exists ($(basename "${deb:-none}"))" test -n "$deb"
if [ -n "$deb" ]; then
  dpkg-deb -I "$deb" >"$tmp/deb-info" 2>&1
  check "dpkg-deb -I: Package: emsim" grep -q '^ Package: emsim$' "$tmp/deb-info"
  depends=$(dpkg-deb -f "$deb" Depends)
  echo "    Depends: $depends"
  for lib in libsqlite3 libyaml libssl; do
    check "Depends names $lib" grep -q "\b$lib" <<<"$depends"
  done
  dpkg-deb -c "$deb" >"$tmp/deb-files"
  check "the .deb holds usr/bin/emsim and usr/share/emsim/schemas/operations.json" \
    bash -c "grep -q ' ./usr/bin/emsim\$' '$tmp/deb-files' && grep -q ' ./usr/share/emsim/schemas/operations.json\$' '$tmp/deb-files'"
  dpkg-deb -x "$deb" "$tmp/deb-root"
  check "the .deb's binary is stripped" stripped "$tmp/deb-root/usr/bin/emsim"
  check "the .deb's binary names no path of the build machine" no_checkout_path "$tmp/deb-root/usr/bin/emsim"
  start deb "$tmp/elsewhere" "$tmp/deb-root/usr/bin/emsim" serve --port 0
  check "the unpacked usr/bin/emsim starts from another directory" test -n "$port"
  check "... with its own usr/share/emsim fixture" ready_has deb "fixtures=$tmp/deb-root/usr/share/emsim/fixtures/default.yaml "
  check "... health answers ok" bash -c "curl -sf -m 5 http://127.0.0.1:$port/_sim/health | grep -q '\"status\":\"ok\"'"
  check "... the fixture's API key lists ws_northwind" \
    bash -c "curl -sf -m 5 http://127.0.0.1:$port/v1/workspace/list -H 'x-auth-service: emsim_test_alice_3f9c2a7b' | grep -q ws_northwind"
  stop
fi

# ---- (b) continued: the contract suite's result ------------------------------------------------------
if [ -n "$contract_pid" ]; then
  wait "$contract_pid"
  rc=$?
  summary=$(grep -E '^\[  (PASSED|FAILED) ' "$tmp/contract.log" | head -2 | tr '\n' ' ')
  if [ "$rc" -ne 0 ]; then
    grep -vE '^(target |\[==========\]|\[  PASSED  \]|Running main)' "$tmp/contract.log" | head -40
  fi
  check "contract suite against the installed emsim (--clock manual): ${summary}(exit $rc)" test "$rc" -eq 0
else
  check "contract suite against the installed emsim: not run, emsim did not start" false
fi
last_pid=$installed_pid
stop
rc=$?
check "the installed emsim stops cleanly on SIGTERM after the suite (exit $rc)" test "$rc" -eq 0

echo "install: $pass passed, $fail failed (${SECONDS}s)"
[ "$fail" -eq 0 ]
