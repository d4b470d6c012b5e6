// Experiment 08's measurements: what it costs to transpose a matrix that lives in host
// memory. Each row is one (case, memory, api, phase[, pipeline settings]) with the timing
// statistics of the harness; see docs/csv-schema.md (08-host-to-host.csv).
#pragma once
#include <string>
#include <vector>

#include "tlab/host_transpose.hpp"
#include "tlab/timing.hpp"

namespace tlab {

struct HostPathRow {
  std::string case_name;  // "roofline", "breakdown", "pipeline"
  std::string memory;     // "pinned", "pageable", "managed"
  std::string api;        // "memcpy", "memcpyAsync", "prefetch", "on-demand", "pipeline", "copy"
  std::string phase;      // "h2d", "kernel", "d2h", "total", "both"
  PipelineOptions pipeline;  // for case "pipeline"
  DType dtype = DType::f32;
  Shape shape;
  double bytes = 0;       // bytes the phase moves (a host-to-host total: 2 x matrix)
  Summary summary;
  std::string stop;
  bool verified = false;  // the output of the path was checked exactly against the reference
};

// Runs every case at (t, s). Returns nothing (and sets *why) without a GPU.
std::vector<HostPathRow> measure_host_paths(DType t, Shape s, const TimingPolicy& p,
                                            const std::vector<PipelineOptions>& pipelines, std::string* why);

std::string host_paths_csv(const std::string& experiment, const std::vector<HostPathRow>& rows);

}  // namespace tlab
