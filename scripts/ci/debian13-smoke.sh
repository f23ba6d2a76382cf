#!/usr/bin/env bash
# Debian 13 smoke (docs/runtime.md): the built service on Node 24 in a Debian 13 ("trixie", glibc 2.41) root,
# with HTTP_ENGINE=uws, so it must serve through @btc-vision/uwebsockets.js's ABI-137 binary, which does not
# load on this Debian 12 host (glibc 2.36). REST, MCP and A2A are driven from outside by scripts/ci/smoke.mjs
# (host Node; the chroot shares the host's network, so 127.0.0.1 reaches it).
#
# The root is made once with debootstrap from Debian's packages into .cache/trixie and reused. The checkout
# is bind-mounted read-only at /app (dist, node_modules as built here, models); the Node 24 binary
# (scripts/ci/node.sh 24) is copied to /usr/local/bin/node. Needs root (debootstrap, chroot, mount).
# Run `npm run build` first. Env: DEBIAN_MIRROR overrides the mirror read from apt's sources.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

[[ $EUID -eq 0 ]] || { echo "debian13-smoke: needs root (debootstrap, chroot, mount)" >&2; exit 1; }
[[ -f dist/src/main.js ]] || { echo "debian13-smoke: dist/src/main.js missing: run npm run build first" >&2; exit 1; }

jail="$root/.cache/trixie"
node24="$(scripts/ci/node.sh 24)"

# The Debian mirror this machine's apt uses (deb822 URIs: or one-line deb), else Debian's own.
mirror() {
  if [[ -n "${DEBIAN_MIRROR:-}" ]]; then echo "$DEBIAN_MIRROR"; return; fi
  local uri
  uri="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    grep -oE '(URIs:|^deb)[[:space:]]+(\[[^]]*\][[:space:]]+)?https?://[^[:space:]]+/debian/?([[:space:]]|$)' |
    grep -oE 'https?://[^[:space:]]+' | head -1 || true)"
  echo "${uri:-http://deb.debian.org/debian}"
}

mounted_under() { grep -qF " $1" /proc/mounts; }

# --- the Debian 13 root, made once -------------------------------------------------------------------
if [[ ! -x "$jail/usr/bin/apt" ]] || ! grep -q '^13' "$jail/etc/debian_version" 2>/dev/null; then
  partial="$jail.partial"
  if [[ -e "$partial" ]]; then
    # A failed earlier run: never delete a tree that still has something mounted in it.
    if mounted_under "$partial/"; then echo "debian13-smoke: $partial has mounts left; unmount them first" >&2; exit 1; fi
    rm -rf --one-file-system "$partial"
  fi
  if [[ -e "$jail" ]]; then
    if mounted_under "$jail/"; then echo "debian13-smoke: $jail is incomplete and has mounts; unmount them first" >&2; exit 1; fi
    rm -rf --one-file-system "$jail"
  fi
  started=$SECONDS
  mkdir -p "$root/.cache" # absent when NODE24_BIN named a binary and scripts/ci/node.sh made no cache
  echo "== debootstrap --variant=minbase trixie from $(mirror)"
  debootstrap --variant=minbase trixie "$partial" "$(mirror)" >"$root/.cache/debootstrap.log" 2>&1 ||
    { tail -20 "$root/.cache/debootstrap.log" >&2; echo "debian13-smoke: debootstrap failed (log: .cache/debootstrap.log)" >&2; exit 1; }
  mv "$partial" "$jail"
  echo "   Debian $(cat "$jail/etc/debian_version") root made in $((SECONDS - started)) s"
fi
echo "== Debian $(cat "$jail/etc/debian_version") root at $jail: $(chroot "$jail" /usr/bin/ldd --version | head -1)"

# --- mounts, always undone ----------------------------------------------------------------------------
pid=""
logdir="$(mktemp -d)"
cleanup() {
  local rc=$?
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  for m in "$jail/app" "$jail/dev" "$jail/proc"; do
    if mountpoint -q "$m"; then umount "$m" 2>/dev/null || umount -l "$m"; fi
  done
  rm -rf "$jail/tmp/gc-smoke-data" "$logdir"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$jail/app"
mount -t proc proc "$jail/proc"
mount --bind /dev "$jail/dev"
mount --bind "$root" "$jail/app"
mount -o remount,bind,ro "$jail/app"
install -m 0755 "$node24" "$jail/usr/local/bin/node"
rm -rf "$jail/tmp/gc-smoke-data"

# --- the service on Node 24 + uWS in the root ---------------------------------------------------------
echo "== native addons in the root (built on this host against glibc 2.36)"
chroot "$jail" /bin/sh -c 'cd /app && exec /usr/local/bin/node scripts/ci/native-addons.mjs'

show_logs() { echo "--- service stdout" >&2; tail -20 "$logdir/out" >&2; echo "--- service stderr" >&2; tail -20 "$logdir/err" >&2; }

# Starts the built service in the root with HTTP_ENGINE=$1 and waits until it has logged 'listening' (and,
# on the first start, printed the owner key into $key); fails as soon as it exits. Sets pid, port, listening.
start_service() {
  : >"$logdir/out"
  : >"$logdir/err"
  chroot "$jail" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp NODE_ENV=production \
    HOST=127.0.0.1 PORT=0 HTTP_ENGINE="$1" DATA_DIR=/tmp/gc-smoke-data POOL_THREADS=1 \
    /bin/sh -c 'cd /app && exec /usr/local/bin/node dist/src/main.js' >"$logdir/out" 2>"$logdir/err" &
  pid=$!
  listening=""
  for _ in $(seq 1 600); do
    if ! kill -0 "$pid" 2>/dev/null; then echo "debian13-smoke: the service exited before serving (HTTP_ENGINE=$1)" >&2; show_logs; exit 1; fi
    [[ -n "$key" ]] || key="$(grep -oE 'gc_[0-9a-f]{32}' "$logdir/out" | head -1 || true)"
    listening="$(grep '"msg":"listening"' "$logdir/err" | head -1 || true)"
    [[ -n "$key" && -n "$listening" ]] && break
    sleep 0.2
  done
  [[ -n "$key" && -n "$listening" ]] || { echo "debian13-smoke: not serving after 120 s" >&2; show_logs; exit 1; }
  echo "   $listening"
  port="$(grep -oE '"port":[0-9]+' <<<"$listening" | cut -d: -f2)"
  grep -q '"http_engine":"uws","http_engine_package":"@btc-vision/uwebsockets.js@' <<<"$listening" ||
    { echo "debian13-smoke: the start log does not name uws / @btc-vision/uwebsockets.js (HTTP_ENGINE=$1)" >&2; show_logs; exit 1; }
}

# SIGTERM; the service must exit 0.
stop_service() {
  kill -0 "$pid" 2>/dev/null || { echo "debian13-smoke: the service exited before it was stopped" >&2; show_logs; exit 1; }
  kill -TERM "$pid"
  local code=0
  wait "$pid" || code=$?
  pid=""
  [[ $code -eq 0 ]] || { echo "debian13-smoke: exit code $code on SIGTERM" >&2; show_logs; exit 1; }
}

key=""
echo "== the built service in the Debian 13 root: $(chroot "$jail" /usr/local/bin/node -v), HTTP_ENGINE=uws"
start_service uws
echo "== REST, MCP and A2A from the host (scripts/ci/smoke.mjs on $(node -v))"
node scripts/ci/smoke.mjs --url "http://127.0.0.1:$port" --key "$key" --engine uws || { show_logs; exit 1; }
stop_service

# The default users get: auto must pick the same build here (a restart on the same data: no new key).
echo "== restarted with HTTP_ENGINE=auto"
start_service auto
node scripts/ci/smoke.mjs --url "http://127.0.0.1:$port" --key "$key" --engine uws --only rest || { show_logs; exit 1; }
stop_service
echo "debian13-smoke: passed (Node 24 + uWS in Debian 13 served REST, MCP and A2A; auto chose uWS too; both stopped with exit code 0)"
