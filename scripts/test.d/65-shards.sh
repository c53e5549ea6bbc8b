#!/usr/bin/env bash
# Shards behind HAProxy (README "Many emsims"): three emsims (`--shard-id s0|s1|s2`, each
# with its own --data-dir) and deploy/haproxy.cfg, unchanged, in front of them on loopback. In each
# clock mode (default flags, then --clock manual):
#   1. 30 tenants created through HAProxy land on all three shards, each key naming its shard;
#   2. the contract suite runs against six of them (two per shard) in parallel through HAProxy;
#   3. while it runs, shard s1 is SIGKILLed: its tenants get 503 in Part 7's shape at once, and the
#      suites of the tenants on s0 and s2 stay green;
#   4. s1 restarted on its data directory: its tenants are back, their records intact.
# The shards are started with the command of deploy/kubernetes/emsim.yaml's StatefulSet (the pod's
# HOSTNAME giving the shard) and probed with its probes' command; every manifest of
# deploy/kubernetes/ is parsed first and checked against deploy/haproxy.cfg and the Dockerfile.
# Prints one line per check and ends with "shards: N passed, N failed".
set -uo pipefail
build=${1:?build dir}
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
pass=0 fail=0
check() {  # check NAME CONDITION-RESULT(0/1) [DETAIL]
  if [ "$2" -eq 0 ]; then
    pass=$((pass + 1))
    echo "ok: $1"
  else
    fail=$((fail + 1))
    echo "FAIL: $1${3:+: $3}"
  fi
}
# The caller's EMSIM_* variables must not configure the shards (the tier sets what they get).
for v in $(compgen -e | grep '^EMSIM_' || true); do unset "$v"; done
# shellcheck source=../lib/start-emsim.sh
source "$(dirname "$0")/../lib/start-emsim.sh"
# shellcheck source=../lib/haproxy.sh
source "$(dirname "$0")/../lib/haproxy.sh"

if ! command -v haproxy >/dev/null; then
  echo "FAIL: haproxy is not installed (scripts/install-deps.sh installs it)"
  echo "shards: 0 passed, 1 failed"
  exit 1
fi

# ---- 0. the Kubernetes manifests --------------------------------------------------------------------------
# Debian's python3 with Debian's python3-yaml (scripts/install-deps.sh), whatever python3 is first
# on the PATH.
py=/usr/bin/python3
cat >"$tmp/manifests.py" <<'PY'
"""manifests.py ROOT OUT: checks deploy/kubernetes/*.yaml; prints `ok: ...`/`FAIL: ...` lines and
writes the shard command and the probe command, one a line, to OUT."""
import glob, os, re, sys, yaml
root, out = sys.argv[1], sys.argv[2]
docs = []
for f in sorted(glob.glob(os.path.join(root, "deploy/kubernetes/*.yaml"))):
    try:
        for d in yaml.safe_load_all(open(f)):
            if d is not None:
                docs.append((os.path.basename(f), d))
        print(f"ok: {os.path.basename(f)} parses as YAML")
    except yaml.YAMLError as e:
        print(f"FAIL: {os.path.basename(f)} parses as YAML: {e}")
def find(kind, name):
    for f, d in docs:
        if d.get("kind") == kind and d.get("metadata", {}).get("name") == name:
            return d
    print(f"FAIL: a {kind} named {name} in deploy/kubernetes/")
    sys.exit(0)
def expect(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
for f, d in docs:
    expect(all(k in d for k in ("apiVersion", "kind", "metadata")) and "name" in d["metadata"],
           f"{f}: {d.get('kind')} {d.get('metadata', {}).get('name')} has apiVersion, kind and metadata.name")
cfg = open(os.path.join(root, "deploy/haproxy.cfg")).read()
shards = sorted(set(re.findall(r"^backend shard_(s\d+)$", cfg, re.M)))
svc, sts = find("Service", "emsim"), find("StatefulSet", "emsim")
expect(svc["spec"].get("clusterIP") == "None" and sts["spec"]["serviceName"] == "emsim",
       "the StatefulSet's serviceName is a headless Service (stable pod names emsim-N.emsim)")
expect(sts["spec"]["replicas"] == len(shards), f"replicas ({sts['spec']['replicas']}) = the shards of haproxy.cfg ({', '.join(shards)})")
expect(svc["spec"]["selector"] == sts["spec"]["selector"]["matchLabels"] == sts["spec"]["template"]["metadata"]["labels"],
       "Service selector, StatefulSet selector and pod labels agree")
c = sts["spec"]["template"]["spec"]["containers"][0]
dockerfile = open(os.path.join(root, "Dockerfile")).read()
data_dir = re.search(r"EMSIM_DATA_DIR=(\S+)", dockerfile).group(1)
claims = [t["metadata"]["name"] for t in sts["spec"].get("volumeClaimTemplates", [])]
expect(any(m["mountPath"] == data_dir and m["name"] in claims for m in c.get("volumeMounts", [])),
       f"a PersistentVolumeClaim is mounted at the image's EMSIM_DATA_DIR ({data_dir})")
cmd = c["command"]
expect(cmd[:2] == ["/bin/sh", "-c"] and "emsim serve" in cmd[2] and "--shard-id" in cmd[2] and "${HOSTNAME##*-}" in cmd[2],
       "the shard runs `emsim serve --shard-id` from the pod's ordinal")
probes = [c[p]["exec"]["command"] for p in ("livenessProbe", "readinessProbe")]
expect(probes[0] == probes[1] and probes[0][:2] == ["/bin/sh", "-c"] and "/_sim/health" in probes[0][2],
       "liveness and readiness both ask /_sim/health")
hc = re.search(r'^  CMD (.*) \|\| exit 1$', dockerfile, re.M).group(1)
expect(probes[0][2] == hc, "the probes run the Dockerfile's HEALTHCHECK command")
cm, hd = find("ConfigMap", "emsim-haproxy"), find("Deployment", "emsim-haproxy")
expect(cm["data"]["haproxy.cfg"] == cfg, "the ConfigMap holds deploy/haproxy.cfg byte for byte (else: bash deploy/kubernetes/sync-configmap.sh)")
h = hd["spec"]["template"]["spec"]["containers"][0]
mount = next((m["mountPath"] for m in h["volumeMounts"] if any(v["name"] == m["name"] and v.get("configMap", {}).get("name") == "emsim-haproxy"
                                                               for v in hd["spec"]["template"]["spec"]["volumes"])), None)
expect(h["command"] == ["haproxy", "-db", "-f", f"{mount}/haproxy.cfg"], f"HAProxy runs `haproxy -db -f` on the ConfigMap's file ({mount}/haproxy.cfg)")
env = {e["name"] for e in h["env"]}
wanted = set(re.findall(r"\$\{(EMSIM_[A-Z0-9_]+)-", cfg)) | {"EMSIM_ADMIN_TOKEN"}
expect(wanted <= env, f"the HAProxy pod sets every variable haproxy.cfg reads ({', '.join(sorted(wanted - env)) or 'all set'})")
expect(all(f"emsim-{i}.emsim." in next(e["value"] for e in h["env"] if e["name"] == f"EMSIM_SHARD_S{i}") for i in range(len(shards))),
       "EMSIM_SHARD_SN names pod emsim-N of the headless Service")
open(out, "w").write(cmd[2] + "\n" + probes[0][2] + "\n")
PY
if [ -x "$py" ] && "$py" -c 'import yaml' 2>/dev/null; then
  "$py" "$tmp/manifests.py" "$root" "$tmp/k8s-commands" >"$tmp/manifests.out" 2>&1
  cat "$tmp/manifests.out"
  pass=$((pass + $(grep -c '^ok: ' "$tmp/manifests.out")))
  fail=$((fail + $(grep -c '^FAIL: ' "$tmp/manifests.out") + $(grep -c Traceback "$tmp/manifests.out")))
else
  check "Debian's python3 with python3-yaml reads the manifests (scripts/install-deps.sh installs them)" 1
fi
shard_cmd=$(sed -n 1p "$tmp/k8s-commands" 2>/dev/null)
probe_cmd=$(sed -n 2p "$tmp/k8s-commands" 2>/dev/null)
# The manifest names the installed binary; here it is the build's.
shard_cmd=${shard_cmd//\/opt\/emsim\/bin\/emsim/$build/emsim}
[ -n "$shard_cmd" ] || shard_cmd="exec $build/emsim serve --shard-id \"s\${HOSTNAME##*-}\""

# start_shard MODE I PORT NAME: the StatefulSet's command as pod emsim-I would run it, on loopback
# and PORT (0: any), its data in $tmp/MODE-sI, its output in $tmp/NAME.out. Sets $port, $shard_pid.
start_shard() {
  local out=$tmp/$4.out
  local -a mode_env=()
  [ "$1" = manual ] && mode_env=(EMSIM_CLOCK=manual)  # else the default flags
  env HOSTNAME="emsim-$2" EMSIM_HOST=127.0.0.1 EMSIM_PORT="$3" EMSIM_DATA_DIR="$tmp/$1-s$2" "${mode_env[@]}" \
    /bin/sh -c "$shard_cmd" >"$out" 2>"$tmp/$4.err" &
  shard_pid=$!
  pids+=($shard_pid)
  port=""
  for _ in $(seq 1 200); do
    port=$(grep -o 'ready on http://127.0.0.1:[0-9]*' "$out" | sed 's/.*://')
    [ -n "$port" ] && break
    sleep 0.05
  done
  [ -n "$port" ] || cat "$out" "$tmp/$4.err"
}

# snapshot BASE KEY: what a tenant sees of itself (workspaces, domains, wallet), for comparison.
snapshot() {
  for path in /v1/workspace/list '/v1/domain/list?page=1' /v2/wallet/balance; do
    curl -s "$1$path" -H "x-auth-service: $2"
    echo
  done
}

run_mode() {
  local mode=$1
  local -a sport spid
  for i in 0 1 2; do
    start_shard "$mode" "$i" 0 "$mode-s$i"
    if [ -z "$port" ]; then
      check "$mode: shard s$i starts" 1
      return
    fi
    sport[$i]=$port
    spid[$i]=$shard_pid
    EMSIM_PORT=$port /bin/sh -c "$probe_cmd"
    check "$mode: shard s$i ($(grep -o '"shard":"[^"]*"' <(curl -s "http://127.0.0.1:$port/_sim/health"))) passes the pods' probe command" $?
  done
  start_haproxy "$root" "${sport[0]}" "${sport[1]}" "${sport[2]}" "$tmp/$mode-haproxy.log"
  pids+=("$haproxy_pid")
  local hp=$haproxy_port stats=$haproxy_stats up
  up=$(wait_haproxy_up "$stats")
  check "$mode: HAProxy sees the three shards up" "$([ "$up" = 3 ]; echo $?)" "$up up; $(tail -5 "$tmp/$mode-haproxy.log")"
  local base="http://127.0.0.1:$hp"

  # ---- 1. 30 tenants through HAProxy land on every shard ----------------------------------------------
  : >"$tmp/$mode-keys"
  for _ in $(seq 1 30); do
    curl -s -X POST "$base/_sim/tenants" -H 'content-type: application/json' -d '{}' |
      grep -o '"apiKey":"[^"]*"' | cut -d'"' -f4 >>"$tmp/$mode-keys"
  done
  local created shards
  created=$(grep -c . "$tmp/$mode-keys")
  shards=$(cut -d_ -f2 "$tmp/$mode-keys" | sort | uniq -c | tr -s ' ' | tr '\n' ' ')
  check "$mode: 30 tenants created through HAProxy" "$([ "$created" = 30 ]; echo $?)" "$created created"
  check "$mode: they landed on s0, s1 and s2 ($shards)" \
    "$([ "$(cut -d_ -f2 "$tmp/$mode-keys" | sort -u | tr '\n' ' ')" = "s0 s1 s2 " ]; echo $?)"
  # Each key answers on its own shard only: through HAProxy 200, on another shard directly 401.
  local wrong=0
  while read -r key; do
    s=${key#emsim_}
    s=${s%%_*}
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/v1/workspace/list" -H "x-auth-service: $key")" = 200 ] || wrong=$((wrong + 1))
    other=$(( (${s#s} + 1) % 3 ))
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${sport[$other]}/v1/workspace/list" -H "x-auth-service: $key")" = 401 ] ||
      wrong=$((wrong + 1))
  done <"$tmp/$mode-keys"
  check "$mode: every key is served through HAProxy by its own shard (and unknown to the others)" "$([ $wrong = 0 ]; echo $?)" "$wrong wrong"

  # ---- 2. six contract suites in parallel, two per shard ----------------------------------------------
  local -a chosen=()
  for s in s0 s1 s2; do
    while read -r key; do chosen+=("$key"); done < <(grep "^emsim_${s}_" "$tmp/$mode-keys" | head -2)
  done
  # What s1's other tenants (no suite runs on them) hold before the kill, to compare after the restart.
  local snap=0
  while read -r key; do
    case " ${chosen[*]} " in *" $key "*) continue ;; esac
    snapshot "$base" "$key" >"$tmp/$mode-before-$key"
    snap=$((snap + 1))
  done < <(grep '^emsim_s1_' "$tmp/$mode-keys")
  local -A suite_pid
  for key in "${chosen[@]}"; do
    "$build/emsim-contract-tests" --base-url "$base" --api-key "$key" --allow-mutations --allow-spending \
      --gtest_brief=1 "$@" >"$tmp/$mode-suite-$key" 2>&1 &
    suite_pid[$key]=$!
  done

  # ---- 3. shard s1 dies mid-run ---------------------------------------------------------------------------
  sleep 1
  kill -9 "${spid[1]}"
  local s1_key
  s1_key=$(grep -m1 '^emsim_s1_' "$tmp/$mode-keys")
  local code body
  body=$(curl -s --max-time 5 -w '\n%{http_code} %{time_total}' "$base/v1/workspace/list" -H "x-auth-service: $s1_key")
  code=$(tail -1 <<<"$body")
  echo "   a request for s1 after the kill: $code s"
  check "$mode: s1's tenant gets 503 at once (within 5 s) while s1 is down" "$([ "${code%% *}" = 503 ]; echo $?)" "$body"
  head -1 <<<"$body" | grep -q '"status":503,"message":"emsim shard_s1 is unavailable' && head -1 <<<"$body" | grep -qE '"errorId":"[0-9a-f-]{36}"'
  check "$mode: the 503 has Part 7's shape {status, message, errorId}" $? "$(head -1 <<<"$body")"
  for key in "${chosen[@]}"; do
    # The suites of s1's tenants would wait out their timeouts against a dead shard: stop them.
    case $key in emsim_s1_*) kill "${suite_pid[$key]}" 2>/dev/null ;; esac
  done
  for key in "${chosen[@]}"; do
    wait "${suite_pid[$key]}"
    rc=$?
    summary=$(grep -E '^\[  (PASSED|FAILED) ' "$tmp/$mode-suite-$key" | head -2 | tr '\n' ' ')
    case $key in
      emsim_s1_*) echo "   suite on s1 (its shard killed mid-run, the suite stopped then) $key: exit $rc, not required to pass" ;;
      *)
        check "$mode: contract suite of $key through HAProxy: ${summary}" "$rc"
        [ "$rc" -eq 0 ] || grep -vE '^(target |\[==========\]|\[  PASSED  \]|Running main)' "$tmp/$mode-suite-$key" | head -30
        ;;
    esac
  done

  # ---- 4. s1 restarted on its data directory ------------------------------------------------------------
  local was=${sport[1]}
  start_shard "$mode" 1 "$was" "$mode-s1-again"
  up=$(wait_haproxy_up "$stats")
  check "$mode: s1 restarted on its data dir, HAProxy sees it up again" "$([ "$up" = 3 ]; echo $?)" "$(cat "$tmp/$mode-s1-again.err" 2>/dev/null)"
  local lost=0
  while read -r key; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/v1/workspace/list" -H "x-auth-service: $key")" = 200 ] || lost=$((lost + 1))
  done < <(grep '^emsim_s1_' "$tmp/$mode-keys")
  check "$mode: every tenant of s1 answers again after the restart" "$([ $lost = 0 ]; echo $?)" "$lost lost"
  local changed=0
  for f in "$tmp/$mode-before-"*; do
    key=${f##*-before-}
    snapshot "$base" "$key" >"$f.after"
    if ! cmp -s "$f" "$f.after"; then
      changed=$((changed + 1))
      [ $changed -gt 1 ] || diff <(tr ',' '\n' <"$f") <(tr ',' '\n' <"$f.after") | head -10
    fi
  done
  check "$mode: $snap more tenants of s1 are exactly as before the kill (workspaces, domains, wallet)" \
    "$([ $changed = 0 ]; echo $?)" "$changed differ"
  # Stop this mode's processes before the next mode starts its own.
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  pids=()
}

run_mode real "$@"
run_mode manual "$@"
echo "shards: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
