#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric_cc.sh - MPDT congestion control on the emulated leaf-spine fabric
# (selftests/net/fabric.sh: 2 leaves x 4 hosts x 4 spines, 10 Mbit/s),
# with mpdt-perf workloads (tools/perf/workload.sh):
#   incast: 7 hosts send 1 MiB each (8 KiB messages) to one host, with
#           strack and smartt: every flow completes intact, and the
#           receiver counts CE marks (7 windows of a BDP or more, started
#           together, queue far beyond the marking threshold);
#   oversubscribed: a permutation (8 flows) with every leaf's uplinks cut
#           to one spine (4:1), strack and smartt: every flow completes
#           intact and none is starved (slowest steady rate >= 0.2 x the
#           mean);
#   partial: MCC's Figure 1 case: 3 hosts of leaf 1 send to leaf 2 over
#           4 uplinks of which one runs at half rate: the slow path is
#           congested, the fabric as a whole is not (30 Mbit/s offered, 35
#           of uplinks).  mcc (with reps), smartt and strack: every flow
#           completes intact and the slow path marks (CE marks > 0).
# Goodput, Jain's index and MCC's final windows depend on how much CPU
# the 2-vCPU TCG guest gets (the emulated switches run on it too): they
# are printed as "measure:" lines and judged against the papers' targets
# by the benchmarks (tools/perf/spread.py over runs of this test, and
# tools/perf/cc_fct.sh), not here: Documentation/testing.rst,
# "Determinism", has the spreads measured.
# PARTS (environment) picks parts: "incast oversub partial" by default.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric.sh"
source "$REPO_ROOT/tools/perf/workload.sh"

RATE=10
PARTS=${PARTS:-incast oversub partial}
CLI="$REPO_ROOT/tools/mpdt/mpdt"
PERF="$REPO_ROOT/tools/perf/mpdt-perf"
PORT=7700

require_root
[[ -x $CLI ]] || skip "no $CLI (run 'make tools')"
[[ -x $PERF ]] || skip "no $PERF (run 'make tools')"
# The configured base RTT is what the guest's RTT is under load, so that
# the windows the papers size from the BDP can fill the links: 9 ms on the
# idle fabric, about 20 ms with 10 Mbit/s crossing it (incast, the
# oversubscribed permutation), about 30 ms with 30 Mbit/s (partial: set
# per netns there) once TCG's vCPUs are busy forwarding.
BASE_RTT_US=20000
PARTIAL_RTT_US=30000
mpdt_load link_mbps=$RATE base_rtt_us=$BASE_RTT_US rto_min_us=50000 \
	max_retries=20
fabric_create 2 4 4 "$RATE" 1
fabric_cleanup_on_exit
fabric_ev_routing "$(cat /sys/module/mpdt/parameters/entropy_base)" 4
for ns in "${FABRIC_HOST_NS[@]}"; do
	"$CLI" -n "$ns" param set prime-uplinks 4 >/dev/null ||
		fail "cannot set prime-uplinks"
done

# workload NAME ARGS...: one mpdt-perf workload; RES = its result
# directory (every process's JSON).
workload() {
	local name=$1 rc=0
	shift
	PORT=$((PORT + 1))
	RES=$WORKDIR/$name
	wl_main -q -r "$RATE" -p "$PORT" -o "$RES" -t 200 "$@" \
		>"$RES.json" 2>"$RES.err" || rc=$?
	log "$name: $(tail -n 1 "$RES.json")"
	[[ $rc == 0 ]] || fail "$name: flows failed: $(cat "$RES.err")"
}

# The workload's goodput (Mbit/s), Jain's index of the flows' steady
# rates and the slowest over the mean (tools/perf/steady.py).
rates() {
	# shellcheck disable=SC2034 # filled by json_load, by name
	local -A steady
	python3 "$REPO_ROOT/tools/perf/steady.py" "$RES" >"$RES.steady" ||
		fail "steady.py failed on $RES"
	json_load steady "$RES.steady" || fail "no JSON from steady.py: $(<"$RES.steady")"
	echo "$(jv steady goodput_mbit) $(jv steady jain) $(jv steady min_over_mean)"
}

incast() {
	local cc goodput jain worst dst src=() ce0 ce1
	dst=$(wl_fabric_host 2 1)
	for h in "1 1" "1 2" "1 3" "1 4" "2 2" "2 3" "2 4"; do
		# shellcheck disable=SC2086 # two words: leaf and host
		src+=("$(wl_fabric_host $h)")
	done
	for cc in strack smartt; do
		ce0=$(stat_get "$(fabric_host 2 1)" rx_ce)
		workload "incast-$cc" -P mpdt --lb oblivious --cc "$cc" -s 1M -m 8K \
			incast "$dst" "${src[@]}"
		ce1=$(stat_get "$(fabric_host 2 1)" rx_ce)
		read -r goodput jain worst < <(rates)
		log "incast $cc: goodput $goodput Mbit/s, Jain $jain, slowest/mean $worst"
		assert_gt "incast $cc: CE marks at the receiver" 0 $((ce1 - ce0))
		measure "incast_${cc}_goodput_pct" "$(pct "$goodput" "$RATE")"
		measure "incast_${cc}_jain" "$jain"
		measure "incast_${cc}_min_over_mean" "$worst"
	done
}

# pct PART WHOLE: 100 * PART / WHOLE, one decimal.
pct() {
	awk -v p="$1" -v w="$2" 'BEGIN { printf "%.1f\n", 100 * p / w }'
}

oversub() {
	local cc goodput jain worst
	fabric_oversubscribe 1 >/dev/null || fail "cannot oversubscribe"
	for cc in strack smartt; do
		workload "oversub-$cc" -P mpdt --lb oblivious --cc "$cc" -s 1M -m 8K \
			fabric-permutation
		read -r goodput jain worst < <(rates)
		log "oversubscribed $cc: goodput $goodput Mbit/s, Jain $jain, slowest/mean $worst"
		measure "oversub_${cc}_goodput_mbit" "$goodput"
		# Starvation, not fairness: 0.73-0.99 measured (Jain's index and
		# the papers' 0.5 are the benchmark's: tools/perf/spread.py).
		measure "oversub_${cc}_min_over_mean" "$worst" '>=' 0.2
	done
	fabric_oversubscribe 4 >/dev/null || fail "cannot restore the spines"
}

# ce_marks: CE marks the hosts of leaf 2 have received so far.
ce_marks() {
	wl_mpdt_counter rx_ce "$(fabric_host 2 1)" "$(fabric_host 2 2)" \
		"$(fabric_host 2 3)" "$(fabric_host 2 4)"
}

# MCC counts its window in messages of up to mcc-chunk-bytes (by default
# an eighth of the measured BDP, at most 64 KB), at most two BDPs; the
# test sets the base RTT and 8 KB chunks so that the window it expects
# (4..9 chunks) does not depend on what the connection measures.
MCC_CHUNK=8192
MCC_START=$(((RATE * PARTIAL_RTT_US / 8) / MCC_CHUNK * MCC_CHUNK))

partial() {
	local cc goodput jain worst ce0 ce1 cap pairs=() i
	for ((i = 1; i <= 3; i++)); do
		"$CLI" -n "$(fabric_host 1 "$i")" param set mcc-chunk-bytes \
			"$MCC_CHUNK" base-rtt-us "$PARTIAL_RTT_US" >/dev/null ||
			fail "cannot set mcc-chunk-bytes"
	done
	fabric_link_rate 1 2 $((RATE / 2)) up >/dev/null || fail "cannot slow the link"
	cap=$((3 * RATE))
	for ((i = 1; i <= 3; i++)); do
		pairs+=("$(fabric_host 1 "$i"),$(fabric_host 2 "$i"),$(fabric_addr 2 "$i")")
	done
	for cc in mcc smartt strack; do
		ce0=$(ce_marks)
		workload "partial-$cc" -P mpdt --lb reps --cc "$cc" -s 2M \
			-m "$MCC_CHUNK" pairs "${pairs[@]}"
		ce1=$(ce_marks)
		read -r goodput jain worst < <(rates)
		log "partial $cc: goodput $goodput Mbit/s of $cap, Jain $jain, CE marks $((ce1 - ce0)), final windows $(cwnds)"
		assert_gt "partial $cc: the slow path marked packets" 0 \
			"$((ce1 - ce0))"
		measure "partial_${cc}_goodput_pct" "$(pct "$goodput" "$cap")"
		measure "partial_${cc}_ce_marks" "$((ce1 - ce0))"
		# MCC's start is $MCC_START bytes: a mean at or above it means
		# the window was never cut for good (the paper's claim).
		measure "partial_${cc}_mean_cwnd" \
			"$(cwnds | tr ' ' '\n' | awk '{ t += $1 } END { print int(t / NR) }')"
	done
	log "partial: MCC's window starts at $MCC_START bytes"
	fabric_restore 1 2 >/dev/null || fail "cannot restore the link"
}

# The senders' final windows (MPDT_INFO's cwnd in mpdt-perf's JSON).
cwnds() {
	python3 - "$RES" <<'PY'
import glob, json, sys
w = []
for f in sorted(glob.glob(sys.argv[1] + "/client-*.json")):
    for line in open(f):
        if line.startswith("{"):
            for fl in json.loads(line).get("flows", []):
                w.append(str(fl.get("cwnd", 0)))
print(" ".join(w))
PY
}

for part in $PARTS; do
	"$part"
done
pass
