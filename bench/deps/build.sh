#!/bin/sh
# `npm run build` (both configs, emit) on tsc 5.9 (BUILD_TSC=5) vs TypeScript 7, alternating; CPU includes children.
#   sh bench/deps/build.sh [rounds]
for round in $(seq 1 "${1:-3}"); do
  for v in 5 7; do
    t=$( { BUILD_TSC=$v /usr/bin/time -f "TIME %e %U %S" npm run -s build >/dev/null; } 2>&1 | grep '^TIME')
    echo "round $round tsc$v: $t" | awk '{printf "%s %s %s wall %s s, cpu %.1f s", $1, $2, $3, $5, $6+$7}'
    echo ", load $(uptime | sed 's/.*average: //')"
  done
done
