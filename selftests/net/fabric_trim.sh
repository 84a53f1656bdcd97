#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric_trim.sh - switch trimming (FABRIC_TRIM=1) on the emulated
# leaf-spine fabric (selftests/net/fabric.sh: 2 leaves x 3 hosts x 4
# spines, 10 Mbit/s, a one-BDP switch buffer).  A 3:1 incast of MPDT
# senders, h1-1 h1-2 h1-3 -> h2-1, overflows leaf 2's port to h2-1:
#   IPv4:  the switches trim instead of dropping (trims > 0 on the port,
#          no drops but of PROBEs: only DATA is trimmed), the receiver NACKs the trimmed packets (drop_trimmed,
#          tx_nack), the senders retransmit on NACK (retx_nack), every
#          message arrives intact, once; the trimmed packets seen by h2-1
#          are well formed (90 bytes, TRIMMED, lengths, IPv4 header
#          checksum, UDP checksum 0);
#   IPv6:  the same, the trimmed packets (110 bytes) with a correct UDP
#          checksum;
#   other: UDP that is not MPDT DATA (another port; port 4796 but not MPDT
#          version 1) is tail-dropped, never trimmed;
#   FABRIC_TRIM=0: the same IPv4 incast on a new fabric: drops, no trims,
#          nothing NACKed as trimmed, every message still intact.

# shellcheck source=selftests/net/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=selftests/net/fabric.sh
source "$(dirname "$0")/fabric.sh"

SPINES=4
SENDERS="1 2 3"
MSGS=6
MIN_BYTES=$((32 * 1024))
MAX_BYTES=$((128 * 1024))
PORT=7800
# Ports that can overflow: leaf 2's port to the receiver, and leaf 1's
# uplinks (ECMP may put two of the flows on one spine).
PORTS="l2:h1 l1:s1 l1:s2 l1:s3 l1:s4"

require_root
require_cmd python3
# A fixed window of 64 KB per sender, three senders into one 10 Mbit/s
# port with a one-BDP (~12 KB) buffer: most of every window overflows.
# Room for the timeouts of the run without trimming.
mpdt_load link_mbps=10 base_rtt_us=10000 fixed_cwnd=65536 \
	rto_min_us=50000 rto_max_us=400000 max_retries=40
# A host queue that holds any window: the losses are the switch's.
export FABRIC_QUEUE_BDPS=1 FABRIC_HOST_QLEN_PKTS=1000
FABRIC_TRIM=1 fabric_create 2 3 "$SPINES" 10 1
fabric_cleanup_on_exit

RECV_NS=$(fabric_host 2 1)

# sniff: in h2-1, every 90- or 110-byte frame (a trimmed IPv4 or IPv6
# MPDT DATA packet; classic BPF filter on the socket) is checked until
# SIGTERM, then {"trimmed": ok, "bad": malformed} is printed.
SNIFF=$(cat <<'EOF'
import ctypes, json, signal, socket, struct, sys
def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s
st = {"trimmed": 0, "bad": 0}
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
# ld len; jeq 90 -> accept; jeq 110 -> accept; drop
flt = ctypes.create_string_buffer(struct.pack(
    "HBBI" * 5, 0x80, 0, 0, 0, 0x15, 1, 0, 90, 0x15, 0, 1, 110,
    0x06, 0, 0, 0x40000, 0x06, 0, 0, 0))
s.setsockopt(socket.SOL_SOCKET, 26,          # SO_ATTACH_FILTER
             struct.pack("HL", 5, ctypes.addressof(flt)))
open(sys.argv[1], "w").close()
try:
    while True:
        p, a = s.recvfrom(2048)
        if a[2] == socket.PACKET_OUTGOING:
            continue
        et = struct.unpack("!H", p[12:14])[0]
        if et == 0x0800 and len(p) == 90:
            ip, u = p[14:34], p[34:]
            ok = csum(ip) == 0xffff and struct.unpack("!H", ip[2:4])[0] == 76
            ok = ok and u[6:8] == b"\0\0"
        elif et == 0x86dd and len(p) == 110:
            ip, u = p[14:54], p[54:]
            ok = struct.unpack("!H", ip[4:6])[0] == 56 and u[6:8] != b"\0\0"
            ok = ok and csum(ip[8:40] + struct.pack("!IxxxB", 56, 17) + u) == 0xffff
        else:
            continue
        if struct.unpack("!H", u[2:4])[0] != 4796:
            continue
        ok = ok and struct.unpack("!H", u[4:6])[0] == 56 and u[8:10] == b"\1\1"
        ok = ok and struct.unpack("!H", u[10:12])[0] & 4 == 4
        st["trimmed" if ok else "bad"] += 1
finally:
    print(json.dumps(st))
EOF
)

sniff_start() {
	local ready=$WORKDIR/sniff.ready i
	rm -f "$ready"
	bg ip netns exec "$RECV_NS" python3 -c "$SNIFF" "$ready" >"$WORKDIR/sniff.out" 2>&1
	SNIFF_PID=$BG_PID
	for ((i = 0; i < 200; i++)); do
		[[ -e $ready ]] && return 0
		kill -0 "$SNIFF_PID" 2>/dev/null || break
		sleep 0.1
	done
	fail "the sniffer did not start: $(cat "$WORKDIR/sniff.out")"
}

# sniff_stop: SNIFF_OK, SNIFF_BAD = trimmed packets well formed, not.
sniff_stop() {
	kill -TERM "$SNIFF_PID" 2>/dev/null || true
	wait "$SNIFF_PID" 2>/dev/null || true
	json_load SNIFF_RES "$WORKDIR/sniff.out" ||
		fail "no result from the sniffer: $(cat "$WORKDIR/sniff.out")"
	SNIFF_OK=$(jv SNIFF_RES trimmed)
	SNIFF_BAD=$(jv SNIFF_RES bad)
}

# port_counters: "trims drops" of every port of $PORTS, one line each.
port_counters() {
	local p
	for p in $PORTS; do
		fabric_queue_stats "${p%:*}" "${p#*:}"
	done | python3 -c 'import json, sys
for line in sys.stdin:
    q = json.loads(line)
    print(q["trims"], q["drops"])'
}

# port_delta BEFORE AFTER: PORT_TRIMS/PORT_DROPS = the first port's
# growth, ALL_TRIMS/ALL_DROPS = all ports'; PORT_LOG describes them.
port_delta() {
	read -r PORT_TRIMS PORT_DROPS ALL_TRIMS ALL_DROPS PORT_LOG < <(python3 -c '
import sys
b = [list(map(int, l.split())) for l in sys.argv[1].splitlines()]
a = [list(map(int, l.split())) for l in sys.argv[2].splitlines()]
d = [(y[0] - x[0], y[1] - x[1]) for x, y in zip(b, a)]
log = ",".join("%s:%d/%d" % (n, t, r) for n, (t, r) in zip(sys.argv[3].split(), d))
print(d[0][0], d[0][1], sum(t for t, _ in d), sum(r for _, r in d), log)' \
		"$1" "$2" "$PORTS")
}

# sum_ctr NS... -- NAME: a counter of /proc/net/mpdt_stats summed over NS.
sum_ctr() {
	local ns sum=0 name=${*: -1}
	for ns in "${@:1:$#-2}"; do
		sum=$((sum + $(stat_get "$ns" "$name")))
	done
	echo "$sum"
}

# incast LABEL 4|6: every host of $SENDERS on leaf 1 sends MSGS verified
# messages to its own receiver (port) on h2-1, all at once.  Checks that
# every message arrived intact, once; sets the counter growths R_TX_NACK,
# R_DROP_TRIMMED (receiver), S_RX_NACK, S_RETX_NACK, S_PROBES (senders), and via
# port_delta PORT_TRIMS PORT_DROPS ALL_TRIMS ALL_DROPS.
incast() {
	local label=$1 fam=$2 i addr rc before after t0
	local -a six=() senders=() spids=() rpids=()
	# shellcheck disable=SC2034 # filled and read by snap/delta (namerefs)
	local -A r0 r1
	if [[ $fam == 6 ]]; then
		six=(-6)
		addr=$(fabric_addr6 2 1)
	else
		addr=$(fabric_addr 2 1)
	fi
	for i in $SENDERS; do
		senders+=("$(fabric_host 1 "$i")")
	done
	snap "$RECV_NS" r0
	local s_nack0 s_retx0
	s_nack0=$(sum_ctr "${senders[@]}" -- rx_nack)
	s_retx0=$(sum_ctr "${senders[@]}" -- retx_nack)
	before=$(port_counters)
	for i in $SENDERS; do
		local ready=$WORKDIR/ready.$label.$i j
		bg ip netns exec "$RECV_NS" "$(mpdt_msg_bin)" recv "${six[@]}" \
			-p $((PORT + i)) -n "$MSGS" -m "$MIN_BYTES" -M "$MAX_BYTES" \
			-s "$MPDT_SEED" -t 240 -r "$ready" >"$WORKDIR/$label.recv$i" 2>&1
		rpids[i]=$BG_PID
		for ((j = 0; j < 300; j++)); do
			[[ -e $ready ]] && break
			sleep 0.1
		done
		[[ -e $ready ]] || fail "$label: receiver $i did not come up: $(cat "$WORKDIR/$label.recv$i")"
	done
	t0=$(now_us)
	S_PROBES=0
	for i in $SENDERS; do
		bg ip netns exec "$(fabric_host 1 "$i")" "$(mpdt_msg_bin)" send \
			-a "$addr" -p $((PORT + i)) -n "$MSGS" -m "$MIN_BYTES" \
			-M "$MAX_BYTES" -s "$MPDT_SEED" -t 240 >"$WORKDIR/$label.send$i" 2>&1
		spids[i]=$BG_PID
	done
	for i in $SENDERS; do
		rc=0
		bg_wait "${spids[i]}" || rc=$?
		log "$label: sender h1-$i (exit $rc): $(cat "$WORKDIR/$label.send$i")"
		[[ $rc == 0 ]] || fail "$label: sender h1-$i failed"
		bg_wait "${rpids[i]}" ||
			fail "$label: receiver $i failed: $(cat "$WORKDIR/$label.recv$i")"
		json_load SEND_RES "$WORKDIR/$label.send$i" || fail "$label: no sender JSON"
		json_load RECV_RES "$WORKDIR/$label.recv$i" || fail "$label: no receiver JSON"
		assert_eq "$label: h1-$i messages acknowledged" "$MSGS" "$(jv SEND_RES msgs_acked)"
		S_PROBES=$((S_PROBES + $(jv SEND_RES probes)))
		assert_eq "$label: h1-$i messages received intact, once each" "$MSGS" \
			"$(jv RECV_RES received)"
		assert_eq "$label: h1-$i duplicates" 0 "$(jv RECV_RES duplicates)"
		assert_eq "$label: h1-$i corrupt" 0 "$(jv RECV_RES corrupt)"
		assert_eq "$label: h1-$i truncated" 0 "$(jv RECV_RES truncated)"
	done
	log "$label: incast done in $(secs_since "$t0") s (seed $MPDT_SEED)"
	after=$(port_counters)
	port_delta "$before" "$after"
	snap "$RECV_NS" r1
	R_TX_NACK=$(delta r1 r0 tx_nack)
	R_DROP_TRIMMED=$(delta r1 r0 drop_trimmed)
	S_RX_NACK=$(($(sum_ctr "${senders[@]}" -- rx_nack) - s_nack0))
	S_RETX_NACK=$(($(sum_ctr "${senders[@]}" -- retx_nack) - s_retx0))
	PORT=$((PORT + 10))
	log "$label: ports trims/drops $PORT_LOG; receiver tx_nack $R_TX_NACK" \
		"drop_trimmed $R_DROP_TRIMMED; senders rx_nack $S_RX_NACK retx_nack $S_RETX_NACK"
}

# trimmed_incast LABEL 4|6: an incast through the trimming fabric.
trimmed_incast() {
	local label=$1
	sniff_start
	incast "$@"
	sniff_stop
	log "$label: trimmed packets at h2-1: $SNIFF_OK well formed, $SNIFF_BAD malformed"
	assert_gt "$label: trims on the congested port (l2/h1)" 0 "$PORT_TRIMS"
	# Only DATA is trimmed: a PROBE (type 4) that overflows is dropped.
	assert_le "$label: tail drops on the switch ports (PROBEs only)" \
		"$S_PROBES" "$ALL_DROPS"
	assert_gt "$label: trimmed packets at the receiver (drop_trimmed)" 0 "$R_DROP_TRIMMED"
	assert_le "$label: trimmed packets received (<= trims)" "$ALL_TRIMS" "$R_DROP_TRIMMED"
	assert_ge "$label: NACKs sent (tx_nack >= drop_trimmed)" "$R_DROP_TRIMMED" "$R_TX_NACK"
	assert_gt "$label: NACKs received by the senders" 0 "$S_RX_NACK"
	assert_gt "$label: retransmissions on NACK" 0 "$S_RETX_NACK"
	assert_gt "$label: well-formed trimmed packets seen" 0 "$SNIFF_OK"
	assert_eq "$label: malformed trimmed packets" 0 "$SNIFF_BAD"
	log "ok: $label: trimmed, NACKed, retransmitted, every message intact"
}

trimmed_incast trim4 4
trimmed_incast trim6 6

# Not MPDT DATA: UDP to another port with an MPDT-looking header, and to
# port 4796 with version 0.  Two hosts at once overflow a port: tail
# drops, no trims.
BLAST=$(cat <<'EOF'
import os, socket, struct, sys, time
dst, go, ready = sys.argv[1], sys.argv[2], sys.argv[3]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
data = struct.pack("!BBH12x32x", 1, 1, 1) + bytes(1400)
junk = bytes(48 + 1400)
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.02)
for i in range(400):
    try:
        s.sendto(data if i % 2 else junk, (dst, 4797 if i % 2 else 4796))
    except OSError:
        pass
EOF
)
before=$(port_counters)
rm -f "$WORKDIR/go"
bpids=()
for i in 1 2; do
	bg ip netns exec "$(fabric_host 1 "$i")" python3 -c "$BLAST" \
		"$(fabric_addr 2 1)" "$WORKDIR/go" "$WORKDIR/blast.$i" >"$WORKDIR/blast$i.out" 2>&1
	bpids+=("$BG_PID")
done
for ((j = 0; j < 300; j++)); do
	[[ -e $WORKDIR/blast.1 && -e $WORKDIR/blast.2 ]] && break
	sleep 0.1
done
touch "$WORKDIR/go"
for p in "${bpids[@]}"; do
	bg_wait "$p" || fail "UDP blaster failed: $(cat "$WORKDIR"/blast*.out)"
done
sleep 1.5 # the queue drains
port_delta "$before" "$(port_counters)"
log "other UDP: ports trims/drops $PORT_LOG"
# Where the blast overflows depends on the hash: the receiver's port, or
# an uplink both flows land on.
assert_gt "other UDP: tail drops on the checked ports" 0 "$ALL_DROPS"
assert_eq "other UDP: trims" 0 "$ALL_TRIMS"
log "ok: UDP that is not MPDT DATA is dropped, not trimmed"

# The same IPv4 incast without trimming.
fabric_destroy
FABRIC_TRIM=0 fabric_create 2 3 "$SPINES" 10 1
RECV_NS=$(fabric_host 2 1)
PORT=$((PORT + 100))
incast drop4 4
assert_gt "drop4: tail drops on the congested port (l2/h1)" 0 "$PORT_DROPS"
assert_eq "drop4: trims" 0 "$ALL_TRIMS"
assert_eq "drop4: trimmed packets at the receiver" 0 "$R_DROP_TRIMMED"
log "ok: without trimming the port drops, and every message still arrives"
pass
