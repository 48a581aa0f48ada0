#!/usr/bin/env bash
# Makes sure a streaming standby (hot standby) of the local PostgreSQL answers on 127.0.0.1:5433, for
# the read-replica tests (test/read-replicas.e2e-spec.ts) and `bench:samples --reads-on-standby`.
# Idempotent: a standby that is running is left alone, a stopped one is started, a missing one is
# made with pg_basebackup -R from the primary on 127.0.0.1:5432 (a Debian cluster, as
# scripts/ensure-services.sh installs it). Run as root (CI) or with sudo.
#
#   scripts/ensure-standby.sh           create or start the standby
#   scripts/ensure-standby.sh --remove  stop and delete it, and drop its replication slot
set -euo pipefail

PRIMARY_PORT=5432
STANDBY_PORT=${STANDBY_PORT:-5433}
CLUSTER=standby
# The primary keeps the WAL this standby has not received yet, even while the standby is stopped
# (a test stops it mid-load), so it always catches up instead of needing a new base backup.
SLOT=sample_registry_standby

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
as_postgres() { if [ -z "$SUDO" ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi; }
primary() { psql -X -q -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -d postgres -Atc "$1"; }
standby() { psql -X -q -h 127.0.0.1 -p "$STANDBY_PORT" -U postgres -d postgres -Atc "$1"; }
answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
say() { echo "ensure-standby: $*"; }

if ! command -v pg_createcluster >/dev/null 2>&1; then
  say "pg_createcluster not found: this script manages Debian PostgreSQL clusters (run scripts/ensure-services.sh first)." >&2
  exit 1
fi
if ! answers "$PRIMARY_PORT"; then
  say "the primary does not answer on 127.0.0.1:$PRIMARY_PORT (run scripts/ensure-services.sh first)." >&2
  exit 1
fi

version=$(primary 'SHOW server_version_num')
version=$((version / 10000))
pg_ctl_cluster() {
  $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" "$CLUSTER" "$@" ||
    $SUDO pg_ctlcluster "$version" "$CLUSTER" "$@"
}

if [ "${1:-}" = "--remove" ]; then
  if pg_lsclusters -h | awk '{print $1, $2}' | grep -qx "$version $CLUSTER"; then
    $SUDO pg_dropcluster --stop "$version" "$CLUSTER"
    say "removed cluster $version/$CLUSTER"
  fi
  primary "SELECT pg_drop_replication_slot('$SLOT') FROM pg_replication_slots WHERE slot_name = '$SLOT' AND NOT active" >/dev/null
  exit 0
fi

# --- the primary: streaming needs wal_level replica (or logical), WAL senders, a replication entry.
restart_primary=""
wal_level=$(primary 'SHOW wal_level')
if [ "$wal_level" = "minimal" ]; then
  primary "ALTER SYSTEM SET wal_level = 'replica'" >/dev/null
  restart_primary=1
fi
if [ "$(primary 'SHOW max_wal_senders')" -lt 2 ]; then
  primary "ALTER SYSTEM SET max_wal_senders = 10" >/dev/null
  restart_primary=1
fi
if [ "$(primary 'SHOW max_replication_slots')" -lt 2 ]; then
  primary "ALTER SYSTEM SET max_replication_slots = 10" >/dev/null
  restart_primary=1
fi
if [ "$(primary "SELECT count(*) FROM pg_hba_file_rules WHERE 'replication' = ANY(database) AND (type = 'local' OR address = '127.0.0.1')")" = "0" ]; then
  hba=$(primary 'SHOW hba_file')
  say "allowing replication connections from 127.0.0.1 in $hba"
  # Before the existing rules: pg_hba.conf takes the first line that matches.
  $SUDO sed -i '1i host replication all 127.0.0.1/32 trust\nlocal replication all trust' "$hba"
  primary 'SELECT pg_reload_conf()' >/dev/null
fi
if [ -n "$restart_primary" ]; then
  # Only these settings need a restart; a fresh Debian PostgreSQL (15+) has them already, so this
  # runs at most once on an old or hand-tuned install. Connected clients are disconnected.
  say "restarting the primary $version/main to apply wal_level/max_wal_senders/max_replication_slots"
  $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main restart -m fast ||
    $SUDO pg_ctlcluster "$version" main restart -m fast
  for _ in $(seq 1 60); do answers "$PRIMARY_PORT" && break; sleep 0.5; done
fi

# --- the standby: start it when it exists, else make it from a base backup.
cluster_exists() { pg_lsclusters -h | awk '{print $1, $2}' | grep -qx "$version $CLUSTER"; }
data_dir() { pg_lsclusters -h | awk -v v="$version" -v c="$CLUSTER" '$1 == v && $2 == c {print $6}'; }
# A cluster whose base backup never finished (interrupted run) is made again.
if cluster_exists && ! $SUDO test -f "$(data_dir)/standby.signal"; then
  say "cluster $version/$CLUSTER has no finished base backup: making it again"
  $SUDO pg_dropcluster --stop "$version" "$CLUSTER" || $SUDO pg_dropcluster "$version" "$CLUSTER"
fi
if cluster_exists; then
  if ! answers "$STANDBY_PORT"; then
    say "starting standby $version/$CLUSTER"
    pg_ctl_cluster start
  fi
else
  if answers "$STANDBY_PORT"; then
    say "port $STANDBY_PORT is taken by something that is not cluster $version/$CLUSTER" >&2
    exit 1
  fi
  say "creating standby $version/$CLUSTER on 127.0.0.1:$STANDBY_PORT with pg_basebackup -R"
  $SUDO pg_createcluster "$version" "$CLUSTER" --port "$STANDBY_PORT" >/dev/null
  data_dir=$(data_dir)
  conf_dir="/etc/postgresql/$version/$CLUSTER"
  $SUDO find "$data_dir" -mindepth 1 -delete
  # A slot left by an earlier standby that was removed by hand: its WAL position is useless now.
  primary "SELECT pg_drop_replication_slot('$SLOT') FROM pg_replication_slots WHERE slot_name = '$SLOT' AND NOT active" >/dev/null
  as_postgres pg_basebackup -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$data_dir" -R -X stream -C -S "$SLOT" \
    --checkpoint=fast
  $SUDO tee "$conf_dir/conf.d/standby.conf" >/dev/null <<EOF
# Written by scripts/ensure-standby.sh: a hot standby of the cluster on 127.0.0.1:$PRIMARY_PORT.
listen_addresses = '127.0.0.1'
hot_standby = on
# The primary keeps rows the standby's queries still read, so replay does not cancel them.
hot_standby_feedback = on
EOF
  # The same access rules as the primary's local test setup: trust on 127.0.0.1 and the socket.
  $SUDO tee "$conf_dir/pg_hba.conf" >/dev/null <<EOF
local all all trust
host all all 127.0.0.1/32 trust
EOF
  pg_ctl_cluster start
fi

for _ in $(seq 1 120); do
  if answers "$STANDBY_PORT" && [ "$(standby 'SELECT pg_is_in_recovery()' 2>/dev/null)" = "t" ]; then
    # A test that paused replay and died before resuming it must not leave the standby frozen.
    standby 'SELECT pg_wal_replay_resume() WHERE pg_is_wal_replay_paused()' >/dev/null
    say "standby answers on 127.0.0.1:$STANDBY_PORT, streaming from 127.0.0.1:$PRIMARY_PORT"
    exit 0
  fi
  sleep 0.5
done
say "the standby did not come up on 127.0.0.1:$STANDBY_PORT (see /var/log/postgresql/postgresql-$version-$CLUSTER.log)" >&2
exit 1
