#!/usr/bin/env bash
# The Dockerfile and deploy/docker-compose.yml, checked without a container engine (there may be
# none where the tests run): what can go wrong in them is checked on the host instead.
#   (a) the image builds with the scripts CI runs (.ci/run -> scripts/test.sh -> install-deps.sh,
#       build.sh), and every script path the Dockerfile names exists;
#   (b) the runtime stage installs the libraries the binary needs: the same packages as the .deb's
#       Depends (dpkg-shlibdeps), and a package for every library `ldd` resolves;
#   (c) the runtime stage's ENV + ENTRYPOINT run here, on a `cmake --install` of the build (its
#       own, in a scratch dir: tiers are independent), and its HEALTHCHECK command passes against
#       it; without EMSIM_ADMIN_TOKEN the same command exits 2;
#   (d) deploy/docker-compose.yml parses as YAML and agrees with the Dockerfile (port, volume,
#       health path); its healthcheck and its app's command run against the emsim of (c).
# Nothing is built here. Prints one line per check and ends with "docker: N passed, N failed".
set -uo pipefail
build=$(cd "${1:?build dir}" && pwd -P)
root=$(cd "$(dirname "$0")/../.." && pwd -P)
pass=0 fail=0
check() {  # check NAME COMMAND...
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); echo "ok: $name"; else fail=$((fail + 1)); echo "FAIL: $name"; fi
}
# The caller's EMSIM_* variables must not configure the emsim started here (the Dockerfile's ENV
# does); it runs under `env -i` anyway, this covers the rest.
for v in $(compgen -e | grep '^EMSIM_' || true); do unset "$v"; done
tmp=$(cd "$(mktemp -d)" && pwd -P)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
dockerfile=$root/Dockerfile
compose=$root/deploy/docker-compose.yml

# ---- a small reader of the Dockerfile and the compose file (python3 only, no new packages) ---------
cat >"$tmp/df.py" <<'PY'
"""df.py DOCKERFILE QUERY: prints what the Dockerfile says, one item a line.
Instructions are joined across backslash continuations (comment lines inside them dropped, as
Docker does); stages start at FROM. `runtime` is the last stage, `build` the first."""
import json, re, shlex, sys

def stages(path):
    out, cur = [], ""
    for raw in open(path).read().split("\n"):
        s = raw.strip()
        if s.startswith("#") or (not cur and not s):
            continue
        if s.endswith("\\"):
            cur += s[:-1] + " "
            continue
        cur += s
        kw, _, rest = cur.partition(" ")
        if kw.upper() == "FROM":
            out.append([])
        out[-1].append((kw.upper(), rest.strip()))
        cur = ""
    return out

def env_pairs(rest):
    words = shlex.split(rest)
    if words and "=" not in words[0]:          # legacy `ENV NAME value`
        return [(words[0], rest.split(None, 1)[1] if len(words) > 1 else "")]
    return [tuple(w.split("=", 1)) for w in words]

def main():
    st = stages(sys.argv[1])
    q = sys.argv[2]
    build, runtime = st[0], st[-1]
    def each(stage, kw):
        return [rest for k, rest in stage if k == kw]
    if q == "froms":
        for s in st: print(s[0][1])
    elif q == "build-runs":
        for r in each(build, "RUN"): print(r)
    elif q == "runs-and-copies":                 # every RUN and COPY of every stage
        for s in st:
            for k, rest in s:
                if k in ("RUN", "COPY"): print(rest)
    elif q == "runtime-apt":                    # the packages of `apt-get install` in the runtime stage
        for r in each(runtime, "RUN"):
            for cmd in re.split(r"&&|;|\|\|", r):
                w = shlex.split(cmd)
                if len(w) > 2 and w[0] == "apt-get" and "install" in w:
                    for p in w[w.index("install") + 1:]:
                        if not p.startswith("-"): print(p)
    elif q == "copy-from":
        for r in each(runtime, "COPY"):
            if r.startswith("--from="): print(r)
    elif q == "env":
        for r in each(runtime, "ENV"):
            for k, v in env_pairs(r): print(f"{k}={v}")
    elif q == "entrypoint":                     # exec form only: a JSON array
        for a in json.loads(each(runtime, "ENTRYPOINT")[-1]): print(a)
    elif q in ("workdir", "volume", "expose", "user"):
        vals = each(runtime, q.upper())
        if vals:
            v = vals[-1]
            print(json.loads(v)[0] if v.startswith("[") else v.split()[0])
    elif q == "healthcheck":                    # the shell form's command (exec form: its argv joined)
        r = each(runtime, "HEALTHCHECK")[-1]
        cmd = re.split(r"(?:^|\s)CMD\s+", r, maxsplit=1)[1]
        print(" ".join(shlex.quote(a) for a in json.loads(cmd)) if cmd.startswith("[") else cmd)
    else:
        sys.exit(f"unknown query {q}")

main()
PY
cat >"$tmp/yamlish.py" <<'PY'
"""yamlish.py FILE: the compose file as JSON. With PyYAML when python3 has it, and then the small
parser below must agree with it (so it stays honest where PyYAML is missing); otherwise the small
parser alone. It reads block maps, block lists of scalars, quoted and plain scalars, JSON-style
flow lists and comments, and refuses anything else (anchors, multi-line strings, ...): enough
for this compose file, and it says so when it is not."""
import json, sys

class Unsupported(Exception):
    pass

def strip_comment(s):
    q, i = None, 0
    while i < len(s):
        c = s[i]
        if q:
            if q == '"' and c == "\\": i += 1
            elif c == q: q = None
        elif c in "\"'": q = c
        elif c == "#" and (i == 0 or s[i - 1] in " \t"): return s[:i].rstrip()
        i += 1
    return s.rstrip()

def scalar(s):
    if s == "" or s == "~" or s == "null": return None
    if s[0] in "[{\"": return json.loads(s)
    if s[0] == "'":
        if not s.endswith("'"): raise Unsupported(s)
        return s[1:-1].replace("''", "'")
    if s[0] in "&*!|>%@`": raise Unsupported(s)
    if s in ("true", "false"): return s == "true"
    try: return int(s)
    except ValueError: return s

def small_parse(text):
    lines = []
    for n, raw in enumerate(text.split("\n"), 1):
        if "\t" in raw[: len(raw) - len(raw.lstrip())]: raise Unsupported(f"line {n}: tab indent")
        s = strip_comment(raw)
        if s.strip(): lines.append((len(s) - len(s.lstrip()), s.strip(), n))
    pos = 0
    def block(indent):
        nonlocal pos
        if lines[pos][1].startswith("- ") or lines[pos][1] == "-":
            out = []
            while pos < len(lines) and lines[pos][0] == indent and lines[pos][1].startswith("-"):
                item = lines[pos][1][1:].strip()
                if ": " in item or item.endswith(":") and not item.startswith(("'", '"')):
                    raise Unsupported(f"line {lines[pos][2]}: map in a list")
                out.append(scalar(item)); pos += 1
            return out
        out = {}
        while pos < len(lines) and lines[pos][0] == indent:
            ind, s, n = lines[pos]
            if s.startswith("-"): raise Unsupported(f"line {n}: list item among keys")
            key, sep, rest = s.partition(": ") if ": " in s else (s[:-1], ":", "") if s.endswith(":") else (s, "", "")
            if not sep: raise Unsupported(f"line {n}: not 'key: value'")
            pos += 1
            if rest.strip():
                out[scalar(key)] = scalar(rest.strip())
            elif pos < len(lines) and lines[pos][0] > ind:
                out[scalar(key)] = block(lines[pos][0])
            elif pos < len(lines) and lines[pos][0] == ind and lines[pos][1].startswith("- "):
                out[scalar(key)] = block(ind)        # a list at the key's own indent
            else:
                out[scalar(key)] = None
        if pos < len(lines) and lines[pos][0] > indent:
            raise Unsupported(f"line {lines[pos][2]}: unexpected indent")
        return out
    doc = block(lines[0][0])
    if pos != len(lines): raise Unsupported(f"line {lines[pos][2]}: not read")
    return doc

text = open(sys.argv[1]).read()
small = small_parse(text)
try:
    import yaml
except ImportError:
    yaml = None
if yaml is None:
    print("parsed with the minimal parser (python3 has no yaml module here)", file=sys.stderr)
    print(json.dumps(small))
else:
    full = yaml.safe_load(text)
    if full != small:
        sys.exit("the minimal parser disagrees with PyYAML:\n" + json.dumps(full) + "\n" + json.dumps(small))
    print("parsed with PyYAML (python3-yaml); the minimal parser agrees", file=sys.stderr)
    print(json.dumps(full))
PY
df() { python3 "$tmp/df.py" "$dockerfile" "$@"; }
# j FILE EXPR: a Python expression over the JSON document d in FILE, printed (lists one a line).
j() {
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); v = eval(sys.argv[2])
print("\n".join(map(str, v)) if isinstance(v, list) else ("" if v is None else v))' "$1" "$2"
}

# ---- (a) the build stage runs the scripts CI runs --------------------------------------------------
froms=$(df froms 2>&1 | tr '\n' ';')
check "Dockerfile parses: two bookworm-slim stages, the first named build ($froms)" \
  test "$froms" = "debian:bookworm-slim AS build;debian:bookworm-slim;"
df build-runs >"$tmp/build-runs"
check "CI's entry point runs scripts/test.sh" grep -q 'scripts/test.sh' "$root/.ci/run"
check "scripts/test.sh runs scripts/install-deps.sh and scripts/build.sh" \
  bash -c "grep -q 'scripts/install-deps.sh' '$root/scripts/test.sh' && grep -q 'scripts/build.sh' '$root/scripts/test.sh'"
check "a build RUN calls scripts/install-deps.sh serve" grep -qE '(^|[ /])scripts/install-deps\.sh serve( |$)' "$tmp/build-runs"
check "a build RUN calls scripts/build.sh emsim into /build as Release" \
  grep -qE 'EMSIM_BUILD_DIR=/build EMSIM_BUILD_TYPE=Release bash scripts/build\.sh emsim' "$tmp/build-runs"
check "a build RUN installs /build into /opt/emsim, stripped" grep -qE 'cmake --install /build --prefix /opt/emsim --strip' "$tmp/build-runs"
check "the runtime stage copies /opt/emsim from the build stage" bash -c "python3 '$tmp/df.py' '$dockerfile' copy-from | grep -qx -- '--from=build /opt/emsim /opt/emsim'"
missing=""
for s in $(df runs-and-copies | grep -oE 'scripts/[A-Za-z0-9_./-]+' | sort -u); do
  [ -f "$root/$s" ] || missing+=" $s"
done
check "every script the Dockerfile names exists (${missing:-all there})" test -z "$missing"
# The build context: the build trees (absolute paths of this machine, gigabytes) and .git are
# left out, and nothing the build needs is.
check ".dockerignore leaves out build*/ and .git" bash -c "grep -qx 'build\*/' '$root/.dockerignore' && grep -qx '.git' '$root/.dockerignore'"
check ".dockerignore keeps what the build reads" python3 - "$root/.dockerignore" <<'PY'
import fnmatch, sys
pats = [p.strip().rstrip("/") for p in open(sys.argv[1]) if p.strip() and not p.startswith("#")]
need = ["CMakeLists.txt", "server", "schemas", "fixtures", "scenarios", "scripts", "contract-tests", "bench"]
bad = [n for n in need for p in pats if fnmatch.fnmatch(n, p)]
sys.exit(f"excluded: {bad}" if bad else 0)
PY

# ---- (b) runtime libraries ----------------------------------------------------------------------------
mapfile -t apt_pkgs < <(df runtime-apt)
echo "    runtime stage installs: ${apt_pkgs[*]}"
# Not libraries of the binary: ca-certificates (https webhook receivers), curl (the HEALTHCHECK).
not_libs="ca-certificates curl"
# In debian:bookworm-slim already (apt itself needs them).
base_pkgs="libc6 libgcc-s1 libstdc++6"
unknown=""
for p in "${apt_pkgs[@]}"; do
  # This machine is bookworm too: a package installed here, or in its apt lists, exists there.
  dpkg-query -W "$p" >/dev/null 2>&1 || apt-cache show "$p" >/dev/null 2>&1 || unknown+=" $p"
done
check "every runtime package exists in bookworm (${unknown:-all known})" test -z "$unknown"

prefix=$tmp/opt-emsim
check "cmake --install --prefix (for this tier) --strip" bash -c "cmake --install '$build' --prefix '$prefix' --strip >'$tmp/install.log' 2>&1 || { cat '$tmp/install.log'; exit 1; }"
check "cpack makes a .deb" bash -c "cpack --config '$build/CPackConfig.cmake' -B '$tmp/pkg' >'$tmp/cpack.log' 2>&1 || { cat '$tmp/cpack.log'; exit 1; }"
deb=$(ls "$tmp"/pkg/*.deb 2>/dev/null | head -1)
depends=$([ -n "$deb" ] && dpkg-deb -f "$deb" Depends)
echo "    the .deb's Depends: $depends"
# Package names only: "libssl3 (>= 3.0.0)" -> libssl3; alternatives "a | b" -> both.
deb_libs=$(tr ',|' '\n\n' <<<"$depends" | sed 's/(.*//; s/[[:space:]]//g' | grep -v '^$' | grep -vxF -f <(tr ' ' '\n' <<<"$base_pkgs") | sort -u)
docker_libs=$(printf '%s\n' "${apt_pkgs[@]}" | grep -vxF -f <(tr ' ' '\n' <<<"$not_libs") | sort -u)
check "runtime libraries = the .deb's Depends less the base image's (diff: $(diff <(echo "$deb_libs") <(echo "$docker_libs") | grep '^[<>]' | tr '\n' ' '))" \
  test -n "$deb_libs" -a "$deb_libs" = "$docker_libs"

# Every library the loader resolves for the binary (ldd: also the libraries' own libraries) comes
# from a package the runtime stage installs, one they depend on, or the base image.
provided=" $base_pkgs ${apt_pkgs[*]} "
queue=("${apt_pkgs[@]}")
while [ ${#queue[@]} -gt 0 ]; do      # the Depends of the installed packages, as installed here
  p=${queue[0]}; queue=("${queue[@]:1}")
  for d in $(dpkg-query -W -f '${Depends} ${Pre-Depends}' "$p" 2>/dev/null | tr ',|' '\n\n' | sed 's/(.*//; s/:any//; s/[[:space:]]//g'); do
    case "$provided" in *" $d "*) ;; *) provided+="$d "; queue+=("$d") ;; esac
  done
done
unprovided=""
while read -r lib path; do
  [ -n "$path" ] || continue
  pkg=""
  # usrmerge: the loader says /lib/..., dpkg knows /usr/lib/... (or the other way round).
  for cand in "$path" "/usr$path" "$(readlink -f "$path")" "${path#/usr}"; do
    pkg=$(dpkg -S "$cand" 2>/dev/null | head -1 | cut -d: -f1) && [ -n "$pkg" ] && break
  done
  echo "    $lib -> ${pkg:-no package}"
  case "$provided" in *" $pkg "*) ;; *) unprovided+=" $lib(${pkg:-?})" ;; esac
done < <(ldd "$prefix/bin/emsim" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3} $1 ~ /^\// {print $1, $1}')
check "every library ldd resolves is provided in the image (${unprovided:-all})" test -z "$unprovided"

# ---- (c) ENV + ENTRYPOINT + HEALTHCHECK, outside a container ---------------------------------------------
# The image's paths, mapped to scratch dirs: the install prefix, and the volume (also the WORKDIR).
image_prefix=/opt/emsim
volume=$(df volume)
mkdir -p "$tmp/data"
map() { sed -e "s#^$image_prefix#$prefix#" -e "s#^$volume\$#$tmp/data#" <<<"$1"; }
# A container's environment: nothing of ours, only PATH (the base image's) and the ENV lines.
container_env=(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
while IFS='=' read -r k v; do
  [ "$k" = EMSIM_DATA_DIR ] && v=$(map "$v")
  # The image says 8080; here a free port is needed, so EMSIM_PORT=0 lets emsim pick one and the
  # ready line tells it (no race between choosing a port and binding it). The HEALTHCHECK runs
  # below with EMSIM_PORT set to that port, as in the container where the two are the same.
  [ "$k" = EMSIM_PORT ] && { image_port=$v; v=0; }
  container_env+=("$k=$v")
done < <(df env)
echo "    ENV: ${container_env[*]:2}"
entry=()
while read -r a; do entry+=("$(map "$a")"); done < <(df entrypoint)
workdir=$(map "$(df workdir)")
token=docker-tier-$RANDOM$RANDOM
check "ENV sets EMSIM_HOST=0.0.0.0, EMSIM_PORT=$image_port, EMSIM_DATA_DIR=$volume" \
  bash -c "python3 '$tmp/df.py' '$dockerfile' env | sort | tr '\n' ' ' | grep -qx 'EMSIM_DATA_DIR=$volume EMSIM_HOST=0.0.0.0 EMSIM_PORT=8080 '"
check "no admin token is baked into the image" bash -c "! grep -q 'EMSIM_ADMIN_TOKEN=' <(python3 '$tmp/df.py' '$dockerfile' env)"
# The image runs as a user that owns neither the prefix nor its files: all must be world-readable.
check "the installed files are readable (and bin/emsim runnable) by any user" \
  bash -c '[ -z "$(find "$1" ! -perm -o=r)" ] && [ -z "$(find "$1" -type d ! -perm -o=x)" ] && [ -n "$(find "$1/bin/emsim" -perm -o=x)" ]' _ "$prefix"

(cd "$workdir" && exec "${container_env[@]}" EMSIM_ADMIN_TOKEN="$token" "${entry[@]}") >"$tmp/entry.out" 2>"$tmp/entry.err" &
entry_pid=$!
pids+=("$entry_pid")
for _ in $(seq 1 200); do
  grep -q 'emsim ready' "$tmp/entry.out" 2>/dev/null && break
  kill -0 "$entry_pid" 2>/dev/null || break
  sleep 0.05
done
port=$(grep -o 'ready on http://[^ ]*' "$tmp/entry.out" | head -1 | sed 's/.*://')
[ -n "$port" ] || { echo "    ENTRYPOINT did not start:"; cat "$tmp/entry.out" "$tmp/entry.err"; }
check "ENTRYPOINT ${entry[*]} with the ENV starts (cwd $workdir)" test -n "$port"
# live NAME COMMAND...: a check that needs that emsim; a failure of its own when it is not running
# (rather than a command against an empty port, which curl would take for port 80 or 8080).
live() {
  local name=$1; shift
  if [ -n "$port" ]; then check "$name" "$@"; else check "$name (emsim not running)" false; fi
}
live "... it listens on 0.0.0.0 and loads the installed fixture" \
  grep -qF "ready on http://0.0.0.0:$port fixtures=$prefix/share/emsim/fixtures/default.yaml " "$tmp/entry.out"
live "... its durable state goes to EMSIM_DATA_DIR" bash -c "[ -n \"\$(ls -A '$tmp/data')\" ]"
healthcheck=$(df healthcheck)
echo "    HEALTHCHECK: $healthcheck"
# As Docker runs a shell-form HEALTHCHECK: /bin/sh -c, in the container's environment.
live "the HEALTHCHECK command passes" \
  "${container_env[@]}" EMSIM_PORT="$port" EMSIM_ADMIN_TOKEN="$token" /bin/sh -c "$healthcheck"
live "... and fails with a wrong token (it is the token that opens /_sim)" \
  bash -c '! "$@" >/dev/null 2>&1' _ "${container_env[@]}" EMSIM_PORT="$port" EMSIM_ADMIN_TOKEN=wrong /bin/sh -c "$healthcheck"

# ---- (d) deploy/docker-compose.yml -------------------------------------------------------------------------
if python3 "$tmp/yamlish.py" "$compose" >"$tmp/compose.json" 2>"$tmp/compose.err"; then
  check "docker-compose.yml parses as YAML: $(cat "$tmp/compose.err")" true
else
  check "docker-compose.yml parses as YAML: $(cat "$tmp/compose.err")" false
  echo '{}' >"$tmp/compose.json"
fi
c() { j "$tmp/compose.json" "$1" 2>/dev/null; }  # c EXPR: a value of the compose file (d), or empty
emsim_svc='d["services"]["emsim"]'
ctx=$(c "$emsim_svc[\"build\"][\"context\"]")
check "emsim builds from '$ctx' = the repository root, where the Dockerfile is" \
  test -n "$ctx" -a "$(cd "$root/deploy" && cd "$ctx" 2>/dev/null && pwd -P)" = "$root"
ports=$(c "$emsim_svc[\"ports\"]")
check "its ports ($ports) publish the image's port $image_port (EXPOSE $(df expose))" \
  bash -c '[ "$1" = "$2" ] && grep -qE ":$2\$" <<<"$3"' _ "$(df expose)" "$image_port" "$ports"
admin=$(c "$emsim_svc[\"environment\"][\"EMSIM_ADMIN_TOKEN\"]")
check "EMSIM_ADMIN_TOKEN comes from the caller's environment, not the file ($admin)" \
  bash -c '[[ "$1" == "\${EMSIM_ADMIN_TOKEN"* ]]' _ "$admin"
check "EMSIM_BASE_URL is the service's own address (http://emsim:$image_port)" \
  test "$(c "$emsim_svc[\"environment\"][\"EMSIM_BASE_URL\"]")" = "http://emsim:$image_port"
vol=$(c "[v for v in $emsim_svc[\"volumes\"] if v.endswith(\":$volume\")]")
check "a named volume ($vol) on the image's VOLUME $volume" \
  bash -c '[ -n "$1" ] && grep -qx "${1%%:*}" <<<"$2"' _ "$vol" "$(c 'list(d.get("volumes") or {})')"
compose_hc=$(c "\" \".join($emsim_svc[\"healthcheck\"][\"test\"][1:]) if $emsim_svc[\"healthcheck\"][\"test\"][0] == \"CMD-SHELL\" else \"\"")
health_path=$(grep -oE '/_sim/[a-z]+' <<<"$healthcheck" | head -1)
check "the compose healthcheck asks the Dockerfile's health path ($health_path) on port $image_port" \
  bash -c 'grep -qF "$2" <<<"$1" && grep -qE "(:|-)$3[/}]" <<<"$1"' _ "$compose_hc" "$health_path" "$image_port"
# Compose turns $$ into $ before the container's shell sees the command.
live "the compose healthcheck passes against the ENTRYPOINT's emsim" \
  "${container_env[@]}" EMSIM_PORT="$port" EMSIM_ADMIN_TOKEN="$token" /bin/sh -c "${compose_hc//\$\$/\$}"
check "the app waits for emsim to be healthy" \
  test "$(c 'd["services"]["app"]["depends_on"]["emsim"]["condition"]')" = service_healthy
app_cmd=$(c '" ".join(__import__("shlex").quote(a) for a in d["services"]["app"]["command"])')
key=$(grep -oE 'emsim_test_[A-Za-z0-9_]+' <<<"$app_cmd" | head -1)
check "the app calls http://emsim:$image_port with a key of fixtures/default.yaml (${key:-none})" \
  bash -c 'grep -qF "http://emsim:$2/" <<<"$1" && [ -n "$3" ] && grep -qF "$3" "$4"' _ "$app_cmd" "$image_port" "$key" "$root/fixtures/default.yaml"
# The app's own command, with the service name replaced by where emsim listens here.
live "the app's command gets ws_northwind from the ENTRYPOINT's emsim" \
  bash -c 'eval "${1//"http://emsim:$2"/"http://127.0.0.1:$3"}" | grep -q ws_northwind' _ "$app_cmd" "$image_port" "$port"

kill -TERM "$entry_pid" 2>/dev/null
wait "$entry_pid"
rc=$?
live "docker stop's SIGTERM stops it cleanly (exit $rc)" test "$rc" -eq 0

# Without the token the same command refuses to listen on 0.0.0.0 (wanted: no open control plane).
(cd "$workdir" && exec timeout 20 "${container_env[@]}" "${entry[@]}") >/dev/null 2>"$tmp/no-token.err"
rc=$?
check "without EMSIM_ADMIN_TOKEN the ENTRYPOINT exits 2 (got $rc)" test "$rc" -eq 2
check "... and says why (names the admin token)" grep -qiE 'admin.token|EMSIM_ADMIN_TOKEN' "$tmp/no-token.err"

echo "docker: $pass passed, $fail failed (${SECONDS}s)"
[ "$fail" -eq 0 ]
