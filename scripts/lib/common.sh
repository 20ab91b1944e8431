# Shared by the project's scripts: find Swift and install the Debian packages a step needs.

# Puts the toolchain on PATH when it lives in /opt/swift (as on the project's machines).
use_swift() {
  if ! command -v swift >/dev/null 2>&1 && [[ -x /opt/swift/usr/bin/swift ]]; then
    export PATH="/opt/swift/usr/bin:$PATH"
  fi
  if ! command -v swift >/dev/null 2>&1; then
    echo "error: Swift 6 is not installed (https://www.swift.org/install/linux/), or put it on PATH." >&2
    exit 1
  fi
}

# ensure_packages PACKAGE...: installs the Debian packages that are missing, or explains how.
ensure_packages() {
  local missing=()
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  ((${#missing[@]})) || return 0
  echo "installing ${missing[*]} ..." >&2
  local sudo=()
  if [[ $(id -u) != 0 ]]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo=(sudo)
    else
      echo "error: missing Debian packages: ${missing[*]}" >&2
      echo "       run as root, or first: sudo apt-get install -y ${missing[*]}" >&2
      exit 1
    fi
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# What building the server needs (the executable links TCMalloc, libtcmalloc-minimal4; token and
# request digests are OpenSSL's SHA-256, libssl-dev; PostgreSQL storage is libpq, libpq-dev).
ensure_build_dependencies() {
  use_swift
  ensure_packages libmicrohttpd-dev pkg-config libsqlite3-dev libtcmalloc-minimal4 libssl-dev libpq-dev
}
