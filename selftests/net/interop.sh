#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# interop.sh: an independent client written with python's socket module
# (mpdt_peer.py: socket(AF_INET, SOCK_DGRAM, 254), its own implementation
# of mpdt_msg's message generator) against the C tool mpdt_msg:
#   1. python sends  -> mpdt_msg recv verifies (length, hash, exactly once)
#   2. mpdt_msg send -> python receives and verifies the same way, and
#      that recvfrom() names the sender's address and MPDT port
#   3. python echo client <-> python echo server: both halves of one
#      connection busy at once, every echo checked
#
# Environment: MPDT_SEED.

source "$(dirname "$0")/lib.sh"

COUNT=200
MAX=262144
PEER=$SELFTEST_DIR/mpdt_peer.py

require_root
require_cmd ip python3
mpdt_load
setup_pair
MSG=$(mpdt_msg_bin)

declare -A P C

# 1. python -> mpdt_msg
py_to_c() {
	local t0
	log "python send-msgs ($NS_A) -> mpdt_msg recv ($NS_B): $COUNT messages 1..$MAX B"
	start_receiver "$NS_B" 7301 "$COUNT" 1 "$MAX" 120 "$WORKDIR/c_recv.out"
	t0=$(now_us)
	ip netns exec "$NS_A" python3 "$PEER" send-msgs --peer "$ADDR_B" --port 7301 \
		--count "$COUNT" --seed "$MPDT_SEED" --min 1 --max "$MAX" --timeout 120 \
		>"$WORKDIR/py_send.out" 2>&1 || { cat "$WORKDIR/py_send.out"; fail "python sender failed"; }
	wait_for_pid "$RECV_PID" 60 || fail "mpdt_msg recv does not finish"
	log "python sender: $(cat "$WORKDIR/py_send.out")"
	log "mpdt_msg recv: $(cat "$WORKDIR/c_recv.out")"
	[[ $WAIT_RC == 0 ]] || fail "mpdt_msg recv rejected the python messages"
	json_load P "$WORKDIR/py_send.out" || fail "no JSON from the python sender"
	json_load C "$WORKDIR/c_recv.out" || fail "no JSON from mpdt_msg recv"
	assert_eq "python->C: received intact" "$COUNT" "$(jv C received)"
	assert_eq "python->C: acknowledged (MPDT_INFO from python)" "$COUNT" "$(jv P msgs_acked)"
	assert_eq "python->C: nothing in flight" 0 "$(jv P msgs_inflight)"
	log "python->C: $(secs_since "$t0") s"
}

# 2. mpdt_msg -> python
c_to_py() {
	local t0 i
	log "mpdt_msg send ($NS_A, port 7399) -> python recv-msgs ($NS_B): $COUNT messages"
	rm -f "$WORKDIR/py_ready"
	bg ip netns exec "$NS_B" python3 "$PEER" recv-msgs --port 7302 --count "$COUNT" \
		--seed "$MPDT_SEED" --min 1 --max "$MAX" --timeout 120 \
		--expect-from "$ADDR_A:7399" --ready "$WORKDIR/py_ready" >"$WORKDIR/py_recv.out" 2>&1
	local rpid=$BG_PID
	for ((i = 0; i < 300; i++)); do
		[[ -e $WORKDIR/py_ready ]] && break
		nap 0.1
	done
	[[ -e $WORKDIR/py_ready ]] || { cat "$WORKDIR/py_recv.out"; fail "python receiver not ready"; }
	t0=$(now_us)
	ip netns exec "$NS_A" "$MSG" send -a "$ADDR_B" -p 7302 -l 7399 -n "$COUNT" \
		-s "$MPDT_SEED" -m 1 -M "$MAX" -t 120 >"$WORKDIR/c_send.out" 2>&1 ||
		{ cat "$WORKDIR/c_send.out"; fail "mpdt_msg send failed"; }
	wait_for_pid "$rpid" 120 || fail "python receiver does not finish"
	log "mpdt_msg send: $(cat "$WORKDIR/c_send.out")"
	log "python recv: $(cat "$WORKDIR/py_recv.out")"
	[[ $WAIT_RC == 0 ]] || fail "the python receiver rejected mpdt_msg's messages"
	json_load P "$WORKDIR/py_recv.out" || fail "no JSON from the python receiver"
	assert_eq "C->python: received intact" "$COUNT" "$(jv P received)"
	assert_eq "C->python: from $ADDR_A:7399 (recvfrom address)" 0 "$(jv P wrong_source)"
	log "C->python: $(secs_since "$t0") s"
}

# 3. python echo, both directions of one connection at once
echo_both_ways() {
	local i n=100
	log "python echo-client ($NS_A) <-> python echo ($NS_B): $n messages, 8 in flight"
	rm -f "$WORKDIR/echo_ready"
	bg ip netns exec "$NS_B" python3 "$PEER" echo --port 7303 --count "$n" \
		--max "$MAX" --timeout 120 --ready "$WORKDIR/echo_ready" >"$WORKDIR/echo.out" 2>&1
	local epid=$BG_PID
	for ((i = 0; i < 300; i++)); do
		[[ -e $WORKDIR/echo_ready ]] && break
		nap 0.1
	done
	ip netns exec "$NS_A" python3 "$PEER" echo-client --peer "$ADDR_B" --port 7303 \
		--count "$n" --seed "$MPDT_SEED" --min 1 --max "$MAX" --window 8 --timeout 120 \
		>"$WORKDIR/echo_client.out" 2>&1 ||
		{ cat "$WORKDIR/echo_client.out" "$WORKDIR/echo.out"; fail "echo client failed"; }
	wait_for_pid "$epid" 60 || fail "echo server does not finish"
	log "echo client: $(cat "$WORKDIR/echo_client.out")"
	log "echo server: $(cat "$WORKDIR/echo.out")"
	[[ $WAIT_RC == 0 ]] || fail "echo server failed"
	json_load P "$WORKDIR/echo_client.out" || fail "no JSON from the echo client"
	assert_eq "echoes back intact, once each" "$n" "$(jv P echoed_ok)"
	assert_eq "bad echoes" 0 "$(jv P bad)"
}

sub python-to-c py_to_c
sub c-to-python c_to_py
sub echo echo_both_ways
sub_verdict
