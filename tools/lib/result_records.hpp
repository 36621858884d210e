#pragma once
/// The per-run records a result can leave out to stay small (`tidesim run --records`,
/// docs/outputs.md, "Leaving records out"): the per-job records ("jobs"), the notable events
/// ("events") and the attempt log ("attempts"). A result records what it left out
/// (metadata.records_omitted); every reader that needs an omitted record refuses the result
/// (require_records) instead of reading an empty list as "none happened".
#include <string>
#include <string_view>
#include <vector>

#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {

/// The records, in the order results list them: "jobs", "events", "attempts".
const std::vector<std::string>& record_names();

/// The records `--records TEXT` leaves out: TEXT is "all" (keep every record: none left out),
/// "none" (keep none) or a comma-separated list of the records kept ("jobs,events"). In
/// record_names() order. Throws InputError (field `flag`) for anything else.
std::vector<std::string> records_omitted_by(const std::string& text,
                                            const std::string& flag = "--records");

/// The `--records` value that leaves out `omitted`: "all", "none" or the kept records joined
/// by commas.
std::string records_flag(const std::vector<std::string>& omitted);

/// Empties `omitted` records of every run of `result` and lists them in
/// metadata.records_omitted. The metrics stay as the runs computed them.
void omit_records(RunResult& result, const std::vector<std::string>& omitted);

/// Throws InputError (file `source` when given) when `result` was written without `record`:
/// "written with `tidesim run --records none`: the events are not in it, and USE needs them;
/// rerun without --records (or with a --records list that keeps events)". `use` names what
/// needs the record ("--openmetrics", "the report's event timeline").
void require_records(const RunResult& result, std::string_view record, std::string_view use,
                     const std::string& source = "");

}  // namespace tidesim::app
