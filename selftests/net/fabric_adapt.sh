#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric_adapt.sh - adaptive load balancing on the emulated leaf-spine
# fabric (selftests/net/fabric.sh: 2 leaves x 2 hosts x 4 spines,
# 10 Mbit/s), against oblivious spraying measured in the same run:
#   avoidance: leaf 1's uplink to spine 2 at a tenth of the rate, both
#           hosts of leaf 1 sending at once: every transfer completes
#           intact, and oblivious puts exactly a quarter of its packets
#           there (one packet per EV per round); how many fewer reps and
#           prime put there, and how much sooner they finish, depend on
#           the CPU the guest gets: measured, judged by the benchmark
#           (tools/perf/spread.py), not here;
#   failure: the same uplink blackholed silently in the middle of a
#           transfer (routes unchanged: the leaf keeps routing EVs onto
#           it): every transfer completes intact, and reps and prime lose
#           fewer packets into it than oblivious (under three quarters).
# No result depends on where a hash puts an entropy: MPDT uses 16 EVs and
# the leaves route EV v to spine (v mod 4) + 1 (fabric_ev_routing), as
# PRIME's switches do (§III-D): a quarter of the EVs lead to the slow or
# dead link, whatever the hash seed of the boot.
# bitmap (STrack Algo 2) is measured and reported, not judged: a marked EV
# is skipped once and cleared by the skip ("one packet only clears one
# bit"), and every mark is forgotten after 1-2 RTTs, so with a window of
# a few BDPs it steers only a little away from a slow path and keeps
# retrying a dead one (numbers in Documentation/fabric.rst).
# PRIME's one-part MP-EV has one value per uplink (prime-uplinks 4), EVs
# 0..3, which the leaves route to spines 1..4.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric.sh"

SPINES=4
SLOW=2
SLOW_MBIT=1
MSGS=12
MSG_BYTES=$((192 * 1024))
FAIL_MSGS=12
FAIL_BYTES=$((256 * 1024))
ADAPTIVE="reps prime"
EVS=16
REPORTED="bitmap"
CLI="$REPO_ROOT/tools/mpdt/mpdt"
PORT=7600

require_root
[[ -x $CLI ]] || skip "no $CLI (run 'make tools')"
# Room for many consecutive timeouts: oblivious keeps losing packets into
# the dead link, and TCG stalls make RTOs late.
mpdt_load cc=fixed link_mbps=10 base_rtt_us=10000 fixed_cwnd=32768 \
	rto_min_us=50000 rto_max_us=400000 max_retries=40 entropies=$EVS
fabric_create 2 2 "$SPINES" 10 1
fabric_cleanup_on_exit
fabric_ev_routing "$(cat /sys/module/mpdt/parameters/entropy_base)" "$EVS"

# use_lb LB: every sender of leaf 1 uses LB for its next connections.
use_lb() {
	local i
	for i in 1 2; do
		"$CLI" -n "$(fabric_host 1 "$i")" param set lb "$1" \
			prime-uplinks "$SPINES" >/dev/null || fail "cannot set lb $1"
	done
}

# send_verified I COUNT BYTES: host I of leaf 1 to host I of leaf 2, in
# the background; SEND_PID, and the receiver's RECV_PIDS[I].
declare -A RECV_PIDS
send_verified() {
	local i=$1 count=$2 bytes=$3 out=$WORKDIR/flow$1
	PORT=$((PORT + 1))
	start_receiver "$(fabric_host 2 "$i")" "$PORT" "$count" "$bytes" \
		"$bytes" 300 "$out.recv"
	RECV_PIDS[$i]=$RECV_PID
	bg ip netns exec "$(fabric_host 1 "$i")" "$(mpdt_msg_bin)" send \
		-a "$(fabric_addr 2 "$i")" -p "$PORT" -n "$count" -m "$bytes" \
		-M "$bytes" -s "$MPDT_SEED" -t 300 >"$out.send" 2>&1
	SEND_PID=$BG_PID
}

# check_verified LABEL I COUNT SENDER_RC: flow I's messages all arrived
# intact, once each; FLOW_SECS = the sender's time.
check_verified() {
	local label=$1 i=$2 count=$3 rc=$4 out=$WORKDIR/flow$2
	log "$label: flow $i sender (exit $rc): $(cat "$out.send")"
	[[ $rc == 0 ]] || fail "$label: flow $i sender failed"
	bg_wait "${RECV_PIDS[$i]}" ||
		fail "$label: flow $i receiver failed: $(cat "$out.recv")"
	json_load SEND_RES "$out.send" || fail "$label: no sender JSON"
	json_load RECV_RES "$out.recv" || fail "$label: no receiver JSON"
	assert_eq "$label: flow $i messages intact, once each" "$count" \
		"$(jv RECV_RES received)"
	assert_eq "$label: flow $i corrupt" 0 "$(jv RECV_RES corrupt)"
	FLOW_SECS=$(jv SEND_RES seconds)
}

# calc EXPR: an awk expression over numbers, printed to 3 decimals.
calc() { awk "BEGIN { printf \"%.3f\\n\", $1 }"; }

# The packets leaf 1 put on each uplink: sent, or dropped by its queue
# (the first "sent_pkts" and "drops" of each line are its top-level ones).
uplinks() {
	local s q sent out=
	for ((s = 1; s <= SPINES; s++)); do
		q=$(fabric_queue_stats "$(fabric_leaf 1)" "s$s") || fail "no stats of s$s"
		[[ $q =~ \"sent_pkts\":[[:space:]]*([0-9]+) ]] || fail "no sent_pkts: $q"
		sent=${BASH_REMATCH[1]}
		[[ $q =~ \"drops\":[[:space:]]*([0-9]+) ]] || fail "no drops: $q"
		out+="$((sent + BASH_REMATCH[1])) "
	done
	echo "$out"
}

# avoid LB: both hosts of leaf 1 send at once; SLOW_SHARE[LB] = percent of
# leaf 1's uplink packets on the slow link, SECS[LB] = the slower flow.
declare -A SLOW_SHARE SECS
avoid() {
	local lb=$1 before after pids=() i rc secs=0 d=() sum=0
	use_lb "$lb"
	read -r -a before <<<"$(uplinks)"
	for i in 1 2; do
		send_verified "$i" "$MSGS" "$MSG_BYTES"
		pids[i]=$SEND_PID
	done
	for i in 1 2; do
		rc=0
		bg_wait "${pids[i]}" || rc=$?
		check_verified "$lb" "$i" "$MSGS" "$rc"
		secs=$(calc "($secs > $FLOW_SECS) ? $secs : $FLOW_SECS")
	done
	read -r -a after <<<"$(uplinks)"
	for i in "${!after[@]}"; do
		d[i]=$((after[i] - before[i]))
		sum=$((sum + d[i]))
	done
	SLOW_SHARE[$lb]=$(awk -v n="${d[SLOW - 1]}" -v s="$sum" \
		'BEGIN { printf "%.1f\n", 100 * n / (s > 1 ? s : 1) }')
	SECS[$lb]=$secs
	log "$lb: uplinks ${d[*]}; slow link share ${SLOW_SHARE[$lb]}%, done in ${secs} s"
}

# failure LB: one flow, the slow link blackholed one second in;
# LOST[LB] = packets the blackhole dropped (sent into the dead link).
declare -A LOST
failure() {
	local lb=$1 rc=0
	use_lb "$lb"
	send_verified 1 "$FAIL_MSGS" "$FAIL_BYTES"
	nap 1
	fabric_blackhole 1 "$SLOW" >/dev/null || fail "cannot blackhole"
	bg_wait "$SEND_PID" || rc=$?
	LOST[$lb]=$(fabric_blackhole_drops 1 "$SLOW" up)
	fabric_restore 1 "$SLOW" >/dev/null || fail "cannot restore"
	check_verified "$lb failure" 1 "$FAIL_MSGS" "$rc"
	log "$lb: packets lost into the dead link: ${LOST[$lb]}"
}

# A tenth, not a quarter: the link must be overloaded by a quarter of
# what the senders manage, and a TCG guest short of CPU may manage half
# the 20 Mbit/s the two hosts could offer.
fabric_link_rate 1 "$SLOW" "$SLOW_MBIT" up >/dev/null || fail "cannot slow the link"
for lb in oblivious $ADAPTIVE $REPORTED; do
	avoid "$lb"
done
fabric_restore 1 "$SLOW" >/dev/null || fail "cannot restore"
for lb in oblivious $ADAPTIVE $REPORTED; do
	failure "$lb"
done

log "avoidance (slow link share %, seconds) and failure (packets lost):"
for lb in oblivious $ADAPTIVE $REPORTED; do
	log "  $lb ${SLOW_SHARE[$lb]}% ${SECS[$lb]} s, lost ${LOST[$lb]}"
	measure "avoid_${lb}_slow_share_pct" "${SLOW_SHARE[$lb]}"
	measure "avoid_${lb}_secs" "${SECS[$lb]}"
	measure "failure_${lb}_lost" "${LOST[$lb]}"
done
# oblivious puts one packet per EV per round on each path: a quarter of
# its packets on the slow link (counted on leaf 1's uplinks, by packet).
measure avoid_oblivious_slow_share_off_25 \
	"$(awk -v s="${SLOW_SHARE[oblivious]}" \
		'BEGIN { d = s - 25; printf "%.1f\n", d < 0 ? -d : d }')" '<=' 2
assert_gt "oblivious: packets lost into the dead link" 0 "${LOST[oblivious]}"
for lb in $ADAPTIVE $REPORTED; do
	measure "avoid_${lb}_secs_over_oblivious" \
		"$(calc "${SECS[$lb]} / ${SECS[oblivious]}")"
done
for lb in $ADAPTIVE; do
	# Measured over 11 runs (Documentation/testing.rst, "Determinism"):
	# a slow-link share of 0.24-0.55 x oblivious's, too spread (0.28) for
	# any threshold below 1 to keep twice the spread as margin: reported,
	# judged by tools/perf/spread.py (target < 0.8); packets lost to the
	# dead link 0.06-0.29 x oblivious's: asserted < 0.75 (margin 2.3x
	# the spread or more).
	measure "avoid_${lb}_share_over_oblivious" \
		"$(calc "${SLOW_SHARE[$lb]} / ${SLOW_SHARE[oblivious]}")"
	measure "failure_${lb}_lost_over_oblivious" \
		"$(calc "${LOST[$lb]} / ${LOST[oblivious]}")" '<' 0.75
done
pass
