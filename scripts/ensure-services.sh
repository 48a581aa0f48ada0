#!/usr/bin/env bash
# Makes sure PostgreSQL and Redis answer on 127.0.0.1 (5432, 6379) and Chromium is installed (for
# the browser test). A service that does not answer is started; one that is not installed is
# installed from Debian's packages first. A PostgreSQL we install ourselves is set to trust local
# TCP connections, as the tests and .env.example expect.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_for() {
  local port=$1 name=$2
  for _ in $(seq 1 60); do
    if answers "$port"; then return 0; fi
    sleep 0.5
  done
  echo "ensure-services: $name did not come up on 127.0.0.1:$port" >&2
  exit 1
}

apt_updated=""
apt_install() {
  if [ -z "$apt_updated" ]; then
    $SUDO apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

if ! answers 5432; then
  installed_here=""
  if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
    echo "ensure-services: installing PostgreSQL"
    apt_install postgresql postgresql-contrib
    installed_here=1
  fi
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  if [ -n "$installed_here" ]; then
    hba="/etc/postgresql/$version/main/pg_hba.conf"
    $SUDO sed -i -E 's/^(host\s+all\s+all\s+(127\.0\.0\.1\/32|::1\/128)\s+)\S+/\1trust/' "$hba"
    $SUDO sed -i -E 's/^(local\s+all\s+postgres\s+)\S+/\1trust/' "$hba"
  fi
  echo "ensure-services: starting PostgreSQL $version"
  $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main start || $SUDO pg_ctlcluster "$version" main start
  wait_for 5432 PostgreSQL
fi

if ! answers 6379; then
  if ! command -v redis-server >/dev/null 2>&1; then
    echo "ensure-services: installing Redis"
    apt_install redis-server
  fi
  echo "ensure-services: starting Redis"
  $SUDO mkdir -p /var/lib/redis /var/log/redis
  $SUDO redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/sample-registry.log
  wait_for 6379 Redis
fi

# The landing-page e2e test drives a real headless browser: Debian's chromium (browser builds
# cannot be downloaded here, so puppeteer-core is pointed at it; CHROMIUM_PATH overrides).
if [ -z "${CHROMIUM_PATH:-}" ] && ! [ -x /usr/bin/chromium ]; then
  echo "ensure-services: installing Chromium"
  apt_install chromium
fi

echo "ensure-services: PostgreSQL and Redis answer on 127.0.0.1; Chromium at ${CHROMIUM_PATH:-/usr/bin/chromium}"
