#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# spray_fct.sh - the load-balancing experiment (run as root in the test VM,
# with the module and tools built): on selftests/net/fabric.sh's 2 leaves x
# 4 hosts x 4 spines at 10 Mbit/s (1 ms host link delay), a permutation (host I of leaf 1 <-> host
# I of leaf 2, 8 flows of 4 MiB) over TCP, MPTCP with 4 subflows, and MPDT
# with each load-balancing policy, all in one VM run, plus one MPDT flow
# alone on the idle fabric.  Prints a table of max FCT / ideal (FCT from
# the first byte handed to the socket to the last byte received, inside
# mpdt-perf; ideal = 4 MiB / 10 Mbit/s) and leaves the JSON in $OUT, with
# fct_cdf.png, the CDF of the flows' FCT / ideal per workload
# (tools/perf/figures.py; skipped with a warning without matplotlib).
#
#   make module tools && tools/testing/vm/run.sh -t 1800 -- tools/perf/spray_fct.sh
#
# MPDT runs with the module's defaults, only the policy chosen by name: it
# measures the fabric's base RTT and rate itself.  Two more rows are not
# the defaults, each run only where its set still differs from them (in
# every host's netns, then put back; explib.sh's with_params) and named in
# the table's notes: mpdt-prime-told, PRIME told that the leaves route
# EVs 0-3 to spines 1-4 (prime-uplinks 4, as PRIME §III-D's switches
# assume), and mpdt-tuned, oblivious spraying with the hand-tuned set the
# experiment used before MPDT measured its path, derived for the fabric
# at hand, to show what the defaults leave on the table.
#
# Environment: SPRAY_RATE (link Mbit/s, default 10), SPRAY_SIZE (default
# 4M), SPRAY_LBS (default "ecmp oblivious bitmap reps prime paralet"),
# SPRAY_CC (MPDT congestion control, default: the module's), SPRAY_DELAY
# (host link delay in ms, default 1), SPRAY_MPDT_PARAMS (insmod
# parameters, default none), SPRAY_TUNED ("mpdt param set" arguments of
# the mpdt-tuned row, with cc; default below; empty: no such row),
# SPRAY_PRIME_TOLD (those of mpdt-prime-told, default "prime-uplinks 4";
# empty, or prime not in SPRAY_LBS: no such row), SPRAY_OUT (results,
# default $MPDT_RESULTS_DIR/spray_fct or /tmp/spray_fct).
set -uo pipefail

PERF_DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$PERF_DIR/../.." && pwd)
RATE=${SPRAY_RATE:-10}
SIZE=${SPRAY_SIZE:-4M}
DELAY=${SPRAY_DELAY:-1}
LBS=${SPRAY_LBS:-ecmp oblivious bitmap reps prime paralet}
CC=${SPRAY_CC:-}
MPDT_PARAMS=${SPRAY_MPDT_PARAMS-}
PRIME_TOLD=${SPRAY_PRIME_TOLD-prime-uplinks 4}
OUT=${SPRAY_OUT:-${MPDT_RESULTS_DIR:-/tmp}/spray_fct}
# shellcheck source=tools/perf/explib.sh
. "$PERF_DIR/explib.sh"

table() {
	python3 - "$OUT" "$RATE" "${ROWS[@]}" <<'PY'
import json, sys
out, rate, rows = sys.argv[1], sys.argv[2], sys.argv[3:]
print("\n%-16s %6s %10s %8s %8s %6s %6s %5s  %s" % (
    "workload", "flows", "max_fct_s", "x_ideal", "mean_x", "retx", "spur%",
    "cpu%", "status"))
for row in rows:
    name, rc, cpu = row.rsplit(" ", 2)
    try:
        with open("%s/%s.json" % (out, name)) as f:
            s = json.loads(f.read().strip().splitlines()[-1])
    except (OSError, ValueError, IndexError):
        s = {}
    def num(key, fmt):
        return "-" if s.get(key) is None else fmt % s[key]
    ctr = {}
    try:
        with open("%s/%s.ctr" % (out, name)) as f:
            ctr = {k: int(v) for k, v in (l.split() for l in f)}
    except (OSError, ValueError):
        pass
    spur = ("%.1f" % (100.0 * ctr.get("rx_dup_data", 0) / ctr["tx_data"])
            if ctr.get("tx_data") else "-")
    status = "ok" if rc == "0" else "FAILED (%s)" % rc
    fct = s.get("fct_max_ms")
    print("%-16s %6s %10s %8s %8s %6s %6s %5s  %s" % (
        name, num("flows", "%d"), "-" if fct is None else "%.2f" % (fct / 1e3),
        num("ratio_max", "%.2f"), num("ratio_mean", "%.2f"),
        num("retransmits", "%d"), spur, cpu, status))
print("(x_ideal: FCT / (size / %s Mbit/s), the largest over the flows; "
      "mean_x: the mean;\n spur%%: MPDT's spurious retransmissions, DATA "
      "the receivers already had\n (rx_dup_data) per DATA sent (tx_data); "
      "cpu%%: the guest's CPUs busy during the run,\n switches included)"
      % rate)
PY
	local rc=$? row
	for row in "${ROWS[@]}"; do
		case ${row%% *} in
		mpdt-prime-told)
			echo "mpdt-prime-told: not the defaults: prime with $PRIME_TOLD" ;;
		mpdt-tuned)
			echo "mpdt-tuned: not the defaults: oblivious with $TUNED" ;;
		esac
	done
	return "$rc"
}

# The mpdt-tuned row's set, once the fabric is up: the hand-tuned one of
# 10 Mbit/s and 1 ms (base-rtt-us 9000, fixed-cwnd 48000), derived from
# the fabric as it follows from SPRAY_RATE and SPRAY_DELAY: its base RTT
# (fabric.sh's FABRIC_RTT_US: the four host-link delays and a full-size
# packet and its ACK serialized on the four hops; 9056 us at 10 Mbit/s and
# 1 ms) and a fixed window of 4.25 of its BDPs (48 KB there; about four
# BDPs as queueing and TCG's stalls stretch the RTT under load: two gave
# 1.8x ideal where four gave 1.5x), rto-min-us 50 ms.
tuned_set() {
	if [[ -n ${SPRAY_TUNED+x} ]]; then
		echo "$SPRAY_TUNED"
	else
		echo "cc fixed link-mbps $RATE base-rtt-us $FABRIC_RTT_US" \
			"fixed-cwnd $((FABRIC_BDP * 17 / 4)) rto-min-us 50000"
	fi
}

main() {
	local lb rc cc_args=()
	[[ -z $CC ]] || cc_args=(--cc "$CC")
	exp_setup "$MPDT_PARAMS" || exit 1
	exp_fabric || exit 1
	log "results in $OUT; 2x4x4 fabric, $RATE Mbit/s, $DELAY ms, flows of $SIZE; mpdt: ${MPDT_PARAMS:-module defaults}, cc ${CC:-default}"
	run mpdt-alone -P mpdt --lb oblivious "${cc_args[@]}" \
		pairs "$(fabric_host 1 1),$(fabric_host 2 1),$(fabric_addr 2 1)"
	run tcp -P tcp fabric-permutation
	for lb in $LBS; do
		run "mpdt-$lb" -P mpdt --lb "$lb" "${cc_args[@]}" \
			fabric-permutation
	done
	if [[ -n $PRIME_TOLD && " $LBS " == *" prime "* ]]; then
		with_params "$PRIME_TOLD" run mpdt-prime-told -P mpdt --lb prime \
			"${cc_args[@]}" fabric-permutation || return 1
	fi
	TUNED=$(tuned_set)
	if [[ -n $TUNED ]]; then
		with_params "$TUNED" run mpdt-tuned -P mpdt --lb oblivious \
			fabric-permutation || return 1
	fi
	mptcp_endpoints
	run mptcp -P mptcp fabric-permutation
	table
	rc=$?
	exp_figures fct -o "$OUT/fct_cdf.png" \
		--title "spray_fct.sh: FCT CDF, permutation on the 2x4x4 fabric, $RATE Mbit/s links, $SIZE per flow, MPDT cc ${CC:-default}" \
		"$OUT" "${ROWS[@]%% *}"
	return "$rc"
}

main "$@"
