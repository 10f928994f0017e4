#include "models/user/mmap_access.h"

namespace ringsim::models {

HeadLoad load_head(MemoryPort& mem, Addr head, BarrierKind c) {
    HeadLoad h;
    h.ticket = mem.issue_load(head, 8, c == BarrierKind::acquire, Barrier::C);
    std::vector<ByteSource> src;
    mem.read(h.ticket, reinterpret_cast<uint8_t*>(&h.value), &src);
    if (c == BarrierKind::rmb) mem.fence(Fence::rmb, Barrier::C);
    if (c == BarrierKind::mb) mem.fence(Fence::mb, Barrier::C);
    h.store_seq = src.empty() ? 0 : src.front().store_seq;
    return h;
}

uint64_t store_tail(MemoryPort& mem, Addr tail, uint64_t value, BarrierKind d) {
    switch (d) {
    case BarrierKind::mb:
        mem.fence(Fence::mb, Barrier::D);
        break;
    case BarrierKind::rmb:
        mem.fence(Fence::rmb, Barrier::D);
        break;
    case BarrierKind::wmb:
        mem.fence(Fence::wmb, Barrier::D);
        break;
    default:
        break; // release is the store itself; none: (D) switched off
    }
    return mem.store_bytes(tail, reinterpret_cast<const uint8_t*>(&value), 8,
                           d == BarrierKind::release, Barrier::D);
}

CopyTickets issue_copy(MemoryPort& mem, Addr a, uint64_t len1, Addr b, uint64_t len2,
                       double bandwidth) {
    CopyTickets c;
    const Picos span1 = transfer_time(len1, bandwidth);
    if (len1) c.first = mem.issue_copy(a, len1, 0, span1);
    if (len2) c.second = mem.issue_copy(b, len2, span1, transfer_time(len2, bandwidth));
    return c;
}

void read_copy(MemoryPort& mem, const LoadTicket& first, const LoadTicket& second, UninitBytes& out,
               std::vector<CopySource>& sources) {
    out.resize(first.size + second.size);
    sources.clear();
    std::vector<ByteSource> bs;
    uint64_t base = 0;
    for (const LoadTicket* t : {&first, &second}) {
        if (!t->size) continue;
        mem.read(*t, out.data() + base, &bs);
        sources.reserve(sources.size() + bs.size()); // grown once a ticket, not by doubling
        for (const ByteSource& b : bs)
            sources.push_back(
                {base + b.offset, b.length, b.store_seq, t->seq, b.load_issue, b.load_perform});
        base += t->size;
    }
}

} // namespace ringsim::models
