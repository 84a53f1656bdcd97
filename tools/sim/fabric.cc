// SPDX-License-Identifier: GPL-2.0
#include "fabric.hh"

#include "ecmp-routing.hh"
#include "switch-queue.hh"

#include <ns3/boolean.h>
#include <ns3/double.h>
#include <ns3/error-model.h>
#include <ns3/internet-stack-helper.h>
#include <ns3/ipv4-address-helper.h>
#include <ns3/ipv4-routing-helper.h>
#include <ns3/point-to-point-helper.h>
#include <ns3/point-to-point-net-device.h>
#include <ns3/pointer.h>
#include <ns3/string.h>
#include <ns3/traffic-control-helper.h>
#include <ns3/uinteger.h>

#include <deque>
#include <limits>
#include <sstream>

namespace mpdtsim
{

using namespace ns3;

static const uint32_t UNREACHED = std::numeric_limits<uint32_t>::max();
/* Longer than any control packet on a link (MPDT's SACK is 56 bytes of
 * UDP payload, a TCP ACK with options under 100 bytes): one that carried
 * payload.
 */
static const uint32_t DATA_MIN_BYTES = 256;
/* A host's NIC queue: deep, never marks (the switches signal). */
static const uint32_t HOST_QUEUE_BYTES = 64 << 20;

class EcmpRoutingHelper : public Ipv4RoutingHelper
{
  public:
    Ipv4RoutingHelper* Copy() const override
    {
        return new EcmpRoutingHelper(*this);
    }

    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node> node) const override
    {
        return CreateObject<EcmpRouting>();
    }
};

uint32_t
Fabric::AddLink(uint32_t a, uint32_t b, uint64_t bps, Time delay, bool up)
{
    m_links.push_back(Link{a, b, bps, delay, up, {}, {}, {}});
    m_adj[a].push_back(m_links.size() - 1);
    m_adj[b].push_back(m_links.size() - 1);
    return m_links.size() - 1;
}

Fabric
Fabric::LeafSpine(uint32_t leaves, uint32_t perLeaf, uint32_t spines, uint64_t hostBps,
                  uint64_t fabricBps, Time delay)
{
    Fabric f;
    uint32_t leaf0 = leaves * perLeaf, spine0 = leaf0 + leaves;
    std::ostringstream name;

    f.m_hosts = leaf0;
    f.m_nodes = spine0 + spines;
    f.m_hostBps = hostBps;
    f.m_adj.resize(f.m_nodes);
    for (uint32_t h = 0; h < f.m_hosts; h++)
        f.AddLink(h, leaf0 + h / perLeaf, hostBps, delay, false);
    for (uint32_t l = 0; l < leaves; l++)
        for (uint32_t s = 0; s < spines; s++)
            f.AddLink(leaf0 + l, spine0 + s, fabricBps, delay, true);
    name << "leaf-spine " << leaves << "x" << perLeaf << " hosts, " << spines << " spines";
    f.m_name = name.str();
    return f;
}

Fabric
Fabric::FatTree(uint32_t k, uint64_t bps, Time delay)
{
    Fabric f;
    uint32_t half = k / 2, perPod = half * half;
    uint32_t edge0 = k * perPod, agg0 = edge0 + k * half, core0 = agg0 + k * half;
    std::ostringstream name;

    f.m_hosts = edge0;
    f.m_nodes = core0 + perPod;
    f.m_hostBps = bps;
    f.m_adj.resize(f.m_nodes);
    for (uint32_t h = 0; h < f.m_hosts; h++)
        f.AddLink(h, edge0 + h / half, bps, delay, false);
    for (uint32_t pod = 0; pod < k; pod++)
        for (uint32_t e = 0; e < half; e++)
            for (uint32_t a = 0; a < half; a++)
                f.AddLink(edge0 + pod * half + e, agg0 + pod * half + a, bps, delay, true);
    for (uint32_t pod = 0; pod < k; pod++)
        for (uint32_t a = 0; a < half; a++)
            for (uint32_t c = 0; c < half; c++)
                f.AddLink(agg0 + pod * half + a, core0 + a * half + c, bps, delay, false);
    name << "fat-tree k=" << k << ", " << f.m_hosts << " hosts";
    f.m_name = name.str();
    return f;
}

void
Fabric::Build(const QueueConfig& q, uint64_t seed)
{
    InternetStackHelper stack;
    EcmpRoutingHelper routing;
    PointToPointHelper p2p;
    TrafficControlHelper switchTc, hostTc;
    Ipv4AddressHelper addrs("10.0.0.0", "255.255.255.252");

    m_nodeC.Create(m_nodes);
    stack.SetRoutingHelper(routing);
    stack.Install(m_nodeC);
    /* The queue is the qdisc's: the device holds one packet. */
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    switchTc.SetRootQueueDisc("mpdtsim::SwitchQueue",
                              "MaxBytes", UintegerValue(q.maxBytes),
                              "MarkMinBytes", UintegerValue(q.markMinBytes),
                              "MarkMaxBytes", UintegerValue(q.markMaxBytes),
                              "Trim", BooleanValue(q.trim),
                              "MpdtPort", UintegerValue(q.mpdtPort));
    hostTc.SetRootQueueDisc("mpdtsim::SwitchQueue",
                            "MaxBytes", UintegerValue(HOST_QUEUE_BYTES),
                            "MarkMinBytes", UintegerValue(HOST_QUEUE_BYTES),
                            "MarkMaxBytes", UintegerValue(HOST_QUEUE_BYTES));
    m_hostAddr.resize(m_hosts);
    for (Link& l : m_links)
    {
        p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(l.bps)));
        p2p.SetChannelAttribute("Delay", TimeValue(l.delay));
        l.devs = p2p.Install(m_nodeC.Get(l.a), m_nodeC.Get(l.b));
        for (int end = 0; end < 2; end++)
        {
            uint32_t node = end ? l.b : l.a;
            QueueDiscContainer qd = (node < m_hosts ? hostTc : switchTc).Install(l.devs.Get(end));

            if (node >= m_hosts)
                m_queues.Add(qd);
        }
        Ipv4InterfaceContainer ifs = addrs.Assign(l.devs);
        addrs.NewNetwork();
        for (int end = 0; end < 2; end++)
        {
            l.addr[end] = ifs.GetAddress(end);
            l.iface[end] = ifs.Get(end).second;
        }
        if (l.a < m_hosts)
            m_hostAddr[l.a] = l.addr[0];
    }
    InstallRoutes(seed);
}

std::vector<uint32_t>
Fabric::Distances(const std::vector<uint32_t>& from) const
{
    std::vector<uint32_t> dist(m_nodes, UNREACHED);
    std::deque<uint32_t> todo(from.begin(), from.end());

    for (uint32_t h : from)
        dist[h] = 0;
    while (!todo.empty())
    {
        uint32_t n = todo.front();

        todo.pop_front();
        if (n < m_hosts && dist[n])
            continue; /* hosts forward nothing */
        for (uint32_t li : m_adj[n])
        {
            const Link& l = m_links[li];
            uint32_t next = l.a == n ? l.b : l.a;

            if (dist[next] == UNREACHED)
            {
                dist[next] = dist[n] + 1;
                todo.push_back(next);
            }
        }
    }
    return dist;
}

Ptr<EcmpRouting>
Fabric::RoutingOf(uint32_t node) const
{
    return DynamicCast<EcmpRouting>(m_nodeC.Get(node)->GetObject<Ipv4>()->GetRoutingProtocol());
}

/* Every shortest path to every host: a switch's next hops towards h are
 * its neighbours one hop closer to h.
 */
void
Fabric::InstallRoutes(uint64_t seed)
{
    for (uint32_t n = 0; n < m_nodes; n++)
        RoutingOf(n)->SetSalt(seed * 0x9e3779b97f4a7c15ULL + n);
    for (uint32_t h = 0; h < m_hosts; h++)
    {
        std::vector<uint32_t> dist = Distances({h});
        const Link& uplink = m_links[m_adj[h][0]];

        RoutingOf(h)->AddDefault({uplink.iface[0], uplink.addr[1]});
        for (uint32_t n = m_hosts; n < m_nodes; n++)
        {
            for (uint32_t li : m_adj[n])
            {
                const Link& l = m_links[li];
                int end = l.a == n ? 0 : 1;
                uint32_t next = end ? l.a : l.b;

                if (dist[n] != UNREACHED && dist[next] + 1 == dist[n])
                    RoutingOf(n)->AddRoute(m_hostAddr[h], {l.iface[end], l.addr[1 - end]});
            }
        }
    }
}

void
Fabric::RouteByEvParts(uint16_t mpdtPort, uint16_t evBase)
{
    std::vector<uint32_t> hosts(m_hosts), tier, up(m_nodes);
    uint32_t most = 1, bits = 0;

    for (uint32_t h = 0; h < m_hosts; h++)
        hosts[h] = h;
    tier = Distances(hosts);
    /* A switch's uplinks lead away from the hosts, one tier up. */
    for (const Link& l : m_links)
    {
        if (tier[l.a] != tier[l.b])
            up[tier[l.a] < tier[l.b] ? l.a : l.b]++;
    }
    for (uint32_t n = m_hosts; n < m_nodes; n++)
        most = std::max(most, up[n]);
    while ((1U << bits) < most)
        bits++;
    for (uint32_t n = m_hosts; n < m_nodes; n++)
        RoutingOf(n)->SetEvPart(mpdtPort, evBase, bits, tier[n] - 1);
}

uint32_t
Fabric::Hosts() const
{
    return m_hosts;
}

Ptr<Node>
Fabric::HostNode(uint32_t h) const
{
    return m_nodeC.Get(h);
}

Ipv4Address
Fabric::HostAddr(uint32_t h) const
{
    return m_hostAddr[h];
}

uint64_t
Fabric::HostBps() const
{
    return m_hostBps;
}

Time
Fabric::OneWay(uint32_t from, uint32_t to, uint32_t mtu) const
{
    std::vector<uint32_t> dist = Distances({to});
    Time t;

    for (uint32_t n = from; n != to;)
    {
        for (uint32_t li : m_adj[n])
        {
            const Link& l = m_links[li];
            uint32_t next = l.a == n ? l.b : l.a;

            if (dist[next] + 1 == dist[n])
            {
                t += l.delay + Seconds(mtu * 8.0 / l.bps);
                n = next;
                break;
            }
        }
    }
    return t;
}

Time
Fabric::BaseRtt(uint32_t mtu) const
{
    Time longest;

    for (uint32_t h = 1; h < m_hosts; h++)
        longest = std::max(longest, OneWay(0, h, mtu));
    return 2 * longest;
}

std::vector<uint32_t>
Fabric::Uplinks() const
{
    std::vector<uint32_t> up;

    for (uint32_t i = 0; i < m_links.size(); i++)
        if (m_links[i].up)
            up.push_back(i);
    return up;
}

void
Fabric::SetReceiveLoss(Ptr<NetDevice> dev, double rate, Lost* lost)
{
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();

    em->SetAttribute("ErrorRate", DoubleValue(rate));
    em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
    dev->SetAttribute("ReceiveErrorModel", PointerValue(em));
    dev->TraceConnectWithoutContext(
        "PhyRxDrop", MakeCallback(+[](Lost* n, Ptr<const Packet> p) {
                         n->packets++;
                         n->data += p->GetSize() > DATA_MIN_BYTES;
                     }).Bind(lost));
}

void
Fabric::Fail(uint32_t link)
{
    for (uint32_t end = 0; end < 2; end++)
        SetReceiveLoss(m_links[link].devs.Get(end), 1.0, &m_blackHoled);
}

void
Fabric::Lossy(double rate)
{
    for (const Link& l : m_links)
        for (uint32_t end = 0; end < 2; end++)
            SetReceiveLoss(l.devs.Get(end), rate, &m_randomLost);
}

void
Fabric::Degrade(uint32_t link, double fraction)
{
    Link& l = m_links[link];

    for (uint32_t end = 0; end < 2; end++)
        DynamicCast<PointToPointNetDevice>(l.devs.Get(end))
            ->SetDataRate(DataRate(static_cast<uint64_t>(l.bps * fraction)));
}

/* @count summed over the switches' ports. */
static uint64_t
SumQueues(const QueueDiscContainer& queues, uint64_t (SwitchQueue::*count)() const)
{
    uint64_t n = 0;

    for (uint32_t i = 0; i < queues.GetN(); i++)
        n += (*DynamicCast<SwitchQueue>(queues.Get(i)).*count)();
    return n;
}

uint64_t
Fabric::Drops() const
{
    return SumQueues(m_queues, &SwitchQueue::Dropped);
}

uint64_t
Fabric::Trims() const
{
    return SumQueues(m_queues, &SwitchQueue::Trimmed);
}

uint64_t
Fabric::BlackHoled() const
{
    return m_blackHoled.packets;
}

uint64_t
Fabric::BlackHoledData() const
{
    return m_blackHoled.data;
}

uint64_t
Fabric::RandomLost() const
{
    return m_randomLost.packets;
}

std::string
Fabric::Describe() const
{
    return m_name;
}

} // namespace mpdtsim
