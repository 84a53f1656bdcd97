// SPDX-License-Identifier: GPL-2.0
/*
 * Socket addresses: AF_INET sockets take sockaddr_in; AF_INET6 sockets take
 * sockaddr_in6, where a v4-mapped address names an IPv4 peer (like UDP).
 * The core only ever sees struct mpdt_addr.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/l3mdev.h>
#include <net/route.h>

#include "protocol.h"

/* The link of a link-local address: sin6_scope_id, or else the device
 * the socket is bound to, as for UDP (ip6_datagram_connect()); one that
 * names neither is refused, as it could be on any link.  Conflicting ones
 * are refused too.  Other addresses have no scope, and a scope id given
 * with one is ignored, as UDP ignores it.
 */
static int addr_scope(const struct sock *sk, const struct sockaddr_in6 *sin6,
		      int len, struct mpdt_addr *a)
{
	int bound = READ_ONCE(sk->sk_bound_dev_if);
	u32 scope = len >= sizeof(*sin6) ? sin6->sin6_scope_id : 0;

	if (!__ipv6_addr_needs_scope_id(ipv6_addr_type(&a->v6)))
		return 0;
	if (scope && bound && scope != bound)
		return -EINVAL;
	a->scope_id = scope ?: bound;
	return a->scope_id ? 0 : -EINVAL;
}

int mpdt_addr_from_user(const struct sock *sk, const struct sockaddr *uaddr,
			int len, struct mpdt_addr *a)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)uaddr;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)uaddr;

	memset(a, 0, sizeof(*a));
	if (len < sizeof(sa_family_t) || uaddr->sa_family != sk->sk_family)
		return -EAFNOSUPPORT;
	if (sk->sk_family == AF_INET) {
		if (len < sizeof(*sin))
			return -EINVAL;
		a->family = AF_INET;
		a->v4 = sin->sin_addr.s_addr;
		a->port = sin->sin_port;
		return 0;
	}
	if (len < SIN6_LEN_RFC2133)
		return -EINVAL;
	a->port = sin6->sin6_port;
	if (ipv6_addr_v4mapped(&sin6->sin6_addr)) {
		a->family = AF_INET;
		a->v4 = sin6->sin6_addr.s6_addr32[3];
		return 0;
	}
	a->family = AF_INET6;
	a->v6 = sin6->sin6_addr;
	return addr_scope(sk, sin6, len, a);
}

/* Returns the length written: the socket's own address family. */
int mpdt_addr_to_user(const struct sock *sk, const struct mpdt_addr *a,
		      struct sockaddr *uaddr)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)uaddr;
	struct sockaddr_in *sin = (struct sockaddr_in *)uaddr;

	if (sk->sk_family == AF_INET) {
		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_port = a->port;
		sin->sin_addr.s_addr = a->v4;
		return sizeof(*sin);
	}
	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = a->port;
	if (a->family == AF_INET6) {
		sin6->sin6_addr = a->v6;
		sin6->sin6_scope_id = a->scope_id;
	} else if (a->family == AF_INET) {
		ipv6_addr_set_v4mapped(a->v4, &sin6->sin6_addr);
	}
	return sizeof(*sin6);
}

bool mpdt_addr_is_any(const struct mpdt_addr *a)
{
	if (a->family == AF_INET6)
		return ipv6_addr_any(&a->v6);
	return a->v4 == htonl(INADDR_ANY);
}

/* The wildcard or an address of this host, in @net; a link-local one
 * on its own link.
 */
bool mpdt_addr_is_local(struct net *net, const struct mpdt_addr *a)
{
	struct net_device *dev = NULL;
	bool local;

	if (mpdt_addr_is_any(a))
		return true;
	if (a->family == AF_INET)
		return inet_addr_type(net, a->v4) == RTN_LOCAL;
	rcu_read_lock();
	if (a->scope_id)
		dev = dev_get_by_index_rcu(net, a->scope_id);
	local = (dev || !a->scope_id) && ipv6_chk_addr(net, &a->v6, dev, 0);
	rcu_read_unlock();
	return local;
}

/* A host's address, not a group's: MPDT is one to one, and what it sent
 * to a broadcast or multicast address would reach every host there.  By
 * the address's type in the local table, where the kernel keeps every
 * subnet's broadcast address, or for a device of a VRF (@ifindex: the
 * socket's bound device, or the one a packet came in by) in the VRF's
 * table, which keeps its devices' own; tcp_v4_connect() refuses such
 * routes too.  The route itself is checked at every transmission
 * (output.c): a peer's address can become a subnet's broadcast address.
 */
bool mpdt_addr_is_unicast(struct net *net, const struct mpdt_addr *a,
			  int ifindex)
{
	u32 table;

	if (a->family == AF_INET6)
		return !ipv6_addr_is_multicast(&a->v6);
	table = l3mdev_fib_table_by_index(net, ifindex) ?: RT_TABLE_LOCAL;
	switch (inet_addr_type_table(net, a->v4, table)) {
	case RTN_UNICAST:
	case RTN_LOCAL:
		return true;
	default:
		return false;
	}
}
