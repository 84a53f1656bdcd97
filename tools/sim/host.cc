// SPDX-License-Identifier: GPL-2.0
#include "host.hh"

#include <ns3/ipv4-end-point.h>
#include <ns3/ipv4-header.h>
#include <ns3/packet.h>
#include <ns3/simulator.h>
#include <ns3/socket.h>

namespace mpdtsim
{

using namespace ns3;

/* The engine's clock: simulation time plus an epoch, so that no
 * timestamp is 0 (which the wire reserves for "none").
 */
static uint64_t
EngineNow()
{
    return Simulator::Now().GetNanoSeconds() + 1000000000ULL;
}

/* What the module's output.c sets: ECN capable, ECT(0). */
static const uint8_t MPDT_TOS_ECT0 = 0x02;

struct Host::Conn
{
    Host* host;
    Ipv4Address peer;
    msim_ep* ep = nullptr;
    EventId timer;
    uint64_t timerAt = 0;

    static void Xmit(void* ctx, const uint8_t* hdr, uint32_t hlen, uint32_t payload,
                     uint16_t sport);
    static void ArmTimer(void* ctx, uint64_t when);
    static void Delivered(void* ctx, uint32_t len);
    static void Released(void* ctx, uint32_t len, bool acked);
    void Fire();

    static const msim_ep_ops ops;
};

const msim_ep_ops Host::Conn::ops = {
    .xmit = Host::Conn::Xmit,
    .arm_timer = Host::Conn::ArmTimer,
    .delivered = Host::Conn::Delivered,
    .released = Host::Conn::Released,
};

void
Host::Conn::Xmit(void* ctx, const uint8_t* hdr, uint32_t hlen, uint32_t payload, uint16_t sport)
{
    Conn* c = static_cast<Conn*>(ctx);
    Host* h = c->host;
    Ptr<Packet> p = Create<Packet>(hdr, hlen);
    SocketIpTosTag tos;

    if (payload)
        p->AddAtEnd(Create<Packet>(payload));
    tos.SetTos(MPDT_TOS_ECT0);
    p->AddPacketTag(tos);
    h->m_udp->Send(p, h->m_addr, c->peer, sport, msim_params_port(h->m_params));
}

/* As the module's timer: one per connection, moved earlier only. */
void
Host::Conn::ArmTimer(void* ctx, uint64_t when)
{
    Conn* c = static_cast<Conn*>(ctx);
    uint64_t now = EngineNow();

    if (c->timerAt && c->timerAt <= when)
        return;
    c->timer.Cancel();
    c->timerAt = when;
    c->timer = Simulator::Schedule(NanoSeconds(when > now ? when - now : 0), &Conn::Fire, c);
}

void
Host::Conn::Fire()
{
    timerAt = 0;
    msim_ep_timer(ep, EngineNow());
}

void
Host::Conn::Delivered(void* ctx, uint32_t len)
{
    Conn* c = static_cast<Conn*>(ctx);

    c->host->m_onDeliver(c->peer, len, Simulator::Now());
}

void
Host::Conn::Released(void* ctx, uint32_t len, bool acked)
{
    Conn* c = static_cast<Conn*>(ctx);

    if (acked)
        c->host->m_acked++;
    else
        c->host->m_abandoned++;
}

Host::Host(Ptr<Node> node, Ipv4Address addr, const msim_params* params, uint64_t seed,
           DeliverFn onDeliver)
    : m_node(node),
      m_addr(addr),
      m_params(params),
      m_seed(seed),
      m_onDeliver(std::move(onDeliver))
{
    Ipv4EndPoint* ep;

    m_udp = node->GetObject<UdpL4Protocol>();
    ep = m_udp->Allocate(nullptr, msim_params_port(params));
    NS_ABORT_MSG_UNLESS(ep, "MPDT port taken");
    ep->SetRxCallback(MakeCallback(&Host::Receive, this));
}

Host::~Host()
{
    for (auto& [addr, c] : m_conns)
    {
        c->timer.Cancel();
        msim_ep_free(c->ep);
    }
}

Ipv4Address
Host::Addr() const
{
    return m_addr;
}

Host::Conn&
Host::ConnTo(Ipv4Address peer)
{
    std::unique_ptr<Conn>& c = m_conns[peer.Get()];

    if (!c)
    {
        c = std::make_unique<Conn>();
        c->host = this;
        c->peer = peer;
        c->ep = msim_ep_new(m_params, &Conn::ops, c.get(), m_seed ^ ((uint64_t)peer.Get() << 20),
                            EngineNow());
    }
    return *c;
}

void
Host::Send(Ipv4Address peer, uint32_t len)
{
    msim_ep_send(ConnTo(peer).ep, len, EngineNow());
}

void
Host::Receive(Ptr<Packet> p, Ipv4Header header, uint16_t sport, Ptr<Ipv4Interface> iface)
{
    uint8_t buf[2048];
    uint32_t len = p->GetSize();

    if (len > sizeof(buf))
        return;
    p->CopyData(buf, len);
    msim_ep_input(ConnTo(header.GetSource()).ep, buf, len,
                  header.GetEcn() == Ipv4Header::ECN_CE, EngineNow());
}

void
Host::AddCounts(msim_counts* c) const
{
    for (const auto& [addr, conn] : m_conns)
        msim_ep_add_counts(conn->ep, c);
}

uint64_t
Host::Acked() const
{
    return m_acked;
}

uint64_t
Host::Abandoned() const
{
    return m_abandoned;
}

} // namespace mpdtsim
