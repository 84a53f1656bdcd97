// SPDX-License-Identifier: GPL-2.0
/*
 * Receive steering: the packets of one connection are handled on one CPU
 * that hashing the connection chose, wherever they came in.
 *
 * Why: a sender on this host hands its bursts to a veth, which delivers
 * them in the sender's own softirq.  Every SACK a burst starts, every
 * burst that SACK releases and every SACK that burst starts in turn then
 * run on the sending thread's CPU, the busiest one, while the reader's
 * idles: 16 connections sent from one thread moved 0.65x what TCP's 16
 * streams do, and 0.80-1.0x with RPS (Documentation/perf.rst).  TCP
 * spreads that work through its socket backlog and the ACKs its reader
 * sends.  RPS is off by default, and it hashes the UDP ports: with the
 * `oblivious` LB a connection's source port changes every burst, and RPS
 * handed one connection to every CPU in turn, each taking its lock and
 * its cache lines (21-25 busy seconds per GiB, against 11-12).  So MPDT
 * steers by connection, as RPS does by flow: a queue per CPU, and an IPI
 * that schedules the CPU's NAPI context, whose softirq takes the queue.
 *
 * A queued skb holds its socket (skb->sk, sock_efree()), and so the
 * socket's namespace and the module: neither goes while it waits.  A
 * kernel socket holds no namespace (sk_net_refcnt): its packets are
 * handled where they came in.
 *
 * CPU hotplug strands nothing: a CPU is only chosen while it is online,
 * in the softirq that queues the skb and kicks the CPU, which taking the
 * CPU down (stop_machine()) cannot interrupt; the dying CPU runs the
 * kicks queued to it (smpcfd_dying_cpu()), and the NAPI contexts they
 * scheduled move to a live CPU with the rest of its poll list
 * (dev_cpu_dead()).
 */
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/sched/isolation.h>
#include <linux/siphash.h>
#include <linux/skbuff.h>
#include <linux/smp.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "protocol.h"

/* What a CPU's queue holds before further skbs for it are handled where
 * they came in: as deep as the stack's own backlog (netdev_max_backlog)
 * would let a CPU fall behind.  The bound only moves work, drops nothing.
 */
#define MPDT_STEER_QLEN 1000

struct mpdt_steer_cpu {
	struct sk_buff_head queue;
	struct napi_struct napi;
	call_single_data_t kick;
};

static DEFINE_PER_CPU(struct mpdt_steer_cpu, steer_cpus);
/* One key for every namespace: the two ends of a connection over a veth
 * must hash alike.  Secret, so a peer cannot pick its CPU.
 */
static siphash_key_t steer_key __read_mostly;
/* The CPUs that may take other CPUs' work, as an RPS map may name them
 * (store_rps_map()): neither isolated (isolcpus=) nor nohz_full, which
 * are kept for one task each.  Fixed at boot.
 */
static cpumask_var_t steer_allowed;
/* NAPI contexts need a device; this one is never registered. */
static struct net_device *steer_dev;

/* IPI: in hard interrupt context on the CPU the queue belongs to. */
static void steer_kick(void *arg)
{
	struct mpdt_steer_cpu *sc = arg;

	napi_schedule(&sc->napi);
}

/* Under the queue's lock, which serializes the callers of
 * smp_call_function_single_async() on the one csd: it takes no lock of its
 * own.  A kick it still holds (-EBUSY) has not run, and will find the skb.
 */
static void steer_kick_cpu(struct mpdt_steer_cpu *sc, unsigned int cpu)
{
	if (cpu == smp_processor_id())
		napi_schedule(&sc->napi);
	else
		smp_call_function_single_async(cpu, &sc->kick);
}

/* One end of a connection, as both ends' hashes read it: no scope, which
 * each end names by its own device.
 */
struct mpdt_steer_end {
	struct in6_addr addr;
	__be16 port;
	u16 pad;
};

static void steer_end(struct mpdt_steer_end *e, const struct mpdt_addr *a)
{
	if (a->family == AF_INET6)
		e->addr = a->v6;
	else
		ipv6_addr_set_v4mapped(a->v4, &e->addr);
	e->port = a->port;
	e->pad = 0;
}

/* The connection's CPU.  Both of its ends hash alike, the lesser first,
 * as RPS's flow hash does both directions of a flow: when both are on
 * this host, a burst, its SACK and the bursts that SACK releases are all
 * handled on one CPU, with no IPI between them.  Hashed apart, each round
 * trip crossed CPUs twice, each time behind an IPI and a softirq that a
 * busy CPU may leave to ksoftirqd for milliseconds: the probes and
 * timeouts that caused cost 16 connections up to 40% of their throughput
 * and one connection, in one round of three, 80%.
 */
static unsigned int steer_cpu(const struct mpdt_addr *local,
			      const struct mpdt_addr *peer)
{
	struct mpdt_steer_end k[2];
	unsigned int n;

	steer_end(&k[0], local);
	steer_end(&k[1], peer);
	if (memcmp(&k[0], &k[1], sizeof(k[0])) > 0)
		swap(k[0], k[1]);
	/* Of the online ones, which need not be the first nr_cpu_ids; with
	 * none, the skb is handled where it came in.
	 */
	n = cpumask_weight_and(cpu_online_mask, steer_allowed);
	if (!n)
		return nr_cpu_ids;
	return cpumask_nth_and(reciprocal_scale(siphash(k, sizeof(k),
							&steer_key), n),
			       cpu_online_mask, steer_allowed);
}

/* The socket, for the queued skb: input.c found it under RCU without a
 * reference, and close() may have put its last one since (it unbinds the
 * port first, but a lookup can come before that).  Memory freed only after
 * a grace period (SOCK_RCU_FREE) may still be read, not held: such an skb
 * is handled where it came in, under the socket's lock, which says it is
 * closing.
 */
static bool steer_hold(struct mpdt_sock *msk)
{
	return refcount_inc_not_zero(&msk->inet.sk.sk_refcnt);
}

bool mpdt_steer(struct mpdt_sock *msk, struct sk_buff *skb,
		const struct mpdt_addr *local, const struct mpdt_addr *peer)
{
	struct mpdt_steer_cpu *sc;
	unsigned int cpu;

	if (!msk->inet.sk.sk_net_refcnt)
		return false;
	cpu = steer_cpu(local, peer);
	/* A CPU going down as it was chosen takes nothing. */
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return false;
	sc = per_cpu_ptr(&steer_cpus, cpu);
	/* On its own CPU, an skb waits behind those queued before it: a
	 * connection's packets are handled in the order they came in.
	 */
	if (cpu == smp_processor_id() && skb_queue_empty_lockless(&sc->queue))
		return false;
	spin_lock(&sc->queue.lock);
	if (skb_queue_len(&sc->queue) >= MPDT_STEER_QLEN ||
	    !steer_hold(msk)) {
		spin_unlock(&sc->queue.lock);
		return false;
	}
	skb_orphan(skb);
	skb->sk = &msk->inet.sk;
	skb->destructor = sock_efree;
	/* Valid only in the softirq that received it (input.c rcv_dev()). */
	skb->dev = NULL;
	__skb_queue_tail(&sc->queue, skb);
	/* A queue that held skbs has a kick or a poll on its way. */
	if (skb_queue_len(&sc->queue) == 1)
		steer_kick_cpu(sc, cpu);
	spin_unlock(&sc->queue.lock);
	return true;
}

static int steer_poll(struct napi_struct *napi, int budget)
{
	struct mpdt_steer_cpu *sc = container_of(napi, struct mpdt_steer_cpu,
						 napi);
	struct sk_buff *skb;
	int done = 0;

	while (done < budget) {
		spin_lock(&sc->queue.lock);
		skb = __skb_dequeue(&sc->queue);
		spin_unlock(&sc->queue.lock);
		if (!skb)
			break;
		mpdt_rcv_steered(skb);
		done++;
	}
	/* A kick that came while this poll ran left the context scheduled
	 * (NAPIF_STATE_MISSED): napi_complete_done() polls again.
	 */
	if (done < budget)
		napi_complete_done(napi, done);
	return done;
}

int mpdt_steer_init(void)
{
	struct mpdt_steer_cpu *sc;
	int cpu;

	get_random_bytes(&steer_key, sizeof(steer_key));
	if (!alloc_cpumask_var(&steer_allowed, GFP_KERNEL))
		return -ENOMEM;
	cpumask_and(steer_allowed, housekeeping_cpumask(HK_TYPE_DOMAIN),
		    housekeeping_cpumask(HK_TYPE_WQ));
	steer_dev = kzalloc(sizeof(*steer_dev), GFP_KERNEL);
	if (!steer_dev) {
		free_cpumask_var(steer_allowed);
		return -ENOMEM;
	}
	init_dummy_netdev(steer_dev);
	for_each_possible_cpu(cpu) {
		sc = per_cpu_ptr(&steer_cpus, cpu);
		skb_queue_head_init(&sc->queue);
		INIT_CSD(&sc->kick, steer_kick, sc);
		netif_napi_add(steer_dev, &sc->napi, steer_poll);
		napi_enable(&sc->napi);
	}
	return 0;
}

static void steer_nothing(void *arg)
{
}

/* Every socket is gone (each held the module), so no skb waits and none
 * will be queued; only a kick may still be on its way.
 */
void mpdt_steer_exit(void)
{
	struct mpdt_steer_cpu *sc;
	int cpu;

	/* Each CPU runs its queued IPIs in order, in one stretch with
	 * interrupts off: once every CPU ran one queued now, and an RCU
	 * grace period went by, no kick is left to run.
	 */
	on_each_cpu(steer_nothing, NULL, true);
	synchronize_rcu();
	for_each_possible_cpu(cpu) {
		sc = per_cpu_ptr(&steer_cpus, cpu);
		napi_disable(&sc->napi);
		__netif_napi_del(&sc->napi);
		WARN_ON_ONCE(!skb_queue_empty(&sc->queue));
	}
	synchronize_net();
	kfree(steer_dev);
	free_cpumask_var(steer_allowed);
}
