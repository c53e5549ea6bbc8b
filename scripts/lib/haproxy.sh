# deploy/haproxy.cfg on loopback in front of three shards, for scripts/test.d/65-shards.sh and
# bench/shards.sh (README "Many emsims"). Source it; it defines:
#   free_port                       a free loopback port
#   start_haproxy ROOT P0 P1 P2 LOG starts HAProxy with deploy/haproxy.cfg, unchanged, in front of
#                                   the shards on loopback ports P0..P2; sets $haproxy_port (clients),
#                                   $haproxy_stats (stats page) and $haproxy_pid; output in LOG
#   haproxy_up STATS                how many of the three shard backends HAProxy sees UP
#   wait_haproxy_up STATS           waits up to 10 s for all three; prints how many are up

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

start_haproxy() {
  haproxy_port=$(free_port)
  haproxy_stats=$(free_port)
  EMSIM_SHARD_S0=127.0.0.1:$2 EMSIM_SHARD_S1=127.0.0.1:$3 EMSIM_SHARD_S2=127.0.0.1:$4 \
    EMSIM_HAPROXY_BIND=127.0.0.1:$haproxy_port EMSIM_HAPROXY_STATS=127.0.0.1:$haproxy_stats \
    haproxy -db -f "$1/deploy/haproxy.cfg" >"$5" 2>&1 &
  haproxy_pid=$!
}

haproxy_up() {
  curl -s --max-time 2 "http://127.0.0.1:$1/stats;csv" | grep -cE '^shard_s[012],s[012],.*,UP,'
}

wait_haproxy_up() {
  local up=0
  for _ in $(seq 1 100); do
    up=$(haproxy_up "$1")
    [ "$up" = 3 ] && break
    sleep 0.1
  done
  echo "$up"
}
