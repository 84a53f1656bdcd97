#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_veth.sh - one connection over one veth: MPDT goodput beside iperf3
# TCP and iperf3 UDP, measured in the same run (run it inside the VM, as
# root, with the module built).  Prints a table and one JSON line.
#
# usage: [MPDT_ARGS="param=value ..."] bench_veth.sh [SECONDS_PER_TOOL]
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
SECS=${1:-8}
MSG=$((1 << 20))
NS_A=mpdtbench_a
NS_B=mpdtbench_b

cleanup() {
	ip netns del "$NS_A" 2>/dev/null || true
	ip netns del "$NS_B" 2>/dev/null || true
	pkill -x iperf3 2>/dev/null || true
}
trap cleanup EXIT

setup() {
	modprobe -a veth udp_tunnel ip6_udp_tunnel
	# MPDT_ARGS: module parameters, word-split on purpose.
	# shellcheck disable=SC2086
	lsmod | grep -q "^mpdt " || insmod "$REPO/net/mpdt/mpdt.ko" ${MPDT_ARGS:-}
	ip netns add "$NS_A"
	ip netns add "$NS_B"
	ip link add va netns "$NS_A" type veth peer name vb netns "$NS_B"
	ip -n "$NS_A" addr add 10.77.0.1/24 dev va
	ip -n "$NS_B" addr add 10.77.0.2/24 dev vb
	ip -n "$NS_A" link set va up
	ip -n "$NS_B" link set vb up
}

# iperf3 receiver-side goodput in Mbit/s.
iperf_mbps() {
	ip netns exec "$NS_B" iperf3 -s -1 -D >/dev/null
	sleep 0.5
	ip netns exec "$NS_A" iperf3 -c 10.77.0.2 -t "$SECS" -J "$@" |
		python3 -c 'import json,sys
e = json.load(sys.stdin)["end"]
s = e.get("sum_received") or e["sum"]
print("%.1f" % (s["bits_per_second"] / 1e6))'
}

# MPDT: 1 MiB messages for about SECS seconds, goodput at the receiver.
mpdt_mbps() {
	local n out
	# Size the run from a short calibration so it lasts about SECS.
	n=$(mpdt_run 32 | python3 -c 'import json,sys
r = json.loads(sys.stdin.readline())
print(max(32, int(r["bytes"] * 8 / 1e6 / max(r["seconds"], 1e-3) * '"$SECS"' / 8)))')
	out=$(mpdt_run "$n")
	python3 -c 'import json,sys
r = json.loads(sys.argv[1])
assert r["received"] > 0 and not r["corrupt"] and not r["duplicates"]
print("%.1f" % (r["bytes"] * 8 / 1e6 / r["seconds"]))' "$out"
}

mpdt_run() {
	local tool="$REPO/selftests/net/mpdt_msg" pid out
	ip netns exec "$NS_B" "$tool" recv -p 9000 -n "$1" -m $MSG -M $MSG \
		-t 300 >/tmp/mpdt_bench_recv.json &
	pid=$!
	sleep 0.3
	ip netns exec "$NS_A" "$tool" send -a 10.77.0.2 -p 9000 -n "$1" \
		-m $MSG -M $MSG -t 300 >/tmp/mpdt_bench_send.json
	wait "$pid"
	out=$(cat /tmp/mpdt_bench_recv.json)
	echo "$out"
}

setup
tcp=$(iperf_mbps)
udp=$(iperf_mbps -u -b 0 -l 1400)
mpdt=$(mpdt_mbps)
python3 - "$tcp" "$udp" "$mpdt" "$(cat /tmp/mpdt_bench_send.json)" <<'PY'
import json, sys
tcp, udp, mpdt = map(float, sys.argv[1:4])
snd = json.loads(sys.argv[4])
print("one connection over one veth (goodput, Mbit/s)")
print("  %-14s %10.1f" % ("iperf3 TCP", tcp))
print("  %-14s %10.1f" % ("iperf3 UDP", udp))
print("  %-14s %10.1f   (%.2fx TCP, %.2fx UDP)" % ("MPDT", mpdt, mpdt / tcp,
						   mpdt / udp))
print("  MPDT sender: retx ooo=%d probe=%d rto=%d nack=%d, srtt %d us" %
      (snd["retx_ooo"], snd["retx_probe"], snd["retx_rto"],
       snd["retx_nack"], snd["srtt_us"]))
print(json.dumps({"tcp_mbps": tcp, "udp_mbps": udp, "mpdt_mbps": mpdt,
		  "mpdt_vs_tcp": round(mpdt / tcp, 3),
		  "mpdt_vs_udp": round(mpdt / udp, 3), "mpdt_sender": snd}))
PY
