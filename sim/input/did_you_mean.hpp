#pragma once
/// "Did you mean": the closest of a list of names to a misspelt word, for the messages that refuse
/// an unknown key, command or policy.
#include <cstddef>
#include <string>
#include <vector>

namespace tidesim {

/// Levenshtein distance: the fewest insertions, deletions and substitutions of one character that
/// turn `a` into `b`.
std::size_t edit_distance(const std::string& a, const std::string& b);

/// The name of `names` closest to `word`: the nearest within an edit distance of 2 (the first of
/// equals), else the only name that `word` begins; "" when there is none.
std::string closest_name(const std::string& word, const std::vector<std::string>& names);

}  // namespace tidesim
