#!/usr/bin/env bash
# Interop of `rnic perf` with perftest 4.5 (ib_write_bw, ib_read_bw, ib_send_bw over RC and UD,
# ib_atomic_bw, ib_read_lat, ib_atomic_lat, ib_write_lat, ib_send_lat) on Linux
# Soft-RoCE (rdma_rxe) in a QEMU guest (../shared/tools/rxe-vm). Needs root, qemu and a few
# minutes; not part of CI.
#
# For each test and size, both roles:
#   rnic client -> perftest server in the guest
#   perftest client in the guest -> rnic server
# (a bandwidth test's server prints the client's row, as perftest's does; a latency test's client
# prints the table)
# each capture judged by wire-check --psn (strict ICRC) and rnic decode. Output and captures go
# to interop/run/perf-*. ITERS (default 100: the emulated guest runs near 1 MB/s) and TESTS
# ("write_bw:64 write_bw:4096 ...", TEST:SIZE[:ATOMIC-KIND[:CONNECTION[:DURATION]]]) narrow it; a
# duration (seconds) runs `-D` instead of `-n`. RDMA_CM=1 adds `-R` on both sides: the exchange
# over an rdma_cm connection and the test QPs connected by the connection manager.
set -uo pipefail
iters=${ITERS:-100}
tests=${TESTS:-"write_bw:64 write_bw:4096 read_bw:64 read_bw:4096 send_bw:64 send_bw:4096 send_bw:64::UD send_bw:1024::UD atomic_bw:8:CMP_AND_SWAP atomic_bw:8:FETCH_AND_ADD read_lat:64 read_lat:4096 atomic_lat:8:CMP_AND_SWAP atomic_lat:8:FETCH_AND_ADD write_lat:64 write_lat:4096 send_lat:64 send_lat:4096"}
. "$(cd "$(dirname "$0")" && pwd)/guest-setup.sh"

rnic() { "$vm/hostns.sh" timeout 120 java -jar "$jar" perf "$@" --ip "$host_ip" --icrc accept-unverifiable --warmup 0; }
dump=
capture_start() {
  "$vm/hostns.sh" tcpdump -i rxebr0 --immediate-mode -B 65536 -U -s 0 -w "$out/$1.pcap" 'udp port 4791' \
    > "$out/$1.tcpdump.log" 2>&1 &
  dump=$!
  sleep 2
}
capture_stop() { sleep 1; kill -INT $dump 2>/dev/null; wait $dump 2>/dev/null; }
declare -a rows
# row NAME SIZE OK LOG COUNT: judges the capture of NAME and records the row perftest's table printed.
row() {
  local name=$1 size=$2 ok=$3 log=$4 wc dec line
  "$wirecheck" --psn --mtu 1024 "$out/$name.pcap" > "$out/$name.wire-check.log" 2>&1 && wc=ok || { wc=FAIL; ok=FAIL; }
  java -jar "$jar" decode "$out/$name.pcap" > "$out/$name.decode.log" 2>&1 && dec=ok || { dec=FAIL; ok=FAIL; }
  line=$(grep -E "^ $size +$5 " "$log" | tail -1 | tr -s ' \t' ' ')
  [ -n "$line" ] || ok=FAIL
  rows+=("$(printf '%-44s %-4s  wire-check %-4s decode %-4s %s' "$name" "$ok" "$wc" "$dec" "$line")")
}

for spec in $tests; do
  IFS=: read -r t size kind conn dur <<< "$spec"
  a=; [ -n "${kind:-}" ] && a="-A $kind"
  [ -n "${conn:-}" ] && a="$a -c $conn"
  if [ -n "${dur:-}" ]; then a="$a -D $dur"; count='[0-9]+'; else a="$a -n $iters"; count=$iters; fi
  [ -n "${RDMA_CM:-}" ] && a="$a -R"
  tag=$t-$size${kind:+-$kind}${conn:+-$conn}${dur:+-D$dur}${RDMA_CM:+-R}
  # rnic client, perftest server in the guest
  name=perf-rnic-client-rxe-server-$tag
  capture_start "$name"
  "$vm/guest.sh" 1 "timeout 120 ib_$t -d rxe0 -x 1 -s $size $a > /tmp/srv.log 2>&1; echo exit=\$? >> /tmp/srv.log" \
    > /dev/null 2>&1 &
  g=$!
  sleep 3
  rnic "$t" -s "$size" $a "$guest_ip" > "$out/$name.rnic.log" 2>&1; c=$?
  wait $g
  capture_stop
  "$vm/guest.sh" 1 cat /tmp/srv.log > "$out/$name.rxe.log" 2>&1
  ok=PASS; { [ $c = 0 ] && grep -q "exit=0" "$out/$name.rxe.log"; } || ok=FAIL
  case $t in *_lat) table=$out/$name.rnic.log;; *) table=$out/$name.rxe.log;; esac
  row "$name" "$size" "$ok" "$table" "$count"
  # perftest client in the guest, rnic server
  name=perf-rxe-client-rnic-server-$tag
  capture_start "$name"
  rnic "$t" -s "$size" $a > "$out/$name.rnic.log" 2>&1 &
  s=$!
  sleep 4
  "$vm/guest.sh" 1 timeout 120 "ib_$t" -d rxe0 -x 1 -s "$size" $a "$host_ip" > "$out/$name.rxe.log" 2>&1; c=$?
  wait $s; r=$?
  capture_stop
  ok=PASS; { [ $c = 0 ] && [ $r = 0 ]; } || ok=FAIL
  case $t in *_lat) table=$out/$name.rxe.log;; *) table=$out/$name.rnic.log;; esac
  row "$name" "$size" "$ok" "$table" "$count"
done

echo
echo "rnic perf <-> perftest 4.5 on rdma_rxe ($(date -u +%Y-%m-%d), $iters iterations, MTU 1024)"
echo "name                                         ok    judged                         the table's row (a bandwidth test's server, a latency test's client)"
for r in "${rows[@]}"; do echo "$r"; done
fail=0
for r in "${rows[@]}"; do case "$r" in *FAIL*) fail=1;; esac; done
exit $fail
