#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# workload.sh - run one mpdt-perf workload across network namespaces: start
# a server in every destination namespace, start every client at one
# common instant, collect the JSON into a directory and run fct.py on it.
# Run as root, in the namespaces' network (the test VM).  See
# Documentation/perf.rst.
#
# usage: workload.sh [OPTIONS] PATTERN ARGS...
#
# Patterns (a HOST is NETNS,ADDR; ADDR may be IPv4 or IPv6):
#   pairs SRC_NS,DST_NS,DST_ADDR...  the flows, as given
#   permutation HOST...              host i sends to host (i + SHIFT) mod n;
#                                    SHIFT is n/2 unless --shift: with the
#                                    hosts of leaf 0 listed before those of
#                                    leaf 1, host i of leaf 0 sends to host i
#                                    of leaf 1 and back
#   incast DST_HOST SRC_HOST...      every source sends to DST_HOST (N->1)
#   fabric-permutation [LEAVES HOSTS]
#                                    hosts from selftests/net/fabric.sh
#                                    (source it and fabric_create first; the
#                                    default is the whole fabric, L and I are
#                                    1-based): host I of leaf L sends to host
#                                    I of the next leaf, the last leaf's to
#                                    leaf 1
#
# Options:
#   -P, --proto P      mpdt (default), tcp, mptcp, udp
#       --lb NAME      MPDT load balancing for the clients' connections
#       --cc NAME      MPDT congestion control
#   -s, --size BYTES   per flow (default 4M; K, M, G suffixes)
#   -m, --msg BYTES    message size (mpdt-perf's default if not given)
#   -f, --flows K      concurrent flows per pair (default 1)
#   -r, --rate-mbit R  host link rate, for the ideal FCT (default 10)
#   -p, --port PORT    server port (default 7471)
#   -o, --out DIR      results directory (default: a new one under /tmp)
#   -d, --delay S      start the clients S seconds after launching the first
#                      (default: 2 + 0.5 per client process)
#   -t, --timeout S    per process (default 120)
#       --shift K      permutation shift
#       --mptcpize     run a tcp workload's processes under mptcpize(8)
#       --udp-rate M   UDP clients pace at M Mbit/s (default: free-running)
#       --label TEXT   title for fct.py
#       --perf PATH    the mpdt-perf binary (default: beside this script)
#   -q, --quiet        only fct.py's JSON summary line
#
# Exit status: fct.py's (0 every flow complete and intact, 1 not), 2 usage.
#
# Sourced (". workload.sh"), it only defines functions: wl_main ARGS... runs
# a workload in the current shell; wl_fabric_hosts [LEAVES HOSTS] prints the
# fabric's hosts as NETNS,ADDR words, leaf by leaf, and wl_fabric_host L I
# one of them (for incast and pairs).

WL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

wl_usage() {
	sed -n '/^# usage:/,/^# Exit status/p' "$WL_DIR/workload.sh" | sed 's/^# \{0,1\}//' >&2
	return 2
}

wl_log() {
	[[ ${WL_QUIET:-0} == 1 ]] || echo "workload: $*" >&2
}

_wl_need_fabric() {
	if ! declare -F fabric_host >/dev/null || ! declare -F fabric_addr >/dev/null; then
		echo "workload: fabric_host/fabric_addr are not defined: source selftests/net/fabric.sh" >&2
		return 2
	fi
}

# wl_fabric_host L I: NETNS,ADDR of host I of leaf L (1-based).
wl_fabric_host() {
	_wl_need_fabric || return 2
	printf '%s,%s\n' "$(fabric_host "$1" "$2")" "$(fabric_addr "$1" "$2")"
}

# wl_fabric_hosts [LEAVES HOSTS]: every fabric host as NETNS,ADDR, leaf by
# leaf (default: the fabric_create'd FABRIC_LEAVES x FABRIC_HOSTS).
wl_fabric_hosts() {
	local leaves=${1:-${FABRIC_LEAVES:-}} hosts=${2:-${FABRIC_HOSTS:-}} l i
	_wl_need_fabric || return 2
	[[ $leaves =~ ^[1-9][0-9]*$ && $hosts =~ ^[1-9][0-9]*$ ]] ||
		{ echo "workload: how many leaves and hosts? (no fabric_create)" >&2; return 2; }
	for ((l = 1; l <= leaves; l++)); do
		for ((i = 1; i <= hosts; i++)); do
			wl_fabric_host "$l" "$i"
		done
	done
}

# wl_mpdt_counters NETNS...: every MPDT counter (/proc/net/mpdt_stats)
# summed over the namespaces, as "name value" lines.
wl_mpdt_counters() {
	local ns
	for ns in "$@"; do
		ip netns exec "$ns" cat /proc/net/mpdt_stats 2>/dev/null
	done | awk '{ s[$1] += $2 } END { for (k in s) print k, s[k] }'
}

# wl_mpdt_counter NAME NETNS...: one of them (0 if none has it).
wl_mpdt_counter() {
	local name=$1
	shift
	wl_mpdt_counters "$@" |
		awk -v k="$name" '$1 == k { n = $2 } END { print n + 0 }'
}

# Fill WL_SRC/WL_DST/WL_ADDR (one entry per client process) from a pattern.
_wl_pairs_permutation() {
	local n=$# shift_by=${WL_SHIFT:-} i j
	local -a hosts=("$@")
	((n >= 2)) || { echo "workload: permutation needs 2 hosts or more" >&2; return 2; }
	[[ -n $shift_by ]] || shift_by=$((n / 2))
	((shift_by % n != 0)) || { echo "workload: shift $shift_by maps hosts to themselves" >&2; return 2; }
	for ((i = 0; i < n; i++)); do
		j=$(((i + shift_by) % n))
		WL_SRC+=("${hosts[i]%%,*}")
		WL_DST+=("${hosts[j]%%,*}")
		WL_ADDR+=("${hosts[j]#*,}")
	done
}

_wl_pairs_incast() {
	local dst=$1 h
	shift
	(($# >= 1)) || { echo "workload: incast needs a destination and sources" >&2; return 2; }
	for h in "$@"; do
		WL_SRC+=("${h%%,*}")
		WL_DST+=("${dst%%,*}")
		WL_ADDR+=("${dst#*,}")
	done
}

_wl_pairs_explicit() {
	local p rest
	for p in "$@"; do
		[[ $p == *,*,* ]] || { echo "workload: bad pair '$p' (SRC_NS,DST_NS,DST_ADDR)" >&2; return 2; }
		WL_SRC+=("${p%%,*}")
		rest=${p#*,}
		WL_DST+=("${rest%%,*}")
		WL_ADDR+=("${rest#*,}")
	done
}

# _wl_spawn NS CMD... &: CMD in NS, under mptcpize if asked.  Only ever in
# the background: it execs, so that $! is CMD's own pid (for kill).
_wl_spawn() {
	local ns=$1
	shift
	if [[ $WL_MPTCPIZE == 1 ]]; then
		exec ip netns exec "$ns" mptcpize run "$@"
	fi
	exec ip netns exec "$ns" "$@"
}

_wl_now_ns() {
	local t=${EPOCHREALTIME/,/.}
	echo "${t%.*}${t#*.}000"
}

wl_main() {
	local proto=mpdt lb='' cc='' size=4M msg='' flows=1 rate=10 port=7471
	local out='' delay='' timeout=120 label='' perf="$WL_DIR/mpdt-perf"
	local udp_rate='' pattern i j ns n pid rc=0 start_at deadline
	local -a common=() cargs=() sargs=() spids=() cpids=() servers=() counts=()
	local -A srv_idx=() srv_v6=()
	WL_SRC=() WL_DST=() WL_ADDR=() WL_MPTCPIZE=0 WL_SHIFT='' WL_QUIET=0

	while (($#)); do
		case $1 in
		-P | --proto) proto=${2:-}; shift ;;
		--lb) lb=${2:-}; shift ;;
		--cc) cc=${2:-}; shift ;;
		-s | --size) size=${2:-}; shift ;;
		-m | --msg) msg=${2:-}; shift ;;
		-f | --flows) flows=${2:-}; shift ;;
		-r | --rate-mbit) rate=${2:-}; shift ;;
		-p | --port) port=${2:-}; shift ;;
		-o | --out) out=${2:-}; shift ;;
		-d | --delay) delay=${2:-}; shift ;;
		-t | --timeout) timeout=${2:-}; shift ;;
		--shift) WL_SHIFT=${2:-}; shift ;;
		--mptcpize) WL_MPTCPIZE=1 ;;
		--udp-rate) udp_rate=${2:-}; shift ;;
		--label) label=${2:-}; shift ;;
		--perf) perf=${2:-}; shift ;;
		-q | --quiet) WL_QUIET=1 ;;
		-h | --help) wl_usage; return 2 ;;
		-*) echo "workload: unknown option $1" >&2; wl_usage; return 2 ;;
		*) break ;;
		esac
		shift || { wl_usage; return 2; }
	done
	(($# >= 1)) || { wl_usage; return 2; }
	pattern=$1
	shift
	case $pattern in
	pairs) _wl_pairs_explicit "$@" || return 2 ;;
	permutation) _wl_pairs_permutation "$@" || return 2 ;;
	incast) _wl_pairs_incast "$@" || return 2 ;;
	fabric-permutation)
		(($# == 0 || $# == 2)) || { wl_usage; return 2; }
		local -a fh
		mapfile -t fh < <(wl_fabric_hosts "$@")
		((${#fh[@]} >= 2)) || return 2
		# Host I of leaf L -> host I of leaf L+1: shift by one leaf.
		[[ -n $WL_SHIFT ]] || WL_SHIFT=${2:-$FABRIC_HOSTS}
		_wl_pairs_permutation "${fh[@]}" || return 2
		;;
	*) echo "workload: unknown pattern '$pattern'" >&2; wl_usage; return 2 ;;
	esac
	[[ -x $perf ]] || { echo "workload: $perf not built (make -C tools/perf)" >&2; return 2; }
	perf=$(cd "$(dirname "$perf")" && pwd)/$(basename "$perf")
	if [[ -z $out ]]; then
		out=$(mktemp -d "${TMPDIR:-/tmp}/workload.XXXXXX")
	else
		mkdir -p "$out"
		rm -f "$out"/*.json "$out"/*.err "$out"/*.ready
	fi
	n=${#WL_SRC[@]}
	[[ -n $delay ]] || delay=$(awk -v n="$n" 'BEGIN { print 2 + 0.5 * n }')
	wl_log "$proto ${lb:+lb $lb }${cc:+cc $cc }$pattern: $n client(s) x $flows flow(s) of $size -> $out"

	# One server per destination namespace, expecting all of its flows.
	for ((i = 0; i < n; i++)); do
		ns=${WL_DST[i]}
		if [[ -z ${srv_idx[$ns]+set} ]]; then
			srv_idx[$ns]=${#servers[@]}
			servers+=("$ns")
			counts+=(0)
		fi
		j=${srv_idx[$ns]}
		counts[j]=$((counts[j] + flows))
		[[ ${WL_ADDR[i]} != *:* ]] || srv_v6[$ns]=1
	done
	common=(--proto "$proto" -p "$port" --timeout "$timeout")
	for ((i = 0; i < ${#servers[@]}; i++)); do
		ns=${servers[i]}
		sargs=("${common[@]}" --count "${counts[i]}" --ready "$out/server-$ns.ready")
		[[ -z ${srv_v6[$ns]:-} ]] || sargs+=(-6)
		_wl_spawn "$ns" "$perf" server "${sargs[@]}" \
			>"$out/server-$ns.json" 2>"$out/server-$ns.err" &
		spids+=($!)
	done
	deadline=$((SECONDS + 20))
	for ns in "${servers[@]}"; do
		while [[ ! -e $out/server-$ns.ready ]]; do
			if ((SECONDS > deadline)); then
				echo "workload: server in $ns did not start:" >&2
				cat "$out/server-$ns.err" >&2
				kill "${spids[@]}" 2>/dev/null || true
				wait
				return 1
			fi
			sleep 0.05
		done
	done

	start_at=$(($(_wl_now_ns) + $(awk -v d="$delay" 'BEGIN { printf "%d", d * 1e9 }')))
	cargs=("${common[@]}" --size "$size" --flows "$flows" --start-at "$start_at")
	[[ -z $msg ]] || cargs+=(--msg "$msg")
	[[ -z $lb ]] || cargs+=(--lb "$lb")
	[[ -z $cc ]] || cargs+=(--cc "$cc")
	[[ -z $udp_rate ]] || cargs+=(--rate "$udp_rate")
	for ((i = 0; i < n; i++)); do
		_wl_spawn "${WL_SRC[i]}" "$perf" client "${cargs[@]}" -a "${WL_ADDR[i]}" \
			--id $((i * flows + 1)) \
			>"$out/client-${WL_SRC[i]}-$i.json" 2>"$out/client-${WL_SRC[i]}-$i.err" &
		cpids+=($!)
	done
	for pid in "${cpids[@]}"; do
		wait "$pid" || rc=1
	done
	# Servers end when all their flows are in; give stragglers (UDP's
	# idle timeout, a failed client) a little time, then stop them: they
	# still print what they saw.
	deadline=$((SECONDS + 15))
	for pid in "${spids[@]}"; do
		while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
			sleep 0.1
		done
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" || rc=1
	done
	((rc == 0)) || wl_log "a process failed (see $out/*.err)"
	local -a fargs=(--rate-mbit "$rate" --max-late-ms 50)
	[[ -z $label ]] || fargs+=(--label "$label")
	[[ $WL_QUIET == 0 ]] || fargs+=(--json-only)
	python3 "$WL_DIR/fct.py" "${fargs[@]}" "$out"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	set -uo pipefail
	wl_main "$@"
	exit $?
fi
