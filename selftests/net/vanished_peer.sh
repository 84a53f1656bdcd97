#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vanished_peer.sh: a peer that stops answering in the middle of a
# transfer must make the sender's socket fail with ETIMEDOUT within a
# bounded time (max_retries consecutive RTOs), never hang; the error is
# reported once; a later send starts a new incarnation that works once the
# peer is back, and the receiver never sees a partial or duplicated message.
#
# The sender (mpdt_peer.py send-until-error) streams 64 KiB pattern
# messages to a receiver (mpdt_peer.py recv-stream) in the other netns.
# Once 20 were acknowledged the peer vanishes in one of these ways:
#   netem-loss   netem loss 100% on both veth ends      sender blocks in send()
#   link-down    the receiver's veth set down            sender polls
#   addr-del     the receiver's address removed          sender blocks in send()
#   recv-killed  the receiver process SIGKILLed          sender polls
#   netns-gone   the receiver's netns deleted            sender polls
# and, with the module's default timers, netem-loss once more.
#
# Module parameters: rto_min_us=5000 rto_max_us=50000 max_retries=4, so the
# failure is due after ~0.2 s of silence (~3.3 s with the defaults); the
# test allows LIMIT seconds (TCG is slow).

source "$(dirname "$0")/lib.sh"

# path_ready: after a restore, wait until both ends of the veth have carrier
# again and forget the neighbour entries the outage left FAILED, so the
# resumed traffic is not lost to a path that is still coming back (the
# module here gives up after a fraction of a second by design).
path_ready() {
	local i out_a out_b
	for ((i = 0; i < 100; i++)); do
		out_a=$(ip -n "$NS_A" link show dev "$VETH_A")
		out_b=$(ip -n "$NS_B" link show dev "$VETH_B")
		[[ $out_a == *LOWER_UP* && $out_b == *LOWER_UP* ]] && break
		nap 0.1
	done
	ip -n "$NS_A" neigh flush dev "$VETH_A" 2>/dev/null || true
	ip -n "$NS_B" neigh flush dev "$VETH_B" 2>/dev/null || true
	nap 0.5
}

LIMIT=${MPDT_VANISH_LIMIT:-30}
FAST_PARAMS=(rto_min_us=5000 rto_max_us=50000 max_retries=4)
PORT=7100

require_root
require_cmd python3 tc ip

declare -A R E S
declare -A A0 A1 B0 B1

# scenario NAME MODE VANISH-CMD RESTORE-CMD
#   RESTORE-CMD "" means no resume phase; "restart-receiver" starts a new
#   receiver on the same port before resuming.
scenario() {
	local name=$1 mode=$2 vanish=$3 restore=$4
	local dir=$WORKDIR/$name port=$((PORT++)) spid rpid t_vanish_us t_err dt
	local resume_args=()
	mkdir -p "$dir"
	log "=== $name: sender mode $mode, receiver port $port"
	bg ip netns exec "$NS_B" python3 "$SELFTEST_DIR/mpdt_peer.py" recv-stream \
		--port "$port" --max 70000 --ready "$dir/rready" --stop "$dir/rstop" \
		>"$dir/recv.out" 2>&1
	rpid=$BG_PID
	m_wait_file "$dir/rready" 30 "$rpid" "$dir/recv.out" "receiver"
	[[ -n $restore ]] && resume_args=(--resume "$dir/resume" --resume-count 20)
	snap "$NS_A" A0
	snap "$NS_B" B0
	bg ip netns exec "$NS_A" python3 "$SELFTEST_DIR/mpdt_peer.py" send-until-error \
		--peer "$ADDR_B" --port "$port" --size 65536 --mode "$mode" \
		--ready "$dir/sready" --ready-after 20 --deadline $((LIMIT + 5)) \
		"${resume_args[@]}" >"$dir/send.out" 2>&1
	spid=$BG_PID
	m_wait_file "$dir/sready" 60 "$spid" "$dir/send.out" "sender (20 messages acknowledged)"

	t_vanish_us=$(now_us)
	eval "$vanish"
	log "$name: peer vanished ($vanish)"
	# Undo the damage even if this case fails half-way.
	[[ -n $restore && $restore != restart-receiver ]] && on_cleanup "$restore"
	# Wait for the error line (the sender exits here unless resuming).
	while [[ $(json_count "$dir/send.out") -lt 1 ]]; do
		kill -0 "$spid" 2>/dev/null || break
		(($(now_us) - t_vanish_us < (LIMIT + 20) * 1000000)) ||
			fail "$name: the sender hangs: no error and no exit after $((LIMIT + 20)) s"
		nap 0.1
	done
	json_load E "$dir/send.out" 1 || { cat "$dir/send.out"; fail "$name: no result from the sender"; }
	log "$name: sender: $(head -n1 "$dir/send.out")"
	[[ $(jv E error) != null ]] ||
		fail "$name: no error reported within $((LIMIT + 5)) s of sending (vanished $(secs_since "$t_vanish_us") s ago)"
	assert_eq "$name: error" ETIMEDOUT "$(jv E error)"
	t_err=$(jv E t_err)
	dt=$(awk -v e="$t_err" -v v="$t_vanish_us" 'BEGIN { printf "%.2f", e - v / 1e6 }')
	awk -v d="$dt" 'BEGIN { exit !(d >= 0) }' ||
		fail "$name: error reported $dt s BEFORE the peer vanished"
	assert_le "$name: seconds from vanishing to the error" "$LIMIT" "$dt"
	assert_eq "$name: SO_ERROR after the error was reported" 0 "$(jv E so_error_after)"
	assert_eq "$name: POLLERR after the error was reported" false "$(jv E pollerr_after)"
	pyexpr "$dir/send.out" 'allobjs[0]["info"]' >"$dir/info"
	log "$name: MPDT_INFO after the error: $(cat "$dir/info")"
	# The connection is failed with nothing in flight, unless a send()
	# that raced with the failure already started a new incarnation (new
	# nonce) with its one message.
	case $(pyexpr "$dir/send.out" '"%d %d %d" % (allobjs[0]["info"]["state"],
		allobjs[0]["info"]["msgs_inflight"],
		allobjs[0]["info"]["nonce"] != allobjs[0]["nonce_before"])') in
	"2 0 "[01]) log "ok: $name: connection failed, nothing in flight" ;;
	"1 "[01]" 1") log "ok: $name: a racing send() started a new incarnation" ;;
	*) fail "$name: after the error the connection is neither failed and" \
		"empty nor a new incarnation: $(cat "$dir/info")" ;;
	esac

	snap "$NS_A" A1
	assert_ge "$name: conn_failed" 1 "$(delta A1 A0 conn_failed)"
	assert_ge "$name: RTOs (> max_retries)" "$((MAX_RETRIES + 1))" "$(delta A1 A0 rto)"

	if [[ -z $restore ]]; then
		wait_for_pid "$spid" 30 || fail "$name: sender did not exit"
		touch "$dir/rstop"
		wait_for_pid "$rpid" 30 || true
		return 0
	fi

	# The peer comes back: a new incarnation must work.
	if [[ $restore == restart-receiver ]]; then
		snap "$NS_B" B1
		assert_gt "$name: receiver netns drop_no_socket (packets for a closed port)" 0 \
			"$(delta B1 B0 drop_no_socket)"
		bg ip netns exec "$NS_B" python3 "$SELFTEST_DIR/mpdt_peer.py" recv-stream \
			--port "$port" --max 70000 --ready "$dir/rready2" --stop "$dir/rstop" \
			>"$dir/recv2.out" 2>&1
		rpid=$BG_PID
		m_wait_file "$dir/rready2" 30 "$rpid" "$dir/recv2.out" "new receiver"
	else
		eval "$restore"
	fi
	path_ready
	log "$name: peer restored; resuming"
	touch "$dir/resume"
	wait_for_pid "$spid" $((LIMIT + 30)) || fail "$name: sender hangs after the resume"
	json_load S "$dir/send.out" 2 || { cat "$dir/send.out"; fail "$name: no resume result"; }
	log "$name: resume: $(tail -n1 "$dir/send.out")"
	[[ -z ${S[resume_error]+x} ]] || fail "$name: resume failed: ${S[resume_error]}"
	assert_eq "$name: messages acknowledged after the peer came back" 20 "$(jv S resume_acked)"
	assert_eq "$name: exit status of the sender" 0 "$WAIT_RC"

	touch "$dir/rstop"
	wait_for_pid "$rpid" 30 || fail "$name: receiver does not stop"
	local rout=$dir/recv.out
	[[ $restore == restart-receiver ]] && rout=$dir/recv2.out
	json_load R "$rout" || { cat "$rout"; fail "$name: no receiver result"; }
	assert_eq "$name: malformed (partial/mixed) messages received" 0 "$(jv R malformed)"
	assert_eq "$name: duplicates received" "$(jv R received)" "$(jv R unique)"
	assert_eq "$name: resumed messages all received" 20 "$(pyexpr "$rout" \
		"len(set(o['seqs']) & set(range($(jv S resume_first_seq), $(jv S resume_last_seq) + 1)))")"
	log "$name: receiver got $(jv R received) messages in all, none partial or twice"
}

# m_wait_file FILE SECONDS PID OUTFILE WHAT
m_wait_file() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[[ -e $1 ]] && return 0
		if ! kill -0 "$3" 2>/dev/null; then
			cat "$4" >&2
			fail "$5 exited before getting ready"
		fi
		nap 0.1
	done
	cat "$4" >&2
	fail "$5 not ready after $2 s"
}

mpdt_load "${FAST_PARAMS[@]}"
MAX_RETRIES=4
setup_pair

sub netem-loss scenario netem-loss block \
	'netem_both loss 100%' 'netem_clear_both'
sub link-down scenario link-down poll \
	'ip -n "$NS_B" link set "$VETH_B" down' \
	'ip -n "$NS_B" link set "$VETH_B" up; nap 0.5'
sub addr-del scenario addr-del block \
	'ip -n "$NS_B" addr del "$ADDR_B/24" dev "$VETH_B"' \
	'ip -n "$NS_B" addr add "$ADDR_B/24" dev "$VETH_B"'
sub recv-killed scenario recv-killed poll \
	'kill -KILL $rpid; wait $rpid 2>/dev/null || true' restart-receiver
netns_gone() {
	local i
	scenario netns-gone poll 'netns_del "$NS_B"' ''
	# Once the netns is gone (asynchronously) so is our end of the veth
	# and the route: a new message finds no route (tx_err) and fails.
	for ((i = 0; i < 300; i++)); do
		ip -n "$NS_A" link show "$VETH_A" >/dev/null 2>&1 || break
		nap 0.1
	done
	ip -n "$NS_A" link show "$VETH_A" >/dev/null 2>&1 &&
		fail "$VETH_A still exists 30 s after its peer's netns was deleted"
	snap "$NS_A" A0
	ip netns exec "$NS_A" python3 "$SELFTEST_DIR/mpdt_peer.py" send-until-error \
		--peer "$ADDR_B" --port 7199 --size 1000 --mode poll --ready-after 0 \
		--deadline $((LIMIT + 5)) >"$WORKDIR/noroute.out" 2>&1 || true
	log "no route: $(cat "$WORKDIR/noroute.out")"
	json_load E "$WORKDIR/noroute.out" 1 || fail "no result from the no-route sender"
	assert_eq "no route: error" ETIMEDOUT "$(jv E error)"
	snap "$NS_A" A1
	assert_gt "no route: tx_err" 0 "$(delta A1 A0 tx_err)"
}
sub netns-gone netns_gone

# Once more with the module's default timers (rto_max 1 s, 8 retries).
netns_del "$NS_A"
netns_del "$NS_B"
mpdt_unload
mpdt_load
MAX_RETRIES=8
setup_pair
sub default-timers scenario default-timers poll \
	'netem_both loss 100%' 'netem_clear_both'
sub_verdict
