/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One end of an MPDT connection inside the ns-3 model: the module's own
 * engine (net/mpdt/engine.c and every policy), compiled unchanged, behind
 * a plain C interface the C++ side can include.  The model is the glue:
 * it moves the packets this file encodes, runs its timer and counts what
 * it delivers.  Payload bytes are virtual; only their number travels.
 */
#ifndef _MPDT_SIM_ENDPOINT_H
#define _MPDT_SIM_ENDPOINT_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The netns parameters of one simulation, the module's defaults first. */
struct msim_params;

struct msim_params *msim_params_new(void);
void msim_params_free(struct msim_params *p);
/* Set parameter @name (the CLI's name, "link-mbps") or "lb"/"cc" to
 * @value: NULL if done, else why not.
 */
const char *msim_params_set(struct msim_params *p, const char *name,
			    const char *value);
/* NULL if the set is consistent, else what the module would answer. */
const char *msim_params_invalid(const struct msim_params *p);
uint16_t msim_params_port(const struct msim_params *p);
/* The UDP source port of entropy @ev, as the module's output.c maps it. */
uint16_t msim_params_ev_port(const struct msim_params *p, uint16_t ev);
/* The load balancer's and the congestion control's names. */
const char *msim_params_lb(const struct msim_params *p);
const char *msim_params_cc(const struct msim_params *p);

/* What an endpoint asks of the model. */
struct msim_ep_ops {
	/* Send an MPDT packet: @hdr (@hlen bytes) then @payload virtual
	 * bytes, UDP source port @sport.
	 */
	void (*xmit)(void *ctx, const uint8_t *hdr, uint32_t hlen,
		     uint32_t payload, uint16_t sport);
	/* Call msim_ep_timer() at @when (ns) or earlier. */
	void (*arm_timer)(void *ctx, uint64_t when);
	/* A message of @len bytes arrived whole (receiving half). */
	void (*delivered)(void *ctx, uint32_t len);
	/* A sent message left the queue, @acked or dropped. */
	void (*released)(void *ctx, uint32_t len, bool acked);
};

/* The counters the experiments report, summed over endpoints. */
struct msim_counts {
	uint64_t tx_data, retx, rtos, rto_undone, tx_sack, tx_nack, tx_probe;
	uint64_t rx_data, rx_reordered, rx_ce, rx_trimmed, rx_dup, failed;
	uint64_t cwnd_cuts;	/* inputs after which the window was smaller */
};

struct msim_ep;

struct msim_ep *msim_ep_new(const struct msim_params *p,
			    const struct msim_ep_ops *ops, void *ctx,
			    uint64_t seed, uint64_t now);
void msim_ep_free(struct msim_ep *ep);
/* Queue a message of @len bytes (1 .. 16 MiB) and send what may go. */
void msim_ep_send(struct msim_ep *ep, uint32_t len, uint64_t now);
/* A packet for this endpoint: the UDP payload @buf of @len bytes; @ce:
 * its IP header was CE-marked.  False if it did not decode (counted).
 */
bool msim_ep_input(struct msim_ep *ep, const uint8_t *buf, uint32_t len,
		   bool ce, uint64_t now);
void msim_ep_timer(struct msim_ep *ep, uint64_t now);
void msim_ep_add_counts(const struct msim_ep *ep, struct msim_counts *c);

/* Whether @buf (@len bytes of UDP payload) is an MPDT control packet: a
 * SACK or NACK (mpdt_pkt_is_feedback()), or a trimmed DATA header.
 */
bool msim_is_control(const uint8_t *buf, uint32_t len);

/* A switch trims the MPDT DATA packet in @buf (@len bytes of UDP
 * payload) to its header and marks it trimmed; returns the new length,
 * or 0 if it is no DATA packet (drop it instead).
 */
uint32_t msim_trim(uint8_t *buf, uint32_t len);

#ifdef __cplusplus
}
#endif

#endif /* _MPDT_SIM_ENDPOINT_H */
