#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric_trim.sh - switch trimming (FABRIC_TRIM=1) on the emulated
# leaf-spine fabric (selftests/net/fabric.sh: 2 leaves x 3 hosts x 4
# spines, 10 Mbit/s, a one-BDP switch buffer).  A 3:1 incast of MPDT
# senders, h1-1 h1-2 h1-3 -> h2-1, started together, overflows the fabric
# between them: leaf 2's port to h2-1 or, when ECMP puts two of the flows
# on one spine, that leaf 1 uplink too.  Which ports overflow depends on
# the hash, so every check counts over all the switch ports the incast
# can cross (leaf 1's uplinks, the spines' ports to leaf 2, leaf 2's port
# to h2-1) and asserts exact counter relations, never a port:
#   IPv4:  trims > 0; the forward packets lost (what the senders sent less
#          what h2-1 received) are exactly the forward ports' drops, and
#          no more than the PROBEs sent (only MPDT DATA is trimmed: no
#          DATA is lost); every trimmed packet reaches h2-1 well formed
#          (90 bytes, TRIMMED, lengths, IPv4 header checksum, UDP checksum
#          0), so drop_trimmed <= trimmed packets seen <= trims; each
#          drop_trimmed is NACKed (tx_nack >= drop_trimmed), the senders
#          get NACKs and retransmit on them (retx_nack); every message
#          arrives intact, once;
#   IPv6:  the same, the trimmed packets (110 bytes) with a correct UDP
#          checksum;
#   other: UDP that is not MPDT DATA (another port; port 4796 but not MPDT
#          version 1) from two hosts at once is tail-dropped (drops > 0),
#          never trimmed (trims 0 on every switch port);
#   FABRIC_TRIM=0: the same IPv4 incast on a new fabric: drops > 0, no
#          trims, nothing NACKed as trimmed, the forward losses are the
#          ports' drops, every message still intact.
# The senders wait for one go signal, so the three windows always meet.

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
# Every switch port a packet from leaf 1 to h2-1 can cross, whichever
# spine ECMP picks.
FWD_PORTS="l2:h1"
for ((s = 1; s <= SPINES; s++)); do
	FWD_PORTS+=" l1:s$s s$s:l2"
done

require_root
require_cmd python3
# A fixed window of 64 KB per sender, three senders into one 10 Mbit/s
# port with a one-BDP (~12 KB) buffer: most of every window overflows.
# Room for the timeouts of the run without trimming.
mpdt_load cc=fixed link_mbps=10 base_rtt_us=10000 fixed_cwnd=65536 \
	rto_min_us=50000 rto_max_us=400000 max_retries=40
# A host queue that holds any window: the losses are the switch's.
export FABRIC_QUEUE_BDPS=1 FABRIC_HOST_QLEN_PKTS=1000
FABRIC_TRIM=1 fabric_create 2 3 "$SPINES" 10 1
fabric_cleanup_on_exit

RECV_NS=$(fabric_host 2 1)

# sniff: in h2-1, every 90- or 110-byte frame (a trimmed IPv4 or IPv6
# MPDT DATA packet; classic BPF filter on the socket) is checked until
# SIGTERM, then {"trimmed": ok, "bad": malformed, "lost": frames the
# socket dropped} is printed.  The socket buffer holds far more trimmed
# frames than an incast makes, so it sees all of them ("lost" 0).
SNIFF=$(cat <<'EOF'
import ctypes, json, signal, socket, struct, sys
def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s
st = {"trimmed": 0, "bad": 0, "lost": 0}
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.setsockopt(socket.SOL_SOCKET, 33, 32 << 20)   # SO_RCVBUFFORCE
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
    # PACKET_STATISTICS: struct tpacket_stats { packets, drops }
    st["lost"] = struct.unpack("II", s.getsockopt(263, 6, 8))[1]
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
		nap 0.1
	done
	fail "the sniffer did not start: $(cat "$WORKDIR/sniff.out")"
}

# sniff_stop: SNIFF_OK, SNIFF_BAD = trimmed packets well formed, not;
# SNIFF_LOST = frames the sniffer's socket dropped.
sniff_stop() {
	kill -TERM "$SNIFF_PID" 2>/dev/null || true
	wait "$SNIFF_PID" 2>/dev/null || true
	json_load SNIFF_RES "$WORKDIR/sniff.out" ||
		fail "no result from the sniffer: $(cat "$WORKDIR/sniff.out")"
	SNIFF_OK=$(jv SNIFF_RES trimmed)
	SNIFF_BAD=$(jv SNIFF_RES bad)
	SNIFF_LOST=$(jv SNIFF_RES lost)
}

# port_delta BEFORE AFTER (two fabric_port_counters outputs): over every
# switch port ALL_TRIMS, ALL_DROPS; over $FWD_PORTS FWD_TRIMS, FWD_DROPS;
# PORT_LOG names the ports that trimmed or dropped ("port:trims/drops").
port_delta() {
	read -r ALL_TRIMS ALL_DROPS FWD_TRIMS FWD_DROPS PORT_LOG < <(python3 -c '
import sys
def load(text):
    return {f[0]: (int(f[4]), int(f[2])) for f in (l.split() for l in text.splitlines())}
b, a, fwd = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3].split()
d = {k: (a[k][0] - b[k][0], a[k][1] - b[k][1]) for k in a}
log = ",".join("%s:%d/%d" % (k, t, r) for k, (t, r) in sorted(d.items()) if t or r)
print(sum(t for t, _ in d.values()), sum(r for _, r in d.values()),
      sum(d[k][0] for k in fwd), sum(d[k][1] for k in fwd), log or "none")' \
		"$1" "$2" "$FWD_PORTS")
}

# host_qdrops NS: packets the host's NIC queue (eth0) has dropped.
host_qdrops() {
	local n
	n=$(tc -n "$1" -s qdisc show dev eth0 | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -n 1)
	echo "${n:-0}"
}

# sum_delta NEW_PREFIX OLD_PREFIX COUNT NAME: a counter's growth summed
# over the snapshots NEW_PREFIX1..COUNT and OLD_PREFIX1..COUNT.
sum_delta() {
	local i sum=0
	for ((i = 1; i <= $3; i++)); do
		sum=$((sum + $(delta "$1$i" "$2$i" "$4")))
	done
	echo "$sum"
}

# incast LABEL 4|6: every host of $SENDERS on leaf 1 sends MSGS verified
# messages to its own receiver (port) on h2-1, all released at once.
# Checks that every message arrived intact, once, and that the packets
# lost on the way are exactly those the switch ports dropped; sets the
# counter growths R_TX_NACK, R_DROP_TRIMMED (receiver), S_RX_NACK,
# S_RETX_NACK, S_PROBES (senders), FWD_LOST (forward packets lost), and
# via port_delta ALL_TRIMS ALL_DROPS FWD_TRIMS FWD_DROPS.
incast() {
	local label=$1 fam=$2 i j n=0 addr rc before after t0 go=$WORKDIR/go.$1
	local s_tx r_rx host_drops=0
	local -a six=() spids=() rpids=()
	if [[ $fam == 6 ]]; then
		six=(-6)
		addr=$(fabric_addr6 2 1)
	else
		addr=$(fabric_addr 2 1)
	fi
	for i in $SENDERS; do
		n=$((n + 1))
		host_drops=$((host_drops - $(host_qdrops "$(fabric_host 1 "$i")")))
		snap "$(fabric_host 1 "$i")" "S0_$n"
	done
	snap "$RECV_NS" R0
	before=$(fabric_port_counters)
	for i in $SENDERS; do
		local ready=$WORKDIR/ready.$label.$i
		bg ip netns exec "$RECV_NS" "$(mpdt_msg_bin)" recv "${six[@]}" \
			-p $((PORT + i)) -n "$MSGS" -m "$MIN_BYTES" -M "$MAX_BYTES" \
			-s "$MPDT_SEED" -t 240 -r "$ready" >"$WORKDIR/$label.recv$i" 2>&1
		rpids[i]=$BG_PID
		for ((j = 0; j < 300; j++)); do
			[[ -e $ready ]] && break
			nap 0.1
		done
		[[ -e $ready ]] || fail "$label: receiver $i did not come up: $(cat "$WORKDIR/$label.recv$i")"
	done
	# Each sender opens its socket and waits for $go (mpdt_msg -g); all
	# go together: the windows overlap by construction, however slowly
	# the processes start.
	for i in $SENDERS; do
		bg ip netns exec "$(fabric_host 1 "$i")" "$(mpdt_msg_bin)" send \
			-a "$addr" -p $((PORT + i)) -n "$MSGS" -m "$MIN_BYTES" \
			-M "$MAX_BYTES" -s "$MPDT_SEED" -t 240 -r "$go.$i" -g "$go" \
			>"$WORKDIR/$label.send$i" 2>&1
		spids[i]=$BG_PID
	done
	for i in $SENDERS; do
		for ((j = 0; j < 300; j++)); do
			[[ -e $go.$i ]] && break
			nap 0.1
		done
		[[ -e $go.$i ]] || fail "$label: sender $i did not start"
	done
	t0=$(now_us)
	: >"$go"
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
		assert_eq "$label: h1-$i messages received intact, once each" "$MSGS" \
			"$(jv RECV_RES received)"
		assert_eq "$label: h1-$i duplicates" 0 "$(jv RECV_RES duplicates)"
		assert_eq "$label: h1-$i corrupt" 0 "$(jv RECV_RES corrupt)"
		assert_eq "$label: h1-$i truncated" 0 "$(jv RECV_RES truncated)"
	done
	log "$label: incast done in $(secs_since "$t0") s (seed $MPDT_SEED)"
	# Whatever is still queued (at most a window per host, 50 ms at the
	# link rate) arrives before the counters are read; should a stalled
	# guest still hold some, they are read again (up to 10 times), until
	# every forward packet is received or dropped.
	local k hq0=$host_drops
	for ((k = 1; k <= 10; k++)); do
		nap 1
		after=$(fabric_port_counters)
		port_delta "$before" "$after"
		snap "$RECV_NS" R1
		n=0 host_drops=$hq0
		for i in $SENDERS; do
			n=$((n + 1))
			snap "$(fabric_host 1 "$i")" "S1_$n"
			host_drops=$((host_drops + $(host_qdrops "$(fabric_host 1 "$i")")))
		done
		s_tx=$(($(sum_delta S1_ S0_ "$n" tx_packets) - $(sum_delta S1_ S0_ "$n" tx_err)))
		r_rx=$(delta R1 R0 rx_packets)
		FWD_LOST=$((s_tx - r_rx))
		((FWD_LOST > FWD_DROPS + host_drops)) || break
		log "$label: $((FWD_LOST - FWD_DROPS - host_drops)) packets still on the way"
	done
	R_TX_NACK=$(delta R1 R0 tx_nack)
	R_DROP_TRIMMED=$(delta R1 R0 drop_trimmed)
	S_RX_NACK=$(sum_delta S1_ S0_ "$n" rx_nack)
	S_RETX_NACK=$(sum_delta S1_ S0_ "$n" retx_nack)
	S_PROBES=$(sum_delta S1_ S0_ "$n" tx_probe)
	PORT=$((PORT + 10))
	log "$label: ports trims/drops $PORT_LOG; forward: trims $FWD_TRIMS drops $FWD_DROPS;" \
		"all ports: trims $ALL_TRIMS drops $ALL_DROPS"
	log "$label: senders sent $s_tx packets ($S_PROBES PROBEs), h2-1 received $r_rx," \
		"host queues dropped $host_drops; receiver tx_nack $R_TX_NACK" \
		"drop_trimmed $R_DROP_TRIMMED; senders rx_nack $S_RX_NACK retx_nack $S_RETX_NACK"
	assert_eq "$label: host queues dropped nothing" 0 "$host_drops"
	assert_eq "$label: forward packets lost == forward switch port drops" \
		"$FWD_DROPS" "$FWD_LOST"
}

# trimmed_incast LABEL 4|6: an incast through the trimming fabric.
trimmed_incast() {
	local label=$1
	sniff_start
	incast "$@"
	sniff_stop
	log "$label: trimmed packets at h2-1: $SNIFF_OK well formed, $SNIFF_BAD malformed," \
		"$SNIFF_LOST not captured"
	assert_gt "$label: trims on the switch ports" 0 "$ALL_TRIMS"
	assert_eq "$label: trims on the forward ports (all trims)" "$ALL_TRIMS" "$FWD_TRIMS"
	# Only DATA is trimmed: what a trimming port drops is a PROBE (a
	# forward MPDT packet of another type), never DATA.
	assert_le "$label: forward packets lost (PROBEs only: <= PROBEs sent)" \
		"$S_PROBES" "$FWD_LOST"
	assert_eq "$label: trimmed frames the sniffer missed" 0 "$SNIFF_LOST"
	assert_eq "$label: malformed trimmed packets" 0 "$SNIFF_BAD"
	assert_gt "$label: well-formed trimmed packets seen" 0 "$SNIFF_OK"
	# A trimmed packet is never dropped (a second full port trims it
	# again), so each one reaches h2-1: it was trimmed once or more, and
	# the receiver counts it in drop_trimmed unless its PSN was already
	# received (then it is a duplicate).
	assert_le "$label: trimmed packets seen (<= trims)" "$ALL_TRIMS" "$SNIFF_OK"
	assert_gt "$label: trimmed packets at the receiver (drop_trimmed)" 0 "$R_DROP_TRIMMED"
	assert_le "$label: drop_trimmed (<= trimmed packets seen)" "$SNIFF_OK" "$R_DROP_TRIMMED"
	# Each drop_trimmed is answered by one NACK (TRIMMED).
	assert_ge "$label: NACKs sent (tx_nack >= drop_trimmed)" "$R_DROP_TRIMMED" "$R_TX_NACK"
	assert_gt "$label: NACKs received by the senders" 0 "$S_RX_NACK"
	assert_le "$label: NACKs received (<= sent)" "$R_TX_NACK" "$S_RX_NACK"
	assert_gt "$label: retransmissions on NACK" 0 "$S_RETX_NACK"
	assert_le "$label: retransmissions on NACK (<= NACKs received)" "$S_RX_NACK" "$S_RETX_NACK"
	log "ok: $label: trimmed, NACKed, retransmitted, every message intact"
}

trimmed_incast trim4 4
trimmed_incast trim6 6

# Not MPDT DATA: UDP to another port with an MPDT-looking header, and to
# port 4796 with version 0.  Two hosts at once (400 datagrams each, 20
# Mbit/s towards one 10 Mbit/s port) overflow a port: tail drops, no trims.
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
before=$(fabric_port_counters)
rm -f "$WORKDIR/go"
bpids=()
for i in 1 2; do
	bg ip netns exec "$(fabric_host 1 "$i")" python3 -c "$BLAST" \
		"$(fabric_addr 2 1)" "$WORKDIR/go" "$WORKDIR/blast.$i" >"$WORKDIR/blast$i.out" 2>&1
	bpids+=("$BG_PID")
done
for ((j = 0; j < 300; j++)); do
	[[ -e $WORKDIR/blast.1 && -e $WORKDIR/blast.2 ]] && break
	nap 0.1
done
touch "$WORKDIR/go"
for p in "${bpids[@]}"; do
	bg_wait "$p" || fail "UDP blaster failed: $(cat "$WORKDIR"/blast*.out)"
done
nap 1.5 # the queues drain (800 datagrams at 10 Mbit/s: 1 s)
port_delta "$before" "$(fabric_port_counters)"
log "other UDP: ports trims/drops $PORT_LOG"
# Where the blast overflows depends on the hash (the receiver's port, or
# an uplink both flows land on): the forward ports, all of them.
assert_gt "other UDP: tail drops on the forward ports" 0 "$FWD_DROPS"
assert_eq "other UDP: trims on every switch port" 0 "$ALL_TRIMS"
log "ok: UDP that is not MPDT DATA is dropped, not trimmed"

# The same IPv4 incast without trimming.
fabric_destroy
FABRIC_TRIM=0 fabric_create 2 3 "$SPINES" 10 1
RECV_NS=$(fabric_host 2 1)
PORT=$((PORT + 100))
incast drop4 4
assert_gt "drop4: tail drops on the forward ports" 0 "$FWD_DROPS"
assert_eq "drop4: trims on every switch port" 0 "$ALL_TRIMS"
assert_eq "drop4: trimmed packets at the receiver" 0 "$R_DROP_TRIMMED"
log "ok: without trimming the ports drop, and every message still arrives"
pass
