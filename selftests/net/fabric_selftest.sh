#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2317,SC2206 # check() calls functions indirectly; counters split on spaces
#
# fabric_selftest.sh - checks the emulated leaf-spine fabric of fabric.sh
# with plain TCP/UDP (iperf3, python), no MPDT:
#   1. creation (timed), IPv4 and IPv6 all-pairs reachability;
#   2. ECMP: 256 UDP source ports reach every one of the 4 spines, IPv4
#      and IPv6 (how evenly is the boot's hash seed: measured, not
#      judged); one 5-tuple stays on one spine, even from different
#      connected sockets (the hash is taken from the headers);
#   3. the rate limit: UDP offered at 2x RATE arrives at about RATE, a
#      TCP flow crosses the fabric;
#   4. ECN: two TCP senders into one receiver get CE marks (red counter and
#      the receiver's IpExtInCEPkts);
#   5. a blackholed leaf-spine link, mid-transfer: still hashed onto,
#      eats everything silently, routes and link state unchanged; restore;
#   6. oversubscription to one spine, then a degraded link: the rate drops;
#      restore brings back the full fabric.
# Every check runs and is reported; the exit status is 1 if any failed.
# Rates depend on the CPU the TCG guest gets: UDP through a shaper is
# checked against bounds that leave at least twice the run-to-run spread
# measured (Documentation/testing.rst, "Determinism"); TCP only has to
# get through; every rate is printed as a "measure:" line.
#
# Run in the test VM:
#   tools/testing/vm/run.sh -t 600 -- bash selftests/net/fabric_selftest.sh
# Environment: FABRIC_SELFTEST_RATE (Mbit/s, default 10), and fabric.sh's.

SELFTEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=selftests/net/lib.sh
. "$SELFTEST_DIR/lib.sh"
# shellcheck source=selftests/net/fabric.sh
. "$SELFTEST_DIR/fabric.sh"

RATE=${FABRIC_SELFTEST_RATE:-10}
LEAVES=2 HOSTS=4 SPINES=4 DELAY=1
FAILED=()
PY=$WORKDIR/fabudp.py
# Not through a pyenv shim: python start-up is what makes this test slow.
PY3=python3
[[ -x /usr/bin/python3 ]] && PY3=/usr/bin/python3

require_root
require_cmd ip tc iperf3 python3 awk
if command -v ping >/dev/null && ping -V 2>&1 | grep -q iputils; then
	PING=(ping)
elif command -v busybox >/dev/null; then
	PING=(busybox ping)
else
	skip "no ping (iputils-ping or busybox)"
fi
modprobe -q -a veth sch_red sch_netem sch_prio sch_ingress cls_u32 cls_matchall act_gact \
	2>/dev/null || true
for m in veth sch_red sch_netem sch_prio cls_u32; do
	[[ -d /sys/module/$m ]] || skip "kernel module $m not available"
done

# check WHAT CONDITION...: record a verdict, go on either way.
check() {
	local what=$1
	shift
	if "$@"; then
		log "ok: $what"
	else
		log "FAIL: $what"
		FAILED+=("$what")
	fi
}

# calc EXPR: awk arithmetic.
calc() {
	awk "BEGIN { print $* }"
}

# link_up NODE DEV: the device has carrier.
link_up() {
	local out

	# No "| grep -q": under pipefail an early grep exit can fail ip.
	out=$(ip -n "$(fabric_ns "$1")" link show dev "$2")
	[[ $out == *LOWER_UP* ]]
}

# in_range X LO HI: LO <= X <= HI (floats).
in_range() {
	awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'
}

# check_range WHAT QUANTITY X LO HI: check that LO <= X <= HI, with X
# reported as a "measure:" line carrying both bounds (tools/perf/spread.py
# weighs them against the spread measured over runs).
check_range() {
	log "measure: $TEST_NAME $2 $3 (asserted >= $4, <= $5)"
	check "$1" in_range "$3" "$4" "$5"
}

# check_some WHAT QUANTITY X: check that X > 0 (it got through at all),
# with X reported as a "measure:" line.
check_some() {
	log "measure: $TEST_NAME $2 $3 (asserted > 0)"
	check "$1" awk -v x="$3" 'BEGIN { exit !(x > 0) }'
}

# band_stats NODE HANDLE: "packets bytes" the band HANDLE (10 control, 20
# data) of NODE's eth0 queue has sent.
band_stats() {
	tc -n "$(fabric_ns "$1")" -j -s qdisc show dev eth0 | "$PY3" -c '
import json, sys
q = next(x for x in json.load(sys.stdin) if x.get("handle") == sys.argv[1] + ":")
print(q["packets"], q["bytes"])' "$2"
}

# UDP traffic helper: "send" sprays packets round robin over source ports,
# paced; "sink" counts what arrives until SIGTERM.
cat >"$PY" <<'EOF'
import json, os, select, signal, socket, sys, time

def send(dst, dport, base, nports, total, size, pps, connect):
    # total 0: until SIGTERM.  Paced without catch-up bursts: a sender
    # that fell behind (TCG stalls) restarts its schedule, so it never
    # overflows its own NIC queue.
    fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
    socks = []
    for k in range(nports):
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("", base + k))
        if connect:
            s.connect((dst, dport))
        socks.append(s)
    data = b"f" * size
    t0 = time.monotonic()
    sent = 0
    def done(*_):
        print(json.dumps({"sent": sent, "secs": round(time.monotonic() - t0, 3)}))
        sys.stdout.flush()
        os._exit(0)
    signal.signal(signal.SIGTERM, done)
    while total == 0 or sent < total:
        s = socks[sent % nports]
        try:
            if connect:
                s.send(data)
            else:
                s.sendto(data, (dst, dport))
        except OSError:
            pass
        sent += 1
        ahead = t0 + sent / pps - time.monotonic()
        if ahead > 0.002:
            time.sleep(ahead)
        elif ahead < -0.005:
            t0 = time.monotonic() - sent / pps
    done()

def sink(port, out):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind(("::", port))
    n = [0]
    def done(*_):
        with open(out, "w") as f:
            f.write(json.dumps({"received": n[0]}) + "\n")
        sys.exit(0)
    signal.signal(signal.SIGTERM, done)
    open(out + ".ready", "w").close()
    while True:
        r, _, _ = select.select([s], [], [], 0.2)
        while r:
            try:
                s.recv(65536, socket.MSG_DONTWAIT)
                n[0] += 1
            except BlockingIOError:
                break

if sys.argv[1] == "send":
    a = sys.argv[2:]
    send(a[0], int(a[1]), int(a[2]), int(a[3]), int(a[4]), int(a[5]),
         float(a[6]), len(a) > 7 and a[7] == "connect")
else:
    sink(int(sys.argv[2]), sys.argv[3])
EOF

# udp_send NODE DST BASEPORT NPORTS TOTAL [connect]: 200-byte datagrams to
# port 9000, paced at 2000/s (3.9 Mbit/s on the wire).  Prints the JSON.
udp_send() {
	local node=$1 dst=$2
	shift 2
	fabric_exec "$node" "$PY3" -I -S "$PY" send "$dst" 9000 "$1" "$2" "$3" 200 2000 "${@:4}"
}

# sink_start NODE: a UDP sink on port 9000 (both families); sets SINK_PID.
sink_start() {
	SINK_OUT=$WORKDIR/sink.$1.$RANDOM
	# ip netns exec execs python3: SINK_PID is the sink itself.
	bg ip netns exec "$(fabric_ns "$1")" "$PY3" -I -S "$PY" sink 9000 "$SINK_OUT"
	SINK_PID=$BG_PID
	local i
	for ((i = 0; i < 100; i++)); do
		[[ -e $SINK_OUT.ready ]] && return 0
		nap 0.1
	done
	fail "the UDP sink in $1 did not start"
}

# sink_stop: stop the sink, print how many datagrams it got.
sink_stop() {
	nap 0.3
	kill -TERM "$SINK_PID" 2>/dev/null || true
	wait "$SINK_PID" 2>/dev/null || true
	sed -n 's/.*"received": \([0-9]*\).*/\1/p' "$SINK_OUT"
}

# uplinks L: the up-direction packet counters of leaf L's spine links.
uplinks() {
	local s out=''
	for ((s = 1; s <= SPINES; s++)); do
		out+="$(fabric_link_packets "$1" "$s" up) "
	done
	echo "$out"
}

# wait_uplinks L "BASE..." N SPINE...: wait (60 s at most) until each
# given spine link of leaf L has carried N packets more than BASE.
wait_uplinks() {
	local l=$1 base=$2 n=$3 i s ok
	shift 3
	local -a b0=($base) now
	for ((i = 0; i < 600; i++)); do
		read -r -a now <<<"$(uplinks "$l")"
		ok=1
		for s in "$@"; do
			((now[s - 1] - b0[s - 1] >= n)) || ok=0
		done
		((ok)) && return 0
		nap 0.1
	done
	return 1
}

# diffs "A..." "B...": element-wise B - A.
diffs() {
	local -a x=($1) y=($2)
	local i out=''
	for i in "${!x[@]}"; do
		out+="$((y[i] - x[i])) "
	done
	echo "$out"
}

# every_spine "D1 D2 ..." N: every spine carried packets, N or more in
# all.  256 flows leave a spine empty with probability 4 * 0.75^256.
every_spine() {
	local -a v=($1)
	local x tot=0
	for x in "${v[@]}"; do
		((x > 0)) || return 1
		tot=$((tot + x))
	done
	((tot >= $2))
}

# shares "D1 D2 ...": the smallest and the largest share, in percent.
shares() {
	tr ' ' '\n' <<<"$1" | awk 'NF { v[n++] = $1; t += $1 }
		END { lo = hi = v[0]; for (i in v) { if (v[i] < lo) lo = v[i]; if (v[i] > hi) hi = v[i] }
		      printf "%.1f %.1f\n", 100 * lo / t, 100 * hi / t }'
}

# one_path "D1 D2 ...": at least 98% of the packets on a single spine.
one_path() {
	local -a v=($1)
	local x tot=0 max=0
	for x in "${v[@]}"; do
		tot=$((tot + x))
		((x > max)) && max=$x
	done
	((tot > 0 && max * 100 >= tot * 98))
}

# busiest "D1 D2 ...": the 1-based index of the largest.
busiest() {
	local -a v=($1)
	local i best=0
	for i in "${!v[@]}"; do
		((v[i] > v[best])) && best=$i
	done
	echo $((best + 1))
}

# iperf_json FILE EXPR: a value of an iperf3 -J result (python expression
# over e = the "end" object).
iperf_json() {
	"$PY3" -I -S -c 'import json, sys
e = json.load(open(sys.argv[1]))["end"]
print(eval(sys.argv[2]))' "$1" "$2"
}

# iperf_server NODE PORT: one-shot iperf3 server, waits until it listens.
iperf_server() {
	local i
	bg ip netns exec "$(fabric_ns "$1")" iperf3 -s -1 -p "$2" >/dev/null 2>&1
	for ((i = 0; i < 100; i++)); do
		fabric_exec "$1" ss -Hltn "sport = :$2" 2>/dev/null | grep -q . && return 0
		nap 0.1
	done
	fail "iperf3 server in $1 did not start"
}

netstat_ctr() { # NODE NAME: a counter of /proc/net/netstat or snmp
	fabric_exec "$1" cat /proc/net/netstat /proc/net/snmp | awk -v k="$2" '
		NR % 2 == 1 { split($0, h) ; next }
		{ for (i = 2; i <= NF; i++) if (h[i] == k) { print $i; exit } }'
}

fabric_cleanup_on_exit

# ---------------------------------------------------------------------------
log "== 1. creation, reachability"
fabric_create "$LEAVES" "$HOSTS" "$SPINES" "$RATE" "$DELAY" || fail "fabric_create failed"
check "${#FABRIC_NS[@]} namespaces exist" \
	test "$(ip netns list | grep -c "^$FABRIC_PREFIX")" -eq $((LEAVES * HOSTS + LEAVES + SPINES))
log "created in $FABRIC_CREATE_MS ms"

# All pairs, both families: one netns exec per source, pings in parallel.
pingfail=$WORKDIR/pingfail
: >"$pingfail"
pids=()
for ((l = 1; l <= LEAVES; l++)); do
	for ((i = 1; i <= HOSTS; i++)); do
		dsts=()
		for ((m = 1; m <= LEAVES; m++)); do
			for ((j = 1; j <= HOSTS; j++)); do
				((l == m && i == j)) && continue
				dsts+=("$(fabric_addr "$m" "$j")" "$(fabric_addr6 "$m" "$j")")
			done
		done
		# shellcheck disable=SC2016 # expanded by the inner bash
		fabric_exec "h$l-$i" bash -c '
			src=$1 out=$2; shift 2
			for d in "$@"; do
				{ '"${PING[*]}"' -c 2 -W 5 "$d" >/dev/null 2>&1 ||
				  echo "$src -> $d" >>"$out"; } &
			done
			wait' _ "h$l-$i" "$pingfail" "${dsts[@]}" &
		pids+=($!)
	done
done
for p in "${pids[@]}"; do wait "$p" || true; done
npairs=$((LEAVES * HOSTS * (LEAVES * HOSTS - 1)))
check "all $npairs host pairs answer ping over IPv4 and IPv6" test ! -s "$pingfail"
[[ -s $pingfail ]] && log "unreachable: $(tr '\n' ' ' <"$pingfail")"

# ---------------------------------------------------------------------------
log "== 2. ECMP"
sink_start h2-1
for fam in 4 6; do
	if [[ $fam == 4 ]]; then dst=$(fabric_addr 2 1); else dst=$(fabric_addr6 2 1); fi
	a=$(uplinks 1)
	res=$(udp_send h1-1 "$dst" 20000 256 1024)
	b=$(uplinks 1)
	d=$(diffs "$a" "$b")
	log "IPv$fam, 256 source ports x 4 packets ($res): leaf 1 -> spines: $d"
	check "IPv$fam: 256 flows reach every spine (1024 packets)" every_spine "$d" 1024
	read -r lo hi <<<"$(shares "$d")"
	measure "ecmp_ipv${fam}_min_share_pct" "$lo"
	measure "ecmp_ipv${fam}_max_share_pct" "$hi"
done

# One 5-tuple: always one spine; a second, connected socket with the same
# 5-tuple (another random sk_txhash) must take the same one.
for port in 31000 31001 31002; do
	a=$(uplinks 1)
	udp_send h1-1 "$(fabric_addr 2 1)" "$port" 1 200 >/dev/null
	b=$(uplinks 1)
	d1=$(diffs "$a" "$b")
	udp_send h1-1 "$(fabric_addr 2 1)" "$port" 1 200 connect >/dev/null
	c=$(uplinks 1)
	d2=$(diffs "$b" "$c")
	log "source port $port: unconnected $d1| connected $d2"
	check "port $port: one 5-tuple stays on one spine" one_path "$d1"
	check "port $port: same spine from a connected socket" \
		test "$(one_path "$d2" && busiest "$d2")" == "$(busiest "$d1")"
done
a=$(uplinks 1)
udp_send h1-1 "$(fabric_addr6 2 1)" 31000 1 200 >/dev/null
b=$(uplinks 1)
d=$(diffs "$a" "$b")
log "IPv6 source port 31000: $d"
check "IPv6: one 5-tuple stays on one spine" one_path "$d"
sink_stop >/dev/null

# ---------------------------------------------------------------------------
log "== 3. rate limit"
# UDP at twice the rate for 4 s: what arrives is the rate (1442-byte frames
# of 1400-byte payloads), counted leaving leaf 2 over 2 s in the middle of
# the run.  (iperf3's own sum counts what is still queued when its control
# connection, which takes the hosts' control band, ends the test.)  The
# sender's NIC queue is made deep for this, so that the sender's own
# stalls under TCG (iperf3 catching up in bursts) never leave the link
# idle: what is measured is the shaper.
fabric_exec h1-1 tc qdisc change dev eth0 parent 1:2 handle 20: netem delay $((2 * DELAY))ms \
	rate "${RATE}mbit" limit 1000
iperf_server h2-1 5301
fabric_exec h1-1 iperf3 -c "$(fabric_addr 2 1)" -p 5301 -u -b $((2 * RATE))M -l 1400 -t 4 \
	>/dev/null 2>&1 &
udp=$!
sleep 1.5
t0=$(date +%s%N)
n0=$(fabric_dev_counter l2 h1 tx_packets)
sleep 2
t1=$(date +%s%N)
n1=$(fabric_dev_counter l2 h1 tx_packets)
wait "$udp" || true
bg_wait "$BG_PID" || true
got=$(calc "($n1 - $n0) * 1442 * 8 * 1000 / ($t1 - $t0)")
log "UDP offered $((2 * RATE)) Mbit/s: $((n1 - n0)) packets left leaf 2 in $(((t1 - t0) / 1000000)) ms, $(printf '%.2f' "$got") Mbit/s on the wire"
# The shaper works: far from the 2 x RATE offered, near RATE (9.65-10.02
# measured at 10 Mbit/s on a quiet host, 7.05 with five guests on two
# cores: a starved guest offers less than it asks).  Only the shaper's
# own bound is asserted, with 3x the quiet spread; the rest is reported.
check_range "UDP at 2x RATE is cut to at most RATE (0..1.3)" udp_2x_rate_mbit \
	"$got" 0.01 "$(calc "$RATE * 1.3")"
fabric_set_rate h1-1 eth0 "$RATE" # and the default queue again

iperf_server h2-1 5302
fabric_exec h1-1 iperf3 -c "$(fabric_addr 2 1)" -p 5302 -t 6 -O 1 -J >"$WORKDIR/tcp.json" || true
bg_wait "$BG_PID" || true
tcp=$(iperf_json "$WORKDIR/tcp.json" 'e["sum_received"]["bits_per_second"] / 1e6' 2>/dev/null || echo 0)
retr=$(iperf_json "$WORKDIR/tcp.json" 'e["sum_sent"].get("retransmits", -1)' 2>/dev/null || echo -1)
TCP_GOODPUT=$tcp
log "TCP h1-1 -> h2-1: $(printf '%.2f' "$tcp") Mbit/s goodput, $retr retransmissions (max goodput $(calc "$RATE * 1448 / 1514"))"
# How fast is the guest's CPU (5.6-9.0 Mbit/s measured): only that it
# got through.
check_some "one TCP flow crosses the fabric" tcp_goodput_mbit "$tcp"
# The hosts' NIC queues serve control first (fabric.sh, "Queueing
# disciplines"): the receiver's pure ACKs took the control band, the
# sender's segments the data band.
read -r ap ab <<<"$(band_stats h2-1 10)"
read -r dp db <<<"$(band_stats h1-1 20)"
log "control band of h2-1: $ap packets, $ab bytes; data band of h1-1: $dp packets, $db bytes"
check "TCP's pure ACKs take the host's control band" \
	awk -v p="$ap" -v b="$ab" 'BEGIN { exit !(p > 0 && b < 128 * p) }'
check "TCP's segments take the host's data band" \
	awk -v p="$dp" -v b="$db" 'BEGIN { exit !(p > 0 && b > 1000 * p) }'

# ---------------------------------------------------------------------------
log "== 4. ECN marks under congestion (2 senders -> 1 receiver)"
for n in h1-2 h2-2; do
	fabric_exec "$n" sysctl -q -w net.ipv4.tcp_ecn=1
done
ce0=$(netstat_ctr h1-1 InCEPkts)
m0=$(fabric_queue_stats l1 h1 | sed -n 's/.*"marked":\([0-9]*\).*/\1/p')
iperf_server h1-1 5401
srv1=$BG_PID
iperf_server h1-1 5402
srv2=$BG_PID
fabric_exec h1-2 iperf3 -c "$(fabric_addr 1 1)" -p 5401 -t 5 -J >"$WORKDIR/ecn1.json" &
c1=$!
fabric_exec h2-2 iperf3 -c "$(fabric_addr 1 1)" -p 5402 -t 5 -J >"$WORKDIR/ecn2.json" &
c2=$!
wait "$c1" || true
wait "$c2" || true
bg_wait "$srv1" || true
bg_wait "$srv2" || true
qs=$(fabric_queue_stats l1 h1)
m1=$(sed -n 's/.*"marked":\([0-9]*\).*/\1/p' <<<"$qs")
ce1=$(netstat_ctr h1-1 InCEPkts)
g1=$(iperf_json "$WORKDIR/ecn1.json" 'e["sum_received"]["bits_per_second"] / 1e6' 2>/dev/null || echo 0)
g2=$(iperf_json "$WORKDIR/ecn2.json" 'e["sum_received"]["bits_per_second"] / 1e6' 2>/dev/null || echo 0)
log "leaf 1 -> h1-1 queue: $(cut -c1-220 <<<"$qs")..."
log "goodputs $(printf '%.2f + %.2f' "$g1" "$g2") Mbit/s; CE marks on the port $((m1 - m0)); receiver InCEPkts $((ce1 - ce0))"
check "CE-marked packets on the congested port" test $((m1 - m0)) -gt 0
check "the receiver saw CE (IpExtInCEPkts)" test $((ce1 - ce0)) -gt 0
check "no trimming without FABRIC_TRIM (trims 0)" \
	test "$(sed -n 's/.*"trims":\([0-9]*\).*/\1/p' <<<"$qs")" == 0
check "both flows got through" test "$(calc "($g1 > 0) * ($g2 > 0)")" = 1
measure ecn_tcp_sum_mbit "$(calc "$g1 + $g2")"

# ---------------------------------------------------------------------------
log "== 5. blackhole leaf 1 - spine 2, mid-transfer"
routes0=$(ip -n "$(fabric_leaf 1)" route; ip -n "$(fabric_leaf 1)" -6 route)
icmp0=$(netstat_ctr h1-1 InDestUnreachs)
sink_start h2-1
h0=$(fabric_dev_counter h1-1 eth0 tx_packets)
a=$(uplinks 1)
# 256 ports at 1000 datagrams/s until stopped; the blackhole comes once
# the link has carried some of it, the sender stops once every link has
# carried more since.
bg ip netns exec "$(fabric_ns h1-1)" "$PY3" -I -S "$PY" send "$(fabric_addr 2 1)" 9000 \
	20000 256 0 200 1000 >"$WORKDIR/bh.send"
sender=$BG_PID
wait_uplinks 1 "$a" 30 2 || log "the transfer did not reach spine 2"
fabric_blackhole 1 2
b=$(uplinks 1)
sp2down0=$(fabric_link_packets 2 2 down)
sender_alive=0
kill -0 "$sender" 2>/dev/null && sender_alive=1
wait_uplinks 1 "$b" 30 1 2 3 4 || log "the transfer did not reach every spine"
kill -TERM "$sender" 2>/dev/null || true
wait "$sender" 2>/dev/null || true
sleep 0.5
c=$(uplinks 1)
sp2down1=$(fabric_link_packets 2 2 down)
h1=$(fabric_dev_counter h1-1 eth0 tx_packets)
received=$(sink_stop)
sent=$((h1 - h0))
qs=$(fabric_queue_stats s2 l1)
eaten=$(sed -n 's/.*"ingress_drops":\([0-9]*\).*/\1/p' <<<"$qs")
before=$(diffs "$a" "$b")
after=$(diffs "$b" "$c")
log "uplinks of leaf 1 before the blackhole: $before| after: $after"
log "h1-1 sent $sent ($(cat "$WORKDIR/bh.send")), h2-1 received $received, the blackhole ate ${eaten:-0}"
read -r -a aft <<<"$after"
read -r -a bef <<<"$before"
check "the blackhole came mid-transfer" test "$sender_alive" -eq 1 -a "${bef[1]}" -gt 0
check "ECMP still hashes onto the blackholed link" test "${aft[1]}" -gt 0
check "the other spines carry traffic" test $((aft[0] * aft[2] * aft[3])) -gt 0
check "spine 2 forwarded nothing to leaf 2 after the blackhole" \
	test $((sp2down1 - sp2down0)) -le 3
check "the blackhole ate packets" test "${eaten:-0}" -gt 0
check_range "received + eaten == sent (within 2%)" blackhole_accounted_over_sent \
	"$(calc "($received + ${eaten:-0}) / ($sent + 0.001)")" 0.98 1.01
check "the receiver lost packets" test "$received" -lt "$sent"
check "routes unchanged" test "$routes0" == "$(ip -n "$(fabric_leaf 1)" route; ip -n "$(fabric_leaf 1)" -6 route)"
check "the link stays up (leaf end)" link_up l1 s2
check "the link stays up (spine end)" link_up s2 l1
check "no ICMP error came back" test "$(netstat_ctr h1-1 InDestUnreachs)" == "$icmp0"

fabric_restore 1 2
sink_start h2-1
h0=$(fabric_dev_counter h1-1 eth0 tx_packets)
a=$(uplinks 1)
udp_send h1-1 "$(fabric_addr 2 1)" 20000 256 1024 >/dev/null
b=$(uplinks 1)
h1=$(fabric_dev_counter h1-1 eth0 tx_packets)
received=$(sink_stop)
log "after restore: $(diffs "$a" "$b")| received $received of $((h1 - h0)) sent"
check "after restore nothing is lost" test "$received" -ge $((h1 - h0 - 3))
check "after restore spine 2 carries traffic again" test "$(diffs "$a" "$b" | awk '{ print $2 }')" -gt 0

# ---------------------------------------------------------------------------
log "== 6. oversubscription and degraded links"
fabric_oversubscribe 1
check "leaf 1 routes over spine 1 only (IPv4)" \
	test "$(ip -n "$(fabric_leaf 1)" route show 10.2.0.0/16 | grep -c 'dev s[2-9]' || true)" -eq 0 -a \
	"$(ip -n "$(fabric_leaf 1)" route show 10.2.0.0/16 | grep -c 'dev s1')" -eq 1
check "leaf 1 routes over spine 1 only (IPv6)" \
	test "$(ip -n "$(fabric_leaf 1)" -6 route show fd00:fab:2::/48 | grep -c 'dev s[2-9]' || true)" -eq 0
sink_start h2-1
a=$(uplinks 1)
udp_send h1-1 "$(fabric_addr 2 1)" 20000 256 1024 >/dev/null
b=$(uplinks 1)
sink_stop >/dev/null
d=$(diffs "$a" "$b")
read -r -a dd <<<"$d"
log "oversubscribed 4:1, 256 flows: $d"
check "everything goes through spine 1" test "${dd[0]}" -ge 1000 -a $((dd[1] + dd[2] + dd[3])) -le 5

fabric_link_rate 1 1 3
iperf_server h2-1 5601
fabric_exec h1-1 iperf3 -c "$(fabric_addr 2 1)" -p 5601 -u -b 6M -l 1400 -t 4 -J \
	>"$WORKDIR/deg.json" || true
bg_wait "$BG_PID" || true
got=$(iperf_json "$WORKDIR/deg.json" '(e["sum"]["packets"] - e["sum"]["lost_packets"]) * 1442 * 8 / e["sum"]["seconds"] / 1e6' 2>/dev/null || echo 0)
log "leaf 1 - spine 1 at 3 Mbit/s: UDP at 6 Mbit/s arrives at $(printf '%.2f' "$got") Mbit/s"
# 2.69-2.94 measured on a quiet host, but 1.00 with the host's two cores
# shared by five guests: a starved guest sends less than it offers, so
# only what the rate limit decides is asserted: the link carries traffic,
# and no more than its 3 Mbit/s (with margin), far below the 6 offered.
check_range "the degraded link carries at most 3 Mbit/s (0..4.5)" \
	udp_degraded_mbit "$got" 0.01 4.5

iperf_server h2-1 5602
fabric_exec h1-1 iperf3 -c "$(fabric_addr 2 1)" -p 5602 -t 5 -O 1 -J >"$WORKDIR/deg2.json" || true
bg_wait "$BG_PID" || true
tcp=$(iperf_json "$WORKDIR/deg2.json" 'e["sum_received"]["bits_per_second"] / 1e6' 2>/dev/null || echo 0)
log "TCP over the degraded link: $(printf '%.2f' "$tcp") Mbit/s"
check_some "TCP crosses the degraded link" tcp_degraded_mbit "$tcp"

fabric_oversubscribe 2 rate
r=$(fabric_queue_stats l1 s3 | sed -n 's/.*"rate_bps":\([0-9]*\).*/\1/p')
check "rate-mode oversubscription: uplinks at RATE*2/4" test "$r" -eq $((RATE * 1000000 / 2))
fabric_restore
check "restore: 4 nexthops again (IPv4)" \
	test "$(ip -n "$(fabric_leaf 1)" route show 10.2.0.0/16 | grep -c nexthop)" -eq 4
check "restore: 4 nexthops again (IPv6)" \
	test "$(ip -n "$(fabric_leaf 1)" -6 route show fd00:fab:2::/48 | grep -c nexthop)" -eq 4
r=$(fabric_queue_stats l1 s1 | sed -n 's/.*"rate_bps":\([0-9]*\).*/\1/p')
check "restore: leaf 1 - spine 1 back at RATE" test "$r" -eq $((RATE * 1000000))

# ---------------------------------------------------------------------------
fabric_destroy
fabric_destroy
check "fabric_destroy removed every namespace (and is idempotent)" \
	test "$(ip netns list | grep -c "^$FABRIC_PREFIX" || true)" -eq 0

if ((${#FAILED[@]} > 0)); then
	log "${#FAILED[@]} check(s) failed:"
	for f in "${FAILED[@]}"; do log "  - $f"; done
	exit "$KSFT_FAIL"
fi
pass "all checks (TCP goodput $(printf '%.2f' "$TCP_GOODPUT") of $RATE Mbit/s)"
