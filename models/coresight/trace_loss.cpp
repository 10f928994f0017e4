#include "models/coresight/trace_loss.h"

namespace ringsim::models::coresight {

const char* to_string(TraceLoss c) {
    switch (c) {
    case TraceLoss::fifo_overflow:
        return "fifo_overflow";
    case TraceLoss::sink_wrap:
        return "sink_wrap";
    case TraceLoss::aux_shortage:
        return "aux_shortage";
    case TraceLoss::memerr:
        return "memerr";
    case TraceLoss::snapshot_overwrite:
        return "snapshot_overwrite";
    case TraceLoss::record_lost:
        return "record_lost";
    case TraceLoss::sink_stopped:
        return "sink_stopped";
    case TraceLoss::count:
        break;
    }
    return "?";
}

} // namespace ringsim::models::coresight
