#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# linklocal.sh: IPv6 link-local peers, which an address names only together
# with its link (sin6_scope_id).  Host A has a link to B (a1 <-> b0) and one
# to C (a2 <-> c0); B and C have the same address, fe80::2.  From one socket
# A sends a message to fe80::2%a1 and one to fe80::2%a2; each must reach its
# own host, whose echo (with its name) comes back from that address and
# that link.  Then:
#   - an address without its link (no scope id, no bound device) is refused
#     with EINVAL by sendto(), connect() and bind(), and one whose scope id
#     contradicts the bound device too;
#   - bind() and connect() keep the link (getsockname(), getpeername()), and
#     a socket bound to a device takes that device as the link;
#   - mpdt conn show lists two connections, fe80::2%a1 and fe80::2%a2, with
#     their peer_ifindex, and finds each by ADDR%IF; a link-local peer
#     without its interface is refused with the kernel's extack message.

source "$(dirname "$0")/lib.sh"

PORT=7000
NS_C=${NS_B}c

require_root
require_cmd ip python3
mpdt_load
CLI=$(mpdt_cli_bin)

# link NS_X DEV_X NS_Y DEV_Y: a veth pair, fe80::1 on DEV_X and fe80::2 on
# DEV_Y, and no other address (no addrgen, no DAD to wait for).
link() {
	ip link add "$2" netns "$1" type veth peer name "$4" netns "$3" ||
		fail "cannot create a veth pair"
	ip -n "$1" link set "$2" addrgenmode none
	ip -n "$3" link set "$4" addrgenmode none
	ip -n "$1" addr add fe80::1/64 dev "$2" nodad
	ip -n "$3" addr add fe80::2/64 dev "$4" nodad
	ip -n "$1" link set "$2" up
	ip -n "$3" link set "$4" up
}

modprobe veth 2>/dev/null || true
netns_add "$NS_A"
netns_add "$NS_B"
netns_add "$NS_C"
link "$NS_A" a1 "$NS_B" b0
link "$NS_A" a2 "$NS_C" c0
log "netns $NS_A: fe80::1%a1 <-> $NS_B fe80::2%b0, fe80::1%a2 <-> $NS_C fe80::2%c0"

# echo NAME: answer one message with "NAME:" before it, to where it came
# from; print that address.
ECHO='
import json, socket, sys
sys.path.insert(0, sys.argv[1])
import mpdtlib as m
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM, m.IPPROTO_MPDT)
s.bind(("::", int(sys.argv[2])))
s.settimeout(60)
m.touch(sys.argv[4])
buf, src = s.recvfrom(100)
s.sendto(sys.argv[3].encode() + b":" + buf, src)
print(json.dumps({"from": src[0], "scope": src[3],
                  "ifname": socket.if_indextoname(src[3]) if src[3] else ""}))
'
declare -A ECHO_PID
for h in B C; do
	ns=$NS_B
	[[ $h == C ]] && ns=$NS_C
	bg ip netns exec "$ns" python3 -c "$ECHO" "$SELFTEST_DIR" "$PORT" "$h" \
		"$WORKDIR/ready.$h" >"$WORKDIR/echo.$h" 2>&1
	ECHO_PID[$h]=$BG_PID
done
for h in B C; do
	for _ in $(seq 200); do
		[[ -e $WORKDIR/ready.$h ]] && break
		nap 0.05
	done
	[[ -e $WORKDIR/ready.$h ]] || fail "echo $h did not come up: $(cat "$WORKDIR/echo.$h")"
done

# The client: the checks above, a JSON line of what it saw.
CLIENT='
import errno, json, socket, subprocess, sys
sys.path.insert(0, sys.argv[1])
import mpdtlib as m
port, cli = int(sys.argv[2]), sys.argv[3]
i1, i2 = socket.if_nametoindex("a1"), socket.if_nametoindex("a2")
r = {}

def sock():
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM, m.IPPROTO_MPDT)
    s.settimeout(30)
    return s

def err(f):
    try:
        f()
        return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))

def cli_run(*args):
    p = subprocess.run([cli, *args], capture_output=True, text=True)
    return {"rc": p.returncode, "out": p.stdout, "err": p.stderr}

s = sock()
r["sendto_no_link"] = err(lambda: s.sendto(b"x", ("fe80::2", port, 0, 0)))
s.sendto(b"to-b", ("fe80::2", port, 0, i1))
s.sendto(b"to-c", ("fe80::2", port, 0, i2))
r["replies"] = {}
for _ in range(2):
    buf, src = s.recvfrom(100)
    r["replies"][buf.decode()] = [src[0], src[1], src[3]]
r["i1"], r["i2"] = i1, i2
r["conn_json"] = cli_run("-j", "conn", "show")
r["conn_text"] = cli_run("conn", "show")
r["conn_a2"] = cli_run("-j", "conn", "show", "peer", "[fe80::2%%a2]:%d" % port)
r["conn_a1_addr"] = cli_run("-j", "conn", "show", "peer", "fe80::2%a1")
r["conn_no_if"] = cli_run("conn", "show", "peer", "[fe80::2]:%d" % port)

t = sock()
r["bind_no_link"] = err(lambda: t.bind(("fe80::1", 0, 0, 0)))
r["bind_link"] = err(lambda: t.bind(("fe80::1", 0, 0, i1)))
r["bound_scope"] = t.getsockname()[3]
r["sock_json"] = cli_run("-j", "sock", "show")
u = sock()
r["connect_no_link"] = err(lambda: u.connect(("fe80::2", port, 0, 0)))
r["connect_link"] = err(lambda: u.connect(("fe80::2", port, 0, i2)))
r["peer_scope"] = u.getpeername()[3]
v = sock()
v.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, b"a2")
r["connect_bound_dev"] = err(lambda: v.connect(("fe80::2", port, 0, 0)))
r["bound_dev_scope"] = v.getpeername()[3]
r["connect_other_link"] = err(lambda: v.connect(("fe80::2", port, 0, i1)))
g = sock()
r["global_scope_ignored"] = err(lambda: g.connect(("2001:db8::2", port, 0, i1)))
r["global_peer_scope"] = g.getpeername()[3]
print(json.dumps(r))
'
ip netns exec "$NS_A" python3 -c "$CLIENT" "$SELFTEST_DIR" "$PORT" "$CLI" \
	>"$WORKDIR/client.json" 2>"$WORKDIR/client.err" ||
	fail "client: $(cat "$WORKDIR/client.err")"
for h in B C; do
	bg_wait "${ECHO_PID[$h]}" || fail "echo $h: $(cat "$WORKDIR/echo.$h")"
done

# jc EXPR: EXPR over the client's result, "o".
jc() {
	pyexpr "$WORKDIR/client.json" "$1"
}
I1=$(jc "o['i1']")
I2=$(jc "o['i2']")

assert_eq "each host answered the message sent to its link" \
	"B:to-b fe80::2 $PORT $I1|C:to-c fe80::2 $PORT $I2" \
	"$(jc "'|'.join('%s %s %d %d' % (k, *v) for k, v in sorted(o['replies'].items()))")"
assert_eq "B saw the message come from fe80::1 on its link" "fe80::1 b0" \
	"$(pyexpr "$WORKDIR/echo.B" "o['from'] + ' ' + o['ifname']")"
assert_eq "C saw the message come from fe80::1 on its link" "fe80::1 c0" \
	"$(pyexpr "$WORKDIR/echo.C" "o['from'] + ' ' + o['ifname']")"

assert_eq "sendto() a link-local peer without its link" EINVAL "$(jc "o['sendto_no_link']")"
assert_eq "bind() a link-local address without its link" EINVAL "$(jc "o['bind_no_link']")"
assert_eq "bind() fe80::1%a1" ok "$(jc "o['bind_link']")"
assert_eq "getsockname(): the bound address's link" "$I1" "$(jc "o['bound_scope']")"
assert_eq "connect() a link-local peer without its link" EINVAL "$(jc "o['connect_no_link']")"
assert_eq "connect() fe80::2%a2" ok "$(jc "o['connect_link']")"
assert_eq "getpeername(): the peer's link" "$I2" "$(jc "o['peer_scope']")"
assert_eq "connect() without a scope id, bound to a2" ok "$(jc "o['connect_bound_dev']")"
assert_eq "getpeername(): the bound device is the link" "$I2" "$(jc "o['bound_dev_scope']")"
assert_eq "connect() to a link the bound device contradicts" EINVAL "$(jc "o['connect_other_link']")"
assert_eq "connect() a global address with a scope id" ok "$(jc "o['global_scope_ignored']")"
assert_eq "a global peer has no link" 0 "$(jc "o['global_peer_scope']")"

assert_eq "conn show -j: exit status" 0 "$(jc "o['conn_json']['rc']")"
assert_eq "conn show -j: two peers fe80::2, one per link" \
	"fe80::2 $PORT $I1|fe80::2 $PORT $I2" \
	"$(jc "'|'.join(sorted('%s %d %d' % (c['peer'], c['peer_port'], c['peer_ifindex']) for c in __import__('json').loads(o['conn_json']['out'])))")"
assert_eq "conn show: text names each peer's link" \
	"peer [fe80::2%a1]:$PORT|peer [fe80::2%a2]:$PORT" \
	"$(jc "'|'.join(sorted(l.split(' local')[0].strip() for l in o['conn_text']['out'].splitlines() if l.startswith('peer')))")"
assert_eq "conn show peer [fe80::2%a2]:$PORT finds that one" "$I2" \
	"$(jc "','.join(str(c['peer_ifindex']) for c in __import__('json').loads(o['conn_a2']['out']))")"
assert_eq "conn show peer fe80::2%a1 (address filter) finds that one" "$I1" \
	"$(jc "','.join(str(c['peer_ifindex']) for c in __import__('json').loads(o['conn_a1_addr']['out']))")"
assert_eq "conn show peer [fe80::2]:$PORT: refused, exit 1" 1 "$(jc "o['conn_no_if']['rc']")"
assert_eq "conn show peer [fe80::2]:$PORT: the kernel's reason" 1 \
	"$(jc "int('a link-local peer needs peer-ifindex' in o['conn_no_if']['err'])")"
assert_eq "sock show -j: the bound address fe80::1 and its link" "fe80::1 $I1" \
	"$(jc "' '.join('%s %d' % (x['addr'], x['addr_ifindex']) for x in __import__('json').loads(o['sock_json']['out']) if 'addr_ifindex' in x)")"

declare -A A
snap "$NS_A" A
assert_eq "connections A opened: one per link" 2 "${A[conn_created]}"
pass
