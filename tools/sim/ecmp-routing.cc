// SPDX-License-Identifier: GPL-2.0
#include "ecmp-routing.hh"

#include <ns3/ipv4-route.h>
#include <ns3/log.h>
#include <ns3/packet.h>
#include <ns3/udp-l4-protocol.h>

namespace mpdtsim
{

using namespace ns3;

NS_OBJECT_ENSURE_REGISTERED(EcmpRouting);

TypeId
EcmpRouting::GetTypeId()
{
    static TypeId tid = TypeId("mpdtsim::EcmpRouting")
                            .SetParent<Ipv4RoutingProtocol>()
                            .AddConstructor<EcmpRouting>();
    return tid;
}

void
EcmpRouting::SetSalt(uint64_t salt)
{
    m_salt = salt;
}

void
EcmpRouting::AddRoute(Ipv4Address dst, Hop hop)
{
    m_routes[dst.Get()].push_back(hop);
}

void
EcmpRouting::AddDefault(Hop hop)
{
    m_default.push_back(hop);
}

void
EcmpRouting::SetEvPart(uint16_t mpdtPort, uint16_t evBase, uint32_t bits, uint32_t part)
{
    m_mpdtPort = mpdtPort;
    m_evBase = evBase;
    m_evBits = bits;
    m_evPart = part;
}

const EcmpRouting::Hop*
EcmpRouting::ChooseByEv(const uint8_t ports[4], const Ipv4Header& header,
                        const std::vector<Hop>& hops) const
{
    uint16_t sport = ports[0] << 8 | ports[1], dport = ports[2] << 8 | ports[3];
    uint32_t ev = static_cast<uint16_t>(sport - m_evBase);

    if (!m_evBits || header.GetProtocol() != UdpL4Protocol::PROT_NUMBER || dport != m_mpdtPort)
        return nullptr;
    return &hops[(ev >> (m_evPart * m_evBits) & ((1U << m_evBits) - 1)) % hops.size()];
}

/* splitmix64's finalizer: every input bit moves every output bit. */
static uint64_t
Mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

const EcmpRouting::Hop*
EcmpRouting::Choose(Ptr<const Packet> p, const Ipv4Header& header) const
{
    auto it = m_routes.find(header.GetDestination().Get());
    const std::vector<Hop>& hops = it != m_routes.end() ? it->second : m_default;
    uint8_t ports[4] = {};
    uint64_t h;

    if (hops.empty())
        return nullptr;
    if (hops.size() == 1)
        return &hops[0];
    /* UDP and TCP both start with the two ports. */
    if (p && p->GetSize() >= sizeof(ports))
        p->CopyData(ports, sizeof(ports));
    if (const Hop* hop = ChooseByEv(ports, header, hops))
        return hop;
    h = Mix(m_salt ^ ((uint64_t)header.GetSource().Get() << 32 | header.GetDestination().Get()));
    h = Mix(h ^ ((uint64_t)header.GetProtocol() << 32 | (uint64_t)ports[0] << 24 |
                 (uint64_t)ports[1] << 16 | ports[2] << 8 | ports[3]));
    return &hops[h % hops.size()];
}

Ptr<Ipv4Route>
EcmpRouting::MakeRoute(const Hop& hop, const Ipv4Header& header) const
{
    Ptr<Ipv4Route> route = Create<Ipv4Route>();

    route->SetDestination(header.GetDestination());
    route->SetGateway(hop.gateway);
    route->SetOutputDevice(m_ipv4->GetNetDevice(hop.iface));
    route->SetSource(m_ipv4->GetAddress(hop.iface, 0).GetLocal());
    return route;
}

Ptr<Ipv4Route>
EcmpRouting::RouteOutput(Ptr<Packet> p,
                         const Ipv4Header& header,
                         Ptr<NetDevice> oif,
                         Socket::SocketErrno& sockerr)
{
    const Hop* hop = Choose(p, header);

    if (!hop)
    {
        sockerr = Socket::ERROR_NOROUTETOHOST;
        return nullptr;
    }
    sockerr = Socket::ERROR_NOTERROR;
    return MakeRoute(*hop, header);
}

bool
EcmpRouting::RouteInput(Ptr<const Packet> p,
                        const Ipv4Header& header,
                        Ptr<const NetDevice> idev,
                        UnicastForwardCallback ucb,
                        MulticastForwardCallback mcb,
                        LocalDeliverCallback lcb,
                        ErrorCallback ecb)
{
    const Hop* hop;

    if (m_ipv4->IsDestinationAddress(header.GetDestination(),
                                     m_ipv4->GetInterfaceForDevice(idev)))
    {
        lcb(p, header, m_ipv4->GetInterfaceForDevice(idev));
        return true;
    }
    hop = Choose(p, header);
    if (!hop)
        return false;
    ucb(MakeRoute(*hop, header), p, header);
    return true;
}

/* The tables are static: a failed link black-holes, as a fabric does
 * until its control plane reacts (what REPS and PRIME must survive).
 */
void
EcmpRouting::NotifyInterfaceUp(uint32_t interface)
{
}

void
EcmpRouting::NotifyInterfaceDown(uint32_t interface)
{
}

void
EcmpRouting::NotifyAddAddress(uint32_t interface, Ipv4InterfaceAddress address)
{
}

void
EcmpRouting::NotifyRemoveAddress(uint32_t interface, Ipv4InterfaceAddress address)
{
}

void
EcmpRouting::SetIpv4(Ptr<Ipv4> ipv4)
{
    m_ipv4 = ipv4;
}

void
EcmpRouting::PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit unit) const
{
    std::ostream& os = *stream->GetStream();

    for (const auto& [dst, hops] : m_routes)
    {
        os << Ipv4Address(dst) << ":";
        for (const Hop& hop : hops)
            os << " if" << hop.iface << " via " << hop.gateway;
        os << "\n";
    }
}

} // namespace mpdtsim
