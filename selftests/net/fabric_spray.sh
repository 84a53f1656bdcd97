#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric_spray.sh - MPDT load balancing on the emulated leaf-spine fabric
# (selftests/net/fabric.sh: 2 leaves x 2 hosts x 4 spines, 10 Mbit/s):
#   spread: with oblivious, reps, prime and bitmap, each of the 4 uplinks of
#           the sender's leaf carries 25% +/- 10% of a transfer's packets;
#           with ecmp one uplink carries them all;
#   paralet: far fewer packets overtake their predecessor (rx_reordered)
#           than with per-packet spraying (oblivious);
#   IPv6:   a verified transfer between fabric hosts over IPv6.
# Every transfer is checked message by message (mpdt_msg, content hash).

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric.sh"

SPINES=4
MSGS=6
MSG_BYTES=$((192 * 1024))
CLI="$REPO_ROOT/tools/mpdt/mpdt"

require_root
[[ -x $CLI ]] || skip "no $CLI (run 'make tools')"
# A window of a few BDPs of the 10 Mbit/s fabric: the tests count packets,
# not speed, and a datacenter-sized default window would only flood queues.
mpdt_load link_mbps=10 base_rtt_us=10000 fixed_cwnd=32768 rto_min_us=50000
fabric_create 2 2 "$SPINES" 10 1
fabric_cleanup_on_exit

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
	local lb=$1 s
	for s in $SHARES; do
		awk -v s="$s" -v lo="$2" -v hi="$3" \
			'BEGIN { exit !(s >= lo && s <= hi) }' ||
			fail "$lb: an uplink carried $s% (want $2..$3)"
	done
	log "ok: $lb spreads over all $SPINES uplinks ($2..$3% each)"
}

for lb in oblivious reps prime; do
	transfer "$lb"
	spread_ok "$lb" 15 35
done
# STrack's bitmap sprays over max(8, min(256, 2 cwnd)) entropies (Algo 2):
# with this small window that is ~46 entropies, and 46 hash values split
# over 4 spines unevenly (the hash, not the policy), so only ask that every
# uplink carries a real share.
transfer bitmap
spread_ok bitmap 10 50

transfer ecmp
top=$(tr ' ' '\n' <<<"$SHARES" | sort -n | tail -n 1)
awk -v s="$top" 'BEGIN { exit !(s >= 90) }' ||
	fail "ecmp: the busiest uplink carried only $top%"
log "ok: ecmp keeps the connection on one uplink ($top%)"

# ParaLet keeps each flowlet on one path and in order: packets rarely
# overtake their flowlet predecessor; per-packet spraying reorders often.
snap "$NS_B" R0
transfer oblivious
snap "$NS_B" R1
transfer paralet
snap "$NS_B" R2
spray=$(delta R1 R0 rx_reordered)
flowlets=$(delta R2 R1 rx_reordered)
log "reordered arrivals: oblivious $spray, paralet $flowlets"
assert_gt "oblivious reorders on the fabric" 0 "$spray"
awk -v p="$flowlets" -v s="$spray" 'BEGIN { exit !(p * 4 <= s) }' ||
	fail "paralet reordered $flowlets, not far fewer than oblivious ($spray)"
log "ok: paralet reorders far less than per-packet spraying"

# IPv6 between two fabric hosts, sprayed, every message checked.
"$CLI" -n "$NS_A" param set lb oblivious >/dev/null
v6_port=$((PORT + 10))
ready=$WORKDIR/ready.v6
bg ip netns exec "$NS_B" "$(mpdt_msg_bin)" recv -6 -p "$v6_port" -n "$MSGS" \
	-M "$MSG_BYTES" -t 180 -r "$ready" >"$WORKDIR/v6.recv" 2>&1
rpid=$BG_PID
for ((i = 0; i < 300; i++)); do
	[[ -e $ready ]] && break
	sleep 0.1
done
[[ -e $ready ]] || fail "IPv6 receiver did not come up"
ip netns exec "$NS_A" "$(mpdt_msg_bin)" send -a "$(fabric_addr6 2 1)" \
	-p "$v6_port" -n "$MSGS" -M "$MSG_BYTES" -t 180 >"$WORKDIR/v6.send" 2>&1 ||
	fail "IPv6 sender failed: $(cat "$WORKDIR/v6.send")"
bg_wait "$rpid" || fail "IPv6 receiver failed: $(cat "$WORKDIR/v6.recv")"
log "IPv6: $(cat "$WORKDIR/v6.recv")"
log "ok: IPv6 transfer over the fabric, every message intact"
pass
