#include "tidesim/sim/admission/volcano_binpack.hpp"

#include <stdexcept>

namespace tidesim::volcano {
namespace {

// Kubernetes' MaxNodeScore (k8s.io/kube-scheduler/framework).
constexpr double kMaxNodeScore = 100.0;

int integer(const std::string& key, const std::string& value) {
  std::size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size()) {
    throw std::invalid_argument("argument '" + key + "': expected an integer, not '" + value + "'");
  }
  return v;
}

std::int64_t get(const std::map<std::string, std::int64_t>& m, const std::string& k) {
  const auto it = m.find(k);
  return it == m.end() ? 0 : it->second;
}

std::string trimmed(const std::string& s) {
  const std::size_t a = s.find_first_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, s.find_last_not_of(" \t") + 1 - a);
}

}  // namespace

std::optional<BinpackArgs> binpack_args(const std::map<std::string, std::string>& args) {
  const auto first = args.lower_bound("binpack.");
  if (first == args.end() || first->first.rfind("binpack.", 0) != 0) {
    return std::nullopt;
  }
  BinpackArgs out;
  const auto weight = [&](const std::string& key, int& into, bool floor) {
    if (const auto it = args.find(key); it != args.end()) {
      into = integer(key, it->second);
      into = floor && into < 0 ? 1 : into;
    }
  };
  weight("binpack.weight", out.weight, false);
  weight("binpack.cpu", out.resources["cpu"], true);
  weight("binpack.memory", out.resources["memory"], true);
  if (const auto it = args.find("binpack.resources"); it != args.end()) {
    std::size_t start = 0;
    while (start <= it->second.size()) {
      std::size_t end = it->second.find(',', start);
      end = end == std::string::npos ? it->second.size() : end;
      const std::string name = trimmed(it->second.substr(start, end - start));
      if (!name.empty() && name != "cpu" && name != "memory") {
        out.resources[name] = 1;
        weight("binpack.resources." + name, out.resources[name], true);
      }
      start = end + 1;
    }
  }
  return out;
}

double binpack_node_score(const BinpackArgs& args,
                          const std::map<std::string, std::int64_t>& request,
                          const std::map<std::string, std::int64_t>& allocatable,
                          const std::map<std::string, std::int64_t>& used) {
  double score = 0;
  int weights = 0;
  for (const auto& [name, amount] : request) {
    const auto w = args.resources.find(name);
    if (amount == 0 || w == args.resources.end()) {
      continue;
    }
    const std::int64_t capacity = get(allocatable, name);
    const std::int64_t after = amount + get(used, name);
    if (capacity != 0 && w->second != 0) {
      if (after > capacity) {
        return 0.0;  // ResourceBinPackingScore: not enough
      }
      score += static_cast<double>(after) * w->second / static_cast<double>(capacity);
    }
    weights += w->second;
  }
  return (weights > 0 ? score / weights : score) * kMaxNodeScore * args.weight;
}

}  // namespace tidesim::volcano
