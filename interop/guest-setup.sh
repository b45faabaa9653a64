# Sourced by the interop scripts: paths, the guest's addresses, the jar, and a started rxe guest
# (built first if needed) that is stopped when the sourcing script exits. Needs root.
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
vm=${RXEVM_DIR:-$(cd "$top/../shared/tools/rxe-vm" && pwd)}
wirecheck=${WIRE_CHECK:-$(cd "$top/../shared/tools/wire-check" && pwd)/wire-check}
export RXEVM_BUILD=${RXEVM_BUILD:-$here/run/build}
export RXEVM_RUN=${RXEVM_RUN:-$here/run/run}
out=$here/run
host_ip=169.254.77.1
guest_ip=169.254.77.11
jar=${RNIC_JAR:-$top/rnic-bench/target/rnic.jar}  # RNIC_JAR: a copy, to go on building meanwhile
mkdir -p "$out"

[ "$(id -u)" = 0 ] || { echo "run as root (qemu, network namespaces, nft)" >&2; exit 2; }
if [ ! -f "$jar" ]; then
  (cd "$top" && mvn -B -q -DskipTests install) || { echo "build failed" >&2; exit 2; }
fi
"$vm/build.sh" > "$out/build.log" 2>&1 || { echo "rxe-vm build failed: see $out/build.log" >&2; exit 2; }
"$vm/start.sh" 1 > "$out/start.log" 2>&1 || { echo "guest did not start: see $out/start.log" >&2; "$vm/stop.sh" >/dev/null 2>&1; exit 2; }
trap '"$vm/stop.sh" >/dev/null 2>&1' EXIT
