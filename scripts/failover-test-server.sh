#!/usr/bin/env bash
# A throw-away PostgreSQL high-availability cluster for the failover tests, on loopback only:
# three etcd members (Patroni's consensus store), three PostgreSQL nodes under Patroni with
# synchronous replication (`synchronous_mode: true`, so an acknowledged commit exists on two
# nodes), and haproxy routing a read-write port to whichever node Patroni's REST API calls
# primary (`GET /primary` answers 200 there only). Nothing is written outside DIR.
#
#   scripts/failover-test-server.sh start DIR [BASE_PORT]   prints the variables the tests read
#   scripts/failover-test-server.sh stop DIR
#   scripts/failover-test-server.sh node DIR N    starts node N's Patroni again (after a kill)
#
# Ports, from BASE_PORT (default 20400, below Linux's ephemeral range): etcd clients +0/+2/+4 (peers +1/+3/+5), PostgreSQL
# +10..+12, Patroni's REST API +20..+22, haproxy's read-write port +30 and its admin socket in
# DIR. PostgreSQL refuses to run as root, so as root everything runs as the `postgres` user.
# Debian packages: patroni, etcd-server, etcd-client, postgresql, haproxy.
set -euo pipefail
cmd=${1:?start|stop}
dir=${2:?a directory}
base=${3:-20400} # start only (node takes a node number there)

# Patroni's timing: the leader key lives `ttl` seconds and is renewed every `loop_wait`; a lost
# node's standby is promoted once the key expires. The figures in bench/README.md name these.
ttl=${ROSTER_FAILOVER_TTL:-10}
loop_wait=${ROSTER_FAILOVER_LOOP_WAIT:-2}
retry_timeout=${ROSTER_FAILOVER_RETRY_TIMEOUT:-5}

pidfiles() { ls "$dir"/run/*.pid 2>/dev/null || true; }

as_db() {
  if [ "$(id -u)" = 0 ]; then
    chown -R postgres "$dir"
    su postgres -s /bin/sh -c "$*"
  else
    sh -c "$*"
  fi
}
start_patroni() {
  as_db "cd '$dir' && exec patroni '$dir/pg$1/patroni.yml' >>'$dir/log/patroni-pg$1.log' 2>&1 \
    & echo \$! >'$dir/run/patroni-pg$1.pid'"
}

case "$cmd" in
node)
  start_patroni "${3:?a node number}"
  exit 0
  ;;
stop)
  # Patroni first (it would restart a PostgreSQL killed under it), then everything else.
  for f in $(ls "$dir"/run/patroni-*.pid 2>/dev/null || true); do
    kill -9 "$(cat "$f")" 2>/dev/null || true
  done
  for f in $(pidfiles); do kill -9 "$(cat "$f")" 2>/dev/null || true; done
  # The postmasters Patroni started have no pid file of ours: their own is in the data dir.
  for n in 1 2 3; do
    pm="$dir/pg$n/data/postmaster.pid"
    [ -f "$pm" ] && kill -9 "$(head -1 "$pm")" 2>/dev/null || true
  done
  exit 0
  ;;
start) ;;
*)
  echo "usage: $0 start DIR [BASE_PORT] | stop DIR | node DIR N" >&2
  exit 2
  ;;
esac

pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
for tool in patroni etcd haproxy curl; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "$tool is not installed (apt-get install patroni etcd-server etcd-client haproxy curl)" >&2
    exit 1
  }
done
[ -n "$pg_bin" ] || { echo "PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }

mkdir -p "$dir/run" "$dir/log"
echo "$base" >"$dir/base"

etcd_hosts=""
etcd_cluster=""
for i in 0 1 2; do
  c=$((base + 2 * i))
  p=$((c + 1))
  etcd_hosts="$etcd_hosts${etcd_hosts:+,}127.0.0.1:$c"
  etcd_cluster="$etcd_cluster${etcd_cluster:+,}e$i=http://127.0.0.1:$p"
done

for i in 0 1 2; do
  c=$((base + 2 * i))
  p=$((c + 1))
  mkdir -p "$dir/etcd$i"
  as_db "cd '$dir' && exec etcd --name e$i --data-dir '$dir/etcd$i' \
    --listen-client-urls http://127.0.0.1:$c --advertise-client-urls http://127.0.0.1:$c \
    --listen-peer-urls http://127.0.0.1:$p --initial-advertise-peer-urls http://127.0.0.1:$p \
    --initial-cluster '$etcd_cluster' --initial-cluster-state new \
    --initial-cluster-token roster-failover --heartbeat-interval 100 --election-timeout 1000 \
    >'$dir/log/etcd$i.log' 2>&1 & echo \$! >'$dir/run/etcd$i.pid'"
done

for n in 1 2 3; do
  pgport=$((base + 9 + n))
  api=$((base + 19 + n))
  mkdir -p "$dir/pg$n"
  cat >"$dir/pg$n/patroni.yml" <<EOF
scope: roster-failover
name: pg$n
restapi:
  listen: 127.0.0.1:$api
  connect_address: 127.0.0.1:$api
etcd3:
  hosts: $etcd_hosts
bootstrap:
  dcs:
    ttl: $ttl
    loop_wait: $loop_wait
    retry_timeout: $retry_timeout
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters:
        max_connections: 200
        wal_level: replica
        hot_standby: 'on'
        max_wal_senders: 10
        max_replication_slots: 10
        wal_log_hints: 'on'
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
  pg_hba:
    - local all all trust
    - host replication replicator 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:$pgport
  connect_address: 127.0.0.1:$pgport
  data_dir: $dir/pg$n/data
  bin_dir: $pg_bin
  pgpass: $dir/pg$n/pgpass
  authentication:
    superuser:
      username: postgres
    replication:
      username: replicator
    rewind:
      username: postgres
  parameters:
    unix_socket_directories: '$dir/pg$n'
    # A test cluster: nothing here must survive a power loss, only a process crash. Commits
    # still wait for the synchronous standby, which is what the tests are about.
    fsync: 'off'
    full_page_writes: 'on'
tags:
  nofailover: false
  noloadbalance: false
EOF
done

# Patroni needs etcd to answer before it bootstraps.
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$base/health" 2>/dev/null | grep -q true && break
  sleep 0.1
done

for n in 1 2 3; do
  start_patroni "$n"
  # The first node bootstraps the cluster; the others clone it, so start them once it leads.
  if [ "$n" = 1 ]; then
    for _ in $(seq 1 300); do
      curl -fsS -o /dev/null "http://127.0.0.1:$((base + 20))/primary" 2>/dev/null && break
      sleep 0.1
    done
  fi
done

rw=$((base + 30))
cat >"$dir/haproxy.cfg" <<EOF
global
  maxconn 1000
  stats socket $dir/run/haproxy.sock mode 600 level admin
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s
listen primary
  bind 127.0.0.1:$rw
  option httpchk GET /primary
  http-check expect status 200
  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
  server pg1 127.0.0.1:$((base + 10)) check port $((base + 20))
  server pg2 127.0.0.1:$((base + 11)) check port $((base + 21))
  server pg3 127.0.0.1:$((base + 12)) check port $((base + 22))
EOF
as_db "exec haproxy -f '$dir/haproxy.cfg' -D -p '$dir/run/haproxy.pid' >'$dir/log/haproxy.log' 2>&1"

# Ready: all three members streaming (one synchronous standby), and the primary reachable
# through haproxy.
for _ in $(seq 1 600); do
  cluster=$(curl -fsS "http://127.0.0.1:$((base + 20))/cluster" 2>/dev/null || true)
  running=$(printf '%s' "$cluster" | grep -o '"state": *"\(running\|streaming\)"' | wc -l)
  if [ "$running" -ge 3 ] && printf '%s' "$cluster" | grep -q sync_standby &&
    as_db "'$pg_bin/psql' -qAt -h 127.0.0.1 -p $rw -U postgres -d postgres -c 'SELECT 1'" \
      >/dev/null 2>&1; then
    echo "export ROSTER_FAILOVER_DATABASE=postgres://postgres@127.0.0.1:$rw/postgres"
    echo "export ROSTER_FAILOVER_PATRONI=http://127.0.0.1:$((base + 20)),http://127.0.0.1:$((base + 21)),http://127.0.0.1:$((base + 22))"
    echo "export ROSTER_FAILOVER_DIR=$dir"
    exit 0
  fi
  sleep 0.1
done
echo "the failover cluster did not become ready; see $dir/log" >&2
exit 1
