#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# failover.sh - experiment (run inside the VM, as root): one spine uplink
# of the sender's leaf is blackholed silently in the middle of a transfer
# (routes unchanged: ECMP keeps hashing onto it).  Checks that every
# transfer completes with every message intact, and reports how many
# packets each policy put into the dead link after the failure.  The issue
# asks adaptive policies (reps, prime, bitmap) for far fewer than oblivious
# spraying; see the numbers before turning this into a pass/fail test.
#
#   tools/testing/vm/run.sh -t 600 -- tools/perf/failover.sh

SELFTESTS="$(cd "$(dirname "$0")/../../selftests/net" && pwd)"
# shellcheck source=selftests/net/lib.sh
source "$SELFTESTS/lib.sh"
# shellcheck source=selftests/net/fabric.sh
source "$SELFTESTS/fabric.sh"

SPINES=4
MSGS=12
MSG_BYTES=$((256 * 1024))
DEAD=2
CLI="$REPO_ROOT/tools/mpdt/mpdt"

require_root
[[ -x $CLI ]] || skip "no $CLI (run 'make tools')"
# Room for many consecutive timeouts: oblivious keeps losing packets.
mpdt_load link_mbps=10 base_rtt_us=10000 fixed_cwnd=32768 \
	rto_min_us=50000 rto_max_us=400000 max_retries=40
fabric_create 2 2 "$SPINES" 10 1
fabric_cleanup_on_exit
# PRIME's switches take the uplink from the EV (§III-D): EVs 0..3 of a
# one-part MP-EV (prime-uplinks 4) name the four uplinks exactly.
fabric_ev_routing 49152 "$SPINES"

NS_A=$(fabric_host 1 1)
NS_B=$(fabric_host 2 1)
ADDR_B=$(fabric_addr 2 1)
PORT=7500
declare -A LOST

# failover LB: a verified transfer with the uplink to spine $DEAD
# blackholed after one second; LOST[LB] = packets sent into it afterwards.
failover() {
	local lb=$1 out=$WORKDIR/$1 spid rc=0 lost
	"$CLI" -n "$NS_A" param set lb "$lb" prime-uplinks "$SPINES" >/dev/null ||
		fail "cannot set lb $lb"
	PORT=$((PORT + 1))
	start_receiver "$NS_B" "$PORT" "$MSGS" "$MSG_BYTES" "$MSG_BYTES" 300 \
		"$out.recv"
	bg ip netns exec "$NS_A" "$(mpdt_msg_bin)" send -a "$ADDR_B" \
		-p "$PORT" -n "$MSGS" -m "$MSG_BYTES" -M "$MSG_BYTES" \
		-s "$MPDT_SEED" -t 300 >"$out.send" 2>&1
	spid=$BG_PID
	sleep 1
	fabric_blackhole 1 "$DEAD" >/dev/null
	bg_wait "$spid" || rc=$?
	lost=$(fabric_blackhole_drops 1 "$DEAD" up)
	fabric_restore 1 "$DEAD" >/dev/null
	log "$lb: sender (exit $rc): $(cat "$out.send")"
	[[ $rc == 0 ]] || fail "$lb: sender failed"
	bg_wait "$RECV_PID" || fail "$lb: receiver failed: $(cat "$out.recv")"
	json_load RECV_RES "$out.recv" || fail "$lb: no receiver JSON"
	assert_eq "$lb: messages intact, once each" "$MSGS" "$(jv RECV_RES received)"
	LOST[$lb]=$lost
	log "$lb: packets sent into the dead link after the failure: ${LOST[$lb]}"
}

for lb in ${POLICIES:-oblivious reps prime bitmap}; do
	failover "$lb"
done
log "packets into the dead link after the failure, by policy:"
for lb in ${POLICIES:-oblivious reps prime bitmap}; do
	log "  $lb ${LOST[$lb]}"
done
pass
