#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tracepoints.sh: the tracepoints of net/mpdt/trace.h fire, as perf and
# bpftrace see them (through tracefs), and agree with the counters:
#   lossy    a smartt transfer over 10% netem loss: one mpdt_msg_acked
#            and one mpdt_msg_rcvd per message, one mpdt_xmit per packet
#            sent (DATA and SACK events equal tx_data and tx_sack), one
#            mpdt_loss per loss counted (retx_*), mpdt_sack (at most one
#            per SACK received) and mpdt_cwnd seen
#   pipelined  two 1 MiB messages: the first DATA leaves before sendmsg()
#            has copied the rest in (the function tracer on
#            mpdt_txmsg_copy(), in the sending task)
#   silent   messages to an MPDT port nobody bound: mpdt_probe, one
#            mpdt_rto per RTO counted and one mpdt_failed
#
# The module's default timers for the lossy transfer (and static
# neighbours: netem drops ARP too), then rto-min-us 5000 rto-max-us 50000
# max-retries 3 in the sender's netns, so the silent peer fails within a
# fraction of a second.

source "$(dirname "$0")/lib.sh"

TRACEFS=/sys/kernel/tracing

require_root
require_cmd tc
mpdt_load
if [[ ! -d $TRACEFS/events ]]; then
	mount -t tracefs nodev "$TRACEFS" 2>/dev/null || skip "no tracefs"
fi
[[ -d $TRACEFS/events/mpdt ]] || fail "no mpdt events in $TRACEFS/events"
EVENTS=$(ls "$TRACEFS/events/mpdt" | grep '^mpdt_' | sort | paste -sd' ')
log "events: $EVENTS"
assert_eq "the events of trace.h" \
	"mpdt_cwnd mpdt_failed mpdt_loss mpdt_msg_acked mpdt_msg_rcvd mpdt_probe mpdt_rto mpdt_sack mpdt_xmit" \
	"$EVENTS"
setup_pair
MPDT_CLI=$(mpdt_cli_bin)

trace_off() {
	echo 0 >"$TRACEFS/events/mpdt/enable" 2>/dev/null || true
}
on_cleanup trace_off

# trace_start: an empty, large enough buffer, every mpdt event on.
trace_start() {
	echo 8192 >"$TRACEFS/buffer_size_kb"
	: >"$TRACEFS/trace"
	echo 1 >"$TRACEFS/events/mpdt/enable"
}

# trace_stop FILE: events off, the buffer into FILE; fails on lost events.
trace_stop() {
	trace_off
	cat "$TRACEFS/trace" >"$1"
	if grep -q 'LOST [0-9]* EVENTS' "$1"; then
		fail "the trace buffer overflowed"
	fi
}

# events FILE NAME [FIELD=VALUE]: how many NAME events FILE holds.
events() {
	if [[ -n ${3:-} ]]; then
		grep -c " $2: .*\\b$3\\b" "$1" || true
	else
		grep -c " $2: " "$1" || true
	fi
}

# ---- lossy ---------------------------------------------------------------
ip netns exec "$NS_A" "$MPDT_CLI" param set cc smartt ||
	fail "mpdt param set cc smartt"
neigh_static
netem_set "$NS_A" "$VETH_A" loss 10%
snap "$NS_A" A0
snap "$NS_B" B0
trace_start
run_transfer lossy 20 20000 100000 120
trace_stop "$WORKDIR/lossy.trace"
netem_clear "$NS_A" "$VETH_A"
snap "$NS_A" A1
snap "$NS_B" B1
T=$WORKDIR/lossy.trace
log "lossy: $(wc -l <"$T") trace lines"
assert_eq "mpdt_msg_acked: one per message" 20 "$(events "$T" mpdt_msg_acked)"
assert_eq "mpdt_msg_rcvd: one per message" 20 "$(events "$T" mpdt_msg_rcvd)"
assert_eq "mpdt_xmit DATA events == tx_data" \
	"$(($(delta A1 A0 tx_data) + $(delta B1 B0 tx_data)))" \
	"$(events "$T" mpdt_xmit type=1)"
assert_eq "mpdt_xmit SACK events == tx_sack" \
	"$(($(delta A1 A0 tx_sack) + $(delta B1 B0 tx_sack)))" \
	"$(events "$T" mpdt_xmit type=2)"
LOSSES=0
for c in retx_ooo retx_probe retx_rto retx_nack; do
	LOSSES=$((LOSSES + $(delta A1 A0 "$c")))
done
assert_gt "losses declared under 10% loss" 0 "$LOSSES"
assert_eq "mpdt_loss events == retx_* counted" "$LOSSES" \
	"$(events "$T" mpdt_loss)"
# Every SACK of the incarnation is processed; a stale one would be
# counted in rx_sack and not traced.
assert_gt "mpdt_sack events" 0 "$(events "$T" mpdt_sack)"
assert_le "mpdt_sack events <= rx_sack" "$(delta A1 A0 rx_sack)" \
	"$(events "$T" mpdt_sack)"
assert_gt "mpdt_cwnd events (smartt moves its window)" 0 \
	"$(events "$T" mpdt_cwnd)"
log "sample: $(grep -m1 ' mpdt_sack: ' "$T" | sed 's/^ *//')"
log "sample: $(grep -m1 ' mpdt_loss: ' "$T" | sed 's/^ *//')"

# ---- pipelined -----------------------------------------------------------
# sendmsg() queues a message longer than a piece (64 KiB) before its bytes
# are in, and each piece goes as soon as it is copied in (txmsg.c): in
# the sending task's trace, DATA leaves before the copy of the last piece
# (the function tracer on mpdt_txmsg_copy(), which copies a piece;
# lib/iov_iter.c is neither traced nor probed in Debian's kernel).
# Function and events follow that task alone; one clock orders the CPUs.
for f in set_ftrace_filter set_ftrace_pid set_event_pid trace_clock; do
	[[ -w $TRACEFS/$f ]] || fail "no $TRACEFS/$f (function tracer)"
done
pipelined_off() {
	echo nop >"$TRACEFS/current_tracer"
	: >"$TRACEFS/set_ftrace_filter"
	: >"$TRACEFS/set_ftrace_pid"
	: >"$TRACEFS/set_event_pid"
	echo local >"$TRACEFS/trace_clock"
}
on_cleanup pipelined_off
echo mpdt_txmsg_copy >"$TRACEFS/set_ftrace_filter" ||
	fail "mpdt_txmsg_copy cannot be traced"
echo global >"$TRACEFS/trace_clock"
start_receiver "$NS_B" 7001 2 1048576 1048576 60 "$WORKDIR/pipe.recv"
trace_start
echo function >"$TRACEFS/current_tracer"
# The task names itself before it enters the netns (whose sysfs has no
# tracefs) and keeps its pid through both exec()s.
bash -c 'echo $$ >"$1/set_ftrace_pid" && echo $$ >"$1/set_event_pid" &&
	exec "${@:2}"' - "$TRACEFS" ip netns exec "$NS_A" \
	"$(mpdt_msg_bin)" send -a "$ADDR_B" -p 7001 -n 2 -m 1048576 -M 1048576 \
	-s "$MPDT_SEED" -t 60 >"$WORKDIR/pipe.send" 2>&1 ||
	fail "pipelined: sender failed: $(<"$WORKDIR/pipe.send")"
wait "$RECV_PID" || fail "pipelined: receiver failed: $(<"$WORKDIR/pipe.recv")"
trace_stop "$WORKDIR/pipe.trace"
pipelined_off
json_load RECV_RES "$WORKDIR/pipe.recv" || fail "pipelined: no JSON"
assert_eq "pipelined: the messages arrived intact" 2 "$(jv RECV_RES received)"
T=$WORKDIR/pipe.trace
assert_gt "pipelined: the sender's DATA events" 0 "$(events "$T" mpdt_xmit type=1)"
FIRST_DATA=$(grep -n -m1 ' mpdt_xmit: .* type=1 ' "$T" | cut -d: -f1)
PIECES=$(grep -c ' mpdt_txmsg_copy <-' "$T" || true)
EARLY=$(head -n "$FIRST_DATA" "$T" | grep -c ' mpdt_txmsg_copy <-' || true)
log "pipelined: $PIECES pieces, $EARLY copied before the first DATA left"
log "sample: $(grep -m1 ' mpdt_txmsg_copy <-' "$T" | sed 's/^ *//')"
assert_gt "pipelined: pieces of 64 KiB or more in 2 MiB" 16 "$PIECES"
assert_gt "pipelined: pieces of the first message still to copy as it left" \
	0 "$((PIECES / 2 - EARLY))"

# ---- silent --------------------------------------------------------------
ip netns exec "$NS_A" "$MPDT_CLI" param set rto-min-us 5000 rto-max-us 50000 \
	max-retries 3 || fail "mpdt param set (short timers)"
snap "$NS_A" A0
trace_start
ip netns exec "$NS_A" "$(mpdt_msg_bin)" send -a "$ADDR_B" -p 7999 -n 2 \
	-m 5000 -M 5000 -s "$MPDT_SEED" -t 30 >"$WORKDIR/silent.out" 2>&1 || true
trace_stop "$WORKDIR/silent.trace"
snap "$NS_A" A1
T=$WORKDIR/silent.trace
log "silent: sender said $(tail -n1 "$WORKDIR/silent.out")"
assert_eq "conn_failed" 1 "$(delta A1 A0 conn_failed)"
assert_eq "mpdt_failed events" 1 "$(events "$T" mpdt_failed)"
assert_eq "mpdt_rto events == rto counted" "$(delta A1 A0 rto)" \
	"$(events "$T" mpdt_rto)"
assert_eq "RTOs before failing: max_retries + 1" 4 "$(events "$T" mpdt_rto)"
assert_eq "mpdt_probe events == tx_probe" "$(delta A1 A0 tx_probe)" \
	"$(events "$T" mpdt_probe)"
assert_gt "probes to a silent peer" 0 "$(events "$T" mpdt_probe)"

pass "every tracepoint fired, in step with the counters"
