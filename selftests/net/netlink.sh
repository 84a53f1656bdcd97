#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netlink.sh: the generic netlink family "mpdt" through mpdt(8), the CLI.
#
#   spec      the YAML spec, the uAPI header, the kernel's and the CLI's
#             name tables agree (tools/mpdt/spec_check.py)
#   read      param/stats/algo/conn show in text and JSON (-j, -p) say the
#             same, match the module parameters, /proc/net/mpdt_stats and
#             the spec; JSON keys are snake_case; -s adds rates; prefixes
#             work; -V, help and OBJECT help exit 0 with the usage, and
#             param help names every parameter
#   errors    usage errors exit 2; the kernel's refusals exit 1 with its
#             extack message (out of range, unknown algorithm, inconsistent
#             set), and the pairs of one request are applied all or none
#   set       values read back; ack-bytes changes the SACK count of the
#             same transfer; every algorithm can be made the default
#   udp-port  refused while an MPDT socket is bound, accepted after, and
#             the tunnel then listens on the new port
#   netns     a value set in one netns leaves the others alone; a new netns
#             starts from the initial netns' values as they are then
#   perm      an unprivileged user reads everything and cannot set
#   conn      conn show over IPv4 and IPv6: dump, address filter, one peer;
#             a dump of 300 connections
#   sock      sock show lists the sockets of a user's transfer with that
#             uid, their inodes (as /proc/PID/fd), state and cgroup; conn
#             show names the same owner
#   monitor   created/closed events of a transfer in both netns, a failed
#             event for a peer that never answers (timers set with the
#             CLI), nothing from the other netns, each with its -t
#             timestamp (text and JSON); stats -s rates during the transfer
#   counters  retransmissions under netem loss match the connection's own
#             MPDT_INFO; forged packets count drop_bad_version, drop_short
#   unloaded  without the module: a clear error, exit 1
#
# Environment: MPDT_SEED (message sizes and contents).

source "$(dirname "$0")/lib.sh"

HELPER=$SELFTEST_DIR/netlink_helper.py
NS_C=mpdt-c-$$
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --)

require_root
require_cmd ip tc ss python3 setpriv

# ---------------------------------------------------------------------------
# The CLI
# ---------------------------------------------------------------------------

CLI_PREFIX=()

# cli ARGS...: run mpdt (after ${CLI_PREFIX[@]}); stdout in $WORKDIR/out,
# stderr in $CLI_ERR (without its last newline), exit status in $CLI_RC.
# No other process: each costs a lot under TCG.
cli() {
	CLI_RC=0
	"${CLI_PREFIX[@]}" "$MPDT" "$@" >"$WORKDIR/out" 2>"$WORKDIR/err" || CLI_RC=$?
	CLI_ERR=
	IFS= read -rd '' CLI_ERR <"$WORKDIR/err" || true
	CLI_ERR=${CLI_ERR%$'\n'}
}

# ok ARGS...: mpdt must succeed; its output is left in $WORKDIR/out.
ok() {
	cli "$@"
	[[ $CLI_RC == 0 ]] || fail "mpdt $*: exit $CLI_RC: $CLI_ERR"
}

# keep FILE ARGS...: ok ARGS..., output copied to $WORKDIR/FILE.
keep() {
	local file=$WORKDIR/$1
	shift
	ok "$@"
	cp "$WORKDIR/out" "$file"
}

# refused RC REGEX ARGS...: mpdt must exit RC and say REGEX (extended,
# over all of stderr) on stderr.
refused() {
	local rc=$1 re=$2
	shift 2
	cli "$@"
	[[ $CLI_RC == "$rc" ]] || fail "mpdt $*: exit $CLI_RC, expected $rc: $CLI_ERR"
	[[ $CLI_ERR =~ $re ]] || fail "mpdt $*: stderr does not match /$re/: $CLI_ERR"
	log "ok: mpdt $* -> exit $rc: ${CLI_ERR%%$'\n'*}"
}

# param NS NAME: a parameter's value, from the text output.
param() {
	local k v
	ok -n "$1" param show "$2"
	while read -r k v; do
		if [[ $k == "$2" ]]; then
			echo "$v"
		fi
	done <"$WORKDIR/out"
}

# The parameters of a fresh netns, name -> value.
declare -A DEF

# text_snap VAR: "name value" lines of $WORKDIR/out into the array VAR.
text_snap() {
	_ensure_assoc "$1"
	local -n _ts_arr=$1
	local k v
	_ts_arr=()
	while read -r k v; do
		_ts_arr[$k]=$v
	done <"$WORKDIR/out"
}

# cli_snap NS VAR: every counter of NS, from mpdt stats (whose text and
# JSON say the same: see case_read).
cli_snap() {
	ok -n "$1" stats
	[[ -s $WORKDIR/out ]] || fail "no counters from mpdt stats"
	text_snap "$2"
}

# proc_ctr NAME: a counter of $NS_A from /proc/net/mpdt_stats, read through
# a process that lives there ('ip netns exec' costs seconds under TCG).
proc_ctr() {
	local k v
	while read -r k v; do
		if [[ $k == "$1" ]]; then
			echo "$v"
		fi
	done <"/proc/$PID_A/net/mpdt_stats"
}

# jcheck FILE EXPR WHAT: queue a check that python EXPR is True, with d the
# JSON document in FILE (or the list of those, one per line, in FILE) and
# load(PATH) to read another.  jchecks runs the queue in one python:
# starting python costs seconds under TCG.
JCHECKS=()
jcheck() {
	JCHECKS+=("$@")
}

jchecks() {
	python3 - "${JCHECKS[@]}" <<-'EOF' || fail "JSON checks failed"
	import json, sys
	def load(path):
	    text = open(path).read()
	    try:
	        return json.loads(text)
	    except ValueError:
	        return [json.loads(l) for l in text.splitlines() if l.strip()]
	args, bad = sys.argv[1:], 0
	for i in range(0, len(args), 3):
	    path, expr, what = args[i:i + 3]
	    try:
	        res = eval(expr, {"json": json, "load": load, "d": load(path),
	                          "text": open(path).read()})
	    except Exception as e:
	        res = e
	    if res is True:
	        print("         ok: %s" % what)
	    else:
	        bad += 1
	        print("         FAIL: %s: %s is %r; %s: %s"
	              % (what, expr, res, path, open(path).read()[:2000]))
	sys.exit(bad > 0)
	EOF
	JCHECKS=()
}

# A jcheck expression: every key of the object d is snake_case, as
# iproute2's JSON ("udp_port", never "udp-port").
SNAKE="all(k and k[0].isalpha() and k == k.lower() and k.replace('_', '').isalnum() and k.isascii() for k in d)"

# wait_file FILE SECONDS PID WHAT
wait_file() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[[ -e $1 ]] && return 0
		kill -0 "$3" 2>/dev/null || fail "$4 exited early"
		nap 0.1
	done
	fail "$4 not ready after $2 s"
}

# hold NS PORT FAMILY [PEERS]: MPDT sockets on loopback PORT and PORT+1
# (.. PORT+PEERS) of NS, connected, until release PORT.  Sets HOLD_PID.
hold() {
	local ready=$WORKDIR/ready.$2
	rm -f "$ready" "$WORKDIR/release.$2"
	bg ip netns exec "$1" python3 "$HELPER" hold --port "$2" --family "$3" \
		--peers "${4:-1}" --ready "$ready" --release "$WORKDIR/release.$2"
	HOLD_PID=$BG_PID
	wait_file "$ready" 30 "$HOLD_PID" "holder of port $2"
}

release() {
	touch "$WORKDIR/release.$1"
	wait_for_pid "$2" 30 || fail "holder of port $1 does not exit"
	assert_eq "holder of port $1 exit status" 0 "$WAIT_RC"
}

# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

case_spec() {
	python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml missing"
	local rc=0
	python3 "$REPO_ROOT/tools/mpdt/spec_check.py" --names >"$WORKDIR/spec.out" || rc=$?
	grep '^spec_check:' "$WORKDIR/spec.out"
	[[ $rc == 0 ]] || fail "the spec and the code disagree"
	grep -E '^(param|stat) ' "$WORKDIR/spec.out" >"$WORKDIR/spec_names"
}

# first_words FILE [KIND]: the first word of each line of FILE (the second
# of the lines whose first is KIND), space-separated.
first_words() {
	local a b out=
	while read -r a b _; do
		if [[ -z ${2-} ]]; then
			out+=" $a"
		elif [[ $a == "$2" ]]; then
			out+=" $b"
		fi
	done <"$1"
	echo "${out# }"
}

# same_names KIND FILE WHAT: the first column of FILE must be the spec's
# KIND (param, stat) names, in order.
same_names() {
	if [[ ! -s $WORKDIR/spec_names ]]; then
		log "no names from the spec (no python3-yaml?): $3 not compared with it"
		return
	fi
	assert_eq "$3, as in the spec" "$(first_words "$WORKDIR/spec_names" "$1")" \
		"$(first_words "$2")"
}

check_params_read() {
	local k v sys n=0
	keep param.json -n "$NS_A" -j param show
	keep param.pretty -n "$NS_A" -p param show
	same_names param "$WORKDIR/defaults.txt" "param show: the parameters"
	# Those that are module parameters too start with the module's value.
	while read -r k v; do
		[[ -r /sys/module/$MPDT_MOD/parameters/${k//-/_} ]] || continue
		read -r sys <"/sys/module/$MPDT_MOD/parameters/${k//-/_}"
		[[ $sys == "$v" ]] || fail "param $k: $v, but the module parameter says $sys"
		n=$((n + 1))
	done <"$WORKDIR/defaults.txt"
	assert_ge "parameters equal to the module parameter of the same name" 17 "$n"
	jcheck "$WORKDIR/param.json" \
		"list(d.items()) == [(k.replace('-', '_'), v if k in ('lb', 'cc') else int(v)) for k, v in (l.split() for l in open('$WORKDIR/defaults.txt'))]" \
		"param show: text and JSON say the same (JSON keys: _ for -)"
	jcheck "$WORKDIR/param.json" "len(d) > 2 and $SNAKE" \
		"param show -j: every key snake_case"
	jcheck "$WORKDIR/param.pretty" \
		"d == load('$WORKDIR/param.json') and text.count('\n') == len(d) + 2 and '\n    \"lb\": ' in text" \
		"param show -p: the same JSON, indented"
	ok -n "$NS_A" param show ack-b udp
	assert_eq "param show by prefixes" \
		"udp-port ${DEF[udp-port]},ack-bytes ${DEF[ack-bytes]}" \
		"$(awk '{ print $1 " " $2 }' "$WORKDIR/out" | paste -sd,)"
	ok -n "$NS_A" p sh rto-mi
	assert_eq "abbreviated object, command and name" "rto-min-us ${DEF[rto-min-us]}" \
		"$(awk '{ print $1 " " $2 }' "$WORKDIR/out")"
}

check_stats_read() {
	local k v text='' proc=''
	keep stats.txt -n "$NS_A" stats
	keep stats.json -n "$NS_A" -j stats
	same_names stat "$WORKDIR/stats.txt" "stats: the counters"
	while read -r k v; do
		text+="$k $v,"
	done <"$WORKDIR/stats.txt"
	while read -r k v; do
		proc+="$k $v,"
	done <"/proc/$PID_A/net/mpdt_stats"
	assert_eq "stats: text and /proc/net/mpdt_stats (idle)" "$proc" "$text"
	jcheck "$WORKDIR/stats.json" \
		"list(d.items()) == [(k, int(v)) for k, v in (l.split() for l in open('$WORKDIR/stats.txt'))]" \
		"stats: text and JSON say the same"
	jcheck "$WORKDIR/stats.json" "$SNAKE" "stats -j: every key snake_case"
	keep rates.json -n "$NS_A" -s -j stats
	jcheck "$WORKDIR/rates.json" \
		"list(d) == list(load('$WORKDIR/stats.json')) and all(list(v) == ['value', 'rate'] and v['rate'] == 0 for v in d.values())" \
		"stats -s -j: value and rate (0: idle) per counter"
	keep rates.txt -n "$NS_A" stats show -s
	assert_eq "stats show -s: lines 'name value rate/s'" "$(wc -l <"$WORKDIR/stats.txt")" \
		"$(grep -cE '^[a-z_]+ +[0-9]+ +0/s$' "$WORKDIR/rates.txt")"
}

check_algo_read() {
	keep algo.txt -n "$NS_A" algo show
	keep algo.json -n "$NS_A" -j algo
	jcheck "$WORKDIR/algo.json" \
		"[a['kind'] + ' ' + a['name'] + (' default' if a['default'] else '') for a in d] == open('$WORKDIR/algo.txt').read().splitlines()" \
		"algo show: text and JSON say the same"
	jcheck "$WORKDIR/algo.json" "all(eval(\"$SNAKE\", {'d': a}) for a in d)" \
		"algo show -j: every key snake_case"
	assert_eq "algo show: the defaults are the lb and cc parameters" \
		"lb ${DEF[lb]} default,cc ${DEF[cc]} default" \
		"$(grep ' default$' "$WORKDIR/algo.txt" | paste -sd,)"
}

case_read() {
	check_params_read
	check_stats_read
	check_algo_read
	ok -n "$NS_A" conn show
	assert_eq "conn show without connections" "" "$(cat "$WORKDIR/out")"
	keep conn0.json -n "$NS_A" -j conn
	jcheck "$WORKDIR/conn0.json" "d == []" "conn show -j without connections: []"
	ok help
	grep -q '^Usage: mpdt' "$WORKDIR/out" || fail "mpdt help: no usage"
	check_help
	jchecks
}

# -V, --help and OBJECT help: exit 0, on stdout.
check_help() {
	local o names
	ok -V
	[[ -s $WORKDIR/out ]] || fail "mpdt -V: no output"
	log "ok: mpdt -V: $(cat "$WORKDIR/out")"
	ok --help
	grep -q '^Usage: mpdt' "$WORKDIR/out" || fail "mpdt --help: no usage"
	for o in param stats conn algo monitor; do
		ok "$o" help
		grep -q "^Usage: mpdt $o" "$WORKDIR/out" ||
			fail "mpdt $o help: no usage of $o: $(head -n 1 "$WORKDIR/out")"
	done
	log "ok: mpdt OBJECT help, for each object"
	ok param help
	# Between "NAME := {" and "}", the names of param show, in its order.
	names=$(awk '/^NAME := \{/ { on = 1 }
		on { for (i = 1; i <= NF; i++) if ($i ~ /^[a-z][a-z0-9-]*$/) printf "%s ", $i }
		on && /\}/ { exit }' "$WORKDIR/out")
	assert_eq "param help: the parameter names" \
		"$(first_words "$WORKDIR/defaults.txt")" "${names% }"
}

# same_params WHAT [-n NS]: every parameter (of NS) is the default.
same_params() {
	ok "${@:2}" param
	cmp -s "$WORKDIR/out" "$WORKDIR/defaults.txt" ||
		fail "$1: $(diff "$WORKDIR/defaults.txt" "$WORKDIR/out" | grep '^[<>]' | paste -sd' ')"
	log "ok: $1"
}

case_errors() {
	refused 2 'Usage' -n "$NS_A"
	refused 2 'unknown object "frob"' -n "$NS_A" frob
	refused 2 'unknown command "frob"' -n "$NS_A" param frob
	refused 2 'ambiguous command "s": show, set' -n "$NS_A" param s
	refused 2 'unknown parameter "nosuch"' -n "$NS_A" param set nosuch 1
	refused 2 'ambiguous parameter "ack": ack-bytes, ack-on-epsn, ack-on-ce' \
		-n "$NS_A" param set ack 1
	refused 2 'ambiguous parameter "rto"' -n "$NS_A" param show rto
	refused 2 'NAME VALUE pairs' -n "$NS_A" param set ack-bytes
	refused 2 'not an unsigned 32-bit integer' -n "$NS_A" param set ack-bytes -1
	refused 2 'not an unsigned 32-bit integer' -n "$NS_A" param set ack-bytes 4294967296
	refused 2 'not an unsigned 32-bit integer' -n "$NS_A" param set ack-bytes 12k
	refused 2 'ack-bytes given twice' -n "$NS_A" param set ack-bytes 1 ack-b 2
	refused 2 'invalid peer' -n "$NS_A" conn show peer 10.0.0.300
	refused 2 'invalid peer' -n "$NS_A" conn show peer 10.0.0.2:0
	refused 2 'takes only -s' -n "$NS_A" stats show -x
	refused 2 'unknown or incomplete option "-x"' -x param
	refused 1 'cannot open network namespace "nosuch"' -n nosuch param
	refused 1 '^Error: payload: integer out of range \(valid: 64\.\.8900\)\.$' \
		-n "$NS_A" param set payload 10
	refused 1 '^Error: lb: unknown load balancing algorithm\.$' \
		-n "$NS_A" param set lb nosuch
	refused 1 '^Error: cc: unknown congestion control algorithm\.$' \
		-n "$NS_A" param set cc nosuch
	refused 1 'rx-window must be a power of two' -n "$NS_A" param set rx-window 100
	refused 1 'rto-min-us must not exceed rto-max-us' \
		-n "$NS_A" param set rto-min-us 2000000 rto-max-us 1000000
	refused 1 'entropy-base \+ entropies must not exceed 65536' \
		-n "$NS_A" param set entropy-base 65000 entropies 1000
	# One request: its valid pair is not applied either.
	refused 1 'payload: integer out of range' \
		-n "$NS_A" param set ack-bytes 5000 payload 10
	same_params "no parameter changed by the refused requests" -n "$NS_A"
}

# sacks AB PORT: the receiver's SACKs for the same transfer with ack-bytes
# AB in both netns, in $SACKS.
sacks() {
	local -A B0 B1
	ok -n "$NS_A" param set ack-bytes "$1"
	ok -n "$NS_B" param set ack-bytes "$1"
	assert_eq "ack-bytes read back (receiver)" "$1" "$(param "$NS_B" ack-bytes)"
	cli_snap "$NS_B" B0
	run_transfer "ack-bytes-$1" 30 65536 65536 120 "$2"
	cli_snap "$NS_B" B1
	SACKS=$(delta B1 B0 tx_sack)
	log "ack-bytes $1: the receiver sent $SACKS SACKs"
}

case_set() {
	local kind name dflt few many
	ok -n "$NS_A" param set ack-b 3000 rto-min-us 20000
	assert_eq "ack-bytes read back" 3000 "$(param "$NS_A" ack-bytes)"
	assert_eq "rto-min-us read back" 20000 "$(param "$NS_A" rto-min-us)"
	# Every algorithm can become the default, as algo show then says.
	while read -r kind name _; do
		ok -n "$NS_A" param set "$kind" "$name"
		ok -n "$NS_A" algo
		grep -qx "$kind $name default" "$WORKDIR/out" ||
			fail "algo show does not mark $kind $name as the default: $(cat "$WORKDIR/out")"
		log "ok: $kind $name set, and shown as the default"
	done <"$WORKDIR/algo.txt"
	ok -n "$NS_A" param set ack-bytes "${DEF[ack-bytes]}" \
		rto-min-us "${DEF[rto-min-us]}" lb "${DEF[lb]}" cc "${DEF[cc]}"
	same_params "four parameters restored in one request" -n "$NS_A"
	# The same transfer, SACKed per packet or per 64 KiB, with a window
	# of many 64 KiB (a window below two thresholds asks for its SACKs
	# itself, and the measured BDP of a veth is a few packets), packet
	# by packet (a burst that arrives whole is SACKed once).
	ok -n "$NS_A" param set cc fixed fixed-cwnd 1048576 burst-pkts 1
	sacks 65536 7101
	few=$SACKS
	sacks 1400 7102
	many=$SACKS
	ok -n "$NS_A" param set ack-bytes "${DEF[ack-bytes]}" \
		cc "${DEF[cc]}" fixed-cwnd "${DEF[fixed-cwnd]}" \
		burst-pkts "${DEF[burst-pkts]}"
	ok -n "$NS_B" param set ack-bytes "${DEF[ack-bytes]}"
	assert_gt "SACKs with ack-bytes 1400 ($many) vs 4 x those with 65536" "$((4 * few))" "$many"
}

case_udp_port() {
	local dflt
	dflt=${DEF[udp-port]}
	hold "$NS_A" 9200 4
	refused 1 'udp-port cannot change while MPDT sockets are open' \
		-n "$NS_A" param set udp-port $((dflt + 1))
	assert_eq "udp-port after the refusal" "$dflt" "$(param "$NS_A" udp-port)"
	release 9200 "$HOLD_PID"
	ok -n "$NS_A" param set udp-port $((dflt + 1))
	assert_eq "udp-port once no socket is bound" $((dflt + 1)) "$(param "$NS_A" udp-port)"
	# The next socket's tunnel is on the new port (and traffic flows).
	hold "$NS_A" 9210 4
	[[ -n $(ip netns exec "$NS_A" ss -Hlun "sport = :$((dflt + 1))") ]] ||
		fail "no UDP socket on the new port $((dflt + 1))"
	[[ -z $(ip netns exec "$NS_A" ss -Hlun "sport = :$dflt") ]] ||
		fail "a UDP socket still on the old port $dflt"
	log "ok: the tunnel listens on UDP port $((dflt + 1)), not $dflt"
	release 9210 "$HOLD_PID"
	ok -n "$NS_A" param set udp-port "$dflt"
}

case_netns() {
	local lb
	ok -n "$NS_A" param set ack-bytes 1234 max-retries 5
	assert_eq "ack-bytes in $NS_A" 1234 "$(param "$NS_A" ack-bytes)"
	same_params "$NS_B untouched" -n "$NS_B"
	netns_add "$NS_C"
	same_params "a new netns starts from the defaults" -n "$NS_C"
	ok -n "$NS_C" stats
	assert_eq "counters of a new netns that are not 0" "" \
		"$(awk '$2 != 0' "$WORKDIR/out")"
	netns_del "$NS_C"
	ok -n "$NS_A" param set ack-bytes "${DEF[ack-bytes]}" \
		max-retries "${DEF[max-retries]}"
	# The host's values as they are when a netns is created (a pod made
	# after 'mpdt param set' on the host gets them); older ones keep theirs.
	lb=reps
	[[ ${DEF[lb]} != reps ]] || lb=ecmp
	ok param set ack-bytes 4321 lb "$lb"
	netns_add "$NS_C"
	assert_eq "ack-bytes of a netns made after the host's set" 4321 \
		"$(param "$NS_C" ack-bytes)"
	assert_eq "lb of a netns made after the host's set" "$lb" \
		"$(param "$NS_C" lb)"
	same_params "$NS_A, older than the host's set, untouched" -n "$NS_A"
	netns_del "$NS_C"
	ok param set ack-bytes "${DEF[ack-bytes]}" lb "${DEF[lb]}"
	same_params "the initial netns restored"
}

# In the initial netns: 'ip netns exec' costs seconds under TCG.
case_perm() {
	local args
	CLI_PREFIX=("${NOBODY[@]}")
	for args in "param show" "stats" "conn show" "algo show"; do
		# shellcheck disable=SC2086
		ok $args
		log "ok: unprivileged mpdt $args"
	done
	keep nobody-param.json -j param show
	keep nobody-conn.json -j conn show
	keep nobody-algo.json -j algo show
	refused 1 '^Error: Operation not permitted\.$' param set ack-bytes 5000
	refused 1 'cannot (open|enter) network namespace' -n "$NS_B" param
	CLI_PREFIX=()
	same_params "no parameter changed by the unprivileged user"
	jcheck "$WORKDIR/nobody-param.json" "d == load('$WORKDIR/param.json')" \
		"unprivileged param show -j"
	jcheck "$WORKDIR/nobody-conn.json" "d == []" "unprivileged conn show -j"
	jcheck "$WORKDIR/nobody-algo.json" "d == load('$WORKDIR/algo.json')" \
		"unprivileged algo show -j"
	jchecks
}

# The sockets of a holder run as uid 65534 (its connected pair on ports
# 9700 and 9701): sock show says who owns them, as ss would.
case_sock() {
	local dir=$WORKDIR/nobody pid inodes cg path i s=$WORKDIR/sock.json
	mkdir -p "$dir"
	# The holder, uid 65534, writes there: $WORKDIR is mktemp's 0700.
	chmod 0711 "$WORKDIR"
	chmod 0777 "$dir"
	bg ip netns exec "$NS_A" setpriv --reuid=65534 --regid=65534 \
		--clear-groups python3 "$HELPER" hold --port 9700 --family 4 \
		--peers 1 --ready "$dir/ready" --release "$dir/release"
	pid=$BG_PID
	wait_file "$dir/ready" 30 "$pid" "holder of port 9700 (uid 65534)"
	# ip netns exec and setpriv exec: $pid is the holder's.
	inodes=$(find "/proc/$pid/fd" -type l -printf '%l\n' |
		sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p' | paste -sd,)
	log "the holder's socket inodes: $inodes"
	keep sock.txt -n "$NS_A" sock show
	keep sock.json -n "$NS_A" -j sock show
	keep conn.json -n "$NS_A" -j conn show peer 127.0.0.1:9701
	jcheck "$s" "sorted((c['family'], c['addr'], c['local_port'], c['state'], c['uid'], c['conns']) for c in d if c['local_port'] in (9700, 9701)) == [('inet', '127.0.0.1', 9700, 'open', 65534, 1), ('inet', '127.0.0.1', 9701, 'open', 65534, 1)]" \
		"sock show -j: the holder's two sockets, open, owned by uid 65534"
	jcheck "$s" "len({c['inode'] for c in d if c['local_port'] in (9700, 9701)} & {$inodes}) == 2" \
		"sock show -j: their inodes are the holder's (/proc/PID/fd)"
	jcheck "$s" "all(c['rcvbuf'] > 0 and c['sndbuf'] > 0 and c['rmem'] <= c['rcvbuf'] for c in d)" \
		"sock show -j: buffers"
	jcheck "$s" "all(('inet local %s:%d state open inode %d uid %d cgroup %d conns %d rmem %d rcvbuf %d wmem %d sndbuf %d' % tuple(c[k] for k in ('addr', 'local_port', 'inode', 'uid', 'cgroup', 'conns', 'rmem', 'rcvbuf', 'wmem', 'sndbuf'))) in open('$WORKDIR/sock.txt').read().splitlines() for c in d if c['local_port'] in (9700, 9701))" \
		"sock show: the text says what the JSON says"
	jcheck "$WORKDIR/conn.json" "[(c['local_port'], c['uid'], c['inode'] in {$inodes}) for c in d] == [(9700, 65534, True)]" \
		"conn show: the connection's owner, uid and socket inode"
	path=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
	if [[ -f /sys/fs/cgroup/cgroup.controllers && -d /sys/fs/cgroup$path ]]; then
		cg=$(stat -c %i "/sys/fs/cgroup$path")
		jcheck "$s" "{c['cgroup'] for c in d if c['local_port'] in (9700, 9701)} == {$cg}" \
			"sock show -j: cgroup, the holder's ($path)"
	else
		log "no cgroup v2 hierarchy at /sys/fs/cgroup: cgroup ids not compared"
	fi
	touch "$dir/release"
	wait_for_pid "$pid" 30 || fail "holder of port 9700 does not exit"
	# Time-wait ends within the quiet time: no event of these sockets may
	# reach the monitor case.
	for ((i = 0; i < 200; i++)); do
		ok -n "$NS_A" sock
		[[ -s $WORKDIR/out ]] || break
		nap 0.1
	done
	assert_eq "sock show once the holder's sockets are gone" "" \
		"$(cat "$WORKDIR/out")"
	jchecks
}

case_conn() {
	local pid4 pid6 c=$WORKDIR/conn.json
	hold "$NS_A" 9300 4
	pid4=$HOLD_PID
	hold "$NS_A" 9400 6
	pid6=$HOLD_PID
	keep conn.txt -n "$NS_A" conn show
	keep conn.json -n "$NS_A" -j conn show
	jcheck "$c" "sorted((c['family'], c['peer'], c['peer_port'], c['local_port'], c['state']) for c in d) == [('inet', '127.0.0.1', 9300, 9301, 'active'), ('inet', '127.0.0.1', 9301, 9300, 'active'), ('inet6', '::1', 9400, 9401, 'active'), ('inet6', '::1', 9401, 9400, 'active')]" \
		"conn show -j: the four connections of two socket pairs, IPv4 and IPv6"
	jcheck "$c" "all((c['lb'], c['cc']) == ('${DEF[lb]}', '${DEF[cc]}') for c in d) and sorted((c['local_port'], c['msgs_sent'], c['msgs_rcvd'], c['bytes_sent'] > 0) for c in d) == [(9300, 1, 0, True), (9301, 0, 1, False), (9400, 1, 0, True), (9401, 0, 1, False)]" \
		"conn show -j: algorithms; one message sent and received per pair"
	jcheck "$c" "[l for l in open('$WORKDIR/conn.txt').read().splitlines() if not l.startswith('\t')] == [('peer %s:%d' if c['family'] == 'inet' else 'peer [%s]:%d') % (c['peer'], c['peer_port']) + ' local_port %d state %s lb %s cc %s' % (c['local_port'], c['state'], c['lb'], c['cc']) for c in d]" \
		"conn show: the text's first lines say what the JSON says"
	jcheck "$c" "all(('\t' + ' '.join('%s %d' % (k, c[k]) for k in keys)) in open('$WORKDIR/conn.txt').read().splitlines() for c in d for keys in (('cwnd', 'srtt_us', 'min_rtt_us', 'inflight', 'snd_una', 'snd_nxt', 'rcv_epsn', 'msgs_inflight', 'base_rtt_us', 'bdp', 'delivery_rate', 'peer_room'), ('retx_ooo', 'retx_probe', 'retx_rto', 'retx_nack', 'msgs_sent', 'msgs_acked', 'msgs_rcvd', 'bytes_sent', 'bytes_acked')))" \
		"conn show: the text's indented lines say what the JSON says"
	keep one-v4.json -n "$NS_A" -j conn show peer 127.0.0.1:9301
	jcheck "$WORKDIR/one-v4.json" "[(c['peer'], c['peer_port'], c['local_port']) for c in d] == [('127.0.0.1', 9301, 9300)]" \
		"conn show peer 127.0.0.1:9301 (CONN_GET)"
	keep one-v6.json -n "$NS_A" -j conn show peer '[::1]:9400'
	jcheck "$WORKDIR/one-v6.json" "[(c['family'], c['peer'], c['peer_port'], c['local_port']) for c in d] == [('inet6', '::1', 9400, 9401)]" \
		"conn show peer [::1]:9400 (CONN_GET)"
	keep addr-v4.json -n "$NS_A" -j conn show peer 127.0.0.1
	jcheck "$WORKDIR/addr-v4.json" "sorted(c['local_port'] for c in d) == [9300, 9301]" \
		"conn show peer 127.0.0.1 (dump, filtered)"
	keep addr-v6.json -n "$NS_A" -j conn show pe ::1
	jcheck "$WORKDIR/addr-v6.json" "sorted(c['local_port'] for c in d) == [9400, 9401]" \
		"conn show pe ::1 (dump, filtered)"
	ok -n "$NS_A" conn show peer 10.9.9.9
	assert_eq "conn show peer 10.9.9.9" "" "$(cat "$WORKDIR/out")"
	refused 1 '^Error: no such connection\.$' -n "$NS_A" conn show peer 127.0.0.1:9
	release 9300 "$pid4"
	release 9400 "$pid6"
	# A socket closed right after its peer's data stays in time-wait for
	# the quiet time (2 x rto-max-us: 2 s), connections and all
	# (wire-format.rst section 8.2); the loop only bounds the wait.
	for ((i = 0; i < 200; i++)); do
		ok -n "$NS_A" conn
		[[ -s $WORKDIR/out ]] || break
		nap 0.1
	done
	assert_eq "conn show after the sockets closed" "" "$(cat "$WORKDIR/out")"
	# A dump that takes several messages of the kernel's: 2 x 150.
	hold "$NS_B" 9600 4 150
	keep many.json -n "$NS_B" -j conn
	release 9600 "$HOLD_PID"
	jcheck "$WORKDIR/many.json" "sorted((c['local_port'], c['peer_port']) for c in d) == sorted([(9600, 9601 + i) for i in range(150)] + [(9601 + i, 9600) for i in range(150)])" \
		"conn show -j: 300 connections, each once, over several dump messages"
	jchecks
}

# monitor_sync NS FILE PORT: make connections in NS until FILE, a
# monitor's output, shows them (the monitor has joined the group).
monitor_sync() {
	local i
	for ((i = 0; i < 20; i++)); do
		ip netns exec "$1" python3 "$HELPER" hold --port "$3" --family 4
		grep -q ":$(($3 + 1))[ ,]" "$2" && return 0
		nap 0.2
	done
	fail "monitor in $1 shows no events"
}

# A transfer A -> B on PORT, slowed down to last a few seconds by netem,
# with mpdt -s stats in A while it runs.
monitored_transfer() {
	local port=$1 before after now rpid spid i
	netem_set "$NS_A" "$VETH_A" rate 8mbit
	on_cleanup netem_clear "$NS_A" "$VETH_A"
	start_receiver "$NS_B" "$port" 40 65536 65536 120 "$WORKDIR/recv.out"
	rpid=$RECV_PID
	before=$(proc_ctr tx_packets)
	bg ip netns exec "$NS_A" "$(mpdt_msg_bin)" send -a "$ADDR_B" -p "$port" \
		-n 40 -m 65536 -M 65536 -s "$MPDT_SEED" -t 120 >"$WORKDIR/send.out" 2>&1
	spid=$BG_PID
	for ((i = 0; i < 100; i++)); do
		now=$(proc_ctr tx_packets)
		((now > before)) && break
		nap 0.1
	done
	keep rates-xfer.json -n "$NS_A" -s -j stats
	wait "$spid" || fail "sender failed: $(cat "$WORKDIR/send.out")"
	wait "$rpid" || fail "receiver failed: $(cat "$WORKDIR/recv.out")"
	netem_clear "$NS_A" "$VETH_A"
	after=$(proc_ctr tx_packets)
	log "transfer: $(cat "$WORKDIR/send.out")"
	jcheck "$WORKDIR/rates-xfer.json" \
		"0 < d['tx_packets']['rate'] <= $after - $now and d['tx_packets']['value'] <= $after" \
		"stats -s during a transfer: tx_packets rate in (0, $((after - now))]"
}

case_monitor() {
	local ma=$WORKDIR/mon_a.txt mb=$WORKDIR/mon_b.json pa pb i n
	# -t after the object in text, before it in JSON.
	bg "$MPDT" -n "$NS_A" monitor -t >"$ma.t" 2>&1
	pa=$BG_PID
	bg "$MPDT" -n "$NS_B" -t -j monitor >"$mb" 2>&1
	pb=$BG_PID
	monitor_sync "$NS_A" "$ma.t" 9500
	monitor_sync "$NS_B" "$mb" 9510
	monitored_transfer 7300
	# A peer that never answers, with timers set through netlink.
	ok -n "$NS_A" param set rto-min-us 5000 rto-max-us 40000 max-retries 3
	ip netns exec "$NS_A" python3 "$HELPER" fail --peer "$ADDR_B" --port 7999 \
		>"$WORKDIR/fail.json" || fail "no ETIMEDOUT: $(cat "$WORKDIR/fail.json")"
	# With the defaults (rto-max-us 1 s, 8 retries) it takes over 3 s.
	jcheck "$WORKDIR/fail.json" "d['error'] == 'ETIMEDOUT' and d['secs'] <= 2.5" \
		"the peer failed within 2.5 s: $(cat "$WORKDIR/fail.json")"
	ok -n "$NS_A" param set rto-min-us "${DEF[rto-min-us]}" \
		rto-max-us "${DEF[rto-max-us]}" max-retries "${DEF[max-retries]}"
	for ((i = 0; i < 100; i++)); do
		grep -q '] closed peer 10.0.0.2:7999 ' "$ma.t" && break
		nap 0.1
	done
	# The transfer's receiver closes after its time-wait (2 s).
	for ((i = 0; i < 200; i++)); do
		grep -q '"event":"closed".*"local_port":7300[,}]' "$mb" && break
		nap 0.1
	done
	kill -TERM "$pa" "$pb"
	wait "$pa" || fail "monitor (text) exit status $?"
	wait "$pb" || fail "monitor (JSON) exit status $?"
	# Every text event starts with its time, [YYYY-MM-DDThh:mm:ss.uuuuuu].
	n=$(grep -cE '^\[[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}\] [a-z]+ peer ' "$ma.t" || true)
	assert_gt "monitor -t: text events with a timestamp" 0 "$n"
	assert_eq "monitor -t: text events without one" 0 \
		"$(grep -cE '^[a-z]+ peer ' "$ma.t" || true)"
	sed -E 's/^\[[^]]*\] //' "$ma.t" >"$ma"
	jcheck "$mb" "d and all(list(e)[:2] == ['timestamp', 'event'] and len(e['timestamp']) == 26 and e['timestamp'][10] == 'T' and e['timestamp'][19] == '.' and __import__('time').strptime(e['timestamp'][:19], '%Y-%m-%dT%H:%M:%S') for e in d)" \
		"-t -j monitor: each event starts with its timestamp"
	log "monitor in $NS_A: $(grep -v ':950[01] ' "$ma" | paste -sd'|')"
	log "monitor in $NS_B: $(grep -v ':951[01],' "$mb" | paste -sd'|')"
	assert_eq "text events of the transfer's sender" "created,closed" \
		"$(grep -E '^[a-z]+ peer 10\.0\.0\.2:7300 local_port [0-9]+ state active lb [a-z0-9_-]+ cc [a-z0-9_-]+$' \
			"$ma" | cut -d' ' -f1 | paste -sd,)"
	assert_eq "text events (and states) of the peer that never answered" \
		"created active,failed failed,closed failed" \
		"$(grep -E '^[a-z]+ peer 10\.0\.0\.2:7999 local_port [0-9]+ state' "$ma" |
			cut -d' ' -f1,7 | paste -sd,)"
	assert_eq "events of $NS_B in the monitor of $NS_A" 0 "$(grep -c 'local_port 7300' "$ma" || true)"
	jcheck "$mb" "[(e['event'], e['family'], e['peer'], e['state']) for e in d if e['local_port'] == 7300] == [('created', 'inet', '10.0.0.1', 'active'), ('closed', 'inet', '10.0.0.1', 'active')]" \
		"JSON events of the transfer's receiver"
	jcheck "$mb" "not [e for e in d if 7999 in (e['peer_port'], e['local_port']) or e['peer_port'] == 7300]" \
		"no events of $NS_A in the monitor of $NS_B"
	jchecks
}

case_counters() {
	local c retx=0
	# shellcheck disable=SC2034 # filled by cli_snap, read by delta
	local -A A0 A1 B0 B1
	# Loss on the sender's egress: the counters move as MPDT_INFO says.
	netem_set "$NS_A" "$VETH_A" loss 10%
	on_cleanup netem_clear "$NS_A" "$VETH_A"
	cli_snap "$NS_A" A0
	run_transfer loss 20 16384 65536 120 7400
	netem_clear "$NS_A" "$VETH_A"
	cli_snap "$NS_A" A1
	for c in retx_ooo retx_probe retx_rto retx_nack; do
		assert_eq "$c in mpdt stats moved as the connection's MPDT_INFO" \
			"$(jv SEND_RES "$c")" "$(delta A1 A0 "$c")"
		retx=$((retx + $(delta A1 A0 "$c")))
	done
	assert_gt "retransmissions under 10% loss" 0 "$retx"
	assert_eq "msg_acked in mpdt stats" 20 "$(delta A1 A0 msg_acked)"
	# Forged packets to the receiver's tunnel.
	cli_snap "$NS_B" B0
	ip netns exec "$NS_A" python3 "$HELPER" forge --peer "$ADDR_B" --version 9
	for ((c = 0; c < 50; c++)); do
		cli_snap "$NS_B" B1
		(($(delta B1 B0 drop_short) > 0)) && break
		nap 0.1
	done
	assert_eq "drop_bad_version after a version 9 packet" 1 "$(delta B1 B0 drop_bad_version)"
	assert_eq "drop_short after a 3-byte packet" 1 "$(delta B1 B0 drop_short)"
	assert_eq "rx_packets after the two" 2 "$(delta B1 B0 rx_packets)"
}

case_unloaded() {
	mpdt_unload
	refused 1 'no generic netlink family "mpdt": is the mpdt module loaded\?' param
}

# ---------------------------------------------------------------------------

MPDT=$(mpdt_cli_bin)
log "CLI: $MPDT"
sub spec case_spec

mpdt_load
setup_pair
mpdt_msg_bin >/dev/null
bg ip netns exec "$NS_A" sleep 1000000
PID_A=$BG_PID
for ((i = 0; i < 100; i++)); do
	[[ -r /proc/$PID_A/net/mpdt_stats && $(</proc/$PID_A/comm) == sleep ]] && break
	nap 0.1
done
# The defaults, as a fresh netns reports them.
keep defaults.txt -n "$NS_A" param show
text_snap DEF

sub read case_read
sub errors case_errors
sub set case_set
sub udp-port case_udp_port
sub netns case_netns
sub perm case_perm
sub conn case_conn
sub sock case_sock
sub monitor case_monitor
sub counters case_counters
sub unloaded case_unloaded
sub_verdict
