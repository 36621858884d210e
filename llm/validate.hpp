#pragma once
/// The checks a model, an execution and a system must pass together before step() prices them.
#include "tidesim/llm/execution.hpp"
#include "tidesim/llm/model.hpp"
#include "tidesim/llm/system.hpp"

namespace tidesim::llm {

/// Throws InputError naming the file, line, column and field of the first value that does not
/// fit: a size that is not positive, TP not dividing the heads, hidden or FFN, key/value heads
/// not dividing the heads, PP x interleaving not dividing the layers, TP x PP x DP not num_procs,
/// the batch not divisible by DP x micro-batch, a data type the system does not have, a network
/// index out of range or a group too large for (or not filling) its network.
void validate(const Model& model, const Execution& exe, const System& system);

}  // namespace tidesim::llm
