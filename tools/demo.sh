#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh - what `make run` shows, inside the VM: load MPDT, exchange
# verified messages between two network namespaces over a veth pair,
# again over a lossy link, and measure MPDT beside iperf3 TCP and UDP.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
MSG="$REPO/selftests/net/mpdt_msg"
NS_A=mpdtdemo_a
NS_B=mpdtdemo_b

cleanup() {
	ip netns del "$NS_A" 2>/dev/null || true
	ip netns del "$NS_B" 2>/dev/null || true
}
trap cleanup EXIT

# The demo's sockets (in time-wait) go with their netns, which the kernel
# frees in the background: the module stays in use until then.
unload() {
	local i
	for ((i = 0; i < 100; i++)); do
		rmmod mpdt 2>/dev/null && return 0
		sleep 0.2
	done
	rmmod mpdt
}

say() {
	printf '\n== %s\n' "$*"
}

setup() {
	modprobe -a veth sch_netem udp_tunnel ip6_udp_tunnel
	insmod "$REPO/net/mpdt/mpdt.ko"
	ip netns add "$NS_A"
	ip netns add "$NS_B"
	ip link add va netns "$NS_A" type veth peer name vb netns "$NS_B"
	ip -n "$NS_A" addr add 10.88.0.1/24 dev va
	ip -n "$NS_B" addr add 10.88.0.2/24 dev vb
	ip -n "$NS_A" link set va up
	ip -n "$NS_B" link set vb up
}

# exchange COUNT MAXSIZE PORT: verified messages from A to B.
exchange() {
	local recv_out send_out pid

	recv_out=$(mktemp)
	ip netns exec "$NS_B" "$MSG" recv -p "$3" -n "$1" -M "$2" -t 300 \
		>"$recv_out" &
	pid=$!
	sleep 0.3
	send_out=$(ip netns exec "$NS_A" "$MSG" send -a 10.88.0.2 -p "$3" \
		   -n "$1" -M "$2" -t 300)
	wait "$pid"
	python3 - "$send_out" "$(cat "$recv_out")" <<'PY'
import json, sys
s, r = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print("  sent %d messages (%.1f MB), received %d intact, %d duplicates, "
      "%d corrupt, in %.2f s" % (s["sent"], s["bytes"] / 1e6, r["received"],
      r["duplicates"], r["corrupt"], r["seconds"]))
print("  sender: srtt %d us, min rtt %d us, cwnd %d B, %d SACKs, "
      "%d probes, %d RTOs" % (s["srtt_us"], s["min_rtt_us"], s["cwnd"],
      s["sacks"], s["probes"], s["rtos"]))
print("  retransmits by cause: ooo %d, probe %d, rto %d, nack %d" %
      (s["retx_ooo"], s["retx_probe"], s["retx_rto"], s["retx_nack"]))
PY
	rm -f "$recv_out"
}

counters() {
	printf '  %s:' "$1"
	ip netns exec "$1" awk '$2 != 0 { printf " %s=%s", $1, $2 }' \
		/proc/net/mpdt_stats
	echo
}

setup
say "$(modinfo -F description "$REPO/net/mpdt/mpdt.ko")"
echo "  kernel $(uname -r); netns $NS_A (10.88.0.1) <-veth-> $NS_B (10.88.0.2)"

say "200 messages, log-uniform sizes 1 B .. 4 MiB, each checked by content hash"
exchange 200 $((4 << 20)) 7001

say "the same link with 2% loss, 10% reordering and 1 ms jitter (netem)"
ip netns exec "$NS_A" tc qdisc add dev va root netem delay 1ms 1ms \
	reorder 10% loss 2%
exchange 100 $((1 << 20)) 7002
ip netns exec "$NS_A" tc qdisc del dev va root

say "per-netns counters (/proc/net/mpdt_stats, non-zero)"
counters "$NS_A"
counters "$NS_B"

say "one connection over one veth: MPDT beside iperf3"
cleanup
unload
"$REPO/tools/perf/bench_veth.py" -r 1 -t 8 --only tcp udp mpdt | grep -v '^{'

say "permutation on a 2x4x4 leaf-spine fabric: max FCT / ideal (tools/perf/spray_fct.sh)"
"$REPO/tools/perf/spray_fct.sh"
