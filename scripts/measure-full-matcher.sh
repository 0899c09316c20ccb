#!/bin/bash
# The matcher against a full server: CPU of the process and growth of its database over 10 s.
set -u
D=$(mktemp -d); PORT=18777
"${1:-target/debug/sannin}" serve --addr 127.0.0.1:$PORT --database-url "sqlite://$D/m.db?mode=rwc" --max-rooms 1 > $D/log 2>&1 &
PID=$!; sleep 2
curl -s -XPOST -H 'content-type: application/json' -d '{}' http://127.0.0.1:$PORT/api/rooms >/dev/null
T=()
for i in 1 2 3; do T+=($(curl -s -XPOST -H 'content-type: application/json' -d '{"pool":"5+3","name":"P'$i'"}' http://127.0.0.1:$PORT/api/pairing | sed 's/.*"ticket":"\([^"]*\)".*/\1/')); done
t0=$(awk '{print $14+$15}' /proc/$PID/stat); s0=$(du -sb $D | cut -f1)
for k in $(seq 1 20); do for t in "${T[@]}"; do curl -s http://127.0.0.1:$PORT/api/pairing/$t >/dev/null; done; sleep 0.5; done
t1=$(awk '{print $14+$15}' /proc/$PID/stat); s1=$(du -sb $D | cut -f1)
echo "cpu_ticks_10s=$((t1-t0)) (of $(getconf CLK_TCK)/s) db_growth_bytes=$((s1-s0)) warn_lines=$(grep -c 'could not be opened' $D/log) refused=$(curl -s http://127.0.0.1:$PORT/metrics | grep '^sannin_pairing_tables_refused_total')"
kill $PID
