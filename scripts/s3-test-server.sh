#!/usr/bin/env bash
# A throw-away S3 server for the tests: a single-node Ceph (one monitor, one in-memory OSD, pool
# size 1) with radosgw on 127.0.0.1, as SCALE.md describes. Nothing is written outside DIR.
#
#   scripts/s3-test-server.sh start DIR [PORT]   prints the variables the tests read (eval it)
#   scripts/s3-test-server.sh stop DIR
set -euo pipefail
cmd=${1:?start|stop}
dir=${2:?a directory}
port=${3:-7480}
export CEPH_CONF="$dir/ceph.conf"

case "$cmd" in
stop)
  pids=$(cat "$dir"/run/*.pid 2>/dev/null || true)
  [ -n "$pids" ] && kill $pids 2>/dev/null || true
  # The daemons take a moment to go; their ports are free only then.
  for _ in $(seq 1 50); do
    alive=0
    for pid in $pids; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.2
  done
  exit 0
  ;;
start) ;;
*) echo "usage: $0 start|stop DIR [PORT]" >&2; exit 2 ;;
esac

mkdir -p "$dir"/mon "$dir"/osd/ceph-0 "$dir"/run "$dir"/log
fsid=$(cat /proc/sys/kernel/random/uuid)
cat >"$dir/ceph.conf" <<EOF
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:3300,v1:127.0.0.1:6789]
mon initial members = a
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
osd objectstore = memstore
memstore device bytes = ${ROSTER_S3_TEST_BYTES:-2147483648}
run dir = $dir/run
pid file = $dir/run/\$name.pid
log file = $dir/log/\$name.log
admin socket = $dir/run/\$name.asok
keyring = $dir/\$name.keyring
mon data = $dir/mon/\$cluster-\$id
osd data = $dir/osd/\$cluster-\$id
[client.rgw.0]
rgw frontends = beast endpoint=127.0.0.1:$port
rgw dns name = 127.0.0.1
# Deleted objects and aborted uploads give their space back within seconds, not radosgw's
# default two hours: test runs and benches delete what they wrote, and memstore is small.
rgw gc obj min wait = 5
rgw gc processor period = 5
EOF

quiet() { "$@" >>"$dir/log/setup.log" 2>&1; }
quiet ceph-authtool --create-keyring "$dir/mon.a.keyring" --gen-key -n mon. --cap mon 'allow *'
quiet ceph-authtool --create-keyring "$dir/client.admin.keyring" --gen-key -n client.admin \
  --cap mon 'allow *' --cap osd 'allow *' --cap mds 'allow *' --cap mgr 'allow *'
quiet ceph-authtool "$dir/mon.a.keyring" --import-keyring "$dir/client.admin.keyring"
quiet monmaptool --create --addv a '[v2:127.0.0.1:3300,v1:127.0.0.1:6789]' --fsid "$fsid" "$dir/monmap"
quiet ceph-mon --mkfs -i a --monmap "$dir/monmap" --keyring "$dir/mon.a.keyring"
quiet ceph-mon -i a
quiet ceph osd create
quiet ceph auth get-or-create osd.0 mon 'allow profile osd' osd 'allow *' mgr 'allow profile osd' \
  -o "$dir/osd.0.keyring"
quiet ceph-osd -i 0 --mkfs
quiet ceph-osd -i 0
quiet ceph osd crush add osd.0 1.0 host=localhost root=default
quiet ceph auth get-or-create client.rgw.0 mon 'allow rw' osd 'allow rwx' -o "$dir/client.rgw.0.keyring"
quiet radosgw -n client.rgw.0
for _ in $(seq 1 120); do
  curl -fsS -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null && break
  sleep 0.5
done
curl -fsS -o /dev/null "http://127.0.0.1:$port/" || { echo "radosgw did not start; see $dir/log" >&2; exit 1; }
access=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
secret=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
quiet radosgw-admin user create --uid roster-test --display-name roster-test \
  --access-key "$access" --secret-key "$secret"
echo "export ROSTER_S3_ENDPOINT=http://127.0.0.1:$port"
echo "export AWS_ACCESS_KEY_ID=$access"
echo "export AWS_SECRET_ACCESS_KEY=$secret"
echo "export AWS_REGION=us-east-1"
