#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dissector.sh: the Wireshark dissector (tools/wireshark/mpdt.lua) decodes
# a real transfer.  tcpdump captures both directions on the receiver's
# veth while a transfer runs over 5% netem loss (so repairs, flagged RETX,
# are in it too); tools/wireshark/test_dissector.py then checks with tshark
# that every UDP packet to or from the MPDT port is recognised as valid
# MPDT, and counts types and flags.  tcpdump and tshark come from the host
# (the guest mounts its root; make deps installs them).

source "$(dirname "$0")/lib.sh"

require_root
require_cmd tcpdump tshark python3
mpdt_load
setup_pair
neigh_static
netem_set "$NS_A" "$VETH_A" loss 5%

PCAP=$WORKDIR/mpdt.pcap
bg ip netns exec "$NS_B" tcpdump -i "$VETH_B" -U -n -s 0 -w "$PCAP" \
	udp port 4796 2>"$WORKDIR/tcpdump.err"
DUMP_PID=$BG_PID
for ((i = 0; i < 100; i++)); do
	grep -q 'listening on' "$WORKDIR/tcpdump.err" && break
	sleep 0.1
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
assert_gt "repairs decoded (flag RETX) under 5% loss" 0 \
	"$(awk '$1 == "flag" && $2 == "RETX" { print $3 }' "$WORKDIR/decoded")"
pass "every packet of the capture decoded as valid MPDT"
