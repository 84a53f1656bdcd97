// SPDX-License-Identifier: GPL-2.0
#include "switch-queue.hh"

#include "endpoint.h"

#include <ns3/boolean.h>
#include <ns3/drop-tail-queue.h>
#include <ns3/ipv4-queue-disc-item.h>
#include <ns3/object-factory.h>
#include <ns3/tcp-header.h>
#include <ns3/udp-header.h>
#include <ns3/uinteger.h>

namespace mpdtsim
{

using namespace ns3;

NS_OBJECT_ENSURE_REGISTERED(SwitchQueue);

/* Internal queues: 0 = data, 1 = trimmed headers and, with ControlFirst,
 * control packets (served first).
 */
enum
{
    DATA_Q,
    CTRL_Q,
};

TypeId
SwitchQueue::GetTypeId()
{
    static TypeId tid =
        TypeId("mpdtsim::SwitchQueue")
            .SetParent<QueueDisc>()
            .AddConstructor<SwitchQueue>()
            .AddAttribute("MaxBytes", "Buffer of the egress port",
                          UintegerValue(1 << 20),
                          MakeUintegerAccessor(&SwitchQueue::m_maxBytes),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MarkMinBytes", "No ECN mark below this queue",
                          UintegerValue(1 << 16),
                          MakeUintegerAccessor(&SwitchQueue::m_markMin),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("MarkMaxBytes", "Every packet marked above this queue",
                          UintegerValue(1 << 16),
                          MakeUintegerAccessor(&SwitchQueue::m_markMax),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Trim", "Trim MPDT DATA instead of dropping it",
                          BooleanValue(false),
                          MakeBooleanAccessor(&SwitchQueue::m_trim),
                          MakeBooleanChecker())
            .AddAttribute("ControlFirst",
                          "MPDT's SACKs and NACKs and TCP's pure ACKs go "
                          "ahead of the data",
                          BooleanValue(true),
                          MakeBooleanAccessor(&SwitchQueue::m_controlFirst),
                          MakeBooleanChecker())
            .AddAttribute("MpdtPort", "UDP port of MPDT",
                          UintegerValue(4796),
                          MakeUintegerAccessor(&SwitchQueue::m_mpdtPort),
                          MakeUintegerChecker<uint16_t>());
    return tid;
}

SwitchQueue::SwitchQueue()
    : QueueDisc(QueueDiscSizePolicy::NO_LIMITS),
      m_rng(CreateObject<UniformRandomVariable>())
{
}

uint64_t
SwitchQueue::Trimmed() const
{
    return m_trimmed;
}

uint64_t
SwitchQueue::Dropped() const
{
    return m_dropped;
}

uint32_t
SwitchQueue::MpdtPayload(Ptr<QueueDiscItem> item, UdpHeader* udp, uint8_t* buf,
                         uint32_t size) const
{
    Ptr<Ipv4QueueDiscItem> ip = DynamicCast<Ipv4QueueDiscItem>(item);
    Ptr<Packet> p;
    uint32_t len;

    if (!ip || ip->GetHeader().GetProtocol() != 17)
        return 0;
    p = ip->GetPacket()->Copy();
    p->RemoveHeader(*udp);
    len = p->GetSize();
    if (udp->GetDestinationPort() != m_mpdtPort || len > size)
        return 0;
    p->CopyData(buf, len);
    return len;
}

bool
SwitchQueue::IsControl(Ptr<QueueDiscItem> item) const
{
    Ptr<Ipv4QueueDiscItem> ip = DynamicCast<Ipv4QueueDiscItem>(item);
    UdpHeader udp;
    uint8_t buf[2048];
    uint32_t len;

    if (ip && ip->GetHeader().GetProtocol() == 6)
    {
        /* The DCTCP baseline's pure ACKs: the same service. */
        Ptr<Packet> p = ip->GetPacket()->Copy();
        TcpHeader tcp;

        p->RemoveHeader(tcp);
        return p->GetSize() == 0;
    }
    len = MpdtPayload(item, &udp, buf, sizeof(buf));
    return len && msim_is_control(buf, len);
}

Ptr<QueueDiscItem>
SwitchQueue::Trim(Ptr<QueueDiscItem> item) const
{
    UdpHeader udp;
    uint8_t buf[2048];
    uint32_t len = MpdtPayload(item, &udp, buf, sizeof(buf));
    Ptr<Packet> p;

    if (!len)
        return nullptr;
    len = msim_trim(buf, len);
    if (!len)
        return nullptr;
    p = Create<Packet>(buf, len);
    p->AddHeader(udp);

    Ptr<Ipv4QueueDiscItem> ip = DynamicCast<Ipv4QueueDiscItem>(item);
    Ipv4Header header = ip->GetHeader();
    header.SetPayloadSize(p->GetSize());
    return Create<Ipv4QueueDiscItem>(p, ip->GetAddress(), ip->GetProtocol(), header);
}

bool
SwitchQueue::DoEnqueue(Ptr<QueueDiscItem> item)
{
    uint32_t queued;

    if (m_controlFirst && IsControl(item))
    {
        if (GetInternalQueue(CTRL_Q)->GetNBytes() + item->GetSize() > m_maxBytes)
        {
            m_dropped++;
            DropBeforeEnqueue(item, "Overflow");
            return false;
        }
        return GetInternalQueue(CTRL_Q)->Enqueue(item);
    }
    queued = GetInternalQueue(DATA_Q)->GetNBytes();
    if (queued + item->GetSize() > m_maxBytes)
    {
        Ptr<QueueDiscItem> header = m_trim ? Trim(item) : nullptr;

        if (header && GetInternalQueue(CTRL_Q)->GetNBytes() + header->GetSize() <= m_maxBytes)
        {
            m_trimmed++;
            /* The payload is gone; the header takes its place. */
            DropBeforeEnqueue(item, "Trimmed");
            return GetInternalQueue(CTRL_Q)->Enqueue(header);
        }
        m_dropped++;
        DropBeforeEnqueue(item, "Overflow");
        return false;
    }
    return GetInternalQueue(DATA_Q)->Enqueue(item);
}

bool
SwitchQueue::MarkAt(uint32_t queued)
{
    if (queued <= m_markMin)
        return false;
    if (queued >= m_markMax)
        return true;
    return m_rng->GetValue() * (m_markMax - m_markMin) < queued - m_markMin;
}

Ptr<QueueDiscItem>
SwitchQueue::DoDequeue()
{
    Ptr<QueueDiscItem> item = GetInternalQueue(CTRL_Q)->Dequeue();

    if (item)
        return item;
    item = GetInternalQueue(DATA_Q)->Dequeue();
    if (item && MarkAt(GetInternalQueue(DATA_Q)->GetNBytes()))
        item->Mark();
    return item;
}

bool
SwitchQueue::CheckConfig()
{
    if (GetNInternalQueues() == 0)
    {
        for (int i = DATA_Q; i <= CTRL_Q; i++)
            AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
                "MaxSize", QueueSizeValue(QueueSize("1000000p"))));
    }
    return GetNInternalQueues() == 2 && GetNQueueDiscClasses() == 0;
}

void
SwitchQueue::InitializeParams()
{
}

} // namespace mpdtsim
