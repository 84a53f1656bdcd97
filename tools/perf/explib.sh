#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# explib.sh - what the fabric experiments (spray_fct.sh, cc_fct.sh) share;
# sourced, after REPO, PERF_DIR, RATE, SIZE and OUT are set.  Runs as root
# in the test VM.  Defines: log, exp_setup MODPARAMS, cpu_ticks,
# run NAME ARGS... (one workload.sh workload; ROWS gets
# "NAME RC CPU%", $OUT/NAME.ctr MPDT's counters it moved),
# exp_fabric, param_all, with_params, mptcp_endpoints, exp_figures ARGS....

ROWS=()

log() {
	printf '[%s] %s\n' "$(date +%T)" "$*" >&2
}

MPDT_CLI=$REPO/tools/mpdt/mpdt

# shellcheck source=selftests/net/fabric.sh
. "$REPO/selftests/net/fabric.sh"
# shellcheck source=tools/perf/workload.sh
. "$PERF_DIR/workload.sh"

_exp_cleanup() {
	fabric_destroy
	sleep 1
	rmmod mpdt 2>/dev/null
}

# exp_setup MODPARAMS: load MPDT with MODPARAMS (unloading a copy left by
# an earlier step: the parameters matter); the fabric goes at exit.
exp_setup() {
	local i
	mkdir -p "$OUT" || return 1
	modprobe -a udp_tunnel ip6_udp_tunnel veth sch_netem || return 1
	for ((i = 0; i < 50; i++)); do
		lsmod | grep -q '^mpdt ' || break
		rmmod mpdt 2>/dev/null || sleep 0.2
	done
	# shellcheck disable=SC2086 # parameters are words
	insmod "$REPO/net/mpdt/mpdt.ko" $1 || return 1
	trap _exp_cleanup EXIT
}

# exp_fabric: the 2x4x4 fabric at RATE, DELAY ms per host link (default
# 1), its leaves EV-aware as PRIME's switches are (fabric_ev_routing: EV
# v < 4 leaves on the uplink to spine v + 1, every other EV is hashed).
# MPDT stays at the module's defaults in every host: PRIME is not told of
# the uplinks (prime-uplinks 0); a row that tells it sets prime-uplinks 4
# with with_params.
exp_fabric() {
	FABRIC_QUIET=1 fabric_create 2 4 4 "$RATE" "${DELAY:-1}" || return 1
	fabric_ev_routing "$(cat /sys/module/mpdt/parameters/entropy_base)" 4
}

# param_all NAME VALUE...: "mpdt param set" in every host's netns.
param_all() {
	local ns
	for ns in "${FABRIC_HOST_NS[@]}"; do
		"$MPDT_CLI" -n "$ns" param set "$@" >/dev/null || return 1
	done
}

# with_params "NAME VALUE..." CMD...: CMD (a run of a row that is not the
# module's defaults: a hand-tuned set, PRIME told of the uplinks) with
# those parameters set in every host, then the values before put back.
# If none of them differs from what the hosts have (the defaults caught
# up with the set), CMD does not run and a line says so: such a row is
# printed only where it still differs.
with_params() {
	local spec=$1 ns=${FABRIC_HOST_NS[0]} set=() before=() names=() k n v rc=0
	local -A cur=()
	read -ra set <<<"$spec"
	shift
	for ((k = 0; k < ${#set[@]}; k += 2)); do
		names+=("${set[k]}")
	done
	while read -r n v; do
		cur[$n]=$v
	done < <("$MPDT_CLI" -n "$ns" param show "${names[@]}")
	for ((k = 0; k < ${#set[@]}; k += 2)); do
		[[ -n ${cur[${set[k]}]+x} ]] ||
			{ log "with_params: no parameter ${set[k]}"; return 1; }
		[[ ${cur[${set[k]}]} == "${set[k + 1]}" ]] ||
			before+=("${set[k]}" "${cur[${set[k]}]}")
	done
	if ((${#before[@]} == 0)); then
		log "the hosts have $spec already: no row for $*"
		return 0
	fi
	param_all "${set[@]}" || return 1
	"$@" || rc=$?
	param_all "${before[@]}" || rc=1
	return "$rc"
}

# cpu_ticks: busy and total jiffies of the guest so far (/proc/stat).
cpu_ticks() {
	awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i
		print t - $5 - $6, t }' /proc/stat
}

# run NAME WORKLOAD-ARGS...: one workload into $OUT/NAME; a row in ROWS
# with how busy the guest's CPUs were meanwhile (the emulated fabric's
# switches run on them too: near 100%, the CPU, not the network, is the
# limit).  $OUT/NAME.ctr gets what MPDT's counters moved meanwhile.
run() {
	local name=$1 rc=0 b0 t0 b1 t1 before
	shift
	log "$name: $*"
	before=$(wl_mpdt_counters "${FABRIC_HOST_NS[@]}")
	read -r b0 t0 < <(cpu_ticks)
	wl_main -q -r "$RATE" -s "$SIZE" -o "$OUT/$name" --label "$name" \
		-t 300 "$@" >"$OUT/$name.json" 2>"$OUT/$name.err" || rc=$?
	read -r b1 t1 < <(cpu_ticks)
	awk 'NR == FNR { b[$1] = $2; next } $2 != b[$1] { print $1, $2 - b[$1] }' \
		<(echo "$before") <(wl_mpdt_counters "${FABRIC_HOST_NS[@]}") \
		>"$OUT/$name.ctr"
	ROWS+=("$name $rc $(((b1 - b0) * 100 / (t1 - t0 + 1)))")
	log "$name: $(tail -n 1 "$OUT/$name.json")"
}

# Every host gets a second..fourth address as MPTCP subflow endpoints:
# four 5-tuples per connection, hashed onto (up to) four spines.
mptcp_endpoints() {
	local l i k a
	for ((l = 1; l <= 2; l++)); do
		for ((i = 1; i <= 4; i++)); do
			fabric_exec "h$l-$i" ip mptcp limits set subflow 4 add_addr_accepted 4
			for k in 3 4 5; do
				a=10.$l.$i.$k
				fabric_exec "h$l-$i" ip addr add "$a/24" dev eth0
				fabric_exec "h$l-$i" ip mptcp endpoint add "$a" dev eth0 subflow
			done
		done
	done
}

# exp_figures ARGS...: tools/perf/figures.py ARGS, the PNGs beside the
# tables (it prints their paths); a failure (no python3-matplotlib) is
# only a warning, the experiment's exit status stays its own.
exp_figures() {
	python3 "$PERF_DIR/figures.py" "$@" ||
		log "warning: tools/perf/figures.py failed (exit $?): figures missing (python3-matplotlib installed?)"
	return 0
}
