#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric_spray.sh - MPDT load balancing on the emulated leaf-spine fabric
# (selftests/net/fabric.sh: 2 leaves x 2 hosts x 4 spines, 10 Mbit/s):
#   spread: with oblivious, reps, prime and bitmap, each of the 4 uplinks of
#           the sender's leaf carries 25% +/- 10% of a transfer's packets;
#           with ecmp one uplink carries them all;
#   paralet: with paths of four lengths (0, 2, 4, 6 ms more on leaf 1's
#           uplinks), per-packet spraying (oblivious) makes packets
#           overtake their predecessor (rx_reordered > 0: two packets
#           1.2 ms apart on paths 2 ms apart), and ParaLet, whose flowlets
#           each keep one path, at most a quarter as often;
#   IPv6:   a verified transfer between fabric hosts over IPv6.
# Every transfer is checked message by message (mpdt_msg, content hash).
# No check depends on where a hash puts an entropy: MPDT uses 16 EVs
# and the leaves route EV v to spine (v mod 4) + 1 (fabric_ev_routing),
# as PRIME's switches would, so a policy's EV choices are its paths.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric.sh"

SPINES=4
MSGS=6
MSG_BYTES=$((192 * 1024))
EVS=16
CLI="$REPO_ROOT/tools/mpdt/mpdt"

require_root
[[ -x $CLI ]] || skip "no $CLI (run 'make tools')"
# A window of a few BDPs of the 10 Mbit/s fabric: the tests count packets,
# not speed, and a datacenter-sized default window would only flood queues.
mpdt_load cc=fixed link_mbps=10 base_rtt_us=10000 fixed_cwnd=32768 rto_min_us=50000 \
	entropies=$EVS
fabric_create 2 2 "$SPINES" 10 1
fabric_cleanup_on_exit
fabric_ev_routing "$(cat /sys/module/mpdt/parameters/entropy_base)" "$EVS"

NS_A=$(fabric_host 1 1)
NS_B=$(fabric_host 2 1)
ADDR_B=$(fabric_addr 2 1)
PORT=7300

uplinks() {
	local s
	for ((s = 1; s <= SPINES; s++)); do
		fabric_link_packets 1 "$s" up
	done
}

# transfer LB: one verified transfer from h1-1 to h2-1 with policy LB;
# sets SHARES (percent of the data packets per uplink of leaf 1).
transfer() {
	local lb=$1 before after
	"$CLI" -n "$NS_A" param set lb "$lb" >/dev/null || fail "cannot set lb $lb"
	before=$(uplinks | tr '\n' ' ')
	PORT=$((PORT + 1))
	run_transfer "$lb" "$MSGS" "$MSG_BYTES" "$MSG_BYTES" 180 "$PORT"
	after=$(uplinks | tr '\n' ' ')
	SHARES=$(python3 -c 'import sys
b = [int(x) for x in sys.argv[1].split()]
a = [int(x) for x in sys.argv[2].split()]
d = [y - x for x, y in zip(b, a)]
print(" ".join("%.1f" % (100.0 * x / max(1, sum(d))) for x in d))' \
		"$before" "$after")
	log "$lb: uplink shares (%): $SHARES"
}

# spread_ok LB LOW HIGH: every uplink carried between LOW% and HIGH%.
spread_ok() {
	local lb=$1 sorted
	sorted=$(tr ' ' '\n' <<<"$SHARES" | sort -n)
	measure "spread_${lb}_min_share" "$(head -n 1 <<<"$sorted")" '>=' "$2"
	measure "spread_${lb}_max_share" "$(tail -n 1 <<<"$sorted")" '<=' "$3"
	log "ok: $lb spreads over all $SPINES uplinks ($2..$3% each)"
}

# oblivious and prime walk every EV once per round, reps recycles the EVs
# it explored in turn, bitmap goes round robin over all 16 (its
# max(8, min(256, 2 cwnd)) paths, STrack Algo 2, capped by the EVs).
for lb in oblivious reps prime bitmap; do
	transfer "$lb"
	spread_ok "$lb" 15 35
done

transfer ecmp
top=$(tr ' ' '\n' <<<"$SHARES" | sort -n | tail -n 1)
measure spread_ecmp_top_share "$top" '>=' 90
log "ok: ecmp keeps the connection on one uplink ($top%)"

# ParaLet keeps each flowlet on one path and in order: packets rarely
# overtake their flowlet predecessor; per-packet spraying reorders often
# when paths differ in length.
for ((s = 1; s <= SPINES; s++)); do
	fabric_link_delay 1 "$s" $((2 * (s - 1))) up >/dev/null ||
		fail "cannot lengthen the path through spine $s"
done
snap "$NS_B" R0
transfer oblivious
snap "$NS_B" R1
transfer paralet
snap "$NS_B" R2
spray=$(delta R1 R0 rx_reordered)
flowlets=$(delta R2 R1 rx_reordered)
log "reordered arrivals: oblivious $spray, paralet $flowlets"
measure reorder_oblivious "$spray" '>' 0
measure reorder_paralet "$flowlets"
measure reorder_paralet_x4_over_oblivious \
	"$(awk -v p="$flowlets" -v s="$spray" 'BEGIN { printf "%.3f", 4 * p / s }')" '<=' 1
log "ok: paralet reorders far less than per-packet spraying"

# IPv6 between two fabric hosts, sprayed, every message checked.
"$CLI" -n "$NS_A" param set lb oblivious >/dev/null
v6_port=$((PORT + 10))
start_receiver "$NS_B" "$v6_port" "$MSGS" 1 "$MSG_BYTES" 180 \
	"$WORKDIR/v6.recv" "$MPDT_SEED" -6
rpid=$RECV_PID
ip netns exec "$NS_A" "$(mpdt_msg_bin)" send -a "$(fabric_addr6 2 1)" \
	-p "$v6_port" -n "$MSGS" -M "$MSG_BYTES" -s "$MPDT_SEED" -t 180 \
	>"$WORKDIR/v6.send" 2>&1 ||
	fail "IPv6 sender failed: $(cat "$WORKDIR/v6.send")"
bg_wait "$rpid" || fail "IPv6 receiver failed: $(cat "$WORKDIR/v6.recv")"
log "IPv6: $(cat "$WORKDIR/v6.recv")"
log "ok: IPv6 transfer over the fabric, every message intact"
pass
