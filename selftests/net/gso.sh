#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# gso.sh: bursts.  New DATA packets that the engine sends at once on one
# entropy leave as one UDP GSO skb (output.c), which the NIC or the stack
# cuts into exactly the packets that would have been sent one by one.  A
# veth pair takes GSO skbs whole, and so does the receiving MPDT (rx_gso;
# a UDP tunnel socket would have them cut first).  With the module's
# defaults, over IPv4 and IPv6: messages of the sizes that matter to a
# burst (a packet's payload and a full burst of 16, each +-1, up to the
# largest message) arrive intact, bursts were sent (tx_gso) and received
# whole (rx_gso, at most as many), and the veth carried fewer skbs than
# packets.  Payloads stay in the sender's pages they arrived in, each
# page charged whole, so a message smaller than its page (32 KiB, the
# sender's task_frag) is copied on arrival (rx_copied), in bursts or
# alone: of the edge sizes, at most the packets of those below 32 KiB.
# Messages a quarter of the default SO_RCVBUF (half a peer's share of
# it) are held whole as well, none copied: that fits only because the
# reservation of a page goes back as held payloads complete it (rx.c);
# without that, 6583 payloads of three such messages were copied.  So
# are messages of the largest size, with the default SO_RCVBUF and with
# one of exactly two of them, whose peer's half of the buffer the
# reservation alone nearly fills: holds may take the peer an eighth of it
# more (rxmsg_share()); without that, each of their payloads was copied
# (35952 of three).
# A burst of 16 packets leaves as one skb (full_bursts, below).
# Then the same with segmentation and checksums done in software before
# the veth (ethtool -K tx-udp-segmentation off, tx off: no burst arrives
# whole), with whole bursts lost, duplicated and reordered (netem takes
# the GSO skb as one packet), and with burst-pkts 1, which sends no burst
# at all.

source "$(dirname "$0")/lib.sh"

MAX=4194304
port=7400

require_root
require_cmd ip ethtool tc python3
mpdt_load
setup_pair_v6
mpdt_msg_bin >/dev/null

# skbs NS DEV: skbs DEV has sent (a GSO skb counts once).
skbs() {
	ip -n "$1" -s link show dev "$2" | awk '/TX:/ { getline; print $2; exit }'
}

# The sizes at the edges: one byte, a packet's payload and a burst of 16
# (+-1 each), the largest message.
EDGES=1,1399,1400,1401,22399,22400,22401,$MAX
# Packets of one message of each edge size below 32 KiB.
BELOW_32K=$((1 + 1 + 1 + 2 + 16 + 16 + 17))

# transfers LABEL DST: the edge sizes (3 messages each, in turn, in one
# transfer), then 20 messages up to the largest (MSGS in all); sets PKTS
# (DATA and PROBE packets sent), SKBS (skbs the sender's veth sent), GSO
# (bursts sent), RGSO (bursts received whole) over all of them, and
# COPIED (payloads the receiver copied on arrival) over the edge sizes.
EDGE_MSGS=24
MIXED_MSGS=20
MSGS=$((EDGE_MSGS + MIXED_MSGS))
transfers() {
	local label=$1 dst=$2 s0 d0 g0 r0 c0
	s0=$(skbs "$NS_A" "$VETH_A")
	d0=$(($(stat_get "$NS_A" tx_data) + $(stat_get "$NS_A" tx_probe)))
	g0=$(stat_get "$NS_A" tx_gso)
	r0=$(stat_get "$NS_B" rx_gso)
	c0=$(stat_get "$NS_B" rx_copied)
	run_transfer "$label-edges" $EDGE_MSGS 1 $MAX 240 $((port++)) "$dst" \
		-S "$EDGES"
	COPIED=$(($(stat_get "$NS_B" rx_copied) - c0))
	run_transfer "$label-mixed" $MIXED_MSGS 1 $MAX 240 $((port++)) "$dst"
	SKBS=$(($(skbs "$NS_A" "$VETH_A") - s0))
	PKTS=$(($(stat_get "$NS_A" tx_data) + $(stat_get "$NS_A" tx_probe) - d0))
	GSO=$(($(stat_get "$NS_A" tx_gso) - g0))
	RGSO=$(($(stat_get "$NS_B" rx_gso) - r0))
	log "$label: $PKTS packets in $SKBS skbs, $GSO of them bursts," \
	    "$RGSO bursts received whole, $COPIED payloads of the edge sizes" \
	    "copied on arrival"
}

for dst in "$ADDR_B" "$ADDR6_B"; do
	fam=v4
	[[ $dst == *:* ]] && fam=v6
	transfers "$fam" "$dst"
	assert_gt "$fam: bursts sent" 0 "$GSO"
	assert_gt "$fam: packets > skbs on the veth" "$SKBS" "$PKTS"
	assert_gt "$fam: bursts received whole" 0 "$RGSO"
	assert_le "$fam: bursts received whole <= sent" "$GSO" "$RGSO"
	assert_le "$fam: edge sizes: only those below 32 KiB copied" \
		$((3 * BELOW_32K)) "$COPIED"
done

# held LABEL SIZE: three messages of SIZE, none of whose payloads is
# copied on arrival.
held() {
	local c0
	c0=$(stat_get "$NS_B" rx_copied)
	run_transfer "$1" 3 "$2" "$2" 240 $((port++)) "$ADDR_B"
	assert_eq "$1: payloads copied on arrival" \
		0 $(($(stat_get "$NS_B" rx_copied) - c0))
}

rcvbuf=$("$(mpdt_cli_bin)" -n "$NS_B" param show rcvbuf | awk '{ print $2 }')
MSG_MAX=$((16 << 20))
held quarter-rcvbuf $((rcvbuf / 4))
held largest $MSG_MAX
"$(mpdt_cli_bin)" -n "$NS_B" param set rcvbuf $((2 * MSG_MAX)) ||
	fail "cannot set rcvbuf"
held largest-rcvbuf-of-two $MSG_MAX
"$(mpdt_cli_bin)" -n "$NS_B" param set rcvbuf "$rcvbuf" ||
	fail "cannot set rcvbuf back"

# full_bursts: a burst of 16 is one skb.  Each later packet's header goes
# into the slot before its payload (txmsg.c), so a burst is one run of
# bytes that MAX_SKB_FRAGS does not cut (a header fragment per packet
# held an skb to nine packets, and sent these bursts as two).  At a
# configured 100 Gbit/s and 1 ms, the window and the burst size (a
# millisecond, up to burst-pkts 16) let each of two messages of 16
# packets go as one burst.
full_bursts() {
	local cli g0
	cli=$(mpdt_cli_bin)
	"$cli" -n "$NS_A" param set link-mbps 100000 >/dev/null &&
		"$cli" -n "$NS_A" param set base-rtt-us 1000 >/dev/null ||
		fail "cannot configure the path"
	g0=$(stat_get "$NS_A" tx_gso)
	run_transfer full-bursts 2 22400 22400 240 $((port++)) "$ADDR_B"
	assert_eq "full bursts: one skb per message of 16 packets" \
		2 $(($(stat_get "$NS_A" tx_gso) - g0))
	"$cli" -n "$NS_A" param set link-mbps 0 >/dev/null &&
		"$cli" -n "$NS_A" param set base-rtt-us 0 >/dev/null ||
		fail "cannot unconfigure the path"
}
full_bursts

ip netns exec "$NS_A" ethtool -K "$VETH_A" tx-udp-segmentation off >/dev/null ||
	fail "cannot turn UDP segmentation offload off"
transfers sw-gso "$ADDR_B"
assert_gt "software segmentation: bursts sent" 0 "$GSO"
assert_ge "software segmentation: one skb per packet on the veth" \
	"$PKTS" "$SKBS"
assert_eq "software segmentation: no burst received whole" 0 "$RGSO"

ip netns exec "$NS_A" ethtool -K "$VETH_A" tx off >/dev/null ||
	fail "cannot turn checksum offload off"
transfers sw-csum "$ADDR_B"
assert_gt "software checksums: bursts sent" 0 "$GSO"
assert_eq "software checksums: no burst received whole" 0 "$RGSO"
ip netns exec "$NS_A" ethtool -K "$VETH_A" tx on tx-udp-segmentation on \
	>/dev/null

neigh_static
netem_set "$NS_A" "$VETH_A" delay 1ms loss 2% duplicate 2% reorder 25% 50%
transfers impaired "$ADDR_B"
assert_gt "impaired: bursts sent" 0 "$GSO"
assert_gt "impaired: bursts received whole" 0 "$RGSO"
tc -n "$NS_A" qdisc del dev "$VETH_A" root

"$(mpdt_cli_bin)" -n "$NS_A" param set burst-pkts 1 >/dev/null ||
	fail "cannot set burst-pkts"
transfers burst-pkts-1 "$ADDR_B"
assert_eq "burst-pkts 1: no burst" 0 "$GSO"
assert_eq "burst-pkts 1: no burst received" 0 "$RGSO"
assert_ge "burst-pkts 1: one skb per packet on the veth" "$PKTS" "$SKBS"
pass "bursts arrive intact, in hardware- and software-segmented skbs"
