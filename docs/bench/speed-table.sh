#!/usr/bin/env bash
# The speed table of docs/performance.md: each rnic figure beside the ceiling udp-probe measures
# in the same run, three runs each, medians printed. Usage: docs/bench/speed-table.sh [RUNS]
# (from the project root, after `mvn -B -q -DskipTests install`).
set -euo pipefail
RUNS=${1:-3}
J="java -jar rnic-bench/target/rnic.jar"
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
declare -A v
for r in $(seq "$RUNS"); do
  # RC WRITE 4 KiB (a WRITE Only packet is 4128 bytes) against 4128-byte GSO x15 + GRO datagrams
  v[gso4k]+="$($J udp-probe -s 4128 --segments 15 --seconds 3 | awk '/GSO/ {print $(NF-1)}') "
  v[write]+="$($J perf write_bw -s 4096 -D 5 --loopback --report_gbits | awk '$1 == 4096 {print $4}') "
  # RC SEND 64 B messages (an 80-byte packet) against 80-byte GSO x32 + GRO datagrams
  v[gso80]+="$($J udp-probe -s 80 --segments 32 --seconds 3 | awk '/GSO/ {gsub(",", "", $(NF-3)); print $(NF-3)}') "
  v[send]+="$($J perf send_bw -s 64 -D 5 --loopback --threading invoker --idle spin | awk '$1 == 64 {print $5 * 1e6}') "
  # the same with the defaults (an agent thread per HCA, backoff idling): what a user gets
  v[senddef]+="$($J perf send_bw -s 64 -D 5 --loopback | awk '$1 == 64 {print $5 * 1e6}') "
  # round trips: raw UDP ceilings, then rnic's send_lat (t_typical is half a round trip)
  lat=$($J udp-probe --latency -n 50000)
  v[rawspin]+="$(echo "$lat" | awk '/busy-poll/ {print $5}') "
  v[rawblock]+="$(echo "$lat" | awk '/blocking/ {print $5}') "
  v[latspin]+="$($J perf send_lat -s 64 -n 20000 --loopback --threading invoker --idle spin | awk '$1 == 64 {print 2 * $5}') "
  v[latblock]+="$($J perf send_lat -s 64 -n 20000 --loopback --threading invoker --idle block | awk '$1 == 64 {print 2 * $5}') "
  # the whole stack on the simulated network, one core
  sim=$($J perf write_bw -s 64 -n 3000000 --wire sim 2>&1)
  v[sim]+="$(echo "$sim" | awk '/packets\/s/ {for (i = 1; i < NF; i++) if ($(i + 1) == "M") print $i}') "
  v[simmsg]+="$(echo "$sim" | awk '$1 == 64 {print $5}') "
done
for k in gso4k write gso80 send senddef rawspin latspin rawblock latblock sim simmsg; do
  m=$(echo ${v[$k]} | tr ' ' '\n' | median)
  printf '%-9s runs: %-40s median: %s\n' "$k" "${v[$k]}" "$m"
  declare "m_$k=$m"
done
# Each ratio within its own run (the ceiling moves with the machine's load), then their median.
ratios() { paste <(echo ${v[$1]} | tr ' ' '\n') <(echo ${v[$2]} | tr ' ' '\n') | awk -v k="$3" '{printf "%.3f\n", k * $1 / $2}'; }
r_write=$(ratios write gso4k 100); r_send=$(ratios send gso80 100); r_senddef=$(ratios senddef gso80 100)
r_latspin=$(ratios latspin rawspin 1); r_latblock=$(ratios latblock rawblock 1)
echo "per-run ratios: WRITE % $(echo $r_write) | SEND % $(echo $r_send) | SEND defaults % $(echo $r_senddef) | spin x $(echo $r_latspin) | block x $(echo $r_latblock)"
awk -v w="$m_write" -v g="$m_gso4k" -v s="$m_send" -v g80="$m_gso80" -v ls="$m_latspin" -v rs="$m_rawspin" \
    -v lb="$m_latblock" -v rb="$m_rawblock" -v rw="$(echo "$r_write" | median)" -v rsd="$(echo "$r_send" | median)" \
    -v rls="$(echo "$r_latspin" | median)" -v rlb="$(echo "$r_latblock" | median)" 'BEGIN {
  printf "WRITE 4 KiB: median %.2f Gb/s, ceiling %.2f Gb/s; median of the per-run ratios %.0f %% (goal >= 50 %%)\n", w, g, rw
  printf "SEND 64 B:   median %.0f msg/s, ceiling %.0f datagrams/s; median of the per-run ratios %.0f %% (goal >= 50 %%)\n", s, g80, rsd
  printf "round trip spinning: median %.2f us, raw busy-poll %.2f us; median ratio %.1f x (goal <= 2x)\n", ls, rs, rls
  printf "round trip blocking: median %.2f us, raw blocking %.2f us; median ratio %.1f x (goal <= 3x)\n", lb, rb, rlb }'
echo "SEND 64 B with the defaults: median $m_senddef msg/s; median of the per-run ratios $(echo "$r_senddef" | median) %"
echo "simulated network: median $m_sim M packets/s (goal >= 5), $m_simmsg M messages/s"
