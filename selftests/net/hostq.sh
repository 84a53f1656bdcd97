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
pass "the host's own queues never overflowed"
