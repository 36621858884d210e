#pragma once
/// Where a scenario's paths lead: the scenario's folder, or the data folder that holds the real
/// data sets (the openb and Pollux traces, docs/data.md).
#include <string>
#include <string_view>

namespace tidesim {

/// The first component of a path in the data folder: `$TIDESIM_DATA/traces/x.csv`.
inline constexpr std::string_view kDataFolderVariable = "$TIDESIM_DATA";

/// The data folder: the environment variable TIDESIM_DATA when it is set and not empty, else
/// `../shared/data` beside the source tree tidesim was built from (the repository's root).
std::string data_folder();

/// The file or folder a scenario's `path` names, read from a scenario in `folder`: an absolute
/// path as given; `$TIDESIM_DATA` or `$TIDESIM_DATA/REST` in data_folder() (REST below it); any
/// other relative path in `folder` (as given when `folder` is empty). Lexically normal.
std::string input_path(const std::string& folder, const std::string& path);

}  // namespace tidesim
