#!/bin/sh
# tsc 5.9 (node_modules or $OLD_DEPS typescript59) vs TypeScript 7 (native), both configs, no emit, alternating.
#   sh bench/deps/tsc.sh (TS7 is the typescript7 devDependency)
TS59=${TS59:-node_modules/typescript/bin/tsc}
TS7=${TS7:-node_modules/typescript7/bin/tsc}
for round in 1 2; do
  for v in 59 7; do
    eval bin=\$TS$v
    start=$(date +%s.%N)
    t=$( { /usr/bin/time -f "%U %S" $bin -p tsconfig.json --noEmit && /usr/bin/time -f "%U %S" $bin -p test/tsconfig.json; } 2>&1 | grep -E '^[0-9.]+ [0-9.]+$' | awk '{u+=$1; s+=$2} END {print u+s}')
    end=$(date +%s.%N)
    echo "round $round tsc$v: wall $(echo "$end - $start" | bc) s, cpu $t s, load $(uptime | sed 's/.*average: //')"
  done
done
