#!/usr/bin/env bash
# Makes sure PostgreSQL and Redis answer on 127.0.0.1 (5432, 6379), a streaming standby of that
# PostgreSQL on 5433 (scripts/ensure-standby.sh), and Chromium is installed (for
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
# $1 names what is missing; the rest are the Debian packages that provide it.
apt_install() {
  local what=$1
  shift
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-services: $what is not running and this machine has no apt-get: install $what yourself (listening on 127.0.0.1, see .env.example) or run \`docker compose up\`." >&2
    exit 1
  fi
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
    apt_install "PostgreSQL 15 or later" postgresql postgresql-contrib
    installed_here=1
  fi
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  if [ -n "$installed_here" ]; then
    hba="/etc/postgresql/$version/main/pg_hba.conf"
    $SUDO sed -i -E 's/^(host\s+all\s+all\s+(127\.0\.0\.1\/32|::1\/128)\s+)\S+/\1trust/' "$hba"
    $SUDO sed -i -E 's/^(local\s+all\s+postgres\s+)\S+/\1trust/' "$hba"
  fi
  # On a systemd machine the package starts the cluster itself, before pg_hba.conf was edited:
  # a running cluster must reload to apply it (else passwordless connections are refused).
  if $SUDO pg_ctlcluster "$version" main status >/dev/null 2>&1; then
    echo "ensure-services: reloading PostgreSQL $version"
    $SUDO pg_ctlcluster "$version" main reload
  else
    echo "ensure-services: starting PostgreSQL $version"
    $SUDO pg_ctlcluster --skip-systemctl-redirect "$version" main start || $SUDO pg_ctlcluster "$version" main start
  fi
  wait_for 5432 PostgreSQL
fi

if ! answers 6379; then
  if ! command -v redis-server >/dev/null 2>&1; then
    echo "ensure-services: installing Redis"
    apt_install "Redis 7" redis-server
  fi
  # On a systemd machine the package has started Redis already.
  if ! answers 6379; then
    echo "ensure-services: starting Redis"
    $SUDO mkdir -p /var/lib/redis /var/log/redis
    $SUDO redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/sample-registry.log
  fi
  wait_for 6379 Redis
fi

# The landing-page e2e test drives a real headless browser: Debian's chromium (browser builds
# cannot be downloaded here, so puppeteer-core is pointed at it; CHROMIUM_PATH overrides).
if [ -z "${CHROMIUM_PATH:-}" ] && ! [ -x /usr/bin/chromium ]; then
  echo "ensure-services: installing Chromium"
  apt_install Chromium chromium
  if ! [ -x /usr/bin/chromium ]; then
    echo "ensure-services: Chromium was not installed at /usr/bin/chromium; install Debian's chromium or set CHROMIUM_PATH." >&2
    exit 1
  fi
fi

# The label-sheet e2e test renders the PDFs it gets back to PNG (as a print preview would) with
# poppler's pdftoppm, then decodes their QR codes.
if ! command -v pdftoppm >/dev/null 2>&1; then
  echo "ensure-services: installing poppler-utils (pdftoppm)"
  apt_install "pdftoppm (poppler-utils)" poppler-utils
  if ! command -v pdftoppm >/dev/null 2>&1; then
    echo "ensure-services: pdftoppm was not installed; install Debian's poppler-utils." >&2
    exit 1
  fi
fi

# The read-replica tests read from a streaming standby of that PostgreSQL on 127.0.0.1:5433.
bash "$(dirname "$0")/ensure-standby.sh"

echo "ensure-services: PostgreSQL and Redis answer on 127.0.0.1; Chromium at ${CHROMIUM_PATH:-/usr/bin/chromium}; pdftoppm at $(command -v pdftoppm)"
