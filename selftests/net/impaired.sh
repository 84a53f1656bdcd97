#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# impaired.sh: reliability under netem impairments on both veth ends (so
# DATA and SACK/NACK/PROBE alike suffer):
#   loss1      loss 1%
#   loss5      loss 5%
#   reorder    delay 1ms reorder 25% 50% (a quarter of the packets overtake)
#   duplicate  duplicate 5%
#   jitter     delay 2ms 1ms distribution normal (reorders as well)
# For each, 200 messages of 1 B..1 MiB must arrive exactly once and intact.
# The sender's retransmissions are printed by cause (STrack's OOO, probe,
# RTO and NACK detection), and the per-netns counters must have moved
# accordingly: per cause exactly as much as the connection's own
# MPDT_INFO, lost packets under loss were recovered by retransmissions,
# duplicates under duplication were recognized as such.
#
# Environment: MPDT_SEED, MPDT_IMPAIRED_COUNT (200), MPDT_IMPAIRED_MAX (1 MiB).

source "$(dirname "$0")/lib.sh"

COUNT=${MPDT_IMPAIRED_COUNT:-200}
MAX=${MPDT_IMPAIRED_MAX:-1048576}

require_root
require_cmd ip tc python3
mpdt_load
setup_pair
mpdt_msg_bin >/dev/null
modprobe sch_netem 2>/dev/null || true
ip netns exec "$NS_A" tc qdisc add dev "$VETH_A" root netem delay 0 2>/dev/null ||
	skip "netem is not available"
netem_clear "$NS_A" "$VETH_A"

declare -A A0 A1 B0 B1

impaired() {
	local name=$1 port=$2 kind=$3 c retx=0 lost ev
	shift 3
	netem_both "$@"
	on_cleanup netem_clear_both
	log "=== $name: netem $* on both ends"
	snap "$NS_A" A0
	snap "$NS_B" B0
	run_transfer "$name" "$COUNT" 1 "$MAX" 240 "$port"
	netem_clear_both
	snap "$NS_A" A1
	snap "$NS_B" B1

	for c in retx_ooo retx_probe retx_rto retx_nack; do
		assert_eq "$name: /proc $c moved as the connection's MPDT_INFO" \
			"$(jv SEND_RES "$c")" "$(delta A1 A0 "$c")"
		retx=$((retx + $(jv SEND_RES "$c")))
	done
	lost=$(($(delta A1 A0 tx_data) + $(delta A1 A0 tx_probe) -
		$(delta B1 B0 rx_data) - $(delta B1 B0 rx_probe) -
		$(delta B1 B0 drop_no_socket)))
	log "$name: retransmissions: ooo=$(jv SEND_RES retx_ooo)" \
		"probe=$(jv SEND_RES retx_probe) rto=$(jv SEND_RES retx_rto)" \
		"nack=$(jv SEND_RES retx_nack); probes=$(jv SEND_RES probes)" \
		"rtos=$(jv SEND_RES rtos); DATA+PROBE lost or duplicated on the" \
		"way: $lost; duplicates at the receiver: $(delta B1 B0 rx_dup_data)"
	assert_eq "$name: conn_failed" 0 "$(delta A1 A0 conn_failed)"
	assert_eq "$name: msg_acked (sender netns)" "$COUNT" "$(delta A1 A0 msg_acked)"
	assert_eq "$name: msg_rx (receiver netns)" "$COUNT" "$(delta B1 B0 msg_rx)"
	case $kind in
	loss)
		# netem dropped some DATA/PROBE packets, and the sender recovered
		# them: every lost packet needed at least one retransmission.
		assert_gt "$name: DATA/PROBE packets lost by netem" 0 "$lost"
		assert_gt "$name: retransmissions (a mechanism recovered)" 0 "$retx"
		assert_gt "$name: retransmitted DATA (tx_data beyond the first copies)" 0 \
			"$(($(delta A1 A0 tx_data) - $(delta B1 B0 rx_data) + $(delta B1 B0 rx_dup_data)))"
		;;
	dup)
		# netem delivered more than was sent; the receiver recognized the
		# copies (and mpdt_msg saw each message once).
		assert_gt "$name: duplicates recognized (rx_dup_data)" 0 "$(delta B1 B0 rx_dup_data)"
		;;
	esac
	for c in drop_bad_version drop_bad_type drop_bad_flags drop_bad_length \
		drop_bad_offset drop_bad_port drop_no_conn drop_stale_nonce \
		drop_out_of_window drop_msg_mismatch; do
		ev=$(($(delta A1 A0 "$c") + $(delta B1 B0 "$c")))
		[[ $ev == 0 ]] || fail "$name: $c = $ev (no malformed or stale packets expected)"
	done
	echo "$name: ${XFER_SECS}s retx ooo/probe/rto/nack=$(jv SEND_RES retx_ooo)/$(jv SEND_RES retx_probe)/$(jv SEND_RES retx_rto)/$(jv SEND_RES retx_nack) rtos=$(jv SEND_RES rtos)" >>"$WORKDIR/summary"
}

touch "$WORKDIR/summary"
sub loss1 impaired loss1 7201 loss loss 1%
sub loss5 impaired loss5 7202 loss loss 5%
sub reorder impaired reorder 7203 none delay 1ms reorder 25% 50%
sub duplicate impaired duplicate 7204 dup duplicate 5%
sub jitter impaired jitter 7205 none delay 2ms 1ms distribution normal

log "summary (seed $MPDT_SEED):"
while read -r line; do
	log "  $line"
done <"$WORKDIR/summary"
sub_verdict
