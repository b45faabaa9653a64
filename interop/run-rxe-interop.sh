#!/usr/bin/env bash
# Interop of `rnic pingpong` with rdma-core's ibv_*_pingpong on Linux Soft-RoCE (rdma_rxe) in a
# QEMU guest (../shared/tools/rxe-vm). Needs root, qemu and a few minutes; not part of CI.
#
# Then the rdma_cm programs (rping, ucmatose, udaddy: connections set up by CM MADs on QP1) in
# both roles, CM_COUNT pings or messages each (default 10). TRANSPORTS= or CM_PROGRAMS= skips a half.
# Runs, for RC (ibv_rc_pingpong), UC (ibv_uc_pingpong, rnic pingpong --uc), UD (ibv_ud_pingpong,
# --ud) and SRQ (ibv_srq_pingpong with its default 16 QPs, --srq), at two sizes each (64 and
# 4096, which is 4 packets at MTU 1024; UD: 64 and 1024, rxe's port MTU), 1000 iterations each:
#   rnic server  <- rxe client   (the pingpong in the guest connects to the host)
#   rxe server   <- rnic client
# captures the bridge, judges the capture with wire-check --psn (strict ICRC) and rnic decode,
# stops the guest and prints a pass/fail table. Output and capture go to interop/run/.
set -uo pipefail
iters=${ITERS:-1000}
sizes=${SIZES:-"64 4096"}
ud_sizes=${UD_SIZES:-"64 1024"}
transports=${TRANSPORTS-"rc uc ud srq"}
cm_programs=${CM_PROGRAMS-"rping ucmatose udaddy"}
cm_count=${CM_COUNT:-10}
. "$(cd "$(dirname "$0")" && pwd)/guest-setup.sh"

rnic() { "$vm/hostns.sh" java -jar "$jar" pingpong --ip "$host_ip" --icrc accept-unverifiable "$@"; }
declare -a rows
# A JVM on a loaded machine may take longer than a fixed pause to listen: wait for the TCP port
# (the pingpong exchange), at most 60 s.
await_listen() {
  for _ in $(seq 1 120); do
    "$vm/hostns.sh" ss -ltn 2>/dev/null | grep -q ":$1 " && return 0
    sleep 0.5
  done
  return 1
}
# The server a client could not reach would wait for ever: stop it, then collect its status.
reap() { [ "$2" = 0 ] || kill "$1" 2>/dev/null; wait "$1"; }
lastline() { grep -E 'usec/iter' "$1" | tail -1; }

# One capture per connection: each starts with fresh random PSNs on the same QP numbers, and
# wire-check follows PSN continuity per (source, destination, QP).
dump=
capture_start() {
  pcap=$out/$1.pcap
  "$vm/hostns.sh" tcpdump -i rxebr0 -U -s 0 -w "$pcap" 'udp port 4791 or tcp port 18515' > "$out/$1.tcpdump.log" 2>&1 &
  dump=$!
  sleep 2
}
capture_stop() {
  sleep 1
  kill -INT $dump 2>/dev/null; wait $dump 2>/dev/null
}
# result NAME SIZE OK DETAIL: judges the capture of NAME with wire-check --psn (strict ICRC) and rnic decode.
result() {
  local name=$1 size=$2 ok=$3 detail=$4 wc dec
  "$wirecheck" --psn --mtu 1024 "$out/$name.pcap" > "$out/$name.wire-check.log" 2>&1 && wc=ok || { wc=FAIL; ok=FAIL; }
  java -jar "$jar" decode "$out/$name.pcap" > "$out/$name.decode.log" 2>&1 && dec=ok || { dec=FAIL; ok=FAIL; }
  rows+=("$(printf '%-30s %5s  %-4s  wire-check %-4s decode %-4s  %s' "${name%-*}" "$size" "$ok" "$wc" "$dec" "$detail")")
  echo "  $(tail -1 "$out/$name.wire-check.log")" >> "$out/summary.txt"
  echo "  $(tail -1 "$out/$name.decode.log")" >> "$out/summary.txt"
}
: > "$out/summary.txt"

for t in $transports; do
prog=ibv_${t}_pingpong
flag=; [ "$t" != rc ] && flag=--$t
tsizes=$sizes; [ "$t" = ud ] && tsizes=$ud_sizes
for size in $tsizes; do
  # rnic server, rxe client
  log_s=$out/rnic-server-$t-$size.log; log_c=$out/rxe-client-$t-$size.log
  capture_start "rnic-server-rxe-client-$t-$size"
  rnic $flag -s "$size" -n "$iters" > "$log_s" 2>&1 &
  srv=$!
  await_listen 18515
  "$vm/guest.sh" 1 $prog -d rxe0 -g 1 -s "$size" -n "$iters" "$host_ip" > "$log_c" 2>&1
  c=$?
  reap $srv $c; s=$?
  capture_stop
  if [ $c = 0 ] && [ $s = 0 ]; then result "rnic-server-rxe-client-$t-$size" "$size" PASS "$(lastline "$log_s")"
  else result "rnic-server-rxe-client-$t-$size" "$size" FAIL "rnic=$s rxe=$c ($log_s, $log_c)"; fi

  # rxe server, rnic client
  log_s=$out/rxe-server-$t-$size.log; log_c=$out/rnic-client-$t-$size.log
  capture_start "rxe-server-rnic-client-$t-$size"
  "$vm/guest.sh" 1 "$prog -d rxe0 -g 1 -s $size -n $iters > /tmp/srv.log 2>&1; echo exit=\$? >> /tmp/srv.log" > /dev/null 2>&1 &
  gsrv=$!
  c=1
  for attempt in $(seq 1 20); do
    sleep 1
    rnic $flag -s "$size" -n "$iters" "$guest_ip" > "$log_c" 2>&1 && { c=0; break; }
    grep -q "Connection refused" "$log_c" || break
  done
  wait $gsrv
  capture_stop
  "$vm/guest.sh" 1 cat /tmp/srv.log > "$log_s" 2>&1
  if [ $c = 0 ] && grep -q "exit=0" "$log_s"; then result "rxe-server-rnic-client-$t-$size" "$size" PASS "$(lastline "$log_c")"
  else result "rxe-server-rnic-client-$t-$size" "$size" FAIL "rnic=$c ($log_c, $log_s)"; fi
done
done

# rdma_cm programs, both roles: the guest's rping/ucmatose/udaddy against rnic's.
cm_rnic() { "$vm/hostns.sh" java -jar "$jar" "$@" --ip "$host_ip" --icrc accept-unverifiable; }
cm_guest_client() {
  case $1 in
    rping) echo "rping -c -a $host_ip -C $cm_count -S 64 -v -V" ;;
    *) echo "$1 -s $host_ip -C $cm_count" ;;
  esac
}
cm_guest_server() {
  case $1 in
    rping) echo "rping -s -a $guest_ip -C $cm_count -S 64 -v" ;;
    *) echo "$1 -C $cm_count" ;;
  esac
}
cm_rnic_server() { case $1 in rping) echo "rping -s -a $host_ip -v" ;; *) echo "$1" ;; esac; }
cm_rnic_client() {
  case $1 in
    rping) echo "rping -c -a $guest_ip -C $cm_count -S 64 -v -V" ;;
    *) echo "$1 -s $guest_ip -C $cm_count" ;;
  esac
}
for p in $cm_programs; do
  name=rnic-server-rxe-client-$p-cm
  capture_start "$name"
  cm_rnic $(cm_rnic_server $p) > "$out/$name.rnic.log" 2>&1 &
  srv=$!
  sleep 3
  for _ in $(seq 1 60); do [ -s "$out/$name.rnic.log" ] && break; sleep 0.5; done # it speaks once it listens
  "$vm/guest.sh" 1 "timeout 120 $(cm_guest_client $p)" > "$out/$name.rxe.log" 2>&1; c=$?
  reap $srv $c; s=$?
  capture_stop
  if [ $c = 0 ] && [ $s = 0 ]; then result "$name" "-" PASS "$(tail -1 "$out/$name.rxe.log")"
  else result "$name" "-" FAIL "rnic=$s rxe=$c ($out/$name.*.log)"; fi

  name=rxe-server-rnic-client-$p-cm
  capture_start "$name"
  "$vm/guest.sh" 1 "timeout 120 $(cm_guest_server $p) > /tmp/srv.log 2>&1; echo exit=\$? >> /tmp/srv.log" > /dev/null 2>&1 &
  gsrv=$!
  sleep 3
  cm_rnic $(cm_rnic_client $p) > "$out/$name.rnic.log" 2>&1; c=$?
  wait $gsrv
  capture_stop
  "$vm/guest.sh" 1 cat /tmp/srv.log > "$out/$name.rxe.log" 2>&1
  if [ $c = 0 ] && grep -q "exit=0" "$out/$name.rxe.log"; then result "$name" "-" PASS "$(tail -1 "$out/$name.rnic.log")"
  else result "$name" "-" FAIL "rnic=$c ($out/$name.*.log)"; fi
done

# Two rnic pingpong processes on loopback, strict ICRC (no kernel peer involved), every transport.
"$vm/hostns.sh" true >/dev/null 2>&1
loop_rows=()
for t in $transports; do
  flag=; [ "$t" != rc ] && flag=--$t
  size=4096; [ "$t" = ud ] && size=1024
  java -jar "$jar" pingpong $flag -s $size --ip 127.0.0.2 -p 18599 -n "$iters" > "$out/loopback-server-$t.log" 2>&1 &
  lsrv=$!
  sleep 2
  java -jar "$jar" pingpong $flag -s $size --ip 127.0.0.3 -p 18599 -n "$iters" 127.0.0.1 > "$out/loopback-client-$t.log" 2>&1; lc=$?
  wait $lsrv; ls=$?
  loop_rows+=("$(printf '%-30s %5s  %-4s  %s' "rnic / rnic (loopback) $t" $size "$([ $lc = 0 ] && [ $ls = 0 ] && echo PASS || echo FAIL)" "$(lastline "$out/loopback-client-$t.log")")")
done
for p in $cm_programs; do
  srv_args=$p; cli_args="$p -s 127.0.0.2 -C $cm_count"
  [ $p = rping ] && { srv_args="rping -s -a 127.0.0.2 -v"; cli_args="rping -c -a 127.0.0.2 -C $cm_count -v -V"; }
  java -jar "$jar" $srv_args --ip 127.0.0.2 > "$out/loopback-server-$p.log" 2>&1 &
  lsrv=$!
  sleep 2
  java -jar "$jar" $cli_args --ip 127.0.0.3 > "$out/loopback-client-$p.log" 2>&1; lc=$?
  wait $lsrv; ls=$?
  loop_rows+=("$(printf '%-30s %5s  %-4s  %s' "rnic / rnic (loopback) $p" - "$([ $lc = 0 ] && [ $ls = 0 ] && echo PASS || echo FAIL)" "$(tail -1 "$out/loopback-client-$p.log")")")
done

echo
echo "rnic pingpong <-> ibv_{rc,uc,ud,srq}_pingpong, rnic rping/ucmatose/udaddy <-> rdma-core's, on rdma_rxe ($(date -u +%Y-%m-%d), $iters iterations, MTU 1024)"
printf '%-30s %5s  %-4s  %s\n' "server-client-transport" "size" "" "captures judged; rnic's report"
for r in "${rows[@]}"; do echo "$r"; done
for r in "${loop_rows[@]}"; do echo "$r"; done
echo "capture summaries:"; cat "$out/summary.txt"
fail=0
for r in "${rows[@]}" "${loop_rows[@]}"; do case "$r" in *FAIL*) fail=1;; esac; done
exit $fail
