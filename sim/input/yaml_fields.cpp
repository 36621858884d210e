#include "tidesim/sim/input/yaml_fields.hpp"

#include <yaml-cpp/eventhandler.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <unordered_set>
#include <utility>

#include "tidesim/sim/input/did_you_mean.hpp"
#include "tidesim/sim/input/text_file.hpp"
#include "tidesim/sim/input/units.hpp"
#include "tidesim/sim/input/yaml_node.hpp"

namespace tidesim {
namespace {

InputError syntax_error(const YAML::Exception& e, const std::string& name) {
  return InputError(SourceLocation{name, e.mark.line + 1, e.mark.column + 1}, "",
                    "YAML syntax error: " + e.msg);
}

SourceLocation mark_location(const YAML::Mark& m, const std::string& file) {
  return m.is_null() ? SourceLocation{file, 0, 0} : SourceLocation{file, m.line + 1, m.column + 1};
}

std::string join(const std::set<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) {
    out += (out.empty() ? "" : ", ") + k;
  }
  return out;
}

// Records where each document starts and ignores everything else.
class DocumentStarts : public YAML::EventHandler {
 public:
  YAML::Mark start;
  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// yaml-cpp 0.7's LoadAll loops forever on a stray flow indicator (a file holding only `,`): the
// parser hands out empty documents without consuming it. This pass walks the documents with a
// no-op handler and refuses a document that starts where the previous one did.
void check_documents_advance(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  std::optional<std::size_t> previous;
  while (true) {
    DocumentStarts h;
    if (!parser.HandleNextDocument(h)) {
      return;
    }
    if (previous && *previous == static_cast<std::size_t>(h.start.pos)) {
      throw InputError(SourceLocation{name, h.start.line + 1, h.start.column + 1}, "",
                       "YAML syntax error: the parser makes no progress here (a stray ',', ']' "
                       "or '}' outside a flow collection?)");
    }
    previous = static_cast<std::size_t>(h.start.pos);
  }
}

// Refuses a mapping that holds the same key twice (yaml-cpp keeps both and `node[key]` returns the
// first, so the second would be dropped silently). Walks every document iteratively; a collection
// reached again through an alias is visited once.
void check_duplicate_keys(const YAML::Node& root, const std::string& name) {
  std::vector<std::pair<YAML::Node, std::string>> stack{{root, ""}};
  std::unordered_set<int> visited;  // start positions of the collections already walked
  while (!stack.empty()) {
    auto [node, path] = std::move(stack.back());
    stack.pop_back();
    if (!node.IsMap() && !node.IsSequence()) {
      continue;
    }
    if (!node.Mark().is_null() && !visited.insert(node.Mark().pos).second) {
      continue;
    }
    if (node.IsSequence()) {
      std::size_t i = 0;
      for (const auto& item : node) {
        stack.emplace_back(item, path + "[" + std::to_string(i++) + "]");
      }
      continue;
    }
    std::map<std::string, YAML::Mark> seen;
    for (const auto& kv : node) {
      if (!kv.first.IsScalar()) {
        continue;
      }
      const std::string& key = kv.first.Scalar();
      const std::string key_path = path.empty() ? key : path + "." + key;
      const auto [it, inserted] = seen.emplace(key, kv.first.Mark());
      if (!inserted) {
        throw InputError(mark_location(kv.first.Mark(), name), key_path,
                         "duplicate key (first at line " + std::to_string(it->second.line + 1) +
                             ", column " + std::to_string(it->second.column + 1) + ")");
      }
      stack.emplace_back(kv.second, key_path);
    }
  }
}

}  // namespace

ConfigNode load_yaml_string(const std::string& text, const std::string& name) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw syntax_error(e, name);
  }
  check_duplicate_keys(root, name);
  return config_node(root);
}

std::vector<ConfigNode> load_all_yaml_string(const std::string& text, const std::string& name) {
  std::vector<YAML::Node> docs;
  try {
    check_documents_advance(text, name);
    docs = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    throw syntax_error(e, name);
  }
  std::vector<ConfigNode> out;
  for (const auto& doc : docs) {
    check_duplicate_keys(doc, name);
    out.push_back(config_node(doc));
  }
  return out;
}

ConfigNode load_yaml_file(const std::string& path) {
  return load_yaml_string(read_text_file(path), path);
}

std::vector<ConfigNode> load_all_yaml_file(const std::string& path) {
  return load_all_yaml_string(read_text_file(path), path);
}

std::string flow_yaml(const ConfigNode& node) {
  YAML::Emitter out;
  out << YAML::Flow << yaml_node(node);
  return out.c_str();
}

void rethrow_in_file(const std::string& file) {
  try {
    throw;
  } catch (const YAML::Exception& e) {
    throw InputError(mark_location(e.mark, file), "", "YAML: " + e.msg);
  }
}

std::map<std::string, std::string> string_map(const ConfigNode& node, const std::string& file,
                                              const std::string& path) {
  std::map<std::string, std::string> out;
  if (!node || node.is_null()) {
    return out;
  }
  if (!node.is_map()) {
    throw InputError(location_of(node, file), path, "expected a mapping of names to values");
  }
  for (const auto& [k, v] : node.entries()) {
    if (!k.is_scalar()) {
      throw InputError(location_of(k, file), path, "a key must be a single value");
    }
    const std::string& key = k.scalar();
    if (!v.is_scalar()) {
      throw InputError(location_of(v, file), path + "." + key, "expected a single value");
    }
    out[key] = v.scalar();
  }
  return out;
}

std::string scalar_of(const ConfigNode& node, const std::string& file, const std::string& path) {
  if (!node.is_scalar()) {
    throw InputError(location_of(node, file), path, "expected a single value");
  }
  return node.scalar();
}

std::vector<ConfigNode> sequence_of(const ConfigNode& node, const std::string& file,
                                    const std::string& path) {
  if (!node.is_sequence()) {
    throw InputError(location_of(node, file), path, "expected a list");
  }
  return node.items();
}

Fields::Fields(const ConfigNode& node, std::string file, std::string path)
    // An absent or null section reads as an empty mapping (every key takes its default).
    : node_((node.defined() && !node.is_null()) ? node : ConfigNode::empty_map()),
      origin_(node),
      file_(std::move(file)),
      path_(std::move(path)) {
  if (!node_.is_map()) {
    throw InputError(location_of(node, file_), path_.empty() ? "(document)" : path_,
                     "expected a mapping of keys to values");
  }
}

InputError empty_file_error(const std::string& file) {
  return InputError(SourceLocation{file, 0, 0}, "",
                    "the file is empty (no YAML document, only blank lines or comments)");
}

Fields Fields::document(const ConfigNode& root, std::string file) {
  if (!root.defined() || root.is_null()) {
    // An empty file (or one of comments only) says so, rather than that its first required key is
    // missing; a document that is only `~` or `null` is not a mapping.
    if (root.line() == 0) {
      throw empty_file_error(file);
    }
    throw InputError(location_of(root, file), "(document)",
                     "expected a mapping of keys to values, not null");
  }
  return Fields(root, std::move(file), "");
}

std::string Fields::path_of(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

InputError Fields::error(const ConfigNode& node, const std::string& key,
                         const std::string& message) const {
  // A node with no source position (absent, or made in memory) means "this mapping": where it is,
  // or where the null it was read from is (`- ~` in a list of mappings).
  const ConfigNode& where = node.line() > 0 ? node : node_.line() > 0 ? node_ : origin_;
  return InputError(location_of(where, file_), key.empty() ? path_ : path_of(key), message);
}

bool Fields::has(const std::string& key) {
  allowed_.insert(key);
  return node_[key].defined();
}

ConfigNode Fields::get(const std::string& key) {
  allowed_.insert(key);
  return node_[key];
}

InputError Fields::missing(const std::string& key, const std::string& message) const {
  // A required key that is absent next to a key not asked for that is close to it is a misspelling:
  // the error is at that key, not "missing" at the mapping.
  for (const auto& [k, v] : node_.entries()) {
    if (k.is_scalar() && !allowed_.contains(k.scalar()) && closest_name(k.scalar(), {key}) == key) {
      return InputError(location_of(k, file_), path_of(k.scalar()),
                        "unknown key '" + k.scalar() + "' (did you mean " + key + "?)");
    }
  }
  return error(ConfigNode(), key, message);
}

ConfigNode Fields::require(const std::string& key) {
  ConfigNode n = get(key);
  if (!n) {
    throw missing(key, "missing required field");
  }
  return n;
}

std::optional<std::string> Fields::scalar(const std::string& key) {
  ConfigNode n = get(key);
  if (!n) {
    return std::nullopt;
  }
  if (!n.is_scalar()) {
    throw error(n, key, "expected a single value, not a list or mapping");
  }
  return n.scalar();
}

template <class T>
T Fields::parse_with(const std::string& key, std::optional<T> fallback, const char* kind,
                     const std::function<T(const std::string&)>& parse) {
  const auto text = scalar(key);
  if (!text) {
    if (fallback) {
      return *fallback;
    }
    throw missing(key, std::string("missing required field (") + kind + ")");
  }
  try {
    return parse(*text);
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw error(get(key), key, e.what());
  }
}

std::string Fields::string(const std::string& key, std::optional<std::string> fallback) {
  return parse_with<std::string>(key, std::move(fallback), "a string",
                                 [](const std::string& s) { return s; });
}

bool Fields::boolean(const std::string& key, std::optional<bool> fallback) {
  return parse_with<bool>(key, fallback, "true or false", [](const std::string& s) {
    if (s == "true" || s == "True" || s == "TRUE") {
      return true;
    }
    if (s == "false" || s == "False" || s == "FALSE") {
      return false;
    }
    throw std::invalid_argument("'" + s + "' is not true or false");
  });
}

std::int64_t Fields::integer(const std::string& key, std::optional<std::int64_t> fallback,
                             std::int64_t lo, std::int64_t hi) {
  return parse_with<std::int64_t>(key, fallback, "an integer", [&](const std::string& s) {
    std::size_t used = 0;
    std::int64_t v = 0;
    try {
      v = std::stoll(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != s.size()) {
      throw std::invalid_argument("'" + s + "' is not an integer");
    }
    if (v < lo || v > hi) {
      throw std::invalid_argument(std::to_string(v) + " is out of range [" + std::to_string(lo) +
                                  ", " + std::to_string(hi) + "]");
    }
    return v;
  });
}

double Fields::number(const std::string& key, std::optional<double> fallback, double lo,
                      double hi) {
  return parse_with<double>(key, fallback, "a number", [&](const std::string& s) {
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != s.size() || !std::isfinite(v)) {
      throw std::invalid_argument("'" + s + "' is not a number");
    }
    if (v < lo || v > hi) {
      std::ostringstream msg;
      msg << s << " is out of range [" << lo << ", " << hi << "]";
      throw std::invalid_argument(msg.str());
    }
    return v;
  });
}

Duration Fields::duration(const std::string& key, std::optional<Duration> fallback, Duration min) {
  return parse_with<Duration>(key, fallback, "a duration such as 10s", [&](const std::string& s) {
    const Duration d = parse_duration(s);
    if (d < min) {
      throw std::invalid_argument("'" + s + "' must be at least " + format_duration(min));
    }
    return d;
  });
}

std::int64_t Fields::bytes(const std::string& key, std::optional<std::int64_t> fallback,
                           std::int64_t min) {
  return parse_with<std::int64_t>(key, fallback, "a size such as 24GiB", [&](const std::string& s) {
    const std::int64_t b = parse_bytes(s);
    if (b < min) {
      throw std::invalid_argument("'" + s + "' must be at least " + format_bytes(min));
    }
    return b;
  });
}

std::int64_t Fields::milli_quantity(const std::string& key, std::optional<std::int64_t> fallback) {
  return parse_with<std::int64_t>(key, fallback, "a quantity such as 500m",
                                  [](const std::string& s) { return parse_quantity(s, 3); });
}

double Fields::bandwidth(const std::string& key, std::optional<double> fallback, double min) {
  return parse_with<double>(key, fallback, "a bandwidth such as 25GB/s", [&](const std::string& s) {
    const double b = parse_bandwidth(s);
    if (b < min) {
      throw std::invalid_argument("'" + s + "' must be at least " + format_bandwidth(min));
    }
    return b;
  });
}

double Fields::fraction(const std::string& key, std::optional<double> fallback) {
  return parse_with<double>(key, fallback, "a fraction such as 85% or 0.85",
                            [](const std::string& s) { return parse_fraction(s); });
}

std::string Fields::choice(const std::string& key, std::optional<std::string> fallback,
                           const std::vector<std::string>& choices) {
  return parse_with<std::string>(key, std::move(fallback), "a choice", [&](const std::string& s) {
    for (const auto& c : choices) {
      if (c == s) {
        return s;
      }
    }
    std::string list;
    for (const auto& c : choices) {
      list += (list.empty() ? "" : ", ") + c;
    }
    throw std::invalid_argument("'" + s + "' is not one of: " + list);
  });
}

void Fields::finish() const {
  for (const auto& [k, v] : node_.entries()) {
    if (!k.is_scalar()) {
      throw InputError(location_of(k, file_), path_.empty() ? "(document)" : path_,
                       "a key must be a single value, not a list or mapping");
    }
    const std::string& key = k.scalar();
    if (!allowed_.contains(key)) {
      throw InputError(location_of(k, file_), path_of(key),
                       "unknown key; allowed keys here: " + join(allowed_));
    }
  }
}

}  // namespace tidesim
