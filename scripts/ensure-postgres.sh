#!/usr/bin/env bash
# Makes sure a PostgreSQL server answers on 127.0.0.1:5432 and exports TEST_POSTGRES_URL, so the
# test suite also runs against PostgreSQL. Starts the machine's cluster when it is stopped;
# installs Debian's postgresql when it is missing (needs root). Source it: `source scripts/ensure-postgres.sh`.

pg_ready() { command -v pg_isready >/dev/null 2>&1 && pg_isready -q -h 127.0.0.1 -p 5432; }

if ! pg_ready; then
  if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
    echo "PostgreSQL is not installed: installing Debian's postgresql" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q && apt-get install -y -q postgresql >/dev/null
  fi
  version="$(ls /etc/postgresql | sort -n | tail -1)"
  echo "Starting PostgreSQL ${version}" >&2
  pg_ctlcluster --skip-systemctl-redirect "$version" main start || pg_ctlcluster "$version" main start
  for _ in $(seq 1 30); do pg_ready && break; sleep 1; done
fi

# A role for whoever runs the tests, allowed to create (and drop) the per-run databases. Where
# TCP connections need a password (Debian's default), the role gets a fresh random one.
me="$(id -un)"
url="postgres://${me}@127.0.0.1:5432/postgres"
if ! psql "$url" -Atc 'select 1' >/dev/null 2>&1; then
  password="$(head -c 18 /dev/urandom | base64 | tr -dc 'a-zA-Z0-9')"
  su postgres -c "psql -q" >/dev/null <<SQL
do \$\$ begin
  if not exists (select from pg_roles where rolname = '${me}') then create role "${me}" login superuser; end if;
end \$\$;
alter role "${me}" with login superuser password '${password}';
SQL
  url="postgres://${me}:${password}@127.0.0.1:5432/postgres"
fi
export TEST_POSTGRES_URL="${TEST_POSTGRES_URL:-$url}"
echo "PostgreSQL is up; tests will also run on it" >&2
