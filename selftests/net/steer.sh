#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# steer.sh: receive steering (net/mpdt/steer.c).  Each connection's packets
# are handled on one CPU chosen by hashing the connection, wherever they
# came in.  Two netns joined by a veth pair, 16 connections sent from one
# thread pinned to CPU 0, every byte checked by the server:
# - rx-steer 1 (the default): CPU 0 hands skbs over (rx_steered grows).
#   All 32 connections (16 each side) would have to hash to CPU 0 for it
#   not to: one chance in 2^32.
# - rx-steer 0: no skb is handed over.
# - CPU 1 taken offline and back, again and again, while skbs are queued
#   for it: none is stranded, every flow completes.
# Needs two CPUs.  Booted with CPU 1 isolated (isolcpus=1, as `make
# isolation-check` does, with MPDT_STEER_ISOLATED=1), only this: CPU 1
# is kept for one task and takes no connection's work, as an RPS map
# leaves isolated and nohz_full CPUs out (steer.c steer_allowed), so
# nothing is handed over from CPU 0.

source "$(dirname "$0")/lib.sh"

CPU1=/sys/devices/system/cpu/cpu1/online

require_root
require_cmd ip python3 taskset
(($(nproc --all) >= 2)) || skip "one CPU: nothing to steer to"
mpdt_load
setup_pair
CLI=$(mpdt_cli_bin)

declare -A A0 B0 A1 B1

# steered LABEL PORT: one 16-flow transfer; its rx_steered in $STEERED.
steered() {
	snap "$NS_A" A0
	snap "$NS_B" B0
	perf_one_thread "$1" "$2" 2M taskset -c 0
	snap "$NS_A" A1
	snap "$NS_B" B1
	[[ -n ${A1[rx_steered]+x} ]] ||
		fail "no rx_steered counter: a module without receive steering"
	STEERED=$(($(delta A1 A0 rx_steered) + $(delta B1 B0 rx_steered)))
	log "$1: $STEERED skbs steered"
}

isolated=$(cat /sys/devices/system/cpu/isolated 2>/dev/null)
[[ -z ${MPDT_STEER_ISOLATED:-} || $isolated == 1 ]] ||
	fail "CPU 1 is not isolated (isolated: '$isolated'): boot with isolcpus=1"
if [[ $isolated == 1 ]]; then
	steered isolated 7103
	assert_eq "rx_steered with CPU 1 isolated" 0 "$STEERED"
	pass "isolated CPU 1 took no connection's work"
fi

steered default 7100
assert_gt "rx_steered with rx-steer 1" 0 "$STEERED"

# rx_steer VALUE: in both namespaces.
rx_steer() {
	local n
	for n in "$NS_A" "$NS_B"; do
		ip netns exec "$n" "$CLI" param set rx-steer "$1" >/dev/null ||
			fail "mpdt param set rx-steer $1"
	done
}

rx_steer 0
steered off 7101
assert_eq "rx_steered with rx-steer 0" 0 "$STEERED"
rx_steer 1

if [[ -w $CPU1 ]]; then
	on_cleanup "echo 1 > $CPU1"
	(perf_one_thread hotplug 7102 16M taskset -c 0) &
	xfer=$!
	while kill -0 "$xfer" 2>/dev/null; do
		echo 0 >"$CPU1" || fail "cannot take CPU 1 offline"
		nap 0.2
		echo 1 >"$CPU1" || fail "cannot bring CPU 1 back"
		nap 0.3
	done
	wait "$xfer" || fail "16 flows while CPU 1 went offline and back"
	log "ok: CPU 1 offline and back during 16 flows, every byte checked"
else
	log "CPU 1 cannot go offline here: the hotplug part did not run"
fi

pass
