#pragma once
/// Job logs of Slurm clusters with the layout of HeliosData's `cluster_log.csv` (SenseTime,
/// SC'21) and AcmeTrace's `trace_seren.csv` / `trace_kalos.csv` (Shanghai AI Lab, NSDI'24):
/// one row per job with its GPU, CPU and node counts, its end state and its submit, start and end
/// times (docs/traces.md, "Acme" and "Helios").
#include <string>
#include <vector>

#include "tidesim/workloads/trace_record.hpp"

namespace tidesim::workloads {

class CsvTable;

/// The columns a Slurm job log must have, and those it may have (Acme's and Helios' extras).
std::vector<std::string> slurm_required();
std::vector<std::string> slurm_optional();

/// Reads table `t` as `format` (kAcme or kHelios: the same rules; the format only names the
/// trace). Every malformed cell is an InputError naming its file, line, column and field.
Trace read_slurm_log(const CsvTable& t, TraceFormat format);

}  // namespace tidesim::workloads
