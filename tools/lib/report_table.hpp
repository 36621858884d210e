#pragma once
/// The HTML report's comparison table: a row per metric with which way is better, each policy's
/// mean over seeds (± the 95% CI's half-width), each later policy's change against the first, the
/// published column and the verdict in the terminal table's words. docs/outputs.md.
#include <string>

#include "tidesim/tools/lib/table.hpp"

namespace tidesim::app {

/// `table` as an HTML <table> (escaped, well-formed as XML).
std::string comparison_table_html(const ComparisonTable& table);

}  // namespace tidesim::app
