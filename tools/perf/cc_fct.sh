#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cc_fct.sh - the congestion-control experiments (run as root in the test
# VM, with the module and tools built), on selftests/net/fabric.sh's
# 2 leaves x 4 hosts x 4 spines at 10 Mbit/s, every MPDT congestion control
# beside TCP and MPTCP (4 subflows) in one VM run:
#   incast    7 -> 1, 1 MiB per flow: aggregate goodput, Jain's index of
#             the steady rates, the bottleneck queue (the receiver's leaf
#             port) sampled over time (mean and max backlog), its drops
#             and when they happened;
#   oversub   permutation (8 flows of 1 MiB) with each leaf's uplinks cut
#             to one spine (4:1): max FCT / the oversubscribed ideal
#             (4 flows share a 10 Mbit/s uplink: 4 x size / rate);
#   partial   MCC's Figure 1 case: 3 hosts of leaf 1 -> leaf 2, one of the
#             4 uplinks at half rate: goodput / the 30 Mbit/s offered,
#             CE marks, the senders' final windows;
#   loss      the permutation on a lossless fabric and on one with 1%
#             random loss on every link and direction (FABRIC_LOSS_PCT):
#             goodput with loss / goodput without.
# Prints one table per experiment; the JSON stays in $OUT (report-KIND.json:
# every run of one table, the incast's queue samples included).  While each
# MPDT run goes, the mpdt:mpdt_cwnd tracepoint is captured into
# NAME.cwnd.trace when tracefs has the module's events.  Figures
# (tools/perf/figures.py; skipped with a warning without matplotlib):
# queue-incast.png, the bottleneck's backlog over time, and cwnd-NAME.png,
# every connection's window over time.
#
#   make module tools && tools/testing/vm/run.sh -t 2400 -- tools/perf/cc_fct.sh
#
# MPDT runs with the module's defaults, only the algorithms chosen by
# name.  One more row, incast-tuned-CC, is not the defaults: the incast
# with the hand-tuned set the experiment used before MPDT measured its
# path (CC_TUNED, in every host's netns, then put back; run only if it
# still differs from the defaults: explib.sh's with_params), named in a
# note under the incast's table.
#
# Environment: CC_EXPERIMENTS (default "incast oversub partial loss"),
# CC_LIST (default "fixed strack smartt mcc"), CC_LBS (load balancing for
# incast, default "oblivious reps"), CC_OUT (default
# $MPDT_RESULTS_DIR/cc_fct or /tmp/cc_fct), CC_MPDT_PARAMS (insmod
# parameters, below), CC_TUNED ("mpdt param set" arguments of the
# incast-tuned row, default below; empty: no such row), CC_TUNED_CC (its
# congestion control, default mcc; its LB is the first of CC_LBS).
set -uo pipefail

PERF_DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$PERF_DIR/../.." && pwd)
RATE=10
SIZE=1M
EXPERIMENTS=${CC_EXPERIMENTS:-incast oversub partial loss}
CCS=${CC_LIST:-fixed strack smartt mcc}
LBS=${CC_LBS:-oblivious reps}
OUT=${CC_OUT:-${MPDT_RESULTS_DIR:-/tmp}/cc_fct}
# The module's defaults: every connection measures the fabric's base RTT
# and rate, and MCC counts its window in chunks of an eighth of that BDP.
# CC_MPDT_PARAMS sets insmod parameters for every run (default none).
MPDT_PARAMS=${CC_MPDT_PARAMS-}
# The incast-tuned row: the set Documentation/perf.rst's hand-tuned tables
# were measured with (a base RTT of 20 ms, a 50 ms RTO floor, MCC's window
# in chunks of the workload's 8 KB messages), with MCC, whose chunks are
# part of it.
TUNED=${CC_TUNED-base-rtt-us 20000 rto-min-us 50000 mcc-chunk-bytes 8192}
TUNED_CC=${CC_TUNED_CC:-mcc}
MSG=8K

# shellcheck source=tools/perf/explib.sh
. "$PERF_DIR/explib.sh"

# sample_queue NODE DEV FILE &: "time backlog drops" lines (time in
# CLOCK_REALTIME seconds, as mpdt-perf's; backlog as tc prints it, 47K
# for 47 KiB), until killed: the backlog
# from tc every 0.2 s (cheap), the drops, which the eBPF marker counts,
# from fabric_queue_stats every second (a python start: costly in TCG).
sample_queue() {
	local ns i=0 drops=0
	ns=$(fabric_ns "$1")
	while :; do
		if ((i++ % 5 == 0)); then
			drops=$(fabric_queue_stats "$1" "$2" |
				python3 -c 'import json, sys; print(json.load(sys.stdin)["drops"])')
		fi
		echo "$(date +%s.%N) $(tc -n "$ns" -s qdisc show dev "$2" |
			awk '$1 == "backlog" { sub("b$", "", $2); print $2; exit }') $drops" >>"$3"
		sleep 0.2
	done
}

# The windows over time: mpdt:mpdt_cwnd (net/mpdt/trace.h) captured during
# each MPDT run into NAME.cwnd.trace (tracefs' trace format), if tracefs
# has the module's events; REPORTS and CWND_TRACES: what figures.py plots.
TRACEFS=/sys/kernel/tracing
CWND_TRACE=''
CWND_TRACES=()
REPORTS=()

# cwnd_trace_start: the trace buffer emptied, mpdt_cwnd enabled; false, and
# said once, if tracefs or the event is missing.
cwnd_trace_start() {
	if [[ -z $CWND_TRACE ]]; then
		CWND_TRACE=0
		[[ -d $TRACEFS/events ]] ||
			mount -t tracefs nodev "$TRACEFS" 2>/dev/null
		if [[ -w $TRACEFS/events/mpdt/mpdt_cwnd/enable ]]; then
			CWND_TRACE=1
		else
			log "no $TRACEFS/events/mpdt/mpdt_cwnd: no cwnd traces or figures"
		fi
	fi
	[[ $CWND_TRACE == 1 ]] || return 1
	: 2>/dev/null >"$TRACEFS/trace"
	echo 1 2>/dev/null >"$TRACEFS/events/mpdt/mpdt_cwnd/enable"
}

# cwnd_trace_stop FILE: mpdt_cwnd disabled, the buffer saved into FILE.
cwnd_trace_stop() {
	echo 0 2>/dev/null >"$TRACEFS/events/mpdt/mpdt_cwnd/enable"
	cat "$TRACEFS/trace" >"$1" 2>/dev/null && CWND_TRACES+=("$1")
}

# ce_marks: CE marks the hosts of leaf 2 have received so far.
ce_marks() {
	wl_mpdt_counter rx_ce "$(fabric_host 2 1)" "$(fabric_host 2 2)" \
		"$(fabric_host 2 3)" "$(fabric_host 2 4)"
}

# owd_start NAME: the one-way delay from host 2-1 to host 1-1 measured
# (owd.py) into NAME.owd until owd_stop.  In the incast 2-1 receives, so
# its uplink and 1-1's downlink carry acknowledgments only: what the path
# adds to its idle delay is the emulation's (the guest's CPUs forwarding
# through the switches), which every transport reads as RTT.
OWD_PIDS=()
owd_start() {
	ip netns exec "$(fabric_ns "$(fabric_host 1 1)")" \
		python3 "$PERF_DIR/owd.py" recv 7999 "$OUT/$1.owd" &
	OWD_PIDS=($!)
	sleep 0.5
	ip netns exec "$(fabric_ns "$(fabric_host 2 1)")" \
		python3 "$PERF_DIR/owd.py" send "$(fabric_addr 1 1)" 7999 20 &
	OWD_PIDS+=($!)
}

owd_stop() {
	local pid
	# ip netns exec execs python3: the pids are the tools', and the
	# receiver writes its summary on SIGTERM.
	for pid in "${OWD_PIDS[@]}"; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	OWD_PIDS=()
}

# owd_report NAME...: one line per run of its one-way delay percentiles.
owd_report() {
	local name
	echo "one-way delay 2-1 -> 1-1 (acknowledgments only; ms):"
	for name in "$@"; do
		[[ -s $OUT/$name.owd ]] || continue
		python3 "$PERF_DIR/owd.py" show "$name" "$OUT/$name.owd"
	done
}

# ccrun NAME ARGS...: run() with the CE marks counted (NAME.ce), an MPDT
# run's window changes traced (NAME.cwnd.trace) and, if SAMPLE_QUEUE=1, the
# queue in front of host 2-1 sampled (NAME.queue) and the emulation's delay
# measured (NAME.owd): only for the incast, as sampling costs the guest CPU
# time.
ccrun() {
	local name=$1 spid='' ce0 trace=''
	shift
	ce0=$(ce_marks)
	if [[ ${SAMPLE_QUEUE:-0} == 1 ]]; then
		sample_queue "$(fabric_leaf 2)" h1 "$OUT/$name.queue" &
		spid=$!
		owd_start "$name"
	fi
	if [[ " $* " == *" -P mpdt "* ]] && cwnd_trace_start; then
		trace=$OUT/$name.cwnd.trace
	fi
	run "$name" -m "$MSG" "$@"
	[[ -z $trace ]] || cwnd_trace_stop "$trace"
	if [[ -n $spid ]]; then
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		owd_stop
	fi
	echo $(($(ce_marks) - ce0)) >"$OUT/$name.ce"
}

# report KIND [PREFIX]: the table of one experiment (cc_report.py), over
# the runs whose names start with PREFIX (default KIND).
report() {
	local kind=$1 prefix=${2:-$1} row names=()
	for row in "${ROWS[@]}"; do
		[[ $row == "$prefix"-* ]] && names+=("${row%% *}")
	done
	REPORTS+=("$OUT/report-$kind.json")
	python3 "$PERF_DIR/cc_report.py" --out "$OUT" --rate "$RATE" \
		--size "$SIZE" --json "$OUT/report-$kind.json" "$kind" "${names[@]}"
}

# ccs EXP LB WORKLOAD...: the workload over MPDT with each CC and LB.
ccs() {
	local exp=$1 lb=$2 cc
	shift 2
	for cc in $CCS; do
		ccrun "$exp-$cc-$lb" -P mpdt --lb "$lb" --cc "$cc" "$@"
	done
}

# mptcp_once: MPTCP's subflow endpoints, on the first call per fabric.
mptcp_once() {
	[[ ${MPTCP_FABRIC:-} == "$FABRIC_PREFIX" ]] && return 0
	mptcp_endpoints
	MPTCP_FABRIC=$FABRIC_PREFIX
}

exp_incast() {
	local lb dst h src=() row names=(incast-idle)
	# The fabric's delay with nothing else running, for comparison.
	owd_start incast-idle
	sleep 10
	owd_stop
	dst=$(wl_fabric_host 2 1)
	for h in "1 1" "1 2" "1 3" "1 4" "2 2" "2 3" "2 4"; do
		# shellcheck disable=SC2086 # two words: leaf and host
		src+=("$(wl_fabric_host $h)")
	done
	for lb in $LBS; do
		SAMPLE_QUEUE=1 ccs incast "$lb" incast "$dst" "${src[@]}"
	done
	if [[ -n $TUNED ]]; then
		lb=${LBS%% *}
		SAMPLE_QUEUE=1 with_params "$TUNED" ccrun "incast-tuned-$TUNED_CC" \
			-P mpdt --lb "$lb" --cc "$TUNED_CC" incast "$dst" "${src[@]}"
	fi
	SAMPLE_QUEUE=1 ccrun incast-tcp -P tcp incast "$dst" "${src[@]}"
	mptcp_once
	SAMPLE_QUEUE=1 ccrun incast-mptcp -P mptcp incast "$dst" "${src[@]}"
	report incast
	for row in "${ROWS[@]}"; do
		[[ $row == "incast-tuned-$TUNED_CC "* ]] &&
			echo "incast-tuned-$TUNED_CC: not the defaults: $TUNED_CC, ${LBS%% *}, with $TUNED"
	done
	for row in "${ROWS[@]}"; do
		[[ $row == incast-* ]] && names+=("${row%% *}")
	done
	owd_report "${names[@]}"
}

exp_oversub() {
	fabric_oversubscribe 1 >/dev/null || return 1
	ccs oversub oblivious fabric-permutation
	ccrun oversub-tcp -P tcp fabric-permutation
	mptcp_once
	ccrun oversub-mptcp -P mptcp fabric-permutation
	fabric_oversubscribe 4 >/dev/null || return 1
	report oversub
}

# MCC's Figure 1 case.
exp_partial() {
	local i pairs=()
	for ((i = 1; i <= 3; i++)); do
		pairs+=("$(fabric_host 1 "$i"),$(fabric_host 2 "$i"),$(fabric_addr 2 "$i")")
	done
	fabric_link_rate 1 2 $((RATE / 2)) up >/dev/null || return 1
	SIZE=2M ccs partial reps pairs "${pairs[@]}"
	SIZE=2M ccrun partial-tcp -P tcp pairs "${pairs[@]}"
	mptcp_once
	SIZE=2M ccrun partial-mptcp -P mptcp pairs "${pairs[@]}"
	fabric_restore 1 2 >/dev/null || return 1
	report partial
}

exp_loss() {
	ccs loss-clean oblivious fabric-permutation
	ccrun loss-clean-tcp -P tcp fabric-permutation
	mptcp_once
	ccrun loss-clean-mptcp -P mptcp fabric-permutation
	fabric_destroy
	FABRIC_LOSS_PCT=1 exp_fabric || return 1
	ccs loss-1pct oblivious fabric-permutation
	ccrun loss-1pct-tcp -P tcp fabric-permutation
	mptcp_once
	ccrun loss-1pct-mptcp -P mptcp fabric-permutation
	report loss
}

main() {
	local e rc=0
	exp_setup "$MPDT_PARAMS" || exit 1
	exp_fabric || exit 1
	log "results in $OUT; 2x4x4 fabric, $RATE Mbit/s; mpdt: ${MPDT_PARAMS:-module defaults}"
	for e in $EXPERIMENTS; do
		"exp_$e"
		rc=$?
	done
	if ((${#REPORTS[@]} + ${#CWND_TRACES[@]})); then
		exp_figures auto --prefix "cc_fct.sh (2x4x4 fabric, $RATE Mbit/s)" \
			"${REPORTS[@]}" "${CWND_TRACES[@]}"
	fi
	return "$rc"
}

main "$@"
