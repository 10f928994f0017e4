#include "models/common/aux_stats.h"

namespace ringsim::models {

const char* to_string(GapCause c) {
    switch (c) {
    case GapCause::fifo_overflow:
        return "fifo_overflow";
    case GapCause::sink_wrap:
        return "sink_wrap";
    case GapCause::aux_shortage:
        return "aux_shortage";
    case GapCause::memerr:
        return "memerr";
    case GapCause::snapshot_overwrite:
        return "snapshot_overwrite";
    case GapCause::record_lost:
        return "record_lost";
    case GapCause::sink_stopped:
        return "sink_stopped";
    case GapCause::stop_window:
        return "stop_window";
    case GapCause::aux_disabled:
        return "aux_disabled";
    case GapCause::count:
        break;
    }
    return "?";
}

} // namespace ringsim::models
