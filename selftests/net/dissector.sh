#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dissector.sh: the Wireshark dissector (tools/wireshark/mpdt.lua) decodes
# a real transfer.  tcpdump captures both directions on the receiver's
# veth while a transfer runs over netem loss (every packet until the
# sender has sent DATA, then 5%: repairs, flagged RETX, are in the capture
# for certain); tools/wireshark/test_dissector.py then checks with tshark
# that every UDP packet to or from the MPDT port is recognised as valid
# MPDT, and counts types and flags.  tcpdump and tshark come from the host
# (the guest mounts its root; make deps installs them).

source "$(dirname "$0")/lib.sh"

require_root
require_cmd tcpdump tshark python3
mpdt_load
setup_pair
neigh_static
# 5% alone is not certain to hit: the transfer leaves in about 50 skbs
# (bursts), and 0.95^50 is one run in 13 without a repair.  The sender's
# first flight is lost for certain instead, and its timers (1 s at most
# between retries, 8 retries) outlast the switch to 5%.
netem_set "$NS_A" "$VETH_A" loss 100%
LIFTED=$WORKDIR/lifted
bg ip netns exec "$NS_A" sh -c '
	until awk '\''$1 == "tx_data" && $2 > 0 { f = 1 } END { exit !f }'\'' \
		/proc/net/mpdt_stats; do
		sleep 0.01
	done
	tc qdisc replace dev "$1" root netem loss 5% && touch "$2"' \
	sh "$VETH_A" "$LIFTED"

PCAP=$WORKDIR/mpdt.pcap
# --immediate-mode: without it libpcap hands packets over per ring block
# (up to 1 s late), and the SIGINT below ends a fast run with "N received
# by filter, 0 captured".
bg ip netns exec "$NS_B" tcpdump -i "$VETH_B" --immediate-mode -U -n -s 0 -w "$PCAP" \
	udp port 4796 2>"$WORKDIR/tcpdump.err"
DUMP_PID=$BG_PID
for ((i = 0; i < 100; i++)); do
	grep -q 'listening on' "$WORKDIR/tcpdump.err" && break
	nap 0.1
done
grep -q 'listening on' "$WORKDIR/tcpdump.err" || fail "tcpdump did not start"

run_transfer capture 12 1000 60000 120
sleep 0.5
kill -INT "$DUMP_PID"
wait "$DUMP_PID" 2>/dev/null || true
log "tcpdump: $(tr '\n' ' ' <"$WORKDIR/tcpdump.err")"

python3 "$REPO_ROOT/tools/wireshark/test_dissector.py" "$PCAP" >"$WORKDIR/decoded" 2>&1 ||
	fail "the dissector: $(cat "$WORKDIR/decoded")"
log "$(cat "$WORKDIR/decoded")"
count() {
	awk -v t="$1" '$1 == t { print $2 }' "$WORKDIR/decoded"
}
assert_gt "DATA packets decoded" 0 "$(count DATA)"
assert_gt "SACK packets decoded" 0 "$(count SACK)"
[[ -e $LIFTED ]] || fail "the loss was never lowered to 5%"
assert_gt "repairs decoded (flag RETX) of the lost first flight" 0 \
	"$(awk '$1 == "flag" && $2 == "RETX" { n = $3 } END { print n + 0 }' \
		"$WORKDIR/decoded")"
pass "every packet of the capture decoded as valid MPDT"
