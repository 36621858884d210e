#pragma once
/// Alibaba PAI's GPU cluster trace of July-August 2020 (alibaba/clusterdata
/// `cluster-trace-gpu-v2020`): its job, task and instance tables joined into one record per job
/// (docs/traces.md, "PAI-2020"). The tables ship without a header row (their columns are in
/// separate `.header` files); a header row equal to the published one is accepted too.
#include <optional>
#include <string>
#include <vector>

#include "tidesim/workloads/trace_record.hpp"

namespace tidesim::workloads {

/// The published columns of pai_job_table, pai_task_table and pai_instance_table.
std::vector<std::string> pai_job_columns();
std::vector<std::string> pai_task_columns();
std::vector<std::string> pai_instance_columns();

/// One table's text and the name it has in errors.
struct NamedText {
  std::string text;
  std::string name;
};

/// Joins the job table with its task table and, when given, its instance table (which gives
/// the jobs' actual launch times).
Trace parse_pai2020(const NamedText& jobs, const NamedText& tasks,
                    const std::optional<NamedText>& instances);

/// Reads `job_table` (pai_job_table.csv) with pai_task_table.csv beside it (required) and
/// pai_instance_table.csv (when present).
Trace read_pai2020(const std::string& job_table);

/// True when `first_row` (the file's first record) is the job table's published header.
bool is_pai_job_header(const std::vector<std::string>& first_row);

}  // namespace tidesim::workloads
