#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hostq.sh: the socket's share of its own host's queues, as TCP Small
# Queues (net/mpdt/hostq.c, engine.c host_room()).  A token bucket on the
# sender's veth queues at most 10 KB, seven packets: the module's initial
# window of ten packets alone would overflow it.  DATA waiting in the
# host counts against its socket until it leaves, and a connection holds
# its next burst back while the socket has two bursts or a millisecond
# at its delivery rate there.  With burst-pkts 1 and a 20 Mbit/s bucket
# that is two packets (2.5 KB a millisecond), three at most in the queue,
# since a packet's skb costs more than its payload: fewer than seven, so
# the bucket never drops one: messages arrive intact, the qdisc
# dropped nothing and the connections waited (tx_host_limited).  (Larger
# bursts raise the limit past this bucket, as TCP's two 64 KB skbs would.)
# Then a push far longer than a CPU's sending quota (output.c).

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip tc
mpdt_load
setup_pair_v6
neigh_static
"$(mpdt_cli_bin)" -n "$NS_A" param set burst-pkts 1 >/dev/null ||
	fail "cannot set burst-pkts"
modprobe sch_tbf 2>/dev/null || true
tc -n "$NS_A" qdisc add dev "$VETH_A" root tbf rate 20mbit burst 3000 \
	limit 10000 || fail "cannot add a token bucket"

# qdisc_drops: packets the sender's token bucket dropped so far.
qdisc_drops() {
	tc -s -n "$NS_A" qdisc show dev "$VETH_A" |
		awk '/dropped/ { sub(",", "", $7); print $7; exit }'
}

port=7500
for dst in "$ADDR_B" "$ADDR6_B"; do
	fam=v4
	[[ $dst == *:* ]] && fam=v6
	limited=$(stat_get "$NS_A" tx_host_limited)
	run_transfer "$fam" 8 1 262144 120 $((port++)) "$dst"
	assert_eq "$fam: the token bucket dropped" 0 "$(qdisc_drops)"
	assert_gt "$fam: connections waited for the host's queues" \
		"$limited" "$(stat_get "$NS_A" tx_host_limited)"
done

# One push of hundreds of packets.  MCC's window starts at a BDP (1.25 MB
# at 100 Gbit/s and 100 us) and, with 1 MiB chunks, a 1 MiB message is
# one piece (engine.c mpdt_eng_piece_pkts()): one hold of the socket's
# lock queues single packets up to the host's limit of 1 MiB, hundreds of
# skbs.  The CPU sends 64 and leaves the rest to a kworker (output.c
# MPDT_TX_QUOTA), which must send every one of them, in order.
tc -n "$NS_A" qdisc del dev "$VETH_A" root || fail "cannot remove the bucket"
"$(mpdt_cli_bin)" -n "$NS_A" param set cc mcc link-mbps 100000 \
	base-rtt-us 100 mcc-chunk-bytes 1048576 >/dev/null ||
	fail "cannot set the MCC parameters"
deferred=$(stat_get "$NS_A" tx_deferred)
run_transfer big 4 1048576 1048576 120 $((port++)) "$ADDR_B"
assert_gt "pushes sent 64 skbs at a time, the rest by a kworker" \
	"$deferred" "$(stat_get "$NS_A" tx_deferred)"
pass "the host's own queues never overflowed; long pushes were sent in quotas"
