#pragma once
/// Strict reading of YAML configuration (scenarios, manifests, scheduler configs). Every error
/// names the file, line, column and field path; an unknown key lists the keys that are allowed.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/config_node.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim {

/// Parses one YAML document from a file. Throws InputError (with the line) on a syntax error or an
/// unreadable file.
ConfigNode load_yaml_file(const std::string& path);
/// Parses every document of a multi-document file ("---" separated).
std::vector<ConfigNode> load_all_yaml_file(const std::string& path);
/// Parses YAML text; `name` is used as the file name in errors.
ConfigNode load_yaml_string(const std::string& text, const std::string& name);
std::vector<ConfigNode> load_all_yaml_string(const std::string& text, const std::string& name);

/// The YAML text of `node` in flow style (`[1, 2]`, `{a: b}`, `4`): what a `--set` value of it
/// would be.
std::string flow_yaml(const ConfigNode& node);

/// Rethrows the exception in flight: a parser exception as an InputError
/// ("file:line:column: YAML: msg") in `file`, any other unchanged.
[[noreturn]] void rethrow_in_file(const std::string& file);

/// Runs `read` and turns a parser exception escaping it into an InputError in `file`: every reader
/// of a YAML file wraps its body in it, so no such exception leaves without the file and place.
template <class F>
auto yaml_guard(const std::string& file, F&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const InputError&) {
    throw;
  } catch (const std::exception&) {
    rethrow_in_file(file);
  }
}

/// The error for a file that holds no YAML document (empty, or only blank lines and comments).
InputError empty_file_error(const std::string& file);

/// A strict view of one YAML mapping. Ask for each key the schema allows (present or not), then
/// call finish(): any key that was never asked for is an error listing the allowed keys.
class Fields {
 public:
  /// `path` names the mapping in errors, e.g. "cluster.node_groups[2]". Throws InputError when
  /// `node` is not a mapping; an absent or null node reads as an empty mapping.
  Fields(const ConfigNode& node, std::string file, std::string path);
  /// The whole document of `file` (path ""): as the constructor, but an absent document is
  /// "the file is empty" and a null one is not a mapping.
  static Fields document(const ConfigNode& root, std::string file);

  /// True when `key` is present (and marks it as allowed).
  bool has(const std::string& key);
  /// The raw node for `key`, or an absent node (marks the key as allowed).
  ConfigNode get(const std::string& key);
  /// The raw node for `key`; InputError "missing required field" when absent, or "unknown key
  /// 'batchsize' (did you mean batch_size?)" at a key not asked for that is close to `key` (the
  /// closest_name rule, sim/input/did_you_mean.hpp). Every required reader below does the same.
  ConfigNode require(const std::string& key);

  std::string string(const std::string& key, std::optional<std::string> fallback = std::nullopt);
  bool boolean(const std::string& key, std::optional<bool> fallback = std::nullopt);
  /// An integer in [lo, hi].
  std::int64_t integer(const std::string& key, std::optional<std::int64_t> fallback,
                       std::int64_t lo, std::int64_t hi);
  /// A finite number in [lo, hi].
  double number(const std::string& key, std::optional<double> fallback, double lo, double hi);
  /// A duration with a unit ("10s"), at least `min`.
  Duration duration(const std::string& key, std::optional<Duration> fallback,
                    Duration min = Duration::zero());
  /// A byte size (parse_bytes, sim/input/units.hpp: a Kubernetes quantity such as "16Gi", or
  /// one followed by B such as "24GiB"), at least `min`.
  std::int64_t bytes(const std::string& key, std::optional<std::int64_t> fallback,
                     std::int64_t min = 0);
  /// A Kubernetes quantity in thousandths, rounded up as Quantity.MilliValue() (CPU in
  /// millicores: "500m" and "0.5" are 500, "1k" is 1,000,000).
  std::int64_t milli_quantity(const std::string& key, std::optional<std::int64_t> fallback);
  /// A bandwidth in bytes/s ("25GB/s"), at least `min`.
  double bandwidth(const std::string& key, std::optional<double> fallback, double min = 0.0);
  /// A fraction in [0, 1] ("85%" or 0.85).
  double fraction(const std::string& key, std::optional<double> fallback);
  /// One of `choices`.
  std::string choice(const std::string& key, std::optional<std::string> fallback,
                     const std::vector<std::string>& choices);

  /// Errors on keys that were never asked for.
  void finish() const;

  /// An InputError at `node` (or at this mapping when `node` is undefined) for field `key`.
  InputError error(const ConfigNode& node, const std::string& key,
                   const std::string& message) const;
  /// The dotted path of `key` under this mapping.
  std::string path_of(const std::string& key) const;
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  const ConfigNode& node() const { return node_; }

 private:
  ConfigNode node_;
  ConfigNode origin_;  // the node as given (a null one keeps its place; node_ is then made here)
  std::string file_;
  std::string path_;
  std::set<std::string> allowed_;
  // Scalar text of `key`, or nullopt when absent; errors when present but not a scalar.
  std::optional<std::string> scalar(const std::string& key);
  // The error for the required `key` being absent: "unknown key" at a misspelling of it, else
  // `message` at this mapping.
  InputError missing(const std::string& key, const std::string& message) const;
  template <class T>
  T parse_with(const std::string& key, std::optional<T> fallback, const char* kind,
               const std::function<T(const std::string&)>& parse);
};

/// Reads a mapping of names to single values (labels, annotations, env, nodeSelector). An absent or
/// null node gives an empty map; anything else that is not such a mapping is an InputError naming
/// `path` (or `path.KEY` for a value that is a list or mapping).
std::map<std::string, std::string> string_map(const ConfigNode& node, const std::string& file,
                                              const std::string& path);

/// The text of a scalar; InputError "expected a single value" naming `path` for a list, a mapping
/// or an absent node.
std::string scalar_of(const ConfigNode& node, const std::string& file, const std::string& path);

/// Reads a YAML sequence; InputError naming `path` when `node` is not a sequence.
std::vector<ConfigNode> sequence_of(const ConfigNode& node, const std::string& file,
                                    const std::string& path);

}  // namespace tidesim
