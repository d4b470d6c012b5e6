// The host-transpose option names, shared by the CUDA build and the build without it.
#include "tlab/host_transpose.hpp"

namespace tlab {
const char* issue_order_name(IssueOrder o) { return o == IssueOrder::depth_first ? "depth-first" : "breadth-first"; }
const char* host_access_name(HostAccess a) {
  switch (a) {
    case HostAccess::staged: return "staged";
    case HostAccess::mapped: return "mapped";
    case HostAccess::copy_in: return "copy-in";
  }
  return "?";
}
}  // namespace tlab
