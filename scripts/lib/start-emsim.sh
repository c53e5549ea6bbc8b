# Sourced by the test tiers that need a running emsim (scripts/test.d/20-scenarios.sh,
# 30-contract.sh), after they set $build (the build dir). Sets $tmp (a scratch dir) and the array
# pids; on exit every process in pids is stopped and $tmp removed.
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT

#
# start_emsim NAME [FLAGS...]: `emsim serve --port 0 FLAGS` in the background; waits up to 10 s for
# its "emsim ready" line and sets $port to the port it bound (empty, with its output shown, when it
# did not start). Its output is kept in $tmp/NAME.out and $tmp/NAME.err.
start_emsim() {
  local name=$1
  shift
  "$build/emsim" serve --port 0 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
  pids+=($!)
  for _ in $(seq 1 200); do grep -q 'emsim ready' "$tmp/$name.out" 2>/dev/null && break; sleep 0.05; done
  port=$(grep -o 'ready on http://127.0.0.1:[0-9]*' "$tmp/$name.out" | head -1 | sed 's/.*://')
  if [ -z "$port" ]; then
    echo "emsim serve $* ($name) did not start"
    cat "$tmp/$name.out" "$tmp/$name.err"
  fi
}
