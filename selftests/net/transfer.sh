#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# transfer.sh: a clean path.  Two netns joined by a veth pair; 1000 messages
# of log-uniform random sizes from 1 B to 4 MiB (the extremes always
# included) go from 10.0.0.1 to 10.0.0.2.  Every message must arrive exactly
# once with its content intact (mpdt_msg checks length and hash per index),
# the sender must see all of them acknowledged, and the per-netns counters
# must agree with what the applications saw.  Then messages of the sizes
# at the edges that matter (a packet's payload, a page, a 32 KiB page
# fragment, each +-1), three of each, one sender per size, so the message
# bytes start at different offsets of the sender's page fragments.  Last,
# over prio qdiscs, SACKs and NACKs leave in the high band and DATA and
# PROBEs in the others.
#
# Environment: MPDT_SEED (sizes/contents), MPDT_XFER_COUNT (default 1000),
# MPDT_XFER_MAX (default 4194304).

source "$(dirname "$0")/lib.sh"

COUNT=${MPDT_XFER_COUNT:-1000}
MAX=${MPDT_XFER_MAX:-4194304}

require_root
require_cmd ip python3
mpdt_load
setup_pair
mpdt_msg_bin >/dev/null

run_transfer clean "$COUNT" 1 "$MAX" 240

declare -A A B
snap "$NS_A" A
snap "$NS_B" B
stats_show_nonzero A "sender ($NS_A)"
stats_show_nonzero B "receiver ($NS_B)"

assert_eq "sender netns msg_tx" "$COUNT" "${A[msg_tx]}"
assert_eq "sender netns msg_acked" "$COUNT" "${A[msg_acked]}"
assert_eq "receiver netns msg_rx" "$COUNT" "${B[msg_rx]}"
assert_eq "sender netns conn_failed" 0 "${A[conn_failed]}"
assert_eq "one connection each side" "1 1" "${A[conn_created]} ${B[conn_created]}"
# Each message is ceil(len/payload) packets (an empty one is one packet),
# so at least COUNT DATA packets.  Every DATA and PROBE sent arrives: it is
# processed, or it reached a receiver that had already exited.
assert_ge "sender tx_data" "$COUNT" "${A[tx_data]}"
assert_eq "sender DATA+PROBE == receiver rx_data+rx_probe+drop_no_socket" \
	"$((A[tx_data] + A[tx_probe]))" \
	"$((B[rx_data] + B[rx_probe] + B[drop_no_socket]))"
assert_gt "receiver tx_sack" 0 "${B[tx_sack]}"
assert_eq "tx_err (both)" 0 "$((A[tx_err] + B[tx_err]))"
# Every SACK/NACK reaches the sender: it is processed, or it came after the
# sender closed its socket (drop_no_socket), and nothing else.
assert_eq "receiver SACKs+NACKs == sender rx_sack+rx_nack + late ones" \
	"$((B[tx_sack] + B[tx_nack]))" \
	"$((A[rx_sack] + A[rx_nack] + A[drop_no_socket]))"
# Nothing malformed, foreign or stale on a clean path.  (drop_no_socket may
# count retransmissions reaching a receiver that already exited,
# drop_no_buffer a receiver slower than the sender, and drop_bogus_ack
# NACKs of packets already declared lost.)
for c in drop_short drop_bad_version drop_bad_type drop_bad_flags \
	drop_bad_length drop_bad_offset drop_bad_port drop_no_conn \
	drop_stale_nonce drop_out_of_window drop_msg_mismatch \
	drop_conn_limit drop_trimmed; do
	[[ -n ${A[$c]+x} && -n ${B[$c]+x} ]] || fail "counter $c missing"
	[[ ${A[$c]} == 0 && ${B[$c]} == 0 ]] ||
		fail "$c on a clean path: sender ${A[$c]}, receiver ${B[$c]}"
done
log "ok: no malformed/foreign/stale drops on either side"
log "retransmissions: ooo=${A[retx_ooo]} probe=${A[retx_probe]}" \
	"rto=${A[retx_rto]} nack=${A[retx_nack]}, rtos=${A[rto]}," \
	"duplicates at the receiver=${B[rx_dup_data]}"
port=7001
for n in 1 1399 1400 1401 2800 4095 4096 4097 32767 32768 32769 65537; do
	run_transfer "size-$n" 3 $n $n 60 $((port++))
done

# Sixteen connections from one thread, every byte checked.
perf_one_thread one-thread 7200 2M
log "ok: 16 connections from one thread, every byte checked"

# Feedback ahead of data (output.c): on a prio qdisc every SACK and NACK
# leaves in band 0, every DATA and PROBE in band 1 (a probe stays behind
# the data it follows).  IPv6 off (no MLD reports, which are band 0 too)
# and static neighbours (no ARP): MPDT's are the only packets on the
# link, so the bands equal the counters.

# prio_bands NS DEV: the packets band 0 and bands 1-2 of DEV's prio sent.
prio_bands() {
	ip netns exec "$1" tc -s class show dev "$2" | awk '
		/^class prio 1:1 / { c = 1 } /^class prio 1:[23] / { c = 2 }
		/ Sent / { if (c) p[c] += $4; c = 0 }
		END { print p[1] + 0, p[2] + 0 }'
}

# quiet_snap VAR_A VAR_B: both netns's counters into VAR_A and VAR_B and
# both links' bands into BANDS_A and BANDS_B, once two reads 0.5 s apart
# agree (nothing left in flight).
quiet_snap() {
	local i prev='' cur
	for ((i = 0; i < 20; i++)); do
		snap "$NS_A" "$1"
		snap "$NS_B" "$2"
		BANDS_A=$(prio_bands "$NS_A" "$VETH_A")
		BANDS_B=$(prio_bands "$NS_B" "$VETH_B")
		cur="$(ctr "$1" tx_packets) $(ctr "$2" tx_packets) $BANDS_A $BANDS_B"
		[[ $cur == "$prev" ]] && return 0
		prev=$cur
		nap 0.5
	done
	fail "counters still moving after 10 s"
}

# check_bands SIDE NEW OLD BANDS_OLD BANDS_NEW: what SIDE's prio sent in
# each band between the snapshots is what MPDT counted it sent.
check_bands() {
	local ctl data c0 d0 c1 d1
	read -r c0 d0 <<<"$4"
	read -r c1 d1 <<<"$5"
	ctl=$(($(delta "$2" "$3" tx_sack) + $(delta "$2" "$3" tx_nack)))
	data=$(($(delta "$2" "$3" tx_data) + $(delta "$2" "$3" tx_probe)))
	assert_eq "$1: prio band 0 == SACK+NACK sent" "$ctl" "$((c1 - c0))"
	assert_eq "$1: prio bands 1-2 == DATA+PROBE sent" "$data" "$((d1 - d0))"
}

modprobe sch_prio 2>/dev/null || true
for side in "$NS_A $VETH_A" "$NS_B $VETH_B"; do
	read -r ns dev <<<"$side"
	ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1" ||
		fail "cannot turn IPv6 off on $ns/$dev"
	ip netns exec "$ns" tc qdisc replace dev "$dev" root handle 1: prio ||
		fail "tc prio on $ns/$dev"
	for b in 1 2 3; do
		ip netns exec "$ns" tc qdisc add dev "$dev" parent "1:$b" pfifo \
			limit 10000 || fail "tc pfifo under 1:$b on $ns/$dev"
	done
done
neigh_static
# shellcheck disable=SC2034 # filled by quiet_snap, read by check_bands
declare -A A0 B0 A1 B1
quiet_snap A0 B0
bands_a0=$BANDS_A bands_b0=$BANDS_B
run_transfer prio 20 1 65536 60 7100
quiet_snap A1 B1
check_bands sender A1 A0 "$bands_a0" "$BANDS_A"
check_bands receiver B1 B0 "$bands_b0" "$BANDS_B"
assert_gt "receiver: SACKs sent" 0 "$(delta B1 B0 tx_sack)"
pass "$COUNT messages, then 3 of each edge size; feedback ahead of data"
