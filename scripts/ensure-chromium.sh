#!/usr/bin/env bash
# Makes sure Debian's chromium is installed for the browser tests (playwright-core drives it; no
# browser is downloaded). Needs root when it is missing. Source it: `source scripts/ensure-chromium.sh`.

if ! command -v chromium >/dev/null 2>&1; then
  echo "chromium is not installed: installing Debian's chromium" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q && apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi
export CHROMIUM_PATH="${CHROMIUM_PATH:-$(command -v chromium)}"
echo "chromium: ${CHROMIUM_PATH}" >&2
