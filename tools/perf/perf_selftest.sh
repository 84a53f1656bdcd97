#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf_selftest.sh - check mpdt-perf, fct.py and workload.sh end to end, and
# print the flow completion times they measure (run as root in the test VM,
# with net/mpdt/mpdt.ko and tools/perf/mpdt-perf built):
#
#   make module && make -C tools/perf
#   tools/testing/vm/run.sh -t 1200 -- tools/perf/perf_selftest.sh
#
# Four hosts (netns) hang off one switch (a bridge in its own netns).  Every
# host link is rate-limited with tbf to RATE Mbit/s in both directions, with
# netem adding 1 ms on the host's egress.  On that network:
#
#   single:   one flow h0->h1, 4 MiB: tcp, mptcp (IPPROTO_MPTCP), tcp under
#             mptcpize, mpdt (MPDT_LB/MPDT_CC by name, the module's
#             defaults unless PERF_LB/PERF_CC; 1 MiB and 64 KiB messages),
#             udp (free-running, and paced at 80%)
#   patterns: permutation (h0<->h2, h1<->h3) and incast 3->1, tcp and mpdt
#   other:    IPv6 (tcp, mpdt), two flows per client, an unknown LB refused
#   modes:    mpdt-perf's own modes over mpdt, h0->h1: --rr (request/
#             response) and -t/-i (a timed run with interval reports), with
#             the client's per-message completion times
#   fabric:   (only if asked) a permutation on selftests/net/fabric.sh's
#             2x2x2 leaf-spine: tcp, mptcp with 2 subflows, mpdt (default
#             and oblivious LB)
#
# A check fails when a number is not physically possible (faster than the
# link) or far from what the protocol must achieve (TCP alone on a link
# within 1.0-1.6x ideal).  MPDT's own numbers are reported, and only checked
# for completion and a loose upper bound (PERF_MPDT_MAX_RATIO); in "modes",
# for completion, consistency and physical bounds (no message completes in
# less than the 2 ms round trip of the netem delays).
#
# Environment: PERF_RATE (Mbit/s, default 10), PERF_SIZE (default 4M),
# PERF_BURST (tbf burst, default 32kb: TCG's late timers waste a smaller one),
# PERF_OUT (results, default $MPDT_RESULTS_DIR/perf or /tmp/perf),
# PERF_MPDT_PARAMS (insmod parameters, default none: MPDT runs with the
# module's defaults and measures each path itself; no check here needs
# more), PERF_MPDT_MAX_RATIO (default 4), PERF_LB/PERF_CC (what the single
# MPDT flow asks for by name, default the module's: its lb and cc
# parameters), PERF_GROUPS (which of "single patterns other modes fabric"
# to run, default "single patterns other modes"; fabric needs
# selftests/net/fabric.sh).
set -uo pipefail

PERF_DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$PERF_DIR/../.." && pwd)
PERF=$PERF_DIR/mpdt-perf
WL=$PERF_DIR/workload.sh
# shellcheck source=tools/perf/workload.sh
. "$WL"
RATE=${PERF_RATE:-10}
SIZE=${PERF_SIZE:-4M}
OUT=${PERF_OUT:-${MPDT_RESULTS_DIR:-/tmp}/perf}
MPDT_PARAMS=${PERF_MPDT_PARAMS-}
MPDT_MAX_RATIO=${PERF_MPDT_MAX_RATIO:-4}
BURST=${PERF_BURST:-32kb}
LB=${PERF_LB:-}		# set in setup(): the module's default
CC=${PERF_CC:-}
RUN_GROUPS=${PERF_GROUPS:-single patterns other modes}
SW=pf-sw
HOSTS=(pf-h0 pf-h1 pf-h2 pf-h3)
FABRIC_HOST_NS=()
ADDR4=(10.99.0.1 10.99.0.2 10.99.0.3 10.99.0.4)
ADDR6=(fd99::1 fd99::2 fd99::3 fd99::4)
PASS=0
FAIL=0
SUMMARY=()
MOD_LOADED=0

log() {
	printf '[%s] %s\n' "$(date +%T)" "$*"
}

check() {
	local what=$1
	shift
	if "$@"; then
		PASS=$((PASS + 1))
		log "ok: $what"
	else
		FAIL=$((FAIL + 1))
		log "FAIL: $what"
	fi
}

cleanup() {
	local ns
	if declare -F fabric_destroy >/dev/null; then
		fabric_destroy
	fi
	for ns in "${HOSTS[@]}" "$SW"; do
		ip netns del "$ns" 2>/dev/null
	done
	if [[ $MOD_LOADED == 1 ]]; then
		sleep 1
		rmmod mpdt 2>/dev/null
	fi
}
trap cleanup EXIT

setup() {
	local i h
	modprobe -a udp_tunnel ip6_udp_tunnel veth sch_netem sch_tbf bridge || return 1
	if ! lsmod | grep -q '^mpdt '; then
		# shellcheck disable=SC2086 # parameters are words
		insmod "$REPO/net/mpdt/mpdt.ko" $MPDT_PARAMS || return 1
		MOD_LOADED=1
	fi
	[[ -n $LB ]] || LB=$(</sys/module/mpdt/parameters/lb)
	[[ -n $CC ]] || CC=$(</sys/module/mpdt/parameters/cc)
	ip netns add "$SW" || return 1
	ip -n "$SW" link add br0 type bridge
	ip -n "$SW" link set br0 up
	ip -n "$SW" link set lo up
	for i in "${!HOSTS[@]}"; do
		h=${HOSTS[i]}
		ip netns add "$h"
		ip -n "$h" link set lo up
		ip link add eth0 netns "$h" type veth peer name "p$i" netns "$SW"
		ip -n "$SW" link set "p$i" master br0 up
		ip -n "$h" addr add "${ADDR4[i]}/24" dev eth0
		ip -n "$h" addr add "${ADDR6[i]}/64" dev eth0 nodad
		ip -n "$h" link set eth0 up
		# Uplink: 1 ms, then the link rate.  Downlink: the link rate.
		ip netns exec "$h" tc qdisc add dev eth0 root handle 1: netem delay 1ms limit 10000
		ip netns exec "$h" tc qdisc add dev eth0 parent 1: handle 2: \
			tbf rate "${RATE}mbit" burst "$BURST" limit 100kb
		ip netns exec "$SW" tc qdisc add dev "p$i" root \
			tbf rate "${RATE}mbit" burst "$BURST" limit 100kb
		ip netns exec "$h" sysctl -qw net.mptcp.enabled=1
	done
	[[ $(ip netns exec "${HOSTS[0]}" sysctl -n net.mptcp.enabled) == 1 ]]
}

# A field of fct.py's JSON summary (last line of FILE).
sj() {
	tail -n 1 "$1" | python3 -c 'import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1].split("."):
    v = v[k] if not isinstance(v, list) else v[int(k)]
print(v)' "$2"
}

# A field of the first flow of a client's output in DIR.
cj() {
	cat "$1"/client-*.json | head -n 1 | python3 -c 'import json, sys
v = json.load(sys.stdin)["flows"][0]
for k in sys.argv[1].split("."):
    v = v[k]
print(v if not isinstance(v, bool) else str(v).lower())' "$2"
}

# in_range X LO HI: LO <= X <= HI (reals).
in_range() {
	awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x != "None" && x >= lo && x <= hi) }'
}

# Packets the tbf qdiscs (the links) of every namespace dropped so far.
qdisc_drops() {
	local ns
	for ns in "$SW" "${HOSTS[@]}"; do
		ip netns exec "$ns" tc -s qdisc show
	done | awk '/^qdisc/ { tbf = $2 == "tbf" }
		tbf && /dropped/ { sub(",", "", $7); n += $7 } END { print n + 0 }'
}

# MPDT's counters, summed over the hosts.
mpdt_stats() {
	wl_mpdt_counters "${HOSTS[@]}" "${FABRIC_HOST_NS[@]}"
}

# run NAME WORKLOAD-ARGS...: one workload, its summary kept for the table.
# Also kept: the packets the links dropped, and which of MPDT's loss and
# drop counters moved (NAME.mpdt).
run() {
	local name=$1 d0 s0
	shift
	log "== $name"
	d0=$(qdisc_drops)
	s0=$(mpdt_stats)
	"$WL" -o "$OUT/$name" -r "$RATE" -s "$SIZE" --label "$name" "$@" >"$OUT/$name.txt" 2>&1
	echo $? >"$OUT/$name.rc"
	if ((${#FABRIC_HOST_NS[@]})); then
		echo - >"$OUT/$name.drops"	# the fabric's shapers are its own
	else
		echo $(($(qdisc_drops) - d0)) >"$OUT/$name.drops"
	fi
	awk 'NR == FNR { old[$1] = $2; next }
		$1 ~ /^(drop_|rx_dup|rto|retx_|tx_probe|tx_nack|rx_reordered|conn_failed|tx_err)/ &&
		$2 != old[$1] { printf "%s%s +%d", sep, $1, $2 - old[$1]; sep = ", " }
		END { print "" }' <(echo "$s0") <(mpdt_stats) >"$OUT/$name.mpdt"
	cat "$OUT/$name.txt"
	[[ -z $(<"$OUT/$name.mpdt") ]] || echo "mpdt counters: $(<"$OUT/$name.mpdt")"
	SUMMARY+=("$name")
}

# rc_of NAME: every flow of the workload completed intact.
rc_of() {
	[[ $(cat "$OUT/$1.rc") == 0 ]]
}

single() {
	local src=${HOSTS[0]} dst=${HOSTS[1]}
	local pair=$src,$dst,${ADDR4[1]}

	run tcp-single -P tcp pairs "$pair"
	check "tcp single flow completes" rc_of tcp-single
	check "tcp single flow 1.0-1.6x ideal" \
		in_range "$(sj "$OUT/tcp-single.txt" ratio_max)" 1.0 1.6

	run mptcp-single -P mptcp pairs "$pair"
	check "mptcp single flow completes" rc_of mptcp-single
	check "mptcp socket is MPTCP (protocol 262)" \
		test "$(cj "$OUT/mptcp-single" sock_protocol)" = 262
	check "mptcp single flow 1.0-2.0x ideal" \
		in_range "$(sj "$OUT/mptcp-single.txt" ratio_max)" 1.0 2.0

	if command -v mptcpize >/dev/null; then
		run mptcpize-single -P tcp --mptcpize pairs "$pair"
		check "tcp under mptcpize completes" rc_of mptcpize-single
		check "mptcpize made the socket MPTCP" \
			test "$(cj "$OUT/mptcpize-single" sock_protocol)" = 262
	else
		log "skip: mptcpize not installed (apt-get install mptcpize)"
	fi

	run mpdt-single -P mpdt --lb "$LB" --cc "$CC" pairs "$pair"
	check "mpdt single flow completes, intact" rc_of mpdt-single
	check "mpdt reports the LB/CC it was given" \
		test "$(cj "$OUT/mpdt-single" lb)/$(cj "$OUT/mpdt-single" cc)" = "$LB/$CC"
	check "mpdt single flow 1.0-${MPDT_MAX_RATIO}x ideal" \
		in_range "$(sj "$OUT/mpdt-single.txt" ratio_max)" 1.0 "$MPDT_MAX_RATIO"

	run mpdt-small-msgs -P mpdt -m 64K pairs "$pair"
	check "mpdt 64 KiB messages complete, intact" rc_of mpdt-small-msgs
	check "mpdt 64 KiB messages 1.0-${MPDT_MAX_RATIO}x ideal" \
		in_range "$(sj "$OUT/mpdt-small-msgs.txt" ratio_max)" 1.0 "$MPDT_MAX_RATIO"

	run udp-single -P udp pairs "$pair"
	check "udp free-running: intact" rc_of udp-single
	# Over the fraction of a second it lasts, the shapers' bursts count.
	check "udp free-running: 0.3-1.5x the link rate arrives" \
		in_range "$(sj "$OUT/udp-single.txt" rx_mbps_mean)" \
		"$(awk -v r="$RATE" 'BEGIN { print r * 0.3 }')" \
		"$(awk -v r="$RATE" 'BEGIN { print r * 1.5 }')"

	run udp-paced -P udp --udp-rate $((RATE * 8 / 10)) pairs "$pair"
	# Loss is reported, not checked: a vCPU stall makes the pacer burst.
	check "udp paced at 80%: intact" rc_of udp-paced
	check "udp paced at 80%: not faster than the pacing (>= 1.2x ideal)" \
		in_range "$(sj "$OUT/udp-paced.txt" ratio_max)" 1.2 100
}

patterns() {
	local -a hosts=()
	local i
	for i in "${!HOSTS[@]}"; do
		hosts+=("${HOSTS[i]},${ADDR4[i]}")
	done
	# Each host link carries one flow each way: every flow can run at
	# line rate.
	run tcp-permutation -P tcp permutation "${hosts[@]}"
	check "tcp permutation completes" rc_of tcp-permutation
	check "tcp permutation max 1.0-3.0x ideal" \
		in_range "$(sj "$OUT/tcp-permutation.txt" ratio_max)" 1.0 3.0
	run mpdt-permutation -P mpdt permutation "${hosts[@]}"
	check "mpdt permutation completes, intact" rc_of mpdt-permutation
	check "mpdt permutation max 1.0-${MPDT_MAX_RATIO}x ideal" \
		in_range "$(sj "$OUT/mpdt-permutation.txt" ratio_max)" 1.0 "$MPDT_MAX_RATIO"

	# 3->1: the receiver's downlink carries 3x the size.
	run tcp-incast -P tcp incast "${hosts[@]}"
	check "tcp incast 3->1 completes" rc_of tcp-incast
	check "tcp incast makespan 1.0-1.6x the downlink bound" \
		in_range "$(sj "$OUT/tcp-incast.txt" makespan_ratio)" 1.0 1.6
	run mpdt-incast -P mpdt incast "${hosts[@]}"
	check "mpdt incast 3->1 completes, intact" rc_of mpdt-incast
	check "mpdt incast makespan 1.0-${MPDT_MAX_RATIO}x the downlink bound" \
		in_range "$(sj "$OUT/mpdt-incast.txt" makespan_ratio)" 1.0 "$MPDT_MAX_RATIO"
}

other() {
	local pair6=${HOSTS[2]},${HOSTS[3]},${ADDR6[3]}

	local size_save=$SIZE
	SIZE=1M
	run tcp-ipv6 -P tcp pairs "$pair6"
	check "tcp over IPv6 completes" rc_of tcp-ipv6
	run mpdt-ipv6 -P mpdt pairs "$pair6"
	check "mpdt over IPv6 completes, intact" rc_of mpdt-ipv6
	run mpdt-2flows -P mpdt -f 2 pairs "${HOSTS[0]},${HOSTS[1]},${ADDR4[1]}"
	check "mpdt 2 concurrent flows per client complete" rc_of mpdt-2flows
	SIZE=$size_save

	log "== unknown LB name"
	ip netns exec "${HOSTS[1]}" "$PERF" client -a "${ADDR4[0]}" --size 1K \
		--lb no-such-lb >"$OUT/bad-lb.json" 2>&1
	check "an unknown LB is refused" grep -q '"error": "MPDT_LB: ' "$OUT/bad-lb.json"
}

# perf_pair NAME PORT CLIENT-ARGS...: one MPDT flow from h0 to h1 with
# mpdt-perf alone (no workload.sh): a server in h1 (-i 1) for that flow, the
# client in h0; their JSON in OUT/NAME.client.json and OUT/NAME.server.json,
# the client's exit status in OUT/NAME.rc, their reports printed.
perf_pair() {
	local name=$1 port=$2 spid i
	shift 2
	rm -f "$OUT/$name.ready"
	ip netns exec "${HOSTS[1]}" "$PERF" server --proto mpdt -p "$port" \
		--count 1 --timeout 120 -i 1 --ready "$OUT/$name.ready" \
		>"$OUT/$name.server.json" 2>"$OUT/$name.server.err" &
	spid=$!
	for ((i = 0; i < 200; i++)); do
		[[ -e $OUT/$name.ready ]] && break
		sleep 0.05
	done
	ip netns exec "${HOSTS[0]}" "$PERF" client --proto mpdt -a "${ADDR4[1]}" \
		-p "$port" "$@" >"$OUT/$name.client.json" 2>"$OUT/$name.client.err"
	echo $? >"$OUT/$name.rc"
	# The server ends once its flow is in (after MPDT's 3 s drain).
	for ((i = 0; i < 150; i++)); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	kill -TERM "$spid" 2>/dev/null
	wait "$spid"
	cat "$OUT/$name.client.err" "$OUT/$name.server.err"
}

# pj NAME EXPR: a Python expression over c and s, the client's and the
# server's JSON of perf_pair NAME, and RATE, the link rate, is true.
pj() {
	python3 - "$OUT/$1.client.json" "$OUT/$1.server.json" "$RATE" "$2" <<'PY'
import json, sys
try:
    with open(sys.argv[1]) as f:
        c = json.load(f)
    with open(sys.argv[2]) as f:
        s = json.load(f)
    RATE = float(sys.argv[3])
    ok = eval("(%s)" % sys.argv[4])
except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
    print("  %s: %s" % (type(e).__name__, e))
    ok = False
sys.exit(0 if ok else 1)
PY
}

# mpdt-perf's own modes over MPDT, h0 -> h1.  Every message crosses h0's
# netem (1 ms) and its acknowledgment or reply h1's (1 ms): no completion
# time can be under 2 ms, whatever TCG does.  No rate is checked but the
# link's.
modes() {
	local lat ivs
	lat='c["latency"]["n"] == c["msgs"] > 0 and 2000 <= c["latency"]["min_us"]'
	lat+=' <= c["latency"]["p50_us"] <= c["latency"]["p99_us"]'
	lat+=' <= c["latency"]["p999_us"] <= c["latency"]["max_us"]'
	lat+=' <= c["elapsed_s"] * 1e6'
	ivs='sum(i["bytes"] for i in c["intervals"]) == c["tx_bytes"] and'
	ivs+=' sum(i["bytes"] for i in s["intervals"]) == s["rx_bytes"]'

	log "== mpdt --rr (mpdt-perf alone)"
	perf_pair mpdt-rr 7481 --rr --msgs 50 --reply 1K
	check "mpdt --rr completes, every reply whole" pj mpdt-rr \
		'c["ok"] and s["ok"] and c["fct_method"] == "rr" and
c["transactions"] == 50 and s["replies"] == 50 and c["rx_bytes"] == 50 * 1024'
	check "mpdt --rr: transactions >= 2 ms, percentiles in order" \
		pj mpdt-rr "$lat"
	check "mpdt --rr: one at a time (times add up to <= elapsed; <= 500/s)" \
		pj mpdt-rr 'c["latency"]["mean_us"] * 50 <= c["elapsed_s"] * 1e6 * 1.001 and
c["tps"] <= 500'

	log "== mpdt -t 3 -i 1 (mpdt-perf alone)"
	perf_pair mpdt-time 7482 -t 3 -i 1 --msg 64K --inflight 4
	check "mpdt -t completes, intact; the open flow's size from its FIN" \
		pj mpdt-time 'c["ok"] and s["ok"] and
c["fct_method"] == "mpdt_msgs_acked" and c["msgs_done"] == c["msgs"] > 0 and
s["flows"][0]["open"] and s["flows"][0]["complete"] and
s["flows"][0]["bytes"] == c["tx_bytes"]'
	check "mpdt -t: 3 s or more, 3 intervals or more at each end" \
		pj mpdt-time 'c["elapsed_s"] >= 3 and len(c["intervals"]) >= 3 and
len(s["intervals"]) >= 3'
	check "mpdt -t: the intervals add up to the totals" pj mpdt-time "$ivs"
	check "mpdt -t: message times >= 2 ms, percentiles in order" \
		pj mpdt-time "$lat"
	check "mpdt -t: received no faster than the link" \
		pj mpdt-time 's["rx_mbps"] <= 1.5 * RATE'
	check "mpdt -t: CPU time at both ends" pj mpdt-time \
		'c["cpu_s"] >= 0 and s["cpu_s"] >= 0 and c["cpu_s_per_gb"] is not None'
}

# The fabric of selftests/net/fabric.sh (2 leaves x 2 hosts x 2 spines, ECMP
# over the 5-tuple): a permutation across the leaves for tcp, mptcp with
# two subflows per connection, and mpdt; its numbers are reported, and
# only completion is checked.
fabric_group() {
	local fab=$REPO/selftests/net/fabric.sh l i a
	local -a fh=()
	if [[ ! -f $fab ]]; then
		log "skip: fabric (no selftests/net/fabric.sh)"
		return 0
	fi
	# shellcheck source=/dev/null
	. "$fab"
	# shellcheck source=/dev/null
	. "$WL"
	if ! FABRIC_QUIET=1 fabric_create 2 2 2 "$RATE" 1; then
		check "fabric_create" false
		return 0
	fi
	mapfile -t fh < <(wl_fabric_hosts)
	check "wl_fabric_hosts lists the fabric's 4 hosts" test "${#fh[@]}" = 4
	run fabric-tcp -P tcp --shift "${FABRIC_HOSTS:-2}" permutation "${fh[@]}"
	check "fabric tcp permutation completes" rc_of fabric-tcp
	# MPTCP: the operator gives every host a second address as a subflow
	# endpoint, so that each connection has two 5-tuples (two paths).
	for ((l = 1; l <= ${FABRIC_LEAVES:-2}; l++)); do
		for ((i = 1; i <= ${FABRIC_HOSTS:-2}; i++)); do
			a=10.$l.$i.3
			fabric_exec "h$l-$i" ip addr add "$a/24" dev eth0
			fabric_exec "h$l-$i" ip mptcp limits set subflow 4 add_addr_accepted 4
			fabric_exec "h$l-$i" ip mptcp endpoint add "$a" dev eth0 subflow
		done
	done
	run fabric-mptcp -P mptcp --shift "${FABRIC_HOSTS:-2}" permutation "${fh[@]}"
	check "fabric mptcp permutation completes" rc_of fabric-mptcp
	check "fabric mptcp connections have 2 subflows" \
		test "$(cj "$OUT/fabric-mptcp" mptcp.subflows)" = 2
	run fabric-mpdt -P mpdt --shift "${FABRIC_HOSTS:-2}" permutation "${fh[@]}"
	check "fabric mpdt permutation completes, intact" rc_of fabric-mpdt
	run fabric-mpdt-obl -P mpdt --lb oblivious --shift "${FABRIC_HOSTS:-2}" permutation "${fh[@]}"
	check "fabric mpdt (oblivious) permutation completes, intact" rc_of fabric-mpdt-obl
	fabric_destroy
}

table() {
	python3 - "$OUT" "$RATE" "${SUMMARY[@]}" <<'PY'
import json, sys
out, rate, names = sys.argv[1], sys.argv[2], sys.argv[3:]
cols = ("fct_max_ms", "ratio_max", "ratio_mean", "makespan_ratio",
        "retransmits", "late_max_ms")
print("\n%-18s %9s %8s %8s %8s %6s %6s %8s %6s" % (
    "workload", "max_ms", "x_ideal", "mean_x", "makespan", "retx", "drops",
    "late_ms", "loss"))
for n in names:
    try:
        with open("%s/%s.txt" % (out, n)) as f:
            s = json.loads(f.read().strip().splitlines()[-1])
    except (OSError, ValueError, IndexError):
        s = {}
    with open("%s/%s.drops" % (out, n)) as f:
        drops = f.read().strip()
    v = ["-" if s.get(c) is None else
         ("%.0f" % s[c] if c == "fct_max_ms" else
          "%d" % s[c] if c == "retransmits" else "%.2f" % s[c])
         for c in cols]
    loss = "-" if s.get("loss_max") is None else "%.3f" % s["loss_max"]
    print("%-18s %9s %8s %8s %8s %6s %6s %8s %6s" % (
        n, v[0], v[1], v[2], v[3], v[4], drops, v[5], loss))
for n in names:
    try:
        with open("%s/%s.mpdt" % (out, n)) as f:
            c = f.read().strip()
    except OSError:
        c = ""
    if c:
        print("  %s mpdt counters: %s" % (n, c))
print("(x_ideal: FCT / (size / %s Mbit/s); makespan: x the busiest link's "
      "bound;\n drops: packets the links' tbf dropped; late_ms: latest "
      "client start)" % rate)
PY
	uptime
}

main() {
	[[ -x $PERF ]] || { echo "build it first: make -C tools/perf" >&2; exit 1; }
	[[ -f $REPO/net/mpdt/mpdt.ko ]] || { echo "build it first: make module" >&2; exit 1; }
	mkdir -p "$OUT"
	if ! setup; then
		echo "setup failed"
		exit 1
	fi
	log "results in $OUT; link $RATE Mbit/s, 1 ms; flows of $SIZE; mpdt params: ${MPDT_PARAMS:-module defaults}; single flow lb $LB, cc $CC"
	for g in $RUN_GROUPS; do
		case $g in
		single | patterns | other | modes) "$g" ;;
		fabric) fabric_group ;;
		*) log "unknown group $g" ;;
		esac
	done
	table
	echo
	echo "perf_selftest: $PASS passed, $FAIL failed"
	((FAIL == 0))
}

main "$@"
