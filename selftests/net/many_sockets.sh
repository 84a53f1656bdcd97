#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# many_sockets.sh: many sockets and connections at once.
#  - 64 sender sockets in one netns talk to 64 receiver sockets in the
#    other at the same time (64 mpdt_msg pairs, each its own seed);
#  - meanwhile 16 more senders share one receiver socket (16 connections
#    on one socket, each sending its own range of message indexes).
#    These bind ports of their own: two ephemeral ports drawn at random
#    coincide now and then, and a sender that closes frees its port for a
#    later one, which is then rightly the same peer to the receiver (a new
#    incarnation on its connection, not a second connection).
# Every message of every pair must arrive exactly once and intact, and the
# per-netns counters must add up across all of them.
#
# Module parameters: cc=fixed fixed_cwnd=8192, because the "fixed"
# congestion control keeps a whole BDP in flight per connection
# even after timeouts, so 80 connections starting at once put ~7000
# packets into the veth backlog (net.core.netdev_max_backlog = 1000) on
# every retransmission round and many fail with ETIMEDOUT; and
# max_retries=16 rto_max_us=2000000, because 145 processes on a TCG VM
# (whose host may be busy) see RTTs of seconds.  Both are about congestion
# and failure detection, not what this test is about; run with
# MPDT_MANY_PARAMS= to see the defaults.
#
# Environment: MPDT_SEED, MPDT_MANY_PAIRS (64), MPDT_MANY_SHARED (16),
# MPDT_MANY_PARAMS (module parameters, default above).

source "$(dirname "$0")/lib.sh"

PAIRS=${MPDT_MANY_PAIRS:-64}
SHARED=${MPDT_MANY_SHARED:-16}
N=20            # messages per pair
NS_SHARED=10    # messages per sender to the shared receiver
MAX=262144
BASE=7400
SHARED_PORT=7999
SHARED_LPORT=8000	# the shared senders' own ports, one each
TMO=240

require_root
require_cmd ip python3
# shellcheck disable=SC2086 # a list of parameters
mpdt_load ${MPDT_MANY_PARAMS-cc=fixed fixed_cwnd=8192 max_retries=16 rto_max_us=2000000}
setup_pair
MSG=$(mpdt_msg_bin)

declare -A A0 A1 B0 B1
snap "$NS_A" A0
snap "$NS_B" B0

# Receivers, all started at once; then wait until every one is bound.
declare -a RPIDS SPIDS
for ((i = 0; i < PAIRS; i++)); do
	bg ip netns exec "$NS_B" "$MSG" recv -p $((BASE + i)) -n "$N" -m 1 -M "$MAX" \
		-s $((MPDT_SEED + i)) -t "$TMO" -r "$WORKDIR/ready.$i" >"$WORKDIR/recv.$i" 2>&1
	RPIDS[i]=$BG_PID
done
bg ip netns exec "$NS_B" "$MSG" recv -p "$SHARED_PORT" -n $((SHARED * NS_SHARED)) -m 1 \
	-M "$MAX" -s "$MPDT_SEED" -t "$TMO" -r "$WORKDIR/ready.shared" >"$WORKDIR/recv.shared" 2>&1
SHARED_RPID=$BG_PID
for ((t = 0; t < 600; t++)); do
	ready=$(find "$WORKDIR" -maxdepth 1 -name 'ready.*' | wc -l)
	((ready == PAIRS + 1)) && break
	nap 0.1
done
((ready == PAIRS + 1)) || fail "only $ready of $((PAIRS + 1)) receivers came up"
log "$((PAIRS + 1)) receivers bound in $NS_B"

T0=$(now_us)
for ((i = 0; i < PAIRS; i++)); do
	bg ip netns exec "$NS_A" "$MSG" send -a "$ADDR_B" -p $((BASE + i)) -n "$N" -m 1 \
		-M "$MAX" -s $((MPDT_SEED + i)) -t "$TMO" >"$WORKDIR/send.$i" 2>&1
	SPIDS[i]=$BG_PID
done
for ((j = 0; j < SHARED; j++)); do
	bg ip netns exec "$NS_A" "$MSG" send -a "$ADDR_B" -p "$SHARED_PORT" -n "$NS_SHARED" \
		-l $((SHARED_LPORT + j)) -o $((j * NS_SHARED)) -m 1 -M "$MAX" \
		-s "$MPDT_SEED" -t "$TMO" >"$WORKDIR/send.shared.$j" 2>&1
	SPIDS[PAIRS + j]=$BG_PID
done
log "$((PAIRS + SHARED)) senders started in $NS_A"

# softnet_stat column 2: packets dropped because a CPU's backlog was full.
backlog_drops() {
	local sum=0 d
	while read -r _ d _; do
		sum=$((sum + 16#$d))
	done </proc/net/softnet_stat
	echo "$sum"
}
DROPS0=$(backlog_drops)

failed=0
for pid in "${SPIDS[@]}"; do
	wait "$pid" || failed=$((failed + 1))
done
log "senders done in $(secs_since "$T0") s ($failed failed); waiting for the receivers"
# A receiver whose sender gave up would wait for its own timeout: give
# them 30 s once the senders are done.
T1=$(now_us)
for pid in "${RPIDS[@]}" "$SHARED_RPID"; do
	while kill -0 "$pid" 2>/dev/null && (($(now_us) - T1 < 30000000)); do
		nap 0.2
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || failed=$((failed + 1))
done
SECS=$(secs_since "$T0")
log "all done in $SECS s; $failed processes failed; veth backlog drops:" \
	"$(($(backlog_drops) - DROPS0))"

# One python pass over all the results.
python3 - "$WORKDIR" "$PAIRS" "$SHARED" "$N" "$NS_SHARED" >"$WORKDIR/verdict" <<'EOF' || true
import glob, json, os, sys
d, pairs, shared, n, nsh = sys.argv[1], *map(int, sys.argv[2:])
bad = []
def last_json(path):
    try:
        lines = [l for l in open(path) if l.startswith("{")]
        return json.loads(lines[-1]) if lines else None
    except OSError:
        return None
for i in range(pairs):
    r, s = last_json("%s/recv.%d" % (d, i)), last_json("%s/send.%d" % (d, i))
    if not r or r.get("received") != n or r.get("duplicates") or r.get("corrupt"):
        bad.append("pair %d receiver: %s" % (i, r or open("%s/recv.%d" % (d, i)).read()))
    if not s or s.get("msgs_acked") != n:
        bad.append("pair %d sender: %s" % (i, s or open("%s/send.%d" % (d, i)).read()))
r = last_json(d + "/recv.shared")
if not r or r.get("received") != shared * nsh or r.get("duplicates") or r.get("corrupt"):
    bad.append("shared receiver: %s" % r)
for j in range(shared):
    s = last_json("%s/send.shared.%d" % (d, j))
    if not s or s.get("msgs_acked") != nsh:
        bad.append("shared sender %d: %s" % (j, s))
for b in bad:
    print(b)
EOF
if [[ -s $WORKDIR/verdict ]]; then
	head -n 20 "$WORKDIR/verdict" | while read -r line; do log "  $line"; done
	fail "$(wc -l <"$WORKDIR/verdict") endpoints did not get everything intact"
fi
assert_eq "processes that failed" 0 "$failed"
log "ok: all $((PAIRS * N + SHARED * NS_SHARED)) messages verified at their receivers"

snap "$NS_A" A1
snap "$NS_B" B1
TOTAL=$((PAIRS * N + SHARED * NS_SHARED))
assert_eq "sender netns msg_tx" "$TOTAL" "$(delta A1 A0 msg_tx)"
assert_eq "sender netns msg_acked" "$TOTAL" "$(delta A1 A0 msg_acked)"
assert_eq "receiver netns msg_rx" "$TOTAL" "$(delta B1 B0 msg_rx)"
assert_eq "connections created (sender netns)" $((PAIRS + SHARED)) "$(delta A1 A0 conn_created)"
assert_eq "connections created (receiver netns)" $((PAIRS + SHARED)) "$(delta B1 B0 conn_created)"
assert_eq "connections failed" 0 "$(delta A1 A0 conn_failed)"
pass "$TOTAL messages over $((PAIRS + SHARED)) connections in $SECS s"
