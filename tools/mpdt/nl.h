/* SPDX-License-Identifier: GPL-2.0 */
/* Talking to the "mpdt" generic netlink family with libmnl. */
#ifndef _MPDT_NL_H
#define _MPDT_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

/* Room for one request; replies use a larger buffer. */
#define NL_REQ_SIZE	8192

struct nl {
	struct mnl_socket *sock;
	unsigned int portid;
	unsigned int seq;
	uint16_t family;		/* generic netlink id of "mpdt" */
	uint32_t events_group;		/* multicast group "events" */
	/* The request being built or answered (u64s: aligned). */
	uint64_t req[NL_REQ_SIZE / sizeof(uint64_t)];
};

int nl_open(struct nl *nl);
void nl_close(struct nl *nl);

/* Start the request for @cmd of the "mpdt" family (in nl->req). */
struct nlmsghdr *nl_req(struct nl *nl, uint8_t cmd, bool dump);

/* Send the request and feed each reply message to @cb until the kernel's
 * ack or the end of the dump.  On failure the error, with the kernel's
 * extack message, is printed and -1 returned.
 */
int nl_talk(struct nl *nl, mnl_cb_t cb, void *data);

/* Receive notifications of the "events" group, each fed to @cb, until
 * SIGINT or SIGTERM (returns 0) or an error (printed; returns -1).
 */
int nl_listen(struct nl *nl, mnl_cb_t cb, void *data);

/* Replies and notifications of "mpdt" carry one nest at the top level. */
const struct nlattr *nl_nest(const struct nlmsghdr *nlh, uint16_t type);
uint8_t nl_cmd(const struct nlmsghdr *nlh);
void nl_parse(const struct nlattr *nest, const struct nlattr **tb,
	      uint16_t max);
bool nl_uint(const struct nlattr *a, unsigned long long *val);
const char *nl_str(const struct nlattr *a);
/* Room for nl_addr_text(): an IPv6 address, '%' and an interface. */
#define NL_ADDR_TEXT_LEN	(46 + 1 + 16)
bool nl_addr_text(const struct nlattr *a, int family,
		  const struct nlattr *ifindex, char *buf, size_t len);

#endif /* _MPDT_NL_H */
