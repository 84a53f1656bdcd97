/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of the "mpdt" generic netlink attributes and values, as the kernel
 * spells them: parameters from net/mpdt/params_table.h, counters as in
 * net/mpdt/stats.c.  tools/mpdt/spec_check.py keeps them in sync.
 */
#ifndef _MPDT_NAMES_H
#define _MPDT_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/mpdt.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Indexed by attribute type; NULL for the types that are not shown. */
extern const char *const param_names[MPDT_PARAM_MAX + 1];
extern const char *const stat_names[MPDT_STAT_MAX + 1];

/* The numbers of a connection, in the order shown: owner, state, then
 * counters; and of a socket.
 */
extern const uint16_t conn_owner_attrs[];
extern const size_t conn_owner_attr_count;
extern const uint16_t conn_state_attrs[];
extern const size_t conn_state_attr_count;
extern const uint16_t conn_counter_attrs[];
extern const size_t conn_counter_attr_count;
extern const uint16_t sock_num_attrs[];
extern const size_t sock_num_attr_count;

bool param_is_string(uint16_t attr);
/* NULL for a value without a name. */
const char *conn_attr_name(uint16_t attr);
const char *conn_state_name(unsigned long long state);
const char *sock_attr_name(uint16_t attr);
const char *sock_state_name(unsigned long long state);
const char *algo_kind_name(unsigned long long kind);
const char *event_name(uint8_t cmd);
const char *nested_attr_name(uint16_t nest, uint16_t type);

#endif /* _MPDT_NAMES_H */
