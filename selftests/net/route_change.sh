#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# route_change.sh: a connection keeps its route in a cache (output.c); when
# the route changes in the middle of a transfer the cache must follow at
# once.  Two veth pairs join the namespaces; the receiver's address
# 10.9.0.2 lives on its loopback and the sender's 10.8.0.1 on its own, so
# the connection's addresses never change.  The transfer starts over link
# 1; once it is under way the sender's route moves to link 2.  Every byte
# MPDT sends after the move must leave by link 2 and no DATA by link 1,
# and every message must arrive intact.  (Bytes, not packets: a burst of
# packets crosses a veth as one GSO skb.)  Both links are rate-limited so the
# transfer lasts seconds.  Then the same for IPv6 (fd09::2 and fd08::1).

source "$(dirname "$0")/lib.sh"

COUNT=${MPDT_ROUTE_COUNT:-120}
SIZE=65536
RATE=${MPDT_ROUTE_RATE:-20mbit}

require_root
require_cmd ip tc python3
mpdt_load
mpdt_msg_bin >/dev/null

# link N: veth pair N, addresses 10.0.N.1 and 10.0.N.2 (fd0N:: on v6).
link() {
	local n=$1
	ip link add "ra$n" netns "$NS_A" type veth peer name "rb$n" netns "$NS_B" ||
		fail "cannot create veth pair $n"
	ip -n "$NS_A" addr add "10.0.$n.1/24" dev "ra$n"
	ip -n "$NS_B" addr add "10.0.$n.2/24" dev "rb$n"
	ip -n "$NS_A" addr add "fd0$n::1/64" dev "ra$n" nodad
	ip -n "$NS_B" addr add "fd0$n::2/64" dev "rb$n" nodad
	ip -n "$NS_A" link set "ra$n" up
	ip -n "$NS_B" link set "rb$n" up
	# A queue long enough that netem never drops: every packet sent is
	# counted on its link.
	netem_set "$NS_A" "ra$n" rate "$RATE" limit 100000
}

setup() {
	local ns
	modprobe -a veth sch_netem 2>/dev/null || true
	netns_add "$NS_A"
	netns_add "$NS_B"
	link 1
	link 2
	for ns in "$NS_A" "$NS_B"; do
		ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0
	done
	ip -n "$NS_A" addr add 10.8.0.1/32 dev lo
	ip -n "$NS_B" addr add 10.9.0.2/32 dev lo
	ip -n "$NS_A" addr add fd08::1/128 dev lo nodad
	ip -n "$NS_B" addr add fd09::2/128 dev lo nodad
	# The receiver answers over link 1 throughout.
	ip -n "$NS_B" route add 10.8.0.1/32 via 10.0.1.1 dev rb1
	ip -n "$NS_B" -6 route add fd08::1/128 via fd01::1 dev rb1
}

# tx_pkts NS DEV: skbs DEV has sent; tx_bytes NS DEV: their bytes (the
# line after "TX:").
tx_pkts() {
	ip -n "$1" -s link show dev "$2" | awk '/TX:/ { getline; print $2; exit }'
}

tx_bytes() {
	ip -n "$1" -s link show dev "$2" | awk '/TX:/ { getline; print $1; exit }'
}

# moves FAMILY SRC DST VIA1 VIA2
moves() {
	local fam=$1 src=$2 dst=$3 via1=$4 via2=$5 port=$6
	local rout=$WORKDIR/recv.$fam.out sout=$WORKDIR/send.$fam.out
	local spid rrc=0 src_rc=0 d0 d1 b0 b1 l1_0 l1_1 l2_0 l2_1 i
	ip -n "$NS_A" "-$fam" route replace "$dst" via "$via1" dev ra1 src "$src"
	local rpid v6=()
	[[ $fam == 6 ]] && v6=(-6)
	start_receiver "$NS_B" "$port" "$COUNT" $SIZE $SIZE 120 "$rout" \
		"$MPDT_SEED" "${v6[@]}"
	rpid=$RECV_PID
	bg ip netns exec "$NS_A" "$(mpdt_msg_bin)" send -a "$dst" -p "$port" \
		-n "$COUNT" -m $SIZE -M $SIZE -s "$MPDT_SEED" -t 120 \
		>"$sout" 2>&1
	spid=$BG_PID
	# Under way: a tenth of the DATA packets sent.
	for ((i = 0; i < 600; i++)); do
		kill -0 "$spid" 2>/dev/null || break
		(($(stat_get "$NS_A" tx_data) >= COUNT * SIZE / 1400 / 10)) && break
		nap 0.1
	done
	if ! kill -0 "$spid" 2>/dev/null; then
		cat "$sout" "$rout" >&2
		fail "IPv$fam: the transfer ended before the move"
	fi
	# Move, read the links, then MPDT's counts: everything counted from
	# here on left after the links were read, so the check below is
	# exact however long each read takes.
	ip -n "$NS_A" "-$fam" route replace "$dst" via "$via2" dev ra2 src "$src"
	l1_0=$(tx_pkts "$NS_A" ra1)
	l2_0=$(tx_bytes "$NS_A" ra2)
	d0=$(stat_get "$NS_A" tx_data)
	b0=$(stat_get "$NS_A" tx_bytes)
	wait "$spid" || src_rc=$?
	wait "$rpid" || rrc=$?
	log "IPv$fam sender (exit $src_rc): $(cat "$sout")"
	log "IPv$fam receiver (exit $rrc): $(cat "$rout")"
	[[ $src_rc == 0 && $rrc == 0 ]] || fail "IPv$fam: transfer failed"
	json_load RECV_RES "$rout" || fail "IPv$fam: no JSON from the receiver"
	assert_eq "IPv$fam: messages received intact, once each" "$COUNT" \
		"$(jv RECV_RES received)"
	assert_eq "IPv$fam: corrupt" 0 "$(jv RECV_RES corrupt)"
	# The sender has exited: nothing more leaves, any order will do.
	d1=$(stat_get "$NS_A" tx_data)
	b1=$(stat_get "$NS_A" tx_bytes)
	l1_1=$(tx_pkts "$NS_A" ra1)
	l2_1=$(tx_bytes "$NS_A" ra2)
	log "IPv$fam: after the move $((d1 - d0)) DATA, $((b1 - b0)) MPDT" \
		"bytes; link 1 sent $((l1_1 - l1_0)) packets, link 2" \
		"$((l2_1 - l2_0)) bytes"
	assert_gt "IPv$fam: DATA after the move" 0 $((d1 - d0))
	assert_ge "IPv$fam: link 2 bytes >= MPDT bytes after the move" \
		$((b1 - b0)) $((l2_1 - l2_0))
	# Link 1 may still carry a few control packets (ARP, IPv6 neighbour
	# advertisements, router solicitations, MLD reports), never the
	# thousands of DATA a stale route would send there.
	assert_le "IPv$fam: link 1 packets after the move" 10 $((l1_1 - l1_0))
}

setup
moves 4 10.8.0.1 10.9.0.2 10.0.1.2 10.0.2.2 7300
moves 6 fd08::1 fd09::2 fd01::2 fd02::2 7301
pass "the cached route followed both moves"
