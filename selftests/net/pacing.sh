#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pacing.sh: Early Departure Times under the fq qdisc (net/mpdt/pacing.h).
# The sender's veth has fq; netem delays the receiver's SACKs by 10 ms.
# A socket that did not ask for SO_MAX_PACING_RATE is not paced: fq holds
# none of its packets ("throttled" stays 0: its sk_pacing_rate is
# unlimited).  One that did has its connections' packets timed at most at
# that rate: 1 MiB at 500 KB/s takes at least 1.5 s (2 s less fq's initial
# quantum and the first skb's credit), also sprayed over every entropy
# (oblivious), which fq would see as 256 flows if it paced the socket's
# flows and not its times.  fq drops nothing either way.

source "$(dirname "$0")/lib.sh"

RATE=500000

require_root
require_cmd ip tc
mpdt_load
setup_pair_v6
neigh_static
modprobe sch_fq 2>/dev/null || true
netem_set "$NS_B" "$VETH_B" delay 10ms

# fq_fresh: a new fq on the sender's veth, its counters at 0.
fq_fresh() {
	tc -n "$NS_A" qdisc del dev "$VETH_A" root 2>/dev/null || true
	tc -n "$NS_A" qdisc add dev "$VETH_A" root fq || fail "cannot add fq"
}

# fq_throttled: how often the sender's fq held its head packet for its
# time ("gc ... throttled N", printed when not 0).
fq_throttled() {
	tc -s -n "$NS_A" qdisc show dev "$VETH_A" | awk '
		$1 == "gc" { for (i = 2; i < NF; i++) if ($i == "throttled") n = $(i + 1) }
		END { print n + 0 }'
}

# fq_drops: packets the sender's fq dropped.
fq_drops() {
	tc -s -n "$NS_A" qdisc show dev "$VETH_A" |
		sed -n 's/.*(dropped \([0-9]*\),.*/\1/p'
}

port=7600
for dst in "$ADDR_B" "$ADDR6_B"; do
	fam=v4
	[[ $dst == *:* ]] && fam=v6
	fq_fresh
	run_transfer "$fam" 16 65536 65536 120 $((port++)) "$dst"
	assert_eq "$fam: fq held DATA for a time" 0 "$(fq_throttled)"
	assert_eq "$fam: fq dropped" 0 "$(fq_drops)"

	fq_fresh
	run_transfer "$fam-capped" 8 131072 131072 120 $((port++)) "$dst" \
		-P "$RATE" -b oblivious
	log "$fam: fq: $(tc -s -n "$NS_A" qdisc show dev "$VETH_A" | tr '\n' ' ')"
	assert_ge "$fam: 1 MiB at $RATE B/s took (ms)" 1500 \
		"$(awk -v s="$XFER_SECS" 'BEGIN { printf "%d", s * 1000 }')"
	assert_gt "$fam: fq held DATA for its time" 0 "$(fq_throttled)"
	assert_eq "$fam: fq dropped" 0 "$(fq_drops)"
done
pass "fq paced the sockets that asked, at their rate"
