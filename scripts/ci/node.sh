#!/usr/bin/env bash
# Prints the path of a Node.js binary of the given major version (22, 24, ...), making one available first
# if needed. Order: $NODE<MAJOR>_BIN when set (it must be that major), else the cached copy in
# <repo>/.cache/node/<MAJOR>, else the registry's `node-linux-<arch>` package (the official binary, as npm
# publishes it) installed there. Everything but the path goes to stderr, so `NODE24=$(scripts/ci/node.sh 24)`.
set -euo pipefail
major="${1:?usage: scripts/ci/node.sh MAJOR   (e.g. 24)}"
[[ "$major" =~ ^[0-9]+$ ]] || { echo "node.sh: MAJOR must be a number, got '$major'" >&2; exit 2; }
root="$(cd "$(dirname "$0")/../.." && pwd)"

# The binary's major version, or nothing if it does not run here.
major_of() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || true; }

override_var="NODE${major}_BIN"
override="${!override_var:-}"
if [[ -n "$override" ]]; then
  got="$(major_of "$override")"
  if [[ "$got" != "$major" ]]; then
    echo "node.sh: $override_var=$override is not a Node $major binary (major: ${got:-does not run})" >&2
    exit 1
  fi
  echo "$override"
  exit 0
fi

case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "node.sh: no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac
prefix="$root/.cache/node/$major"
bin="$prefix/node_modules/node-linux-$arch/bin/node"
if [[ "$(major_of "$bin")" != "$major" ]]; then
  echo "node.sh: installing node-linux-$arch@$major from the npm registry into $prefix" >&2
  mkdir -p "$prefix"
  # Its own prefix: nothing of the project's package.json, lock file or .npmrc is read or changed.
  npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error "node-linux-$arch@$major" >&2
  got="$(major_of "$bin")"
  if [[ "$got" != "$major" ]]; then
    echo "node.sh: $bin did not give a Node $major binary (major: ${got:-does not run})" >&2
    exit 1
  fi
fi
echo "$bin"
