#pragma once
/// A step's breakdown as the `tidesim llm` command and the Python module show it.
#include <string>

#include "tidesim/llm/job.hpp"
#include "tidesim/llm/step.hpp"

namespace tidesim::llm {

/// JSON object: step_seconds, mfu, fits, memory_bytes_per_gpu (the total), memory_capacity_bytes,
/// parts (seconds by part: compute, forward, backward, recompute, tp_comm, pp_comm, dp_comm,
/// bubble, optimizer, offload), memory (bytes by part) and the job's model, layout and system.
std::string report_json(const Job& job, const StepBreakdown& step);

/// The same as a plain-text table.
std::string report_table(const Job& job, const StepBreakdown& step);

}  // namespace tidesim::llm
