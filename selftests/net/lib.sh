# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared helpers of the MPDT kselftests (selftests/net/*.sh).  Sourced, never
# executed.  The tests run as root inside the test VM (tools/testing/vm/run.sh,
# guest-kselftests.sh), where the repository is read-only and /tmp is a tmpfs.
#
# What a test gets:
#   log / fail / skip / assert_*      progress lines with elapsed time, verdicts
#   mpdt_load [PARAM=VAL...]          insmod the module (mpdt_unload undoes it)
#   setup_pair [DELAY]                netns $NS_A (10.0.0.1) <-veth-> $NS_B (10.0.0.2)
#   netem_set NS DEV ARGS / netem_clear NS DEV
#   snap NS VAR; ctr VAR NAME; delta NEW OLD NAME   counter snapshots
#   json_load VAR JSON; jv VAR KEY    JSON objects (python3) into bash arrays
#   bg CMD... / bg_wait PID           background jobs killed by the cleanup
#   helper NAME                       path of a C helper, built if missing/stale
# and an EXIT trap that always kills background jobs, deletes the netns and
# unloads the module it loaded.
#
# Environment:
#   MPDT_KO        module to load (default: net/mpdt/mpdt.ko of this tree)
#   MPDT_KEEP_MOD  1: leave the module loaded at exit (debugging)

set -euo pipefail

readonly KSFT_PASS=0 KSFT_FAIL=1 KSFT_SKIP=4

SELFTEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SELFTEST_DIR/../.." && pwd)
MPDT_KO=${MPDT_KO:-$REPO_ROOT/net/mpdt/mpdt.ko}
MPDT_MOD=mpdt
MPDT_UDP_PORT=4796
TEST_NAME=$(basename "$0" .sh)

# Unique per test run, so a leftover of a crashed run never collides.
NS_A=mpdt-a-$$
NS_B=mpdt-b-$$
ADDR_A=10.0.0.1
ADDR_B=10.0.0.2
ADDR6_A=fd00:a::1
ADDR6_B=fd00:a::2
VETH_A=veth-a
VETH_B=veth-b

# Scratch space: the repository is read-only in the VM.
WORKDIR=$(mktemp -d "${TMPDIR:-/tmp}/mpdt-$TEST_NAME.XXXXXX")

_NETNS=()
_BG=()
_MOD_LOADED=0
_CLEANUP_HOOKS=()

# ---------------------------------------------------------------------------
# Output and verdicts
# ---------------------------------------------------------------------------

# now_us: microseconds since the epoch, without forking (TCG is slow).
now_us() {
	echo "${EPOCHREALTIME/[.,]/}"
}

# us_secs VAR US: set VAR to US microseconds as seconds, "12.3" (no fork).
us_secs() {
	printf -v "$1" '%d.%d' $(($2 / 1000000)) $(($2 % 1000000 / 100000))
}

# secs_since T0_US: seconds since now_us gave T0_US, as "12.3".
secs_since() {
	local s
	us_secs s $((${EPOCHREALTIME/[.,]/} - $1))
	echo "$s"
}

_T0_US=$(now_us)

elapsed() {
	secs_since "$_T0_US"
}

# log MSG...: MSG with the seconds since the test started (no fork: under
# TCG a log line per assertion adds up).
log() {
	local s
	us_secs s $((${EPOCHREALTIME/[.,]/} - _T0_US))
	printf '[%6ss] %s\n' "$s" "$*"
}

# nap SECONDS: sleep without a fork: read(1) with a timeout on a pipe
# that nobody writes.  Under TCG, sleep(1) itself costs ~0.1 s.
exec {_NAP_FD}<> <(:)
nap() {
	read -rt "$1" -u "$_NAP_FD" _ || true
}

fail() {
	log "FAIL: $*"
	exit "$KSFT_FAIL"
}

skip() {
	log "SKIP: $*"
	exit "$KSFT_SKIP"
}

pass() {
	log "PASS: $TEST_NAME${*:+: $*}"
	exit "$KSFT_PASS"
}

# assert_eq WHAT EXPECTED SEEN
assert_eq() {
	[[ $2 == "$3" ]] || fail "$1: expected $2, got $3"
	log "ok: $1 == $3"
}

# assert_ge WHAT MIN SEEN (integers)
assert_ge() {
	(($3 >= $2)) || fail "$1: expected >= $2, got $3"
	log "ok: $1 = $3 (>= $2)"
}

# assert_gt WHAT MIN SEEN (integers)
assert_gt() {
	(($3 > $2)) || fail "$1: expected > $2, got $3"
	log "ok: $1 = $3 (> $2)"
}

# assert_le WHAT MAX SEEN (numbers, floats allowed)
assert_le() {
	awk -v a="$3" -v b="$2" 'BEGIN { exit !(a <= b) }' ||
		fail "$1: expected <= $2, got $3"
	log "ok: $1 = $3 (<= $2)"
}

# measure QUANTITY VALUE [OP THRESHOLD]: report a measured number (a
# performance figure, a count that varies from run to run) on a line
# "measure: TEST QUANTITY VALUE" that tools/perf/spread.py collects over
# runs (Documentation/testing.rst, "Determinism").  With OP (>=, >, <=,
# <) and THRESHOLD it is also asserted: only with a margin of at least
# twice the run-to-run spread measured for it.  Decimals allowed.
measure() {
	local q=$1 v=$2 op=${3:-} thr=${4:-}
	log "measure: $TEST_NAME $q $v${op:+ (asserted $op $thr)}"
	[[ -n $op ]] || return 0
	awk -v a="$v" -v b="$thr" -v op="$op" 'BEGIN {
		exit !((op == ">=" && a >= b) || (op == ">" && a > b) ||
		       (op == "<=" && a <= b) || (op == "<" && a < b)) }' ||
		fail "$q: expected $op $thr, got $v"
	log "ok: $q = $v ($op $thr)"
}

require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || skip "$c not found"
	done
}

require_root() {
	[[ $(id -u) == 0 ]] || skip "must run as root (in the test VM)"
}

# ---------------------------------------------------------------------------
# Cleanup: always runs, in reverse order of setup
# ---------------------------------------------------------------------------

# on_cleanup CMD...: run CMD (eval'd) at exit, before the netns go away.
on_cleanup() {
	_CLEANUP_HOOKS+=("$*")
}

_cleanup() {
	local rc=$? i pid ns
	set +e
	trap - EXIT INT TERM HUP
	for ((i = ${#_CLEANUP_HOOKS[@]} - 1; i >= 0; i--)); do
		eval "${_CLEANUP_HOOKS[i]}" >/dev/null 2>&1
	done
	for pid in "${_BG[@]}"; do
		kill -KILL "$pid" 2>/dev/null
	done
	for pid in "${_BG[@]}"; do
		wait "$pid" 2>/dev/null
	done
	for ns in "${_NETNS[@]}"; do
		_netns_kill_all "$ns" 2>/dev/null
		ip netns del "$ns" 2>/dev/null
	done
	if [[ $_MOD_LOADED == 1 && ${MPDT_KEEP_MOD:-0} != 1 ]]; then
		if ! _rmmod_retry 20; then
			log "cleanup: rmmod $MPDT_MOD failed: $(lsmod | grep "^$MPDT_MOD " || true)"
			[[ $rc == 0 ]] && rc=$KSFT_FAIL
		fi
	fi
	rm -rf "$WORKDIR"
	log "$TEST_NAME: exit $rc (total $(elapsed) s)"
	exit "$rc"
}
trap _cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# Kill every process still running in netns NS.
_netns_kill_all() {
	local pids
	pids=$(ip netns pids "$1" 2>/dev/null) || return 0
	[[ -n $pids ]] || return 0
	# Some may have exited since they were listed (bash reaps its own
	# jobs at once): under set -e a failed kill ended the test silently.
	# shellcheck disable=SC2086
	kill -KILL $pids 2>/dev/null || true
	nap 0.2
}

# bg CMD...: start CMD in the background; its pid is in $BG_PID.  The cleanup
# kills it.  stdout/stderr go where the caller redirects them (use a
# subshell or 'bg sh -c ...' to redirect).
bg() {
	"$@" &
	BG_PID=$!
	_BG+=("$BG_PID")
}

# bg_wait PID: wait for a background job; returns its exit status.
bg_wait() {
	local rc=0
	wait "$1" || rc=$?
	return "$rc"
}

# wait_for_pid PID SECONDS: wait until PID exits or SECONDS pass.
# Returns 0 if it exited (status in $WAIT_RC), 1 on timeout.
wait_for_pid() {
	local pid=$1 deadline
	deadline=$(($(now_us) + $2 * 1000000))
	while kill -0 "$pid" 2>/dev/null; do
		(($(now_us) < deadline)) || return 1
		nap 0.1
	done
	WAIT_RC=0
	wait "$pid" || WAIT_RC=$?
	return 0
}

# ---------------------------------------------------------------------------
# The module
# ---------------------------------------------------------------------------

mod_loaded() {
	[[ -d /sys/module/$MPDT_MOD ]]
}

_rmmod_retry() {
	local tries=${1:-20} i
	for ((i = 0; i < tries * 4; i++)); do
		mod_loaded || return 0
		rmmod "$MPDT_MOD" 2>/dev/null && return 0
		nap 0.25
	done
	! mod_loaded
}

# mpdt_load [PARAM=VALUE...]: load the module fresh with these parameters.
mpdt_load() {
	[[ -r $MPDT_KO ]] || skip "no module at $MPDT_KO (run 'make module')"
	modprobe -a udp_tunnel ip6_udp_tunnel 2>/dev/null ||
		skip "cannot load udp_tunnel/ip6_udp_tunnel"
	if mod_loaded; then
		log "module $MPDT_MOD already loaded (a previous test?): unloading"
		_rmmod_retry 20 || fail "cannot unload a leftover $MPDT_MOD"
	fi
	insmod "$MPDT_KO" "$@" || fail "insmod $MPDT_KO $* failed"
	_MOD_LOADED=1
	log "loaded $(basename "$MPDT_KO")${*:+ ($*)}"
}

# mpdt_unload [TRIES_SECONDS]: rmmod, retrying while sockets finish freeing.
mpdt_unload() {
	_rmmod_retry "${1:-20}" || fail "rmmod $MPDT_MOD failed: $(lsmod | grep "^$MPDT_MOD " || true)"
	_MOD_LOADED=0
	log "unloaded $MPDT_MOD"
}

# MPDT_SLABS: the module's slab caches (its sockets, connections, messages).
MPDT_SLABS=(MPDT MPDTv6 mpdt_conn mpdt_txmsg mpdt_rxmsg)

# slab_objects CACHE: objects in a slab cache, or "" when there is no such
# cache or it is merged with another one (then its counts say nothing).
slab_objects() {
	local d=/sys/kernel/slab/$1
	[[ -d $d && ! -L $d && -r $d/objects ]] || return 0
	awk '{ print $1 }' "$d/objects"
}

# ---------------------------------------------------------------------------
# Network namespaces
# ---------------------------------------------------------------------------

# netns_add NAME: a fresh netns with lo up, deleted by the cleanup.
netns_add() {
	ip netns add "$1" || fail "ip netns add $1"
	_NETNS+=("$1")
	ip -n "$1" link set lo up
}

netns_del() {
	local ns=$1 i
	# (stderr: no "Killed" job notices for our own background jobs)
	_netns_kill_all "$ns" 2>/dev/null
	ip netns del "$ns" 2>/dev/null || true
	for i in "${!_NETNS[@]}"; do
		[[ ${_NETNS[i]} == "$ns" ]] && unset '_NETNS[i]'
	done
	_NETNS=("${_NETNS[@]}")
}

# setup_pair: $NS_A ($ADDR_A on $VETH_A) <-> $NS_B ($ADDR_B on $VETH_B).
setup_pair() {
	modprobe veth 2>/dev/null || true
	netns_add "$NS_A"
	netns_add "$NS_B"
	ip link add "$VETH_A" netns "$NS_A" type veth peer name "$VETH_B" netns "$NS_B" ||
		fail "cannot create a veth pair"
	ip -n "$NS_A" addr add "$ADDR_A/24" dev "$VETH_A"
	ip -n "$NS_B" addr add "$ADDR_B/24" dev "$VETH_B"
	ip -n "$NS_A" link set "$VETH_A" up
	ip -n "$NS_B" link set "$VETH_B" up
	log "netns $NS_A ($ADDR_A) <-> $NS_B ($ADDR_B) over veth"
}

# setup_pair_v6: setup_pair, and $ADDR6_A and $ADDR6_B on the pair too,
# without DAD.
setup_pair_v6() {
	setup_pair
	ip -n "$NS_A" addr add "$ADDR6_A/64" dev "$VETH_A" nodad ||
		fail "cannot add $ADDR6_A"
	ip -n "$NS_B" addr add "$ADDR6_B/64" dev "$VETH_B" nodad ||
		fail "cannot add $ADDR6_B"
}

# neigh_static: permanent neighbour entries for both ends of the pair, so
# that a lossy qdisc (netem drops ARP too) cannot hold packets back for
# ARP's 1 s retries.
neigh_static() {
	local mac_a mac_b
	mac_a=$(ip -n "$NS_A" -br link show dev "$VETH_A" | awk '{ print $3 }')
	mac_b=$(ip -n "$NS_B" -br link show dev "$VETH_B" | awk '{ print $3 }')
	ip -n "$NS_A" neigh replace "$ADDR_B" lladdr "$mac_b" dev "$VETH_A" \
		nud permanent || fail "neighbour $ADDR_B in $NS_A"
	ip -n "$NS_B" neigh replace "$ADDR_A" lladdr "$mac_a" dev "$VETH_B" \
		nud permanent || fail "neighbour $ADDR_A in $NS_B"
}

# netem_set NS DEV NETEM-ARGS...: replace DEV's root qdisc by netem.
netem_set() {
	local ns=$1 dev=$2
	shift 2
	modprobe sch_netem 2>/dev/null || true
	ip netns exec "$ns" tc qdisc replace dev "$dev" root netem "$@" ||
		fail "tc netem $* on $ns/$dev"
}

netem_clear() {
	ip netns exec "$1" tc qdisc del dev "$2" root 2>/dev/null || true
}

# netem_both NETEM-ARGS...: the same netem on both ends of the veth pair.
netem_both() {
	netem_set "$NS_A" "$VETH_A" "$@"
	netem_set "$NS_B" "$VETH_B" "$@"
}

netem_clear_both() {
	netem_clear "$NS_A" "$VETH_A"
	netem_clear "$NS_B" "$VETH_B"
}

# ---------------------------------------------------------------------------
# Counters: /proc/net/mpdt_stats of a netns ("name value" lines)
# ---------------------------------------------------------------------------

# stats_dump NS: the whole table.
stats_dump() {
	ip netns exec "$1" cat /proc/net/mpdt_stats
}

# _ensure_assoc VAR: make VAR a global associative array unless it already
# is an associative array (global, or a local of a caller).
_ensure_assoc() {
	[[ $(declare -p "$1" 2>/dev/null) == "declare -A"* ]] || declare -gA "$1"
}

# snap NS VAR: read every counter of NS into the associative array VAR
# (one process: under TCG each 'ip netns exec' costs a few hundred ms).
snap() {
	_ensure_assoc "$2"
	local -n _snap_arr=$2
	local k v
	_snap_arr=()
	while read -r k v; do
		_snap_arr[$k]=$v
	done < <(stats_dump "$1")
	((${#_snap_arr[@]} > 0)) || fail "no counters in /proc/net/mpdt_stats of $1"
}

# ctr VAR NAME: a counter of a snapshot; fails the test if it does not exist.
ctr() {
	local -n _ctr_arr=$1
	[[ -n ${_ctr_arr[$2]+x} ]] || fail "counter $2 missing from /proc/net/mpdt_stats"
	echo "${_ctr_arr[$2]}"
}

# delta NEW OLD NAME: growth of counter NAME between snapshots OLD and NEW.
delta() {
	echo $(($(ctr "$1" "$3") - $(ctr "$2" "$3")))
}

# stat_get NS NAME: one counter, read now.
stat_get() {
	local -A _one
	snap "$1" _one
	ctr _one "$2"
}

# stats_show_nonzero VAR LABEL: log the counters of a snapshot that are not 0.
stats_show_nonzero() {
	local -n _show_arr=$1
	local k out=
	for k in $(printf '%s\n' "${!_show_arr[@]}" | sort); do
		[[ ${_show_arr[$k]} == 0 ]] || out+=" $k=${_show_arr[$k]}"
	done
	log "$2 counters:${out:- (all zero)}"
}

# ---------------------------------------------------------------------------
# JSON (mpdt_msg prints one JSON object per line)
# ---------------------------------------------------------------------------

# The JSON helpers' locals start with _j: a caller's array, passed by
# name, must not be shadowed by one of them.

# _json_skip_ws VAR: strip leading white space from the string in VAR.
_json_skip_ws() {
	local -n _jws=$1
	_jws=${_jws#"${_jws%%[![:space:]]*}"}
}

# _json_nested VAR: if VAR starts with a JSON array or object, set
# _JSON_VAL to its text and drop it from VAR; returns 1 if it is not
# closed.  Brackets inside strings do not count.
_json_nested() {
	local -n _jns=$1
	local -i _ji _jdepth=0 _jin_str=0
	local _jc
	for ((_ji = 0; _ji < ${#_jns}; _ji++)); do
		_jc=${_jns:_ji:1}
		if ((_jin_str)); then
			case $_jc in
			\\) _ji+=1 ;;
			\") _jin_str=0 ;;
			esac
			continue
		fi
		case $_jc in
		\") _jin_str=1 ;;
		'[' | '{') _jdepth=$((_jdepth + 1)) ;;
		']' | '}')
			_jdepth=$((_jdepth - 1))
			if ((_jdepth == 0)); then
				_JSON_VAL=${_jns:0:_ji+1}
				_jns=${_jns:_ji+1}
				return 0
			fi ;;
		esac
	done
	return 1
}

# _json_object LINE VAR: parse LINE, one JSON object, into the associative
# array VAR: key -> value, strings unquoted (\" and \\ unescaped), other
# values as their JSON text.  Returns 1, VAR partly filled, if LINE is not
# one whole object.  Pure bash: under TCG a python3 costs ~0.6 s.
_json_object() {
	local _js=$1 _jkey
	local -n _jo=$2
	local _jre_str='^"(([^"\\]|\\.)*)"'
	local _jre_lit='^(-?[0-9][-+.0-9eE]*|true|false|null)'
	_jo=()
	_json_skip_ws _js
	[[ $_js == "{"* ]] || return 1
	_js=${_js:1}
	_json_skip_ws _js
	if [[ $_js == "}"* ]]; then
		_js=${_js:1}
		_json_skip_ws _js
		[[ -z $_js ]]
		return
	fi
	while :; do
		[[ $_js =~ $_jre_str ]] || return 1
		_jkey=${BASH_REMATCH[1]}
		_js=${_js:${#BASH_REMATCH[0]}}
		_json_skip_ws _js
		[[ $_js == ":"* ]] || return 1
		_js=${_js:1}
		_json_skip_ws _js
		if [[ $_js =~ $_jre_str ]]; then
			_JSON_VAL=${BASH_REMATCH[1]//\\\"/\"}
			_JSON_VAL=${_JSON_VAL//\\\\/\\}
			_js=${_js:${#BASH_REMATCH[0]}}
		elif [[ $_js =~ $_jre_lit ]]; then
			_JSON_VAL=${BASH_REMATCH[1]}
			_js=${_js:${#BASH_REMATCH[0]}}
		else
			_json_nested _js || return 1
		fi
		_jo[$_jkey]=$_JSON_VAL
		_json_skip_ws _js
		case $_js in
		,*) _js=${_js:1}; _json_skip_ws _js ;;
		"}"*) _js=${_js:1}; _json_skip_ws _js; [[ -z $_js ]]; return ;;
		*) return 1 ;;
		esac
	done
}

# json_load VAR FILE [N]: parse the Nth line (1-based; default: the last)
# of FILE that is a JSON object into the associative array VAR, key ->
# value (see _json_object).  Returns 1, VAR empty, if there is no such
# line.
json_load() {
	_ensure_assoc "$1"
	local -n _json_arr=$1
	local -a _jlines=()
	local _jline _jn=${3:-0}
	local -A _jone
	_json_arr=()
	[[ -r $2 ]] || return 1
	while IFS= read -r _jline || [[ -n $_jline ]]; do
		_json_skip_ws _jline
		[[ $_jline == "{"* ]] || continue
		_json_object "$_jline" _jone && _jlines+=("$_jline")
	done <"$2"
	if ((_jn == 0 && ${#_jlines[@]} > 0)); then
		_jn=${#_jlines[@]}
	fi
	((_jn > 0 && _jn <= ${#_jlines[@]})) || return 1
	_json_object "${_jlines[_jn - 1]}" "$1"
}

# jv VAR KEY: one value of a json_load'ed object; fails if absent.
jv() {
	local -n _jv_arr=$1
	[[ -n ${_jv_arr[$2]+x} ]] || fail "no \"$2\" in the JSON result"
	echo "${_jv_arr[$2]}"
}

# ---------------------------------------------------------------------------
# Helper programs
# ---------------------------------------------------------------------------

# helper NAME [EXTRA-CFLAGS...]: path of the C helper selftests/net/NAME,
# built from NAME.c.  The in-tree binary ('make tools') is used if it is
# newer than its source; otherwise it is compiled into the scratch
# directory (the tree is read-only in the VM).
helper() {
	local name=$1 src=$SELFTEST_DIR/$1.c bin=$SELFTEST_DIR/$1 out
	shift
	if [[ -x $bin && ! $src -nt $bin && ! $REPO_ROOT/include/uapi/linux/mpdt.h -nt $bin ]]; then
		echo "$bin"
		return
	fi
	[[ -r $src ]] || fail "no $src"
	command -v gcc >/dev/null || skip "$name is not built and there is no gcc"
	out=$WORKDIR/$name
	if [[ ! -x $out ]]; then
		gcc -O2 -g -Wall -I"$REPO_ROOT/include/uapi" "$@" -o "$out" "$src" -lm >&2 ||
			fail "cannot build $name"
	fi
	echo "$out"
}

# The in-tree tools/mpdt/mpdt if it is newer than its sources, else one
# built into the scratch directory (the tree is read-only in the VM).
mpdt_cli_bin() {
	local src=$REPO_ROOT/tools/mpdt bin=$REPO_ROOT/tools/mpdt/mpdt
	local out=$WORKDIR/cli/mpdt

	if [[ -x $bin && -z $(find "$src" "$REPO_ROOT/include/uapi/linux/mpdt.h" \
		-name '*.[ch]' -newer "$bin") ]]; then
		echo "$bin"
		return
	fi
	command -v gcc >/dev/null || skip "tools/mpdt/mpdt is not built and there is no gcc"
	mkdir -p "$WORKDIR/cli"
	gcc -O2 -Wall -Wextra -Wno-unused-parameter -I"$REPO_ROOT/include/uapi" \
		-o "$out" "$src"/*.c -lmnl >&2 || fail "cannot build tools/mpdt (libmnl-dev?)"
	# The unprivileged user runs it too.
	chmod a+rx "$WORKDIR" "$WORKDIR/cli"
	echo "$out"
}

MPDT_MSG=

# mpdt_msg_bin: path of mpdt_msg (sets $MPDT_MSG).
mpdt_msg_bin() {
	[[ -n $MPDT_MSG ]] || MPDT_MSG=$(helper mpdt_msg)
	echo "$MPDT_MSG"
}

# Run a python3 script of this directory.
py() {
	python3 "$SELFTEST_DIR/$1" "${@:2}"
}

# wait_port_bound NS PORT [SECONDS]: wait until an MPDT socket is bound on
# PORT in NS (the receiver is up), using the kernel UDP socket as a proxy
# for "the module made it to bind()": MPDT ports are not visible otherwise,
# so this only waits for the netns' tunnel socket plus a short grace.
wait_tunnel() {
	local ns=$1 secs=${2:-20} i
	for ((i = 0; i < secs * 10; i++)); do
		if ip netns exec "$ns" ss -Hlun "sport = :$MPDT_UDP_PORT" 2>/dev/null | grep -q .; then
			return 0
		fi
		nap 0.1
	done
	fail "no MPDT UDP socket on port $MPDT_UDP_PORT in $ns after $secs s"
}

# ---------------------------------------------------------------------------
# A verified transfer with mpdt_msg: $NS_A sends, $NS_B receives
# ---------------------------------------------------------------------------

# Seed of the message sizes and contents; printed so a failure can be
# replayed with MPDT_SEED=N.
MPDT_SEED=${MPDT_SEED:-$((RANDOM * 32768 + RANDOM + 1))}

# start_receiver NS PORT COUNT MIN MAX TIMEOUT OUTFILE [SEED [ARG...]]:
# start 'mpdt_msg recv' (with ARGs, e.g. -6) in the background and wait
# until its socket is bound.  Sets RECV_PID.
start_receiver() {
	local ns=$1 port=$2 count=$3 min=$4 max=$5 tmo=$6 out=$7 seed=${8:-$MPDT_SEED}
	local ready=$WORKDIR/ready.$port.$ns i
	shift $(($# < 8 ? $# : 8))
	rm -f "$ready"
	bg ip netns exec "$ns" "$(mpdt_msg_bin)" recv "$@" -p "$port" \
		-n "$count" -m "$min" -M "$max" -s "$seed" -t "$tmo" \
		-r "$ready" >"$out" 2>&1
	RECV_PID=$BG_PID
	for ((i = 0; i < 300; i++)); do
		[[ -e $ready ]] && return 0
		kill -0 "$RECV_PID" 2>/dev/null || break
		nap 0.1
	done
	cat "$out" >&2
	fail "receiver on $ns port $port did not come up"
}

declare -gA SEND_RES RECV_RES

# run_transfer LABEL COUNT MIN MAX TIMEOUT [PORT [DST [ARG...]]]: send
# COUNT messages of log-uniform sizes in [MIN, MAX] from $NS_A to $NS_B (to
# DST, default $ADDR_B; an IPv6 one makes both ends IPv6) and check that
# every one arrived exactly once with the right content.  ARGs go to both
# ends' mpdt_msg (e.g. -S SIZES).  Leaves the JSON results in the arrays
# SEND_RES and RECV_RES (see jv) and the wall time in $XFER_SECS.
run_transfer() {
	local label=$1 count=$2 min=$3 max=$4 tmo=$5 port=${6:-7000}
	local dst=${7:-$ADDR_B} args=("${@:8}")
	local rout=$WORKDIR/recv.$label.out sout=$WORKDIR/send.$label.out
	local t0 src=0 rrc=0 bytes
	local -i dt kbit
	[[ $dst == *:* ]] && args+=(-6)
	log "$label: $count messages of $min..$max B${8:+ (${*:8})}, seed $MPDT_SEED, port $port"
	start_receiver "$NS_B" "$port" "$count" "$min" "$max" "$tmo" "$rout" \
		"$MPDT_SEED" "${args[@]}"
	t0=$(now_us)
	ip netns exec "$NS_A" "$(mpdt_msg_bin)" send -a "$dst" -p "$port" \
		-n "$count" -m "$min" -M "$max" -s "$MPDT_SEED" -t "$tmo" \
		"${args[@]}" >"$sout" 2>&1 || src=$?
	wait "$RECV_PID" || rrc=$?
	dt=$((${EPOCHREALTIME/[.,]/} - t0))
	us_secs XFER_SECS "$dt"
	log "$label: sender (exit $src): $(<"$sout")"
	log "$label: receiver (exit $rrc): $(<"$rout")"
	[[ $src == 0 ]] || fail "$label: sender failed (exit $src)"
	[[ $rrc == 0 ]] || fail "$label: receiver failed (exit $rrc)"
	json_load SEND_RES "$sout" || fail "$label: no JSON from the sender"
	json_load RECV_RES "$rout" || fail "$label: no JSON from the receiver"
	assert_eq "$label: messages sent" "$count" "$(jv SEND_RES sent)"
	assert_eq "$label: messages received intact, once each" "$count" \
		"$(jv RECV_RES received)"
	assert_eq "$label: duplicates" 0 "$(jv RECV_RES duplicates)"
	assert_eq "$label: corrupt" 0 "$(jv RECV_RES corrupt)"
	assert_eq "$label: truncated" 0 "$(jv RECV_RES truncated)"
	assert_eq "$label: messages acknowledged (MPDT_INFO)" "$count" \
		"$(jv SEND_RES msgs_acked)"
	bytes=$(jv RECV_RES bytes)
	kbit=$((dt > 0 ? bytes * 8000 / dt : 0))
	log "$label: $bytes B in $XFER_SECS s ($((kbit / 1000)).$((kbit % 1000 / 100)) Mbit/s)"
}

# perf_one_thread LABEL PORT SIZE [PREFIX...]: 16 MPDT connections from
# $NS_A to $NS_B, sent from one thread (mpdt-perf --one-thread, as iperf3
# -P sends: sendmsg(MSG_DONTWAIT) and poll() for POLLOUT over all of
# them), SIZE bytes each in messages of 48 B to 300 KiB.  The server checks
# every byte of every flow, and every message must be acknowledged.
# PREFIX runs the client (taskset -c 0, say).
perf_one_thread() {
	local label=$1 port=$2 size=$3 prefix=("${@:4}")
	local perf=$REPO_ROOT/tools/perf/mpdt-perf ready=$WORKDIR/perf.$label
	local i

	bg ip netns exec "$NS_B" "$perf" server -p "$port" --count 16 \
		--timeout 120 --ready "$ready" >"$WORKDIR/$label.server"
	for ((i = 0; i < 100; i++)); do
		[[ -e $ready ]] && break
		nap 0.1
	done
	ip netns exec "$NS_A" "${prefix[@]}" "$perf" client -a "$ADDR_B" \
		-p "$port" --flows 16 --one-thread --size "$size" \
		--sizes uniform:48:300K >"$WORKDIR/$label.client" ||
		fail "$label: mpdt-perf client: $(<"$WORKDIR/$label.client")"
	bg_wait "$BG_PID" ||
		fail "$label: mpdt-perf server: $(<"$WORKDIR/$label.server")"
	python3 - "$WORKDIR/$label.client" "$WORKDIR/$label.server" \
		"$size" <<'PY' ||
import json, sys
c, s = (json.load(open(f)) for f in sys.argv[1:3])
size = int(sys.argv[3].replace("M", "")) << 20
assert c["one_thread"] and c["ok"] and s["ok"], (c, s)
assert sorted(f["id"] for f in s["flows"]) == list(range(1, 17)), s
assert all(f["complete"] and f["bytes"] == size for f in s["flows"]), s
assert all(f["msgs_done"] == f["msgs"] for f in c["flows"]), c
PY
		fail "$label: 16 flows of $size, intact and acknowledged"
}

# json_count FILE: how many lines of FILE start a JSON object.
json_count() {
	grep -c '^{' "$1" 2>/dev/null || true
}

# pyexpr FILE EXPR: print a python expression evaluated over the JSON object
# lines of FILE: "o" is the last one, "allobjs" all of them.
pyexpr() {
	python3 -c '
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
o = objs[-1] if objs else {}
allobjs = objs
print(eval(sys.argv[2]))
' "$1" "$2"
}

# ---------------------------------------------------------------------------
# Sub-tests: run a function in a subshell so that one failing case is
# reported and the others still run; the test fails at the end.
# ---------------------------------------------------------------------------

SUB_FAILED=()

_sub_cleanup() {
	local i
	set +e
	for ((i = ${#_CLEANUP_HOOKS[@]} - 1; i >= _SUB_HOOKS0; i--)); do
		eval "${_CLEANUP_HOOKS[i]}" >/dev/null 2>&1
	done
	for ((i = _SUB_BG0; i < ${#_BG[@]}; i++)); do
		kill -KILL "${_BG[i]}" 2>/dev/null
		wait "${_BG[i]}" 2>/dev/null
	done
}

# sub NAME FUNCTION [ARGS...]: run FUNCTION ARGS in a subshell; its
# background jobs and on_cleanup hooks are undone when it ends.
sub() {
	local name=$1 rc=0 t0
	shift
	t0=$(now_us)
	# Not "( ... ) || rc=$?": that would turn errexit off inside.
	set +e
	(
		set -e
		_SUB_BG0=${#_BG[@]}
		_SUB_HOOKS0=${#_CLEANUP_HOOKS[@]}
		trap '_sub_cleanup' EXIT
		"$@"
	)
	rc=$?
	set -e
	if [[ $rc == 0 ]]; then
		log "--- $name: passed ($(secs_since "$t0") s)"
	else
		log "--- $name: FAILED ($(secs_since "$t0") s)"
		SUB_FAILED+=("$name")
	fi
	return 0
}

# sub_verdict: fail if any sub-test failed, else pass.
sub_verdict() {
	if ((${#SUB_FAILED[@]})); then
		fail "${#SUB_FAILED[@]} case(s) failed: ${SUB_FAILED[*]}"
	fi
	pass "$@"
}
