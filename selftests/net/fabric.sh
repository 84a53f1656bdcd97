# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# fabric.sh - an emulated 2-tier leaf-spine fabric in network namespaces, for
# the MPDT selftests and experiments.  Sourced, never executed.  Needs root,
# iproute2 (ip, tc) and python3 (sysctls, the eBPF marker, statistics);
# meant for the test VM (tools/testing/vm/run.sh), works on any Linux with
# veth, sch_netem, sch_prio, sch_ingress, cls_bpf, cls_u32, cls_matchall,
# act_gact and a mountable bpffs (sch_tbf and sch_red for FABRIC_SHAPER=tbf).
# Documentation/fabric.rst has the picture, the numbers and the reasoning.
#
#   fabric_create [LEAVES [HOSTS [SPINES [RATE_MBIT [HOST_DELAY_MS]]]]]
#                                      defaults 2 4 4 10 1
#   fabric_host L I / fabric_leaf L / fabric_spine S    netns names
#   fabric_ns NODE                     netns of h<L>-<I>, l<L>, s<S> (or a name)
#   fabric_exec NODE CMD...            run CMD in NODE's netns
#   fabric_addr L I / fabric_addr6 L I host addresses (10.L.I.2, fd00:fab:L:I::2)
#   fabric_gw L I / fabric_gw6 L I     the leaf's address on that host link
#   fabric_link_addr L S leaf|spine [4|6]      a leaf-spine link address
#   fabric_link_rate L S MBIT [up|down|both]   change a leaf-spine link's rate
#   fabric_link_delay L S MS [up|down|both]    add delay to a leaf-spine link
#   fabric_set_rate NODE DEV MBIT      change any device's egress rate
#   fabric_blackhole L S [up|down|both]        drop all it carries, silently
#   fabric_blackhole_drops L S [up|down|both]  packets the blackhole dropped
#   fabric_restore [L S]               undo rate/delay/blackhole (no args: everything)
#   fabric_oversubscribe N [routes|rate]       uplink capacity N/SPINES
#   fabric_ev_routing BASE COUNT       leaves take the uplink from the EV
#   fabric_link_packets L S [up|down|both]     packets put on the link
#   fabric_dev_counter NODE DEV FIELD  one `ip -s link` counter (tx_packets...)
#   fabric_queue_stats NODE DEV        qdisc statistics as one line of JSON
#   fabric_port_counters               every switch port's marks, drops, packets, trims
#   fabric_destroy                     delete it all (idempotent)
#   fabric_cleanup_on_exit             fabric_destroy at exit (chains traps)
#
# Node names: h<L>-<I> is host I of leaf L, l<L> is leaf L, s<S> is spine S
# (all 1-based).  Device names: a host has eth0; leaf L has h<I> (to host I)
# and s<S> (to spine S); spine S has l<L> (to leaf L).  "up" is leaf->spine,
# "down" is spine->leaf.
#
# Tunables (environment, read by fabric_create):
#   FABRIC_ECN_KMIN_PCT / FABRIC_ECN_KMAX_PCT   RED marking thresholds in % of
#       the fabric BDP (default 50/50: a step at half a BDP; STrack's ramp is
#       25/75).  FABRIC_ECN_KMIN_BYTES / FABRIC_ECN_KMAX_BYTES set them in
#       bytes instead.
#   FABRIC_QUEUE_BDPS   switch buffer in BDPs (default 5, as in STrack)
#   FABRIC_TRIM         1: switch trimming: a switch port whose queue
#                       overflows cuts an MPDT DATA packet to its headers
#                       and sets TRIMMED instead of dropping it (the
#                       marker's trim(); needs FABRIC_SHAPER=netem).
#                       Default 0: tail drop only, as before.
#   FABRIC_TRIM_PORT    the UDP port of the MPDT packets to trim (4796)
#   FABRIC_LOSS_PCT     random loss on every link, each direction, in %
#                       (netem loss; decimals allowed; default 0)
#   FABRIC_HOST_QLEN_PKTS  host NIC queue in packets (default: switch buffer)
#   FABRIC_HOST_PRIO    1 (default): host NIC queues serve control first
#                       (see "Queueing disciplines"); 0: one FIFO
#   FABRIC_SHAPER       netem (default: netem rate + eBPF ECN marker) or tbf
#                       (tbf + red; loses rate under TCG, for comparison;
#                       its host queues are one FIFO)
#   FABRIC_HASH_POLICY  fib_multipath_hash_policy of the switches (default 3:
#                       FABRIC_HASH_FIELDS, default 0x37 = the 5-tuple, read
#                       from the headers; 1 = Linux's L4 policy, which
#                       reuses a forwarded packet's skb->hash)
#   FABRIC_TCP_ECN      net.ipv4.tcp_ecn in the hosts (default: untouched)
#   FABRIC_QUIET        1: no progress lines; FABRIC_VERBOSE=1: phase times
#   FABRIC_KEEP_DIR     1: keep the batch files in $FABRIC_DIR at destroy
#
# State (read-only for callers): FABRIC_PREFIX FABRIC_LEAVES FABRIC_HOSTS
# FABRIC_SPINES FABRIC_RATE FABRIC_DELAY FABRIC_RTT_US FABRIC_BDP
# FABRIC_ECN_KMIN FABRIC_ECN_KMAX FABRIC_QLIMIT FABRIC_QLIMIT_PKTS
# FABRIC_HOST_QLEN FABRIC_HOST_PRIO FABRIC_SHAPER FABRIC_ACTIVE_SPINES
# FABRIC_CREATE_MS FABRIC_DIR FABRIC_BPF_DIR, and the arrays FABRIC_NS
# (every netns) FABRIC_HOST_NS FABRIC_LEAF_NS FABRIC_SPINE_NS.
#
# Everything works under `set -euo pipefail` in the caller; the library does
# not change shell options.  One fabric per shell at a time, and its state
# is in shell variables: call fabric_create in the shell that uses it (not
# in a pipeline or $(...)).

FABRIC_PREFIX=${FABRIC_PREFIX:-}
FABRIC_NS=()
FABRIC_HOST_NS=()
FABRIC_LEAF_NS=()
FABRIC_SPINE_NS=()
declare -gA _FABRIC_XDELAY=() _FABRIC_RATES=() # "NETNS DEV" -> extra ms, Mbit/s
_FABRIC_MTU=1500
_FABRIC_FRAME=1514   # a full-size packet on the wire (the shapers count it)

# ---------------------------------------------------------------------------
# Internal helpers
# ---------------------------------------------------------------------------

_fabric_log() {
	[[ ${FABRIC_QUIET:-0} == 1 ]] && return 0
	if declare -F log >/dev/null; then
		log "fabric: $*"
	else
		printf 'fabric: %s\n' "$*"
	fi
}

_fabric_phase() { # NAME: log the time since the last phase (FABRIC_VERBOSE=1)
	local now
	now=$(_fabric_now_us)
	[[ ${FABRIC_VERBOSE:-0} == 1 ]] &&
		_fabric_log "  $1: $(((now - _FABRIC_T) / 1000)) ms"
	_FABRIC_T=$now
}

_fabric_err() {
	printf 'fabric: error: %s\n' "$*" >&2
	return 1
}

_fabric_now_us() {
	local t=${EPOCHREALTIME/,/.}
	echo "${t%.*}${t#*.}"
}

_fabric_need() {
	[[ -n $FABRIC_PREFIX && ${#FABRIC_NS[@]} -gt 0 ]] ||
		_fabric_err "no fabric (call fabric_create first)"
}

_fabric_int() { # NAME VALUE MIN MAX
	if [[ $2 =~ ^[0-9]+$ ]] && (($2 >= $3 && $2 <= $4)); then
		return 0
	fi
	_fabric_err "$1 must be an integer in [$3, $4], got '$2'"
}

_fabric_num() { # NAME VALUE: a positive decimal number
	[[ $2 =~ ^[0-9]+(\.[0-9]+)?$ && ! $2 =~ ^0+(\.0+)?$ ]] ||
		_fabric_err "$1 must be a positive number, got '$2'"
}

_fabric_chk_leaf() { _fabric_int leaf "$1" 1 "$FABRIC_LEAVES"; }
_fabric_chk_spine() { _fabric_int spine "$1" 1 "$FABRIC_SPINES"; }
_fabric_chk_host() { _fabric_int host "$1" 1 "$FABRIC_HOSTS"; }

_fabric_dirs() { # DIR -> the directions it names
	case ${1:-both} in
	up) echo up ;;
	down) echo down ;;
	both) echo up down ;;
	*) _fabric_err "direction must be up, down or both, got '$1'" ;;
	esac
}

# The sending end of a leaf-spine link direction: "NETNS DEV".
_fabric_link_tx() { # L S DIR
	if [[ $3 == up ]]; then
		echo "${FABRIC_PREFIX}l$1 s$2"
	else
		echo "${FABRIC_PREFIX}s$2 l$1"
	fi
}

# The receiving end of a leaf-spine link direction: "NETNS DEV".
_fabric_link_rx() { # L S DIR
	if [[ $3 == up ]]; then
		echo "${FABRIC_PREFIX}s$2 l$1"
	else
		echo "${FABRIC_PREFIX}l$1 s$2"
	fi
}

# _fabric_link_ends tx|rx L S DIR: validate, then the sending (tx) or
# receiving (rx) end of each direction DIR names, one "NS DEV" a line.
_fabric_link_ends() {
	local side=$1 l=$2 s=$3 d
	_fabric_need && _fabric_chk_leaf "$l" && _fabric_chk_spine "$s" &&
		_fabric_dirs "$4" >/dev/null || return 1
	for d in $(_fabric_dirs "$4"); do
		"_fabric_link_$side" "$l" "$s" "$d"
	done
}

# _fabric_parallel TOOL...: for every netns N and TOOL (ip, tc) with a file
# $FABRIC_DIR/N.TOOL, run "TOOL -n N -batch" on it, all at the same time.
_fabric_parallel() {
	local tool ns f rc=0 i
	local -a pids=() files=()
	for ns in "${FABRIC_NS[@]}"; do
		for tool in "$@"; do
			f=$FABRIC_DIR/$ns.$tool
			[[ -s $f ]] || continue
			"$tool" -n "$ns" -batch "$f" >"$f.log" 2>&1 &
			pids+=($!)
			files+=("$f")
		done
	done
	for i in "${!pids[@]}"; do
		if ! wait "${pids[i]}"; then
			printf 'fabric: -batch %s failed:\n' "${files[i]}" >&2
			sed 's/^/    /' "${files[i]}.log" >&2
			rc=1
		fi
	done
	return "$rc"
}

# Python without site/user paths (and not through a pyenv shim) starts in
# ~0.2 s under TCG instead of ~0.7 s.
_fabric_python() {
	if [[ -x /usr/bin/python3 ]]; then
		/usr/bin/python3 -I -S "$@"
	else
		python3 -I -S "$@"
	fi
}

# The python half of the library, run as: _fabric_py COMMAND ARGS...
#   sysctl NETNS "KEY=VAL ..." [NETNS "KEY=VAL ..."]...
#       enter each netns in turn (setns) and write /proc/sys: one process
#       instead of one `ip netns exec sysctl` per netns (0.3 s vs 1-2 s).
#   vq-load BPFDIR NSLOTS MBIT KMIN KMAX QLIMIT [TRIM_PORT]
#       create the virtual-queue map (pinned BPFDIR/map) and one marker
#       program per switch port (pinned BPFDIR/pSLOT), all ports at MBIT;
#       with a TRIM_PORT (not 0) the markers trim MPDT DATA packets sent
#       to that UDP port instead of dropping them.
#   vq-rate BPFDIR KMIN KMAX QLIMIT SLOT MBIT [SLOT MBIT]...
#       ports' new rates (busy time and counters kept).
#   stats NS DEV QDISC_JSON FILTER_JSON BPFDIR SLOT
#       fabric_queue_stats' JSON (BPFDIR "" for no marker).
#   vq-dump BPFDIR SLOT NAME [SLOT NAME]...
#       fabric_port_counters: "NAME marks drops packets trims" per port.
#
# The marker (see "Queueing disciplines" below) is an eBPF program
# assembled here by hand (no compiler needed) and attached to a switch
# port's clsact egress, before its netem queue.  Per port it keeps, in a
# map entry of nine u64:
#   0 busy_until (ns, CLOCK_MONOTONIC)   8 ns per byte << 10
#   16 kmin (ns of backlog)   24 limit (ns)   32 ramp: 2^32 / (kmax - kmin)
#   40 marks   48 drops   56 packets   64 trims
# and does, per packet of LEN bytes, at time NOW:
#   backlog = max(busy_until - NOW, 0)         (the queue ahead of it)
#   if backlog > limit:
#       FABRIC_TRIM=1 and an MPDT DATA packet (see trim()): cut it to its
#       headers, set TRIMMED, trims++, then queue it as below with its
#       new LEN (no ECN mark)
#       otherwise: drops++, drop
#   busy_until = max(busy_until, NOW) + LEN * ns_per_byte; packets++
#   if backlog >= kmin and (backlog - kmin) * ramp >= random32 and the
#   packet is ECT(0)/ECT(1) (IPv4: also fix the checksum): set CE, marks++
# which is the departure schedule netem's "rate" computes for the same
# packets, so the virtual queue is the real one.
_FABRIC_PY=$(cat <<'PYEOF'
import ctypes, json, os, struct, sys, time

libc = ctypes.CDLL(None, use_errno=True)

def die(msg):
    sys.stderr.write("fabric: " + msg + "\n")
    sys.exit(1)

def bpf(cmd, attr):
    buf = ctypes.create_string_buffer(attr, 144)
    r = libc.syscall(321, cmd, buf, 144)  # __NR_bpf (x86_64)
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, "bpf(%d): %s" % (cmd, os.strerror(e)))
    return r

def addr(b):
    return ctypes.addressof(b)

VAL = 72        # nine u64 per port (see the comment above _FABRIC_PY)

def map_create(n):
    return bpf(0, struct.pack("<IIIII", 2, 4, VAL, n, 0))  # ARRAY u32 -> VAL B

def map_elem(cmd, fd, key, val=None):
    k = ctypes.create_string_buffer(struct.pack("<I", key))
    v = ctypes.create_string_buffer(val or b"", VAL)
    bpf(cmd, struct.pack("<IIQQQ", fd, 0, addr(k), addr(v), 0))
    return v.raw

def obj_pin(fd, path):
    p = ctypes.create_string_buffer(path.encode())
    bpf(6, struct.pack("<QII", addr(p), fd, 0))

def obj_get(path):
    p = ctypes.create_string_buffer(path.encode())
    return bpf(7, struct.pack("<QII", addr(p), 0, 0))

class Asm:
    def __init__(self):
        self.ins, self.labels = [], {}
    def label(self, name):
        self.labels[name] = len(self.ins)
    def e(self, code, dst=0, src=0, off=0, imm=0):
        self.ins.append((code, dst, src, off, imm))
    def code(self):
        out = b""
        for i, (c, d, s, off, imm) in enumerate(self.ins):
            if isinstance(off, str):
                off = self.labels[off] - i - 1
            out += struct.pack("<BBhi", c, (s << 4) | d, off, imm)
        return out

MOVK, MOVX, ADDK, ADDX, SUBX, MULX = 0xb7, 0xbf, 0x07, 0x0f, 0x1f, 0x2f
ORK, ANDK, LSHK, RSHK, XORK = 0x47, 0x57, 0x67, 0x77, 0xa7
JA, JEQK, JNEK, JGTX, JGEX, JLTX = 0x05, 0x15, 0x55, 0x2d, 0x3d, 0xad
LDXB, LDXW, LDXH, LDXDW = 0x71, 0x61, 0x69, 0x79
STXH, STXDW, STH, STW, XADD = 0x6b, 0x7b, 0x6a, 0x62, 0xdb
CALL, EXIT = 0x85, 0x95
# Helpers (include/uapi/linux/bpf.h, __BPF_FUNC_MAPPER order, 6.1).
H_LOAD, H_STORE, H_L3CSUM, H_CSUM_DIFF, H_CHANGE_TAIL = 26, 9, 10, 28, 38

def be16(v):  # a 16-bit wire field as a (little-endian) load of it reads
    return ((v & 0xff) << 8) | (v >> 8)

def be32(v):
    return struct.unpack("<I", struct.pack(">I", v))[0]

TRIM_BUF = -112   # stack copy of the trimmed packet's headers (96 bytes)

def trim(a, port):
    # Switch trimming, at label "over": the packet overflows the queue
    # (r6 skb, r7 port state, r8 now, r9 max(busy_until, now)).  An MPDT
    # DATA packet -- IPv4 without options and not a fragment, or IPv6
    # with UDP as next header; UDP to PORT; MPDT version 1, type 1; the
    # whole 48-byte header present -- is cut to Ethernet + IP + UDP + MPDT
    # header (90 bytes, IPv6 110), the TRIMMED flag (0x0004) set, the IP
    # and UDP lengths fixed, the IPv4 header checksum updated; the UDP
    # checksum is 0 on IPv4 (none) and computed on IPv6 (over the pseudo
    # header and the 56 bytes of datagram left).  It is then queued like
    # any packet, with its new length, and counted in trims (+64).  Any
    # other packet goes to "drop".  The headers are copied to the stack
    # and written back with skb_load_bytes/skb_store_bytes: no direct
    # packet access, no bounds to prove to the verifier.  (The stack is
    # accessed aligned: the verifier insists.)
    e = a.e
    B = TRIM_BUF
    def buf(r, off=0):
        e(MOVX, r, 10); e(ADDK, r, 0, 0, B + off)
    def load(n):                    # skb_load_bytes(skb, 14, buf, n)
        e(MOVX, 1, 6); e(MOVK, 2, 0, 0, 14); buf(3); e(MOVK, 4, 0, 0, n)
        e(CALL, imm=H_LOAD)
        e(JNEK, 0, 0, "drop")      # shorter than the headers
    def store(off, n):              # skb_store_bytes(skb, 14 + off, buf + off, n, 0)
        e(MOVX, 1, 6); e(MOVK, 2, 0, 0, 14 + off); buf(3, off); e(MOVK, 4, 0, 0, n)
        e(MOVK, 5, 0, 0, 0); e(CALL, imm=H_STORE)
        e(JNEK, 0, 0, "drop")
    def cut(n):                     # skb_change_tail(skb, 14 + n, 0)
        e(MOVX, 1, 6); e(MOVK, 2, 0, 0, 14 + n); e(MOVK, 3, 0, 0, 0)
        e(CALL, imm=H_CHANGE_TAIL)
        e(JNEK, 0, 0, "drop")
    def mpdt_data(u):               # u: offset of the UDP header in buf
        e(LDXH, 1, 10, B + u + 2)
        e(JNEK, 1, 0, "drop", be16(port))      # UDP destination port
        e(LDXH, 1, 10, B + u + 8)
        e(JNEK, 1, 0, "drop", be16(0x0101))    # MPDT version 1, type DATA
    def mark(u):                    # UDP length 56, checksum 0, TRIMMED
        e(STH, 10, 0, B + u + 4, be16(8 + 48))
        e(STH, 10, 0, B + u + 6, 0)
        e(LDXH, 1, 10, B + u + 10); e(ORK, 1, 0, 0, be16(0x0004))
        e(STXH, 10, 1, B + u + 10)

    a.label("over")
    e(LDXW, 1, 6, 16)                   # skb->protocol (big endian)
    e(JEQK, 1, 0, "trim4", 0x0008)
    e(JEQK, 1, 0, "trim6", 0xdd86)
    e(JA, 0, 0, "drop")

    # IPv4: buf = packet[14..90): IP header 0..20, UDP 20..28, MPDT 28..76.
    a.label("trim4")
    load(76)
    e(LDXB, 1, 10, B + 0)
    e(JNEK, 1, 0, "drop", 0x45)                 # IPv4, no options
    e(LDXB, 1, 10, B + 9)
    e(JNEK, 1, 0, "drop", 17)                   # UDP
    e(LDXH, 1, 10, B + 6); e(ANDK, 1, 0, 0, be16(0x3fff))
    e(JNEK, 1, 0, "drop")                       # MF or an offset: a fragment
    mpdt_data(20)
    cut(76)
    e(MOVX, 1, 6); e(MOVK, 2, 0, 0, 14 + 10)    # l3_csum_replace(skb, 24,
    e(LDXH, 3, 10, B + 2); e(MOVK, 4, 0, 0, be16(76))   # old, new, 2)
    e(MOVK, 5, 0, 0, 2); e(CALL, imm=H_L3CSUM)
    e(JNEK, 0, 0, "drop")
    e(STH, 10, 0, B + 2, be16(76))              # total length
    store(2, 2)
    mark(20)
    store(24, 8)                                # UDP length .. MPDT flags
    e(MOVK, 3, 0, 0, 14 + 76)
    e(JA, 0, 0, "trimmed")

    # IPv6: buf = packet[14..110): IP header 0..40, UDP 40..48, MPDT 48..96.
    a.label("trim6")
    load(96)
    e(LDXB, 1, 10, B + 6)
    e(JNEK, 1, 0, "drop", 17)                   # next header UDP
    mpdt_data(40)
    cut(96)
    e(STH, 10, 0, B + 4, be16(56))              # payload length
    store(4, 2)
    mark(40)
    # The checksum: the pseudo-header is the addresses (buf 8..40) plus
    # the upper-layer length and next header, written over buf 0..8; then
    # the 56-byte datagram.  csum_diff(NULL, 0, buf, 96, 0), folded.
    e(STW, 10, 0, B + 0, be32(56))
    e(STW, 10, 0, B + 4, be32(17))
    e(MOVK, 1, 0, 0, 0); e(MOVK, 2, 0, 0, 0); buf(3); e(MOVK, 4, 0, 0, 96)
    e(MOVK, 5, 0, 0, 0); e(CALL, imm=H_CSUM_DIFF)
    for _ in range(2):
        e(MOVX, 1, 0); e(RSHK, 1, 0, 0, 16); e(ANDK, 0, 0, 0, 0xffff); e(ADDX, 0, 1)
    e(XORK, 0, 0, 0, 0xffff)
    e(JNEK, 0, 0, "csum6")
    e(MOVK, 0, 0, 0, 0xffff)                    # a computed 0 is sent as ~0
    a.label("csum6")
    e(STXH, 10, 0, B + 46)
    store(44, 8)                                # UDP length .. MPDT flags
    e(MOVK, 3, 0, 0, 14 + 96)

    a.label("trimmed")                  # r3 = the new length
    e(LDXDW, 4, 7, 8); e(MULX, 3, 4); e(RSHK, 3, 0, 0, 10)
    e(ADDX, 9, 3); e(STXDW, 7, 9, 0)    # busy_until += its time
    e(MOVK, 1, 0, 0, 1); e(XADD, 7, 1, 56)
    e(MOVK, 1, 0, 0, 1); e(XADD, 7, 1, 64)
    e(MOVK, 0, 0, 0, 0); e(EXIT)        # TC_ACT_OK

def marker(mapfd, key, trim_port=0):
    a = Asm()
    e = a.e
    def stackptr(r, off):
        e(MOVX, r, 10); e(ADDK, r, 0, 0, off)
    e(MOVX, 6, 1)                       # r6 = skb
    e(STW, 10, 0, -4, key)              # key on the stack
    e(0x18, 1, 1, 0, mapfd); e(0)       # r1 = map (ld_imm64, pseudo map fd)
    stackptr(2, -4)
    e(CALL, imm=1)                      # map_lookup_elem
    e(JEQK, 0, 0, "pass")
    e(MOVX, 7, 0)                       # r7 = port state
    e(CALL, imm=5)                      # ktime_get_ns
    e(MOVX, 8, 0)                       # r8 = now
    e(LDXDW, 9, 7, 0)                   # r9 = busy_until
    e(JGEX, 9, 8, "busy")
    e(MOVX, 9, 8)
    a.label("busy")
    e(MOVX, 2, 9); e(SUBX, 2, 8)        # r2 = backlog (ns)
    e(LDXW, 3, 6, 0)                    # skb->len
    e(LDXDW, 4, 7, 8); e(MULX, 3, 4); e(RSHK, 3, 0, 0, 10)   # r3 = its time
    e(LDXDW, 4, 7, 24)
    e(JGTX, 2, 4, "over" if trim_port else "drop")   # tail drop, or trim
    e(ADDX, 9, 3); e(STXDW, 7, 9, 0)    # busy_until += time
    e(MOVK, 1, 0, 0, 1); e(XADD, 7, 1, 56)
    e(LDXDW, 4, 7, 16)
    e(JLTX, 2, 4, "pass")               # below kmin
    e(0x1f, 2, 4)                       # r2 -= kmin
    e(LDXDW, 4, 7, 32); e(MULX, 2, 4); e(MOVX, 9, 2)   # r9 = p << 32
    e(MOVK, 1, 0, 0, 1); e(LSHK, 1, 0, 0, 32)
    e(JGEX, 9, 1, "ecn")                # p >= 1
    e(CALL, imm=7)                      # get_prandom_u32
    e(JGEX, 0, 9, "pass")
    a.label("ecn")
    e(LDXW, 1, 6, 16)                   # skb->protocol (big endian)
    e(JEQK, 1, 0, "ip4", 0x0008)
    e(JEQK, 1, 0, "ip6", 0xdd86)
    e(JA, 0, 0, "pass")
    for fam in (4, 6):
        a.label("ip%d" % fam)
        e(MOVX, 1, 6); e(MOVK, 2, 0, 0, 14); stackptr(3, -8); e(MOVK, 4, 0, 0, 2)
        e(CALL, imm=26)                 # skb_load_bytes(skb, 14, fp-8, 2)
        e(JNEK, 0, 0, "pass")
        e(LDXH, 8, 10, -8)              # the first 16 bits of the IP header
        e(MOVX, 2, 8)
        e(RSHK, 2, 0, 0, 8 if fam == 4 else 12); e(ANDK, 2, 0, 0, 3)
        e(JEQK, 2, 0, "pass")           # not ECT
        e(JEQK, 2, 0, "marked", 3)      # CE already
        e(MOVX, 9, 8); e(ORK, 9, 0, 0, 0x0300 if fam == 4 else 0x3000)
        e(STXH, 10, 9, -8)
        if fam == 4:                    # l3_csum_replace(skb, 24, old, new, 2)
            e(MOVX, 1, 6); e(MOVK, 2, 0, 0, 24); e(MOVX, 3, 8); e(MOVX, 4, 9)
            e(MOVK, 5, 0, 0, 2); e(CALL, imm=10)
        e(MOVX, 1, 6); e(MOVK, 2, 0, 0, 14); stackptr(3, -8); e(MOVK, 4, 0, 0, 2)
        e(MOVK, 5, 0, 0, 0); e(CALL, imm=9)   # skb_store_bytes
        e(JA, 0, 0, "marked")
    a.label("marked")
    e(MOVK, 1, 0, 0, 1); e(XADD, 7, 1, 40)
    a.label("pass")
    e(MOVK, 0, 0, 0, 0); e(EXIT)        # TC_ACT_OK
    a.label("drop")
    e(MOVK, 1, 0, 0, 1); e(XADD, 7, 1, 48)
    e(MOVK, 0, 0, 0, 2); e(EXIT)        # TC_ACT_SHOT
    if trim_port:
        trim(a, trim_port)
    return a.code()

def prog_load(insns):
    lic = ctypes.create_string_buffer(b"GPL")
    code = ctypes.create_string_buffer(insns, len(insns))
    attr = struct.pack("<IIQQ", 3, len(insns) // 8, addr(code), addr(lic))  # SCHED_CLS
    try:
        return bpf(5, attr)
    except OSError:
        log = ctypes.create_string_buffer(1 << 16)
        attr = struct.pack("<IIQQIIQ", 3, len(insns) // 8, addr(code), addr(lic),
                           1, len(log), addr(log))
        try:
            return bpf(5, attr)
        except OSError as err:
            die("eBPF marker rejected: %s\n%s" % (err, log.value.decode(errors="replace")[-2000:]))

def port_params(mbit, kmin, kmax, qlim):
    npb = 8000.0 / float(mbit)        # ns per byte
    kmin, kmax, qlim = int(kmin), int(kmax), int(qlim)
    ramp = 1 << 32 if kmax <= kmin + 1 else int((1 << 32) / ((kmax - kmin) * npb))
    return struct.pack("<QQQQ", int(npb * 1024), int(kmin * npb), int(qlim * npb), ramp)

cmd, args = sys.argv[1], sys.argv[2:]
if cmd == "sysctl":
    for ns, kvs in zip(args[0::2], args[1::2]):
        fd = os.open("/run/netns/" + ns, os.O_RDONLY)
        if libc.setns(fd, 0x40000000) != 0:   # CLONE_NEWNET
            die("setns %s: %s" % (ns, os.strerror(ctypes.get_errno())))
        os.close(fd)
        for kv in kvs.split():
            k, v = kv.split("=", 1)
            try:
                with open("/proc/sys/" + k.replace(".", "/"), "w") as f:
                    f.write(v)
            except OSError as err:
                die("%s: %s=%s: %s" % (ns, k, v, err))
elif cmd == "vq-load":
    d, n = args[0], int(args[1])
    trim_port = int(args[6]) if len(args) > 6 else 0
    m = map_create(n)
    obj_pin(m, d + "/map")
    for k in range(n):
        map_elem(2, m, k, struct.pack("<Q", 0) + port_params(*args[2:6]))
        obj_pin(prog_load(marker(m, k, trim_port)), "%s/p%d" % (d, k))
elif cmd == "vq-rate":
    m = obj_get(args[0] + "/map")
    kmin, kmax, qlim = args[1:4]
    for k, mbit in zip(args[4::2], args[5::2]):
        old = map_elem(1, m, int(k))
        map_elem(2, m, int(k), old[:8] + port_params(mbit, kmin, kmax, qlim) + old[40:])
elif cmd == "stats":
    ns, dev, q, fl, d, slot = args
    qd = json.loads(q or "[]")
    root = next((x for x in qd if x.get("root")), qd[0] if qd else {})
    red = next((x for x in qd if x.get("kind") == "red"), {})
    rate = 0
    for x in qd:
        r = x.get("options", {}).get("rate")
        if isinstance(r, dict):
            r = r.get("rate")
        rate = r * 8 if r else rate
    ing = 0
    for x in json.loads(fl or "[]"):
        for a in x.get("options", {}).get("actions", []):
            ing += a.get("stats", {}).get("drops", 0)
    drops = root.get("drops", 0)
    if root.get("kind") == "prio":
        # A host: its bands' netem count their random losses, prio not.
        drops = sum(x.get("drops", 0) for x in qd if x is not root)
    out = {"ns": ns, "dev": dev, "backlog_bytes": root.get("backlog", 0),
           "backlog_pkts": root.get("qlen", 0), "drops": drops,
           "sent_pkts": root.get("packets", 0), "sent_bytes": root.get("bytes", 0),
           "marked": red.get("marked", 0), "early": red.get("early", 0),
           "pdrop": red.get("pdrop", 0), "trims": 0, "rate_bps": rate,
           "ingress_drops": ing}
    if d and slot != "":
        v = struct.unpack("<%dQ" % (VAL // 8), map_elem(1, obj_get(d + "/map"), int(slot)))
        backlog_ns = max(0, v[0] - time.monotonic_ns())
        out["vq"] = {"backlog_bytes": int(backlog_ns * 1024 / v[1]) if v[1] else 0,
                     "kmin_bytes": int(v[2] * 1024 / v[1]) if v[1] else 0,
                     "limit_bytes": int(v[3] * 1024 / v[1]) if v[1] else 0,
                     "marks": v[5], "drops": v[6], "packets": v[7], "trims": v[8]}
        out["marked"] += v[5]
        out["pdrop"] += v[6]
        out["drops"] += v[6]
        out["trims"] = v[8]
    out["qdiscs"] = qd
    print(json.dumps(out, separators=(",", ":")))
elif cmd == "vq-dump":
    m = obj_get(args[0] + "/map")
    for k, name in zip(args[1::2], args[2::2]):
        v = struct.unpack("<%dQ" % (VAL // 8), map_elem(1, m, int(k)))
        print(name, v[5], v[6], v[7], v[8])
else:
    die("unknown command " + cmd)
PYEOF
)

_fabric_py() {
	_fabric_python -c "$_FABRIC_PY" "$@"
}

# ---------------------------------------------------------------------------
# Naming and addressing
# ---------------------------------------------------------------------------

# fabric_host L I: netns of host I under leaf L.
fabric_host() { echo "${FABRIC_PREFIX}h$1-$2"; }
# fabric_leaf L / fabric_spine S: netns of leaf L / spine S.
fabric_leaf() { echo "${FABRIC_PREFIX}l$1"; }
fabric_spine() { echo "${FABRIC_PREFIX}s$1"; }

# fabric_ns NODE: the netns of h<L>-<I>, l<L> or s<S>; any other word is
# taken as a netns name already.
fabric_ns() {
	case $1 in
	h[0-9]*-[0-9]*) echo "${FABRIC_PREFIX}$1" ;;
	l[0-9]* | s[0-9]*) echo "${FABRIC_PREFIX}$1" ;;
	*) echo "$1" ;;
	esac
}

# fabric_exec NODE CMD...: run CMD in NODE's netns.
fabric_exec() {
	local ns
	ns=$(fabric_ns "$1")
	shift
	ip netns exec "$ns" "$@"
}

# Addresses.  Host I of leaf L: 10.L.I.2/24 (gateway 10.L.I.1 on the leaf),
# fd00:fab:L:I::2/64 (gateway ::1).  Leaf L <-> spine S: 10.(100+S).L.1/24
# on the leaf, .2 on the spine; fd00:fac:S:L::1/64 and ::2.  The numbers are
# written in decimal in both families (fd00:fab:12:3::2 is leaf 12, host 3).
fabric_addr() { echo "10.$1.$2.2"; }
fabric_addr6() { echo "fd00:fab:$1:$2::2"; }
fabric_gw() { echo "10.$1.$2.1"; }
fabric_gw6() { echo "fd00:fab:$1:$2::1"; }
# fabric_link_addr L S leaf|spine [4|6]: an address of a leaf-spine link.
fabric_link_addr() {
	local end=1
	[[ $3 == spine ]] && end=2
	if [[ ${4:-4} == 6 ]]; then
		echo "fd00:fac:$2:$1::$end"
	else
		echo "10.$((100 + $2)).$1.$end"
	fi
}

# ---------------------------------------------------------------------------
# Queueing disciplines
#
# Every direction of every link has a shaper at the link rate; switch egress
# queues mark ECN; the host links carry the delay:
#
#   switch egress (leaf s<S>, leaf h<I>, spine l<L>):
#       clsact egress: bpf marker (virtual queue: CE marks, tail drop)
#       netem 1: root, rate RATE (the queue; its limit never reached)
#   host egress (host eth0):
#       prio 1: root, 2 bands: control (1:1) ahead of data (1:2)
#           netem 10: (1:1), delay 2*HOST_DELAY, rate RATE, limit FABRIC_HOST_QLEN
#           netem 20: (1:2), the same
#       u32 filters: TCP packets under 128 bytes (pure ACKs) to 1:1
#
# Why not tbf + red (FABRIC_SHAPER=tbf keeps that layout: tbf 1: -> red
# 2: on switches, netem 1: -> tbf 2: on hosts):
#  - under TCG the qdisc watchdog often fires tens of ms late (softirqs
#    deferred to ksoftirqd), and tbf cannot bank more than its bucket: it
#    lost 10-50% of its rate in the test VM, even with a 25 ms bucket.
#    netem gives each packet a departure time after the previous one's, so
#    a late timer delays packets but never loses capacity (9.7-10 of 10).
#  - red cannot sit above netem: every dequeue attempt that finds the head
#    packet not yet due looks to red like an empty queue ("idle"), and red
#    then decays its average instead of reading the backlog: it never
#    marked.  So marking is done before the queue, by the eBPF program
#    (see _FABRIC_PY), which replays netem's departure schedule and so
#    knows the backlog each packet joins.  Step marking at FABRIC_ECN_KMIN
#    bytes of backlog (a linear ramp to FABRIC_ECN_KMAX if larger), tail
#    drop beyond FABRIC_QLIMIT bytes.
#
# A host's NIC queue serves control first, as a real host's qdisc does
# (fabric.rst, "Control first at the hosts"): TC_PRIO_CONTROL, and TCP's
# pure ACKs by a u32 filter, so TCP and MPDT meet the same NIC.  netem
# cannot share a rate between queues, so each band has its own shaper:
# the link carries RATE of data plus the small control packets.
#
# Every host-to-host path crosses exactly one host uplink and one host
# downlink, so both directions' delay (2 x HOST_DELAY_MS) is applied on the
# uplink: one-way delays are as if each direction of each host link had
# HOST_DELAY_MS, and no switch queue holds packets of a delay line.
# ---------------------------------------------------------------------------

_fabric_red_args() { # FABRIC_SHAPER=tbf only
	# burst: the smallest tc accepts for this min (>= min/avpkt); tc then
	# picks the fastest EWMA (Wlog 1), so the average follows the queue.
	# probability: 1.0 overflows tc's 32-bit max_P (the kernel then falls
	# back to 0.5-0.73); 0.999 is what 1.0 was meant to be.
	local burst=$((FABRIC_ECN_KMIN / _FABRIC_MTU + 1))
	echo "red limit $FABRIC_QLIMIT min $FABRIC_ECN_KMIN max $FABRIC_ECN_KMAX" \
		"avpkt $_FABRIC_MTU burst $burst probability 0.999 ecn nodrop" \
		"bandwidth ${FABRIC_RATE}mbit"
}

# tbf bucket for a rate (FABRIC_SHAPER=tbf): 4 ms of tokens, at least two
# full frames.
_fabric_tbf_burst() { # MBIT (may be decimal)
	awk -v r="$1" -v m=$((2 * _FABRIC_FRAME)) \
		'BEGIN { b = int(r * 1e6 / 8 * 0.004); print (b > m ? b : m) }'
}

# _fabric_shaper_switch MBIT [DELAY_MS]: "HANDLE-AND-PARENT QDISC" of a
# switch port's shaper (the one qdisc whose rate changes); DELAY_MS, an
# extra propagation delay (fabric_link_delay), needs netem.
_fabric_shaper_switch() {
	if [[ $FABRIC_SHAPER == tbf ]]; then
		echo "root handle 1: tbf rate ${1}mbit burst $(_fabric_tbf_burst "$1") limit $FABRIC_QLIMIT"
	else
		echo "root handle 1: netem rate ${1}mbit limit 100000${2:+ delay ${2}ms}$FABRIC_LOSS"
	fi
}

# _fabric_shaper_host MBIT: the host eth0 qdiscs, one per line.
_fabric_shaper_host() {
	local d=
	((FABRIC_DELAY > 0)) && d="delay $((2 * FABRIC_DELAY))ms "
	if [[ $FABRIC_SHAPER == tbf ]]; then
		echo "root handle 1: netem ${d}limit 10000$FABRIC_LOSS"
		echo "parent 1:1 handle 2: tbf rate ${1}mbit burst $(_fabric_tbf_burst "$1")" \
			"limit $((FABRIC_HOST_QLEN * _FABRIC_FRAME))"
		return
	fi
	local link="netem ${d}rate ${1}mbit limit $FABRIC_HOST_QLEN$FABRIC_LOSS"
	if ((FABRIC_HOST_PRIO == 0)); then
		echo "root handle 1: $link"
	else
		echo "root handle 1: prio bands 2 priomap 1 1 1 1 1 1 1 0 1 1 1 1 1 1 1 1"
		echo "parent 1:1 handle 10: $link"
		echo "parent 1:2 handle 20: $link"
	fi
}

# _fabric_filters_host DEV: the filters that send TCP's pure ACKs to the
# control band (IPv4 total length, IPv6 payload length under 128 bytes).
_fabric_filters_host() {
	[[ $FABRIC_SHAPER == netem ]] && ((FABRIC_HOST_PRIO)) || return 0
	echo "filter add dev $1 parent 1: protocol ip pref 1 u32 match ip protocol 6 0xff" \
		"match u16 0x0000 0xff80 at 2 flowid 1:1"
	echo "filter add dev $1 parent 1: protocol ipv6 pref 2 u32 match ip6 protocol 6 0xff" \
		"match u16 0x0000 0xff80 at 4 flowid 1:1"
}

# Switch port slots: the index of a port's entry in the marker's map.
# Leaf L: h<I> at (L-1)*(HOSTS+SPINES)+I-1, s<S> after the hosts; spine S:
# l<L> at LEAVES*(HOSTS+SPINES)+(S-1)*LEAVES+L-1.
_fabric_nslots() {
	echo $((FABRIC_LEAVES * (FABRIC_HOSTS + FABRIC_SPINES) + FABRIC_SPINES * FABRIC_LEAVES))
}
# _fabric_slot_set NETNS DEV: _FABRIC_SLOT = the slot ("" if DEV is not a
# switch port).  No subshell: it runs once per port at creation.
_fabric_slot_set() {
	local node=${1#"$FABRIC_PREFIX"} dev=$2 n
	_FABRIC_SLOT=
	case $node in
	l[0-9]*)
		n=${node#l}
		case $dev in
		h[0-9]*) _FABRIC_SLOT=$(((n - 1) * (FABRIC_HOSTS + FABRIC_SPINES) + ${dev#h} - 1)) ;;
		s[0-9]*) _FABRIC_SLOT=$(((n - 1) * (FABRIC_HOSTS + FABRIC_SPINES) + FABRIC_HOSTS + ${dev#s} - 1)) ;;
		esac
		;;
	s[0-9]*)
		n=${node#s}
		[[ $dev == l[0-9]* ]] &&
			_FABRIC_SLOT=$((FABRIC_LEAVES * (FABRIC_HOSTS + FABRIC_SPINES) + (n - 1) * FABRIC_LEAVES + ${dev#l} - 1))
		;;
	esac
	return 0
}

# _fabric_trim_config: _FABRIC_TRIM_PORT = the UDP port whose MPDT DATA
# packets the switches trim, 0 for none (FABRIC_TRIM and FABRIC_TRIM_PORT,
# checked).  Switch trimming is done by the marker itself (_FABRIC_PY,
# trim()), so it needs the marker: FABRIC_SHAPER=netem.  A request that
# cannot be honoured is an error, so no experiment silently runs without
# the trimming it asked for.
_fabric_trim_config() {
	local trim=${FABRIC_TRIM:-0} port=${FABRIC_TRIM_PORT:-4796}
	_FABRIC_TRIM_PORT=0
	[[ $trim == 0 || $trim == 1 ]] ||
		_fabric_err "FABRIC_TRIM must be 0 or 1, got '$trim'" || return 1
	[[ $trim == 1 ]] || return 0
	[[ $FABRIC_SHAPER == netem ]] ||
		_fabric_err "FABRIC_TRIM=1 needs FABRIC_SHAPER=netem (the eBPF marker trims)" ||
		return 1
	_fabric_int FABRIC_TRIM_PORT "$port" 1 65535 || return 1
	_FABRIC_TRIM_PORT=$port
}

# _fabric_qdisc_switch FILE NETNS DEV: a switch egress port at the fabric
# rate (strings computed once by fabric_create: no subshells in the
# creation loops, each costs ~10 ms under TCG).
_fabric_qdisc_switch() {
	local f=$1 ns=$2 dev=$3
	if [[ $FABRIC_SHAPER == tbf ]]; then
		echo "qdisc replace dev $dev $_FABRIC_SW_SHAPER" >>"$f"
		echo "qdisc replace dev $dev parent 1:1 handle 2: $_FABRIC_RED" >>"$f"
	else
		echo "qdisc replace dev $dev $_FABRIC_SW_SHAPER" >>"$f"
		_fabric_slot_set "$ns" "$dev"
		echo "qdisc add dev $dev clsact" >>"$f"
		echo "filter add dev $dev egress pref 1 handle 1 bpf object-pinned" \
			"$FABRIC_BPF_DIR/p$_FABRIC_SLOT direct-action" >>"$f"
	fi
}

# _fabric_qdisc_host FILE DEV: a host NIC's egress queue: no ECN marking
# (hosts do not mark), control first (above), FABRIC_HOST_QLEN packets per
# band (default: the switch buffer).  netem orphans the skbs it holds, so
# the queue gives a socket no backpressure (no TSQ, no SO_SNDBUF): a sender
# faster than its link loses packets here, as at any other bottleneck.
_fabric_qdisc_host() {
	local f=$1 dev=$2 line
	while read -r line; do
		echo "qdisc replace dev $dev $line" >>"$f"
	done <<<"$_FABRIC_HOST_SHAPER"
	_fabric_filters_host "$dev" >>"$f"
}

# ---------------------------------------------------------------------------
# Creation
# ---------------------------------------------------------------------------

# _fabric_routes_leaf FILE L VERB: the leaf's routes to every other leaf,
# multipath over spines 1..FABRIC_ACTIVE_SPINES.
_fabric_routes_leaf() {
	local f=$1 l=$2 verb=$3 m s nh4 nh6
	for ((m = 1; m <= FABRIC_LEAVES; m++)); do
		((m == l)) && continue
		nh4='' nh6=''
		for ((s = 1; s <= FABRIC_ACTIVE_SPINES; s++)); do
			nh4+=" nexthop via 10.$((100 + s)).$l.2 dev s$s weight 1"
			nh6+=" nexthop via fd00:fac:$s:$l::2 dev s$s weight 1"
		done
		echo "route $verb 10.$m.0.0/16$nh4" >>"$f"
		echo "route $verb fd00:fab:$m::/48$nh6" >>"$f"
	done
}

# _fabric_mac VAR KIND L X: a link's MAC address into VAR (no subshell).
# KIND 1: leaf L's port h<X>; 2: host X of leaf L; 3: leaf L's port s<X>;
# 4: spine X's port l<L>.  Locally administered, unique in the fabric.
_fabric_mac() {
	printf -v "$1" '02:fa:%02x:%02x:%02x:%02x' "$2" $(($3 >> 8)) $(($3 & 255)) "$4"
}

_fabric_pick_prefix() {
	local id i
	for ((i = 0; i < 100; i++)); do
		id=$(printf '%04x' $(((RANDOM ^ $$ ^ (i << 7)) & 0xffff)))
		compgen -G "/run/netns/fab-$id-*" >/dev/null || {
			echo "fab-$id-"
			return 0
		}
	done
	_fabric_err "cannot find a free netns prefix"
}

# fabric_create [LEAVES [HOSTS [SPINES [RATE_MBIT [HOST_DELAY_MS]]]]]
fabric_create() {
	local leaves=${1:-2} hosts=${2:-4} spines=${3:-4} rate=${4:-10} delay=${5:-1}
	local t0 l i s ns f kmin_pct kmax_pct

	_fabric_int LEAVES "$leaves" 1 99 || return 1
	_fabric_int HOSTS "$hosts" 1 250 || return 1
	_fabric_int SPINES "$spines" 1 150 || return 1
	_fabric_int RATE_MBIT "$rate" 1 100000 || return 1
	_fabric_int HOST_DELAY_MS "$delay" 0 10000 || return 1
	[[ ${#FABRIC_NS[@]} -eq 0 ]] ||
		_fabric_err "a fabric ($FABRIC_PREFIX) exists already; fabric_destroy it first" ||
		return 1
	[[ $(id -u) == 0 ]] || _fabric_err "fabric_create needs root" || return 1
	# The state lives in shell variables: a fabric made in a subshell
	# (a pipeline, $(...)) is lost to the caller and never destroyed.
	((BASH_SUBSHELL == 0)) ||
		echo "fabric: warning: fabric_create in a subshell: the caller will not see it" >&2
	t0=$(_fabric_now_us)
	_FABRIC_T=$t0

	modprobe -q -a veth sch_netem sch_prio sch_ingress cls_bpf cls_u32 \
		cls_matchall act_gact 2>/dev/null || true
	[[ ${FABRIC_SHAPER:-netem} == tbf ]] && { modprobe -q -a sch_tbf sch_red 2>/dev/null || true; }

	FABRIC_PREFIX=$(_fabric_pick_prefix) || return 1
	FABRIC_LEAVES=$leaves FABRIC_HOSTS=$hosts FABRIC_SPINES=$spines
	FABRIC_RATE=$rate FABRIC_DELAY=$delay FABRIC_ACTIVE_SPINES=$spines
	FABRIC_SHAPER=${FABRIC_SHAPER:-netem}
	[[ $FABRIC_SHAPER == netem || $FABRIC_SHAPER == tbf ]] ||
		_fabric_err "FABRIC_SHAPER must be netem or tbf" || return 1
	FABRIC_HOST_PRIO=${FABRIC_HOST_PRIO:-1}
	[[ $FABRIC_HOST_PRIO == [01] ]] ||
		_fabric_err "FABRIC_HOST_PRIO must be 0 or 1" || return 1
	_fabric_trim_config || return 1
	FABRIC_LOSS=
	if [[ -n ${FABRIC_LOSS_PCT:-} && ${FABRIC_LOSS_PCT} != 0 ]]; then
		_fabric_num FABRIC_LOSS_PCT "$FABRIC_LOSS_PCT" || return 1
		FABRIC_LOSS=" loss ${FABRIC_LOSS_PCT}%"
	fi

	# Base RTT between hosts on different leaves: the host links' delay
	# twice each way, plus the serialization of a full-size packet and of
	# its ACK (66 B) on the 4 hops of the path; the BDP at the link rate.
	FABRIC_RTT_US=$((4 * delay * 1000 + 4 * (_FABRIC_FRAME + 66) * 8 / rate))
	FABRIC_BDP=$((rate * FABRIC_RTT_US / 8))
	kmin_pct=${FABRIC_ECN_KMIN_PCT:-50}
	kmax_pct=${FABRIC_ECN_KMAX_PCT:-$kmin_pct}
	FABRIC_ECN_KMIN=${FABRIC_ECN_KMIN_BYTES:-$((FABRIC_BDP * kmin_pct / 100))}
	((FABRIC_ECN_KMIN >= _FABRIC_MTU)) || FABRIC_ECN_KMIN=$_FABRIC_MTU
	if [[ -n ${FABRIC_ECN_KMAX_BYTES:-} ]]; then
		FABRIC_ECN_KMAX=$FABRIC_ECN_KMAX_BYTES
	elif ((kmax_pct > kmin_pct)); then
		FABRIC_ECN_KMAX=$((FABRIC_BDP * kmax_pct / 100))
	else
		FABRIC_ECN_KMAX=$((FABRIC_ECN_KMIN + 1)) # a step
	fi
	((FABRIC_ECN_KMAX > FABRIC_ECN_KMIN)) ||
		_fabric_err "FABRIC_ECN_KMAX ($FABRIC_ECN_KMAX) must exceed KMIN ($FABRIC_ECN_KMIN)" ||
		return 1
	FABRIC_QLIMIT=$((FABRIC_BDP * ${FABRIC_QUEUE_BDPS:-5}))
	((FABRIC_QLIMIT > FABRIC_ECN_KMAX + 4 * _FABRIC_FRAME)) ||
		FABRIC_QLIMIT=$((FABRIC_ECN_KMAX + 4 * _FABRIC_FRAME))
	# The shaper's limit is in packets (netem): the byte limit in frames.
	FABRIC_QLIMIT_PKTS=$(((FABRIC_QLIMIT + _FABRIC_FRAME - 1) / _FABRIC_FRAME))
	FABRIC_HOST_QLEN=${FABRIC_HOST_QLEN_PKTS:-$FABRIC_QLIMIT_PKTS}
	_FABRIC_RED=$(_fabric_red_args)
	_FABRIC_SW_SHAPER=$(_fabric_shaper_switch "$rate")
	_FABRIC_HOST_SHAPER=$(_fabric_shaper_host "$rate")

	local P=$FABRIC_PREFIX
	FABRIC_HOST_NS=() FABRIC_LEAF_NS=() FABRIC_SPINE_NS=()
	for ((l = 1; l <= leaves; l++)); do
		for ((i = 1; i <= hosts; i++)); do
			FABRIC_HOST_NS+=("${P}h$l-$i")
		done
		FABRIC_LEAF_NS+=("${P}l$l")
	done
	for ((s = 1; s <= spines; s++)); do
		FABRIC_SPINE_NS+=("${P}s$s")
	done
	FABRIC_NS=("${FABRIC_LEAF_NS[@]}" "${FABRIC_SPINE_NS[@]}" "${FABRIC_HOST_NS[@]}")
	FABRIC_DIR=$(mktemp -d "${TMPDIR:-/tmp}/${FABRIC_PREFIX}XXXX") || return 1

	# The ECN marker programs, pinned in a bpffs of our own (not under
	# /sys/fs/bpf: `tc -n` remounts /sys in its mount namespace), loaded
	# while the namespaces are made.
	local vq_pid=
	FABRIC_BPF_DIR=
	if [[ $FABRIC_SHAPER == netem ]]; then
		if ! { mkdir "$FABRIC_DIR/bpf" && mount -t bpf bpf "$FABRIC_DIR/bpf"; }; then
			_fabric_err "cannot mount a bpffs (try FABRIC_SHAPER=tbf)"
			rm -rf -- "$FABRIC_DIR"
			return 1
		fi
		FABRIC_BPF_DIR=$FABRIC_DIR/bpf
		_fabric_py vq-load "$FABRIC_BPF_DIR" "$(_fabric_nslots)" "$rate" \
			"$FABRIC_ECN_KMIN" "$FABRIC_ECN_KMAX" "$FABRIC_QLIMIT" \
			"$_FABRIC_TRIM_PORT" &
		vq_pid=$!
	fi
	_fabric_phase prepare

	# 1. The namespaces, in one ip process.
	for ns in "${FABRIC_NS[@]}"; do
		echo "netns add $ns"
	done >"$FABRIC_DIR/root.netns"
	ip -batch "$FABRIC_DIR/root.netns" || {
		_fabric_err "ip -batch $FABRIC_DIR/root.netns failed"
		fabric_destroy
		return 1
	}
	_fabric_phase "netns add"

	# 2. sysctls.  They must come before the links: a device takes its
	# IPv6 settings (accept_dad) from the netns defaults when it appears
	# there.  One python process enters every netns in turn (setns) and
	# writes /proc/sys: 0.3 s under TCG where one sysctl process per
	# netns costs 1-2 s.
	local sys_sw sys_host common
	local hp=${FABRIC_HASH_POLICY:-3} hash
	hash="net.ipv4.fib_multipath_hash_policy=$hp net.ipv6.fib_multipath_hash_policy=$hp"
	# Policy 3 hashes the fields below, always from the packet headers
	# (policy 1 takes a forwarded packet's skb->hash when it has one, and
	# veth hands the sending socket's random txhash across: see
	# Documentation/fabric.rst).  0x37: src IP, dst IP, protocol, src
	# port, dst port.
	if [[ $hp == 3 ]]; then
		local hf=${FABRIC_HASH_FIELDS:-0x37}
		hash+=" net.ipv4.fib_multipath_hash_fields=$hf net.ipv6.fib_multipath_hash_fields=$hf"
	fi
	sys_sw="net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 $hash"
	sys_host=$hash
	[[ -z ${FABRIC_TCP_ECN:-} ]] || sys_host+=" net.ipv4.tcp_ecn=$FABRIC_TCP_ECN"
	common="net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0"
	common+=" net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0"
	local -a sysargs=()
	for ns in "${FABRIC_NS[@]}"; do
		if [[ $ns == "${P}h"* ]]; then
			sysargs+=("$ns" "$common $sys_host")
		else
			sysargs+=("$ns" "$common $sys_sw")
		fi
	done
	_fabric_py sysctl "${sysargs[@]}" || { fabric_destroy; return 1; }
	_fabric_phase sysctl

	# 3. The veth pairs, created straight in their namespaces, with the
	# MAC addresses of _fabric_mac (permanent neighbours below).
	local m1 m2 m3 m4
	for ((l = 1; l <= leaves; l++)); do
		for ((i = 1; i <= hosts; i++)); do
			_fabric_mac m1 1 "$l" "$i"
			_fabric_mac m2 2 "$l" "$i"
			echo "link add name h$i address $m1 netns ${P}l$l type veth" \
				"peer name eth0 address $m2 netns ${P}h$l-$i"
		done
		for ((s = 1; s <= spines; s++)); do
			_fabric_mac m1 3 "$l" "$s"
			_fabric_mac m2 4 "$l" "$s"
			echo "link add name s$s address $m1 netns ${P}l$l type veth" \
				"peer name l$l address $m2 netns ${P}s$s"
		done
	done >"$FABRIC_DIR/root.links"
	ip -batch "$FABRIC_DIR/root.links" || {
		_fabric_err "ip -batch $FABRIC_DIR/root.links failed"
		fabric_destroy
		return 1
	}
	_fabric_phase "link add"

	# 4. Addresses, permanent neighbours, links, routes (ip) and qdiscs
	# (tc), per netns.  Permanent neighbours: no ARP/ND on the fabric, so
	# no resolution delays, and a blackholed link stays silent (with
	# ARP, the leaf's neighbour entry for the spine would fail after a
	# few seconds, and the leaf would then drop locally and send ICMP
	# host unreachable back to the sender).
	for ((l = 1; l <= leaves; l++)); do
		f=$FABRIC_DIR/${P}l$l
		echo "link set lo up" >"$f.ip"
		: >"$f.tc"
		for ((i = 1; i <= hosts; i++)); do
			_fabric_mac m1 1 "$l" "$i"
			_fabric_mac m2 2 "$l" "$i"
			{
				echo "addr add 10.$l.$i.1/24 dev h$i"
				echo "addr add fd00:fab:$l:$i::1/64 dev h$i nodad"
				echo "neigh replace 10.$l.$i.2 lladdr $m2 dev h$i nud permanent"
				echo "neigh replace fd00:fab:$l:$i::2 lladdr $m2 dev h$i nud permanent"
				echo "link set h$i up"
			} >>"$f.ip"
			_fabric_qdisc_switch "$f.tc" "${P}l$l" "h$i" || {
				fabric_destroy
				return 1
			}
			ns=${P}h$l-$i
			{
				echo "link set lo up"
				echo "addr add 10.$l.$i.2/24 dev eth0"
				echo "addr add fd00:fab:$l:$i::2/64 dev eth0 nodad"
				# One packet per skb (TCP builds no TSO skbs): the
				# queues count packets and the counters mean packets.
				echo "link set dev eth0 gso_max_segs 1"
				echo "neigh replace 10.$l.$i.1 lladdr $m1 dev eth0 nud permanent"
				echo "neigh replace fd00:fab:$l:$i::1 lladdr $m1 dev eth0 nud permanent"
				echo "link set eth0 up"
				echo "route add default via 10.$l.$i.1 dev eth0"
				echo "route add ::/0 via fd00:fab:$l:$i::1 dev eth0"
			} >"$FABRIC_DIR/$ns.ip"
			: >"$FABRIC_DIR/$ns.tc"
			_fabric_qdisc_host "$FABRIC_DIR/$ns.tc" eth0
		done
		for ((s = 1; s <= spines; s++)); do
			_fabric_mac m4 4 "$l" "$s"
			{
				echo "addr add 10.$((100 + s)).$l.1/24 dev s$s"
				echo "addr add fd00:fac:$s:$l::1/64 dev s$s nodad"
				echo "neigh replace 10.$((100 + s)).$l.2 lladdr $m4 dev s$s nud permanent"
				echo "neigh replace fd00:fac:$s:$l::2 lladdr $m4 dev s$s nud permanent"
				echo "link set s$s up"
			} >>"$f.ip"
			_fabric_qdisc_switch "$f.tc" "${P}l$l" "s$s" || {
				fabric_destroy
				return 1
			}
		done
		_fabric_routes_leaf "$f.ip" "$l" add
	done
	for ((s = 1; s <= spines; s++)); do
		f=$FABRIC_DIR/${P}s$s
		echo "link set lo up" >"$f.ip"
		: >"$f.tc"
		for ((l = 1; l <= leaves; l++)); do
			_fabric_mac m3 3 "$l" "$s"
			{
				echo "addr add 10.$((100 + s)).$l.2/24 dev l$l"
				echo "addr add fd00:fac:$s:$l::2/64 dev l$l nodad"
				echo "neigh replace 10.$((100 + s)).$l.1 lladdr $m3 dev l$l nud permanent"
				echo "neigh replace fd00:fac:$s:$l::1 lladdr $m3 dev l$l nud permanent"
				echo "link set l$l up"
				echo "route add 10.$l.0.0/16 via 10.$((100 + s)).$l.1 dev l$l"
				echo "route add fd00:fab:$l::/48 via fd00:fac:$s:$l::1 dev l$l"
			} >>"$f.ip"
			_fabric_qdisc_switch "$f.tc" "${P}s$s" "l$l" || {
				fabric_destroy
				return 1
			}
		done
	done
	_fabric_phase "batch files"
	if [[ -n $vq_pid ]] && ! wait "$vq_pid"; then
		_fabric_err "cannot load the eBPF ECN marker (try FABRIC_SHAPER=tbf)"
		fabric_destroy
		return 1
	fi
	_fabric_phase "marker load (wait)"
	# ip and tc batches do not depend on each other (tc only needs the
	# devices): run them all at once.
	if ! _fabric_parallel ip tc; then
		_fabric_err "configuration failed (batch files in $FABRIC_DIR)"
		FABRIC_KEEP_DIR=1 fabric_destroy
		return 1
	fi
	_fabric_phase "ip+tc batches"

	FABRIC_CREATE_MS=$((($(_fabric_now_us) - t0) / 1000))
	_fabric_log "$(printf '%s: %d leaves x %d hosts, %d spines, %d Mbit/s, %d ms host delay; %d netns in %d.%03d s' \
		"${FABRIC_PREFIX%-}" "$leaves" "$hosts" "$spines" "$rate" "$delay" \
		"${#FABRIC_NS[@]}" $((FABRIC_CREATE_MS / 1000)) $((FABRIC_CREATE_MS % 1000)))"
	_fabric_log "base RTT ~$((FABRIC_RTT_US / 1000)).$((FABRIC_RTT_US % 1000 / 100)) ms, BDP $FABRIC_BDP B," \
		"ECN mark at $FABRIC_ECN_KMIN..$FABRIC_ECN_KMAX B, queue limit $FABRIC_QLIMIT B," \
		"($FABRIC_QLIMIT_PKTS packets), shaper $FABRIC_SHAPER"
	[[ $_FABRIC_TRIM_PORT == 0 ]] ||
		_fabric_log "switch trimming: MPDT DATA to UDP port $_FABRIC_TRIM_PORT is trimmed, not dropped"
}

# ---------------------------------------------------------------------------
# Impairments
# ---------------------------------------------------------------------------

# _fabric_apply_rates "NETNS DEV MBIT"...: change egress rates, with one tc
# process per netns and one python process for the markers (each process
# costs ~0.3 s under a loaded TCG).  The queues and their contents stay.
_fabric_apply_rates() {
	local -A batch=()
	local -a vq=()
	local item ns dev rate line
	for item in "$@"; do
		read -r ns dev rate <<<"$item"
		_fabric_num MBIT "$rate" || return 1
		if [[ $ns == "${FABRIC_PREFIX}h"* ]]; then
			while read -r line; do
				batch[$ns]+="qdisc change dev $dev $line"$'\n'
			done <<<"$(_fabric_shaper_host "$rate")"
			continue
		fi
		_fabric_slot_set "$ns" "$dev"
		[[ -n $_FABRIC_SLOT ]] || _fabric_err "$ns/$dev is not a fabric port" || return 1
		batch[$ns]+="qdisc change dev $dev $(_fabric_shaper_switch "$rate" \
			"${_FABRIC_XDELAY[$ns $dev]:-}")"$'\n'
		_FABRIC_RATES[$ns $dev]=$rate
		[[ -z $FABRIC_BPF_DIR ]] || vq+=("$_FABRIC_SLOT" "$rate")
	done
	for ns in "${!batch[@]}"; do
		tc -n "$ns" -batch - <<<"${batch[$ns]}" ||
			_fabric_err "rate change in $ns failed" || return 1
	done
	if ((${#vq[@]} > 0)); then
		_fabric_py vq-rate "$FABRIC_BPF_DIR" "$FABRIC_ECN_KMIN" "$FABRIC_ECN_KMAX" \
			"$FABRIC_QLIMIT" "${vq[@]}" || _fabric_err "marker rate change failed"
	fi
}

# fabric_set_rate NODE DEV MBIT: change the rate of one device's egress
# (any device of the fabric: a host's eth0 or a switch port).  The queue
# and its contents stay.  (The ECN threshold stays in bytes.)
fabric_set_rate() {
	_fabric_need || return 1
	_fabric_apply_rates "$(fabric_ns "$1") $2 $3"
}

# fabric_link_rate LEAF SPINE MBIT [up|down|both]: degrade (or raise) one
# leaf-spine link.  Routes do not change.
fabric_link_rate() {
	local l=$1 s=$2 rate=$3 d
	local -a items=()
	_fabric_need && _fabric_chk_leaf "$l" && _fabric_chk_spine "$s" &&
		_fabric_num MBIT "$rate" && _fabric_dirs "${4:-both}" >/dev/null || return 1
	for d in $(_fabric_dirs "${4:-both}"); do
		items+=("$(_fabric_link_tx "$l" "$s" "$d") $rate")
	done
	_fabric_apply_rates "${items[@]}" || return 1
	_fabric_log "link l$l-s$s ${4:-both}: ${rate} Mbit/s"
}

# fabric_link_delay LEAF SPINE MS [up|down|both]: add MS milliseconds
# (decimals allowed; 0 removes it) of propagation delay to one leaf-spine
# link, on top of its serialization, e.g. to give paths different
# lengths.  The switch port's queue, marking and drops are unchanged (the
# delay is a line after the queue: the marker's virtual queue ignores
# it); the rate stays.  fabric_restore removes it.  Needs
# FABRIC_SHAPER=netem.
fabric_link_delay() {
	local l=$1 s=$2 ms=$3 d ns dev
	local -a items=()
	_fabric_need && _fabric_chk_leaf "$l" && _fabric_chk_spine "$s" &&
		_fabric_dirs "${4:-both}" >/dev/null || return 1
	[[ $FABRIC_SHAPER == netem ]] ||
		_fabric_err "fabric_link_delay needs FABRIC_SHAPER=netem" || return 1
	[[ $ms =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
		_fabric_err "delay must be a number of ms, got '$ms'" || return 1
	for d in $(_fabric_dirs "${4:-both}"); do
		read -r ns dev <<<"$(_fabric_link_tx "$l" "$s" "$d")"
		if [[ $ms =~ ^0+(\.0+)?$ ]]; then
			unset "_FABRIC_XDELAY[$ns $dev]"
		else
			_FABRIC_XDELAY[$ns $dev]=$ms
		fi
		items+=("$ns $dev ${_FABRIC_RATES[$ns $dev]:-$FABRIC_RATE}")
	done
	_fabric_apply_rates "${items[@]}" || return 1
	_fabric_log "link l$l-s$s ${4:-both}: ${ms} ms more delay"
}

# fabric_ev_routing BASE COUNT: make the leaves EV-aware, like the switches
# PRIME §III-D assumes ("each part of the MP-EV is the index of the next-hop
# uplink"): a UDP packet whose source port is BASE + v, 0 <= v < COUNT,
# leaves on the uplink to spine (v mod SPINES) + 1 instead of the hashed
# one.  Other packets (every other source port) are still hashed.  Set it
# after fabric_oversubscribe, if at all: it routes over all spines.
fabric_ev_routing() {
	local base=$1 count=$2 l m s v f
	_fabric_need && _fabric_int BASE "$base" 1 65535 &&
		_fabric_int COUNT "$count" 1 $((65536 - base)) || return 1
	for ((l = 1; l <= FABRIC_LEAVES; l++)); do
		f=$FABRIC_DIR/ev.$l
		: >"$f.4"
		: >"$f.6"
		for ((s = 1; s <= FABRIC_SPINES; s++)); do
			for ((m = 1; m <= FABRIC_LEAVES; m++)); do
				((m == l)) && continue
				echo "route replace 10.$m.0.0/16 via 10.$((100 + s)).$l.2 dev s$s table $((1000 + s))" >>"$f.4"
				echo "route replace fd00:fab:$m::/48 via fd00:fac:$s:$l::2 dev s$s table $((1000 + s))" >>"$f.6"
			done
		done
		for ((v = 0; v < count; v++)); do
			s=$((v % FABRIC_SPINES + 1))
			echo "rule add pref $((1000 + v)) ipproto udp sport $((base + v)) table $((1000 + s))" |
				tee -a "$f.6" >>"$f.4"
		done
		ip -4 -n "$(fabric_leaf "$l")" -batch "$f.4" &&
			ip -6 -n "$(fabric_leaf "$l")" -batch "$f.6" ||
			_fabric_err "cannot set EV routing on leaf $l" || return 1
	done
	_fabric_log "leaves route UDP source ports $base..$((base + count - 1)) by EV"
}

# fabric_blackhole LEAF SPINE [up|down|both]: from now on every packet on
# that link is lost without a trace: dropped by a matchall filter on the
# receiving device's ingress (clsact), so the sender still queues and
# transmits at the link rate, its counters still move, the link stays up,
# no ICMP is sent and the routes do not change (ECMP keeps hashing onto it).
fabric_blackhole() {
	local l=$1 s=$2 ends ns dev
	ends=$(_fabric_link_ends rx "$l" "$s" "${3:-both}") || return 1
	while read -r ns dev; do
		# Switch ports have a clsact already (the marker) unless
		# FABRIC_SHAPER=tbf.
		tc -n "$ns" filter replace dev "$dev" ingress pref 1 handle 1 \
			matchall action drop 2>/dev/null ||
			{ tc -n "$ns" qdisc add dev "$dev" clsact &&
				tc -n "$ns" filter replace dev "$dev" ingress pref 1 handle 1 \
					matchall action drop; } ||
			_fabric_err "cannot blackhole $ns/$dev" || return 1
	done <<<"$ends"
	_fabric_log "link l$l-s$s ${3:-both}: blackholed"
}

# fabric_blackhole_drops LEAF SPINE [up|down|both]: packets the blackhole
# of that link has dropped so far (0 if it has none): exactly the packets
# lost into the failure, from the moment the drop filter was in place.
fabric_blackhole_drops() {
	local ends ns dev n total=0
	ends=$(_fabric_link_ends rx "$1" "$2" "${3:-both}") || return 1
	while read -r ns dev; do
		n=$(tc -n "$ns" -s filter show dev "$dev" ingress pref 1 2>/dev/null |
			sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n 1)
		total=$((total + ${n:-0}))
	done <<<"$ends"
	echo "$total"
}

# fabric_restore [LEAF SPINE]: the link back to the fabric rate, no
# extra delay, no blackhole, both directions.  Without arguments: every leaf-spine link,
# and full ECMP over all spines (undoes fabric_oversubscribe too).
fabric_restore() {
	local l s d rx
	local -a items=() ls=() ss=()
	_fabric_need || return 1
	if (($# == 0)); then
		FABRIC_QUIET=1 fabric_oversubscribe "$FABRIC_SPINES" routes || return 1
		for ((l = 1; l <= FABRIC_LEAVES; l++)); do
			for ((s = 1; s <= FABRIC_SPINES; s++)); do
				ls+=("$l") ss+=("$s")
			done
		done
	else
		_fabric_chk_leaf "$1" && _fabric_chk_spine "$2" || return 1
		ls=("$1") ss=("$2")
	fi
	local -A dels=()
	for d in "${!ls[@]}"; do
		l=${ls[d]} s=${ss[d]}
		rx=$(_fabric_link_tx "$l" "$s" up)
		unset "_FABRIC_XDELAY[$rx]"
		rx=$(_fabric_link_tx "$l" "$s" down)
		unset "_FABRIC_XDELAY[$rx]"
		rx=$(_fabric_link_rx "$l" "$s" up)
		dels[${rx% *}]+="filter del dev ${rx#* } ingress pref 1"$'\n'
		rx=$(_fabric_link_rx "$l" "$s" down)
		dels[${rx% *}]+="filter del dev ${rx#* } ingress pref 1"$'\n'
		items+=("$(_fabric_link_tx "$l" "$s" up) $FABRIC_RATE")
		items+=("$(_fabric_link_tx "$l" "$s" down) $FABRIC_RATE")
	done
	for d in "${!dels[@]}"; do # no blackhole there: "filter del" fails, fine
		tc -n "$d" -force -batch - <<<"${dels[$d]}" >/dev/null 2>&1 || true
	done
	_fabric_apply_rates "${items[@]}" || return 1
	if (($# == 0)); then
		_fabric_log "all links restored"
	else
		_fabric_log "link l$1-s$2 restored"
	fi
}

# fabric_oversubscribe N [routes|rate]: leave each leaf uplink capacity of N
# spine links (1 <= N <= SPINES), so a leaf's hosts can offer
# HOSTS*RATE against N*RATE: the oversubscription is HOSTS:N (4:1 is
# "fabric_oversubscribe 1" on the default fabric).
#   routes (default): every leaf's multipath routes use spines 1..N only;
#       the other links stay up but carry nothing.
#   rate: ECMP over all spines as before, every leaf-spine link (both
#       directions) at RATE*N/SPINES.
# fabric_oversubscribe SPINES undoes the mode it is given; fabric_restore
# (no arguments) undoes both.
fabric_oversubscribe() {
	local n=$1 mode=${2:-routes} l s f rate
	_fabric_need && _fabric_int N "$n" 1 "$FABRIC_SPINES" || return 1
	case $mode in
	routes)
		FABRIC_ACTIVE_SPINES=$n
		for ((l = 1; l <= FABRIC_LEAVES; l++)); do
			f=$FABRIC_DIR/${FABRIC_PREFIX}l$l.routes
			: >"$f"
			_fabric_routes_leaf "$f" "$l" replace
			if [[ -s $f ]]; then
				ip -n "${FABRIC_PREFIX}l$l" -batch "$f" ||
					_fabric_err "route replace on leaf $l" || return 1
			fi
		done
		;;
	rate)
		rate=$(awk -v r="$FABRIC_RATE" -v n="$n" -v s="$FABRIC_SPINES" \
			'BEGIN { printf "%.3f", r * n / s }')
		local -a items=()
		for ((l = 1; l <= FABRIC_LEAVES; l++)); do
			for ((s = 1; s <= FABRIC_SPINES; s++)); do
				items+=("${FABRIC_PREFIX}l$l s$s $rate" "${FABRIC_PREFIX}s$s l$l $rate")
			done
		done
		_fabric_apply_rates "${items[@]}" || return 1
		;;
	*) _fabric_err "oversubscribe mode must be routes or rate, got '$mode'"; return 1 ;;
	esac
	_fabric_log "uplinks: $n of $FABRIC_SPINES spines' capacity ($mode);" \
		"oversubscription $FABRIC_HOSTS:$n"
}

# ---------------------------------------------------------------------------
# Counters
# ---------------------------------------------------------------------------

# fabric_dev_counter NODE DEV FIELD: one counter of `ip -s link`, FIELD one
# of rx_bytes rx_packets rx_errors rx_dropped tx_bytes tx_packets
# tx_errors tx_dropped.
fabric_dev_counter() {
	local ns out
	ns=$(fabric_ns "$1")
	out=$(ip -n "$ns" -s -o link show dev "$2") ||
		_fabric_err "no device $2 in $ns" || return 1
	# -o: "... RX: bytes packets errors dropped missed mcast \ N N N N N N
	# \ TX: bytes packets errors dropped carrier collsns \ N N N N N N"
	awk -v f="$3" '{
		gsub(/\\/, " ")
		for (i = 1; i <= NF; i++) {
			if ($i == "RX:") rx = i
			if ($i == "TX:") tx = i
		}
		split("bytes packets errors dropped", k, " ")
		for (j = 1; j <= 4; j++) {
			v["rx_" k[j]] = $(rx + 6 + j)
			v["tx_" k[j]] = $(tx + 6 + j)
		}
		if (!(f in v)) exit 1
		print v[f]
	}' <<<"$out" || _fabric_err "unknown counter $3"
}

# fabric_link_packets LEAF SPINE [up|down|both]: packets the sending end of
# the link has transmitted (after its queue: what the link carried; packets
# a blackhole eats are counted here, they are lost at the far end).
fabric_link_packets() {
	local ends ns dev n sum=0
	ends=$(_fabric_link_ends tx "$1" "$2" "${3:-up}") || return 1
	while read -r ns dev; do
		n=$(fabric_dev_counter "$ns" "$dev" tx_packets) || return 1
		sum=$((sum + n))
	done <<<"$ends"
	echo "$sum"
}

# fabric_queue_stats NODE DEV: the egress queue of DEV in NODE as one line of
# JSON:
#   {"ns":..., "dev":..., "backlog_bytes":N, "backlog_pkts":N,
#    "sent_pkts":N, "sent_bytes":N    (the root qdisc: netem, a host's
#                                     prio, or tbf),
#    "drops":N                        (qdisc drops + the marker's tail drops),
#    "marked":N                       (CE marks: the marker's, or red's),
#    "pdrop":N, "early":N             (tail drops, red's early drops),
#    "trims":N                        (packets trimmed instead of dropped,
#                                     FABRIC_TRIM=1; else 0),
#    "rate_bps":N                     (the shaper's rate),
#    "ingress_drops":N                (the blackhole filter on DEV, if any),
#    "vq":{"backlog_bytes","kmin_bytes","limit_bytes","marks","drops",
#          "packets","trims"}         (the marker's virtual queue: switch
#                                     ports, FABRIC_SHAPER=netem; packets
#                                     includes the trimmed ones),
#    "qdiscs":[the tc -j -s qdisc objects]}
fabric_queue_stats() {
	local ns dev=$2 q f
	ns=$(fabric_ns "$1")
	q=$(tc -n "$ns" -j -s qdisc show dev "$dev") ||
		_fabric_err "no qdiscs on $ns/$dev" || return 1
	f=$(tc -n "$ns" -j -s filter show dev "$dev" ingress 2>/dev/null) || f='[]'
	_fabric_slot_set "$ns" "$dev"
	_fabric_py stats "$ns" "$dev" "$q" "$f" "${FABRIC_BPF_DIR:-}" "$_FABRIC_SLOT"
}

# fabric_port_counters: the marker's counters of every switch port, one
# line each, "NODE:DEV marks drops packets trims" (NODE l<L> or s<S>, as
# fabric_queue_stats' "vq"), read in one python process (one
# fabric_queue_stats per port costs ~1 s under a loaded TCG).  drops are
# the marker's tail drops: everything a full port drops (the netem under
# it holds 100000 packets); not netem's random loss (FABRIC_LOSS_PCT) nor
# a blackhole's.  Needs FABRIC_SHAPER=netem.
fabric_port_counters() {
	local l s i
	local -a a=()
	_fabric_need || return 1
	[[ -n ${FABRIC_BPF_DIR:-} ]] ||
		_fabric_err "fabric_port_counters needs the marker (FABRIC_SHAPER=netem)" || return 1
	for ((l = 1; l <= FABRIC_LEAVES; l++)); do
		for ((i = 1; i <= FABRIC_HOSTS; i++)); do
			_fabric_slot_set "${FABRIC_PREFIX}l$l" "h$i"
			a+=("$_FABRIC_SLOT" "l$l:h$i")
		done
		for ((s = 1; s <= FABRIC_SPINES; s++)); do
			_fabric_slot_set "${FABRIC_PREFIX}l$l" "s$s"
			a+=("$_FABRIC_SLOT" "l$l:s$s")
		done
	done
	for ((s = 1; s <= FABRIC_SPINES; s++)); do
		for ((l = 1; l <= FABRIC_LEAVES; l++)); do
			_fabric_slot_set "${FABRIC_PREFIX}s$s" "l$l"
			a+=("$_FABRIC_SLOT" "s$s:l$l")
		done
	done
	_fabric_py vq-dump "$FABRIC_BPF_DIR" "${a[@]}"
}

# ---------------------------------------------------------------------------
# Teardown
# ---------------------------------------------------------------------------

# fabric_destroy: kill every process left in the fabric's namespaces and
# delete them.  Safe to call twice, or with no fabric.
fabric_destroy() {
	local -A ino=()
	local ns line pid link n t0 killpids=
	[[ ${#FABRIC_NS[@]} -gt 0 ]] || return 0
	t0=$(_fabric_now_us)
	_FABRIC_T=$t0
	local -a files=()
	for ns in "${FABRIC_NS[@]}"; do
		[[ -e /run/netns/$ns ]] && files+=("/run/netns/$ns")
	done
	if ((${#files[@]} > 0)); then
		while read -r n; do
			ino[$n]=1
		done < <(stat -L -c %i "${files[@]}" 2>/dev/null || true)
	fi
	# Processes in those namespaces (iperf3 servers, receivers...): they
	# would keep a deleted netns alive.
	if ((${#ino[@]} > 0)); then
		while read -r line; do
			link=${line##*-> } pid=${line%/ns/net*}
			pid=${pid##*/proc/}
			link=${link#net:[} link=${link%]}
			[[ -n ${ino[$link]:-} && $pid != "$$" ]] && killpids+=" $pid"
		done < <(ls -l /proc/[0-9]*/ns/net 2>/dev/null)
		if [[ -n $killpids ]]; then
			# shellcheck disable=SC2086
			kill -KILL $killpids 2>/dev/null || true
		fi
	fi
	_fabric_phase "kill processes"
	for ns in "${FABRIC_NS[@]}"; do
		[[ -e /run/netns/$ns ]] && echo "netns del $ns"
	done >"${FABRIC_DIR:-/tmp}/root.del" 2>/dev/null || true
	if [[ -s ${FABRIC_DIR:-/nonexistent}/root.del ]]; then
		ip -force -batch "$FABRIC_DIR/root.del" >/dev/null 2>&1 || true
	fi
	for ns in "${FABRIC_NS[@]}"; do # batch failed half way? one by one
		[[ -e /run/netns/$ns ]] && { ip netns del "$ns" 2>/dev/null || true; }
	done
	_fabric_phase "netns del"
	_fabric_log "${FABRIC_PREFIX%-}: ${#FABRIC_NS[@]} netns deleted in" \
		"$((($(_fabric_now_us) - t0) / 1000)) ms"
	if [[ -n ${FABRIC_BPF_DIR:-} ]]; then
		umount "$FABRIC_BPF_DIR" 2>/dev/null || umount -l "$FABRIC_BPF_DIR" 2>/dev/null || true
		FABRIC_BPF_DIR=
	fi
	if [[ -n ${FABRIC_DIR:-} && ${FABRIC_KEEP_DIR:-0} != 1 ]]; then
		rm -rf -- "$FABRIC_DIR"
	fi
	FABRIC_NS=() FABRIC_HOST_NS=() FABRIC_LEAF_NS=() FABRIC_SPINE_NS=()
	_FABRIC_XDELAY=() _FABRIC_RATES=()
	FABRIC_DIR=
	return 0
}

# fabric_cleanup_on_exit: make sure fabric_destroy runs when the shell
# exits.  With selftests/net/lib.sh sourced, it becomes one of lib.sh's
# cleanup hooks (run before lib.sh's own netns/module cleanup); otherwise
# it is prepended to any EXIT trap already set, and INT/TERM/HUP without
# a trap of their own are turned into an exit so the trap runs.
fabric_cleanup_on_exit() {
	local old sig
	if declare -F on_cleanup >/dev/null; then
		on_cleanup fabric_destroy
		return 0
	fi
	old=$(trap -p EXIT)
	if [[ -n $old ]]; then
		old=${old#trap -- }
		old=${old% EXIT}
		eval "old=$old"
	fi
	[[ $old == *fabric_destroy* ]] && return 0
	# shellcheck disable=SC2064
	trap "fabric_destroy${old:+; $old}" EXIT
	for sig in INT:130 TERM:143 HUP:129; do
		# shellcheck disable=SC2064 # expand the exit code now
		[[ -n $(trap -p "${sig%:*}") ]] ||
			trap "exit ${sig#*:}" "${sig%:*}"
	done
}
