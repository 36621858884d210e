#include "tidesim/topologies/topology.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/property_map/property_map.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>

#include "tidesim/topologies/gpu_models.hpp"

namespace tidesim {
namespace {

/// What a graph vertex is.
enum class VertexKind { kGpu, kNic, kPcieSwitch, kHostBridge, kCpuSocket, kNvSwitch };
/// What a graph edge is.
enum class EdgeKind { kNVLink, kPcie, kSmp };

/// A vertex of the topology graph.
struct TopoVertex {
  VertexKind kind = VertexKind::kGpu;
  /// "GPU0", "mlx5_0", "PCIe switch 1", "CPU0", "NVSwitch".
  std::string name;
  /// GPU or NIC index for those kinds, socket index for a CPU socket, else -1.
  int index = -1;
};

/// An edge of the topology graph. Links are full duplex: `bandwidth` is per direction.
struct TopoEdge {
  EdgeKind kind = EdgeKind::kPcie;
  /// NVLink links in the bond (kNVLink), else 0.
  int links = 0;
  /// Bytes/s in each direction.
  double bandwidth = 0.0;
  /// Dense edge number; directed link ids are 2 x id (+1 for the direction from the
  /// higher-numbered vertex to the lower).
  int id = 0;
};

/// The graph type: undirected, full-duplex edges.
using TopologyGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, TopoVertex, TopoEdge>;

// Throws std::out_of_range unless 0 <= gpu < count.
void check_gpu(int gpu, int count) {
  if (gpu < 0 || gpu >= count) {
    throw std::out_of_range("topology: no GPU " + std::to_string(gpu));
  }
}

// `gpus` sorted, each checked (check_gpu) and none repeated (std::invalid_argument).
std::vector<int> sorted_set(std::span<const int> gpus, int count) {
  std::vector<int> order(gpus.begin(), gpus.end());
  std::sort(order.begin(), order.end());
  for (std::size_t i = 0; i < order.size(); ++i) {
    check_gpu(order[i], count);
    if (i > 0 && order[i] == order[i - 1]) {
      throw std::invalid_argument("topology: GPU " + std::to_string(order[i]) + " repeated");
    }
  }
  return order;
}

}  // namespace

struct Topology::Graph {
  TopologyGraph g;
};

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Most NVLink links any GPU has (NVLink4, H100/H200: CALIBRATION.md); a GPU whose NV# cells sum
// past this must reach its peers through an NVSwitch.
constexpr int kMaxDirectNvLinks = 18;
// Exhaustive searches stay under this many ring evaluations; larger ones go greedy.
constexpr double kExhaustiveLimit = 2e5;

bool is_gpu_name(const std::string& name, int index) {
  return name == "GPU" + std::to_string(index);
}

// Minimal union-find over device indices (no path-order effects on results: groups are read in
// device order afterwards).
struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(int n) : parent(static_cast<std::size_t>(n)) {
    std::iota(parent.begin(), parent.end(), 0);
  }
  int find(int x) {
    while (parent[static_cast<std::size_t>(x)] != x) {
      auto& p = parent[static_cast<std::size_t>(x)];
      p = parent[static_cast<std::size_t>(p)];
      x = p;
    }
    return x;
  }
  void unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) {
      parent[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
    }
  }
  // Groups in order of their lowest member; members in increasing order.
  std::vector<std::vector<int>> groups() {
    std::map<int, std::vector<int>> by_root;
    for (int i = 0; i < static_cast<int>(parent.size()); ++i) {
      by_root[find(i)].push_back(i);
    }
    std::vector<std::vector<int>> out;
    for (auto& [root, members] : by_root) {
      out.push_back(std::move(members));
    }
    std::sort(out.begin(), out.end());
    return out;
  }
};

double binomial(int n, int k) {
  double r = 1.0;
  for (int i = 1; i <= k; ++i) {
    r = r * (n - k + i) / i;
  }
  return r;
}

double factorial(int n) {
  double r = 1.0;
  for (int i = 2; i <= n; ++i) {
    r *= i;
  }
  return r;
}

}  // namespace

TopologyParams params_for_gpu(std::string_view gpu_model_name) {
  const GpuModel& model = gpu_model(gpu_model_name);
  TopologyParams p;
  p.gpu_model = std::string(model.name);
  if (model.nvlink_generation > 0) {
    p.nvlink_link_bandwidth = nvlink_link_bandwidth(model.nvlink_generation);
  }
  p.pcie_bandwidth = pcie_bandwidth(model.pcie_generation);
  return p;
}

Topology::Topology() : graph_(std::make_shared<Graph>()) {}

Topology::Topology(TopologyMatrix matrix, TopologyParams params)
    : matrix_(std::move(matrix)), params_(std::move(params)), graph_(std::make_shared<Graph>()) {
  const auto n = matrix_.devices.size();
  if (matrix_.cells.size() != n) {
    throw std::invalid_argument("topology: matrix is not square");
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (matrix_.cells[i].size() != n) {
      throw std::invalid_argument("topology: matrix is not square");
    }
    if (matrix_.cells[i][i].kind != LinkType::kSelf) {
      throw std::invalid_argument("topology: diagonal must be X");
    }
    for (std::size_t j = 0; j < n; ++j) {
      if (!(matrix_.cells[i][j] == matrix_.cells[j][i])) {
        throw std::invalid_argument("topology: matrix is not symmetric");
      }
      if (i != j && matrix_.cells[i][j].kind == LinkType::kSelf) {
        throw std::invalid_argument("topology: X off the diagonal");
      }
    }
  }
  matrix_.cpu_affinity.resize(n);
  matrix_.numa_affinity.resize(n, -1);
  while (gpu_count_ < static_cast<int>(n) &&
         is_gpu_name(matrix_.devices[static_cast<std::size_t>(gpu_count_)], gpu_count_)) {
    ++gpu_count_;
  }
  for (std::size_t i = static_cast<std::size_t>(gpu_count_); i < n; ++i) {
    if (matrix_.devices[i].rfind("GPU", 0) == 0) {
      throw std::invalid_argument("topology: GPUs must come first, named GPU0, GPU1, ...");
    }
    for (std::size_t j = 0; j < n; ++j) {
      if (matrix_.cells[i][j].is_nvlink()) {
        throw std::invalid_argument("topology: NVLink to a non-GPU device");
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    const bool gpu = static_cast<int>(i) < gpu_count_;
    TopoVertex v{.kind = gpu ? VertexKind::kGpu : VertexKind::kNic,
                 .name = matrix_.devices[i],
                 .index = gpu ? static_cast<int>(i) : static_cast<int>(i) - gpu_count_};
    boost::add_vertex(v, graph_->g);
  }
  if (params_.nvswitch.has_value()) {
    nvswitch_ = *params_.nvswitch;
  } else if (gpu_count_ >= 2) {
    bool all_pairs = true;
    int max_sum = 0;
    for (int a = 0; a < gpu_count_; ++a) {
      int sum = 0;
      for (int b = 0; b < gpu_count_; ++b) {
        if (a != b) {
          all_pairs = all_pairs && cell(a, b).is_nvlink();
          sum += cell(a, b).nvlinks;
        }
      }
      max_sum = std::max(max_sum, sum);
    }
    nvswitch_ = all_pairs && max_sum > kMaxDirectNvLinks;
  }
  build_nvlink();
  build_pcie();
  build_routes();
}

namespace {

struct EdgeAdder {
  TopologyGraph& graph;
  std::vector<std::pair<int, int>>& ends;
  std::vector<double>& bandwidth;
  void operator()(std::size_t u, std::size_t v, EdgeKind kind, int links, double bw) {
    TopoEdge e{.kind = kind, .links = links, .bandwidth = bw, .id = static_cast<int>(ends.size())};
    boost::add_edge(u, v, e, graph);
    ends.emplace_back(static_cast<int>(std::min(u, v)), static_cast<int>(std::max(u, v)));
    bandwidth.push_back(bw);
  }
};

}  // namespace

void Topology::build_nvlink() {
  EdgeAdder add{graph_->g, edge_ends_, edge_bandwidth_};
  if (nvswitch_) {
    const auto sw = boost::add_vertex(TopoVertex{VertexKind::kNvSwitch, "NVSwitch", -1}, graph_->g);
    for (int a = 0; a < gpu_count_; ++a) {
      // The GPU's links into the fabric: its largest NV# cell (every peer is reached through all
      // of them).
      int links = 0;
      for (int b = 0; b < gpu_count_; ++b) {
        links = std::max(links, a == b ? 0 : cell(a, b).nvlinks);
      }
      if (links > 0) {
        add(static_cast<std::size_t>(a), sw, EdgeKind::kNVLink, links,
            links * params_.nvlink_link_bandwidth);
      }
    }
    return;
  }
  for (int a = 0; a < gpu_count_; ++a) {
    for (int b = a + 1; b < gpu_count_; ++b) {
      const LinkCell t = cell(a, b);
      if (t.is_nvlink()) {
        add(static_cast<std::size_t>(a), static_cast<std::size_t>(b), EdgeKind::kNVLink, t.nvlinks,
            t.nvlinks * params_.nvlink_link_bandwidth);
      }
    }
  }
}

void Topology::build_pcie() {
  EdgeAdder add{graph_->g, edge_ends_, edge_bandwidth_};
  const int n = static_cast<int>(matrix_.devices.size());
  // One union-find per level: devices within rank <= level share that level's component.
  auto grouped = [&](int level) {
    UnionFind uf(n);
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) {
        const int r =
            pcie_rank(matrix_.cells[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)].kind);
        if (r > 0 && r <= level) {
          uf.unite(i, j);
        }
      }
    }
    if (level == 4) {
      // Same socket: also devices that share a NUMA node or a CPU affinity.
      for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n; ++j) {
          const auto ui = static_cast<std::size_t>(i);
          const auto uj = static_cast<std::size_t>(j);
          if ((matrix_.numa_affinity[ui] >= 0 &&
               matrix_.numa_affinity[ui] == matrix_.numa_affinity[uj]) ||
              (!matrix_.cpu_affinity[ui].empty() &&
               matrix_.cpu_affinity[ui] == matrix_.cpu_affinity[uj])) {
            uf.unite(i, j);
          }
        }
      }
    }
    return uf.groups();
  };
  std::vector<std::size_t> attach(static_cast<std::size_t>(n));
  std::iota(attach.begin(), attach.end(), std::size_t{0});
  int switches = 0;
  int bridges = 0;
  for (int level = 1; level <= 3; ++level) {
    for (const auto& group : grouped(level)) {
      std::vector<std::size_t> points;
      for (int d : group) {
        const auto p = attach[static_cast<std::size_t>(d)];
        if (std::find(points.begin(), points.end(), p) == points.end()) {
          points.push_back(p);
        }
      }
      if (points.size() < 2) {
        continue;
      }
      const bool bridge = level == 3;
      const std::string name = bridge ? "HostBridge" + std::to_string(bridges++)
                                      : "PCIeSwitch" + std::to_string(switches++);
      const auto v = boost::add_vertex(
          TopoVertex{bridge ? VertexKind::kHostBridge : VertexKind::kPcieSwitch, name, -1},
          graph_->g);
      for (auto p : points) {
        add(p, v, EdgeKind::kPcie, 0, params_.pcie_bandwidth);
      }
      for (int d : group) {
        attach[static_cast<std::size_t>(d)] = v;
      }
    }
  }
  const auto sockets = grouped(4);
  socket_count_ = static_cast<int>(sockets.size());
  numa_.assign(static_cast<std::size_t>(gpu_count_), 0);
  std::vector<std::size_t> socket_vertex;
  for (int s = 0; s < socket_count_; ++s) {
    const auto v = boost::add_vertex(
        TopoVertex{VertexKind::kCpuSocket, "CPU" + std::to_string(s), s}, graph_->g);
    socket_vertex.push_back(v);
    std::vector<std::size_t> points;
    for (int d : sockets[static_cast<std::size_t>(s)]) {
      const auto p = attach[static_cast<std::size_t>(d)];
      if (std::find(points.begin(), points.end(), p) == points.end()) {
        points.push_back(p);
      }
      if (d < gpu_count_) {
        const int numa = matrix_.numa_affinity[static_cast<std::size_t>(d)];
        numa_[static_cast<std::size_t>(d)] = numa >= 0 ? numa : s;
      }
    }
    for (auto p : points) {
      add(p, v, EdgeKind::kPcie, 0, params_.pcie_bandwidth);
    }
  }
  for (int s = 0; s < socket_count_; ++s) {
    for (int t = s + 1; t < socket_count_; ++t) {
      add(socket_vertex[static_cast<std::size_t>(s)], socket_vertex[static_cast<std::size_t>(t)],
          EdgeKind::kSmp, 0, params_.smp_bandwidth);
    }
  }
}

void Topology::build_routes() {
  using Edge = TopologyGraph::edge_descriptor;
  const auto nv = boost::num_vertices(graph_->g);
  const auto g = static_cast<std::size_t>(gpu_count_);
  routes_.assign(g * g, {});
  auto directed = [&](std::size_t from, const Edge& e) {
    const int id = graph_->g[e].id;
    return 2 * id +
           (static_cast<int>(from) == edge_ends_[static_cast<std::size_t>(id)].first ? 0 : 1);
  };
  auto not_nvlink = [this](const Edge& e) { return graph_->g[e].kind != EdgeKind::kNVLink; };
  boost::filtered_graph<TopologyGraph, std::function<bool(const Edge&)>> pcie(graph_->g,
                                                                              not_nvlink);
  std::size_t nvswitch_vertex = nv;
  for (std::size_t v = 0; v < nv; ++v) {
    if (graph_->g[v].kind == VertexKind::kNvSwitch) {
      nvswitch_vertex = v;
    }
  }
  for (std::size_t a = 0; a < g; ++a) {
    std::vector<Edge> pred(nv);
    std::vector<bool> reached(nv, false);
    reached[a] = true;
    std::vector<boost::default_color_type> color(nv);
    struct Recorder : boost::default_bfs_visitor {
      std::vector<Edge>* pred;
      std::vector<bool>* reached;
      void tree_edge(const Edge& e, const decltype(pcie)& graph) const {
        const auto t = boost::target(e, graph);
        (*pred)[t] = e;
        (*reached)[t] = true;
      }
    } recorder;
    recorder.pred = &pred;
    recorder.reached = &reached;
    boost::breadth_first_search(
        pcie, a,
        boost::visitor(recorder).color_map(boost::make_iterator_property_map(
            color.begin(), boost::get(boost::vertex_index, graph_->g))));
    for (std::size_t b = 0; b < g; ++b) {
      if (a == b) {
        continue;
      }
      auto& route = routes_[a * g + b];
      const LinkCell t = cell(static_cast<int>(a), static_cast<int>(b));
      if (t.is_nvlink() && nvswitch_) {
        const auto up = boost::edge(a, nvswitch_vertex, graph_->g).first;
        const auto down = boost::edge(nvswitch_vertex, b, graph_->g).first;
        route = {directed(a, up), directed(nvswitch_vertex, down)};
      } else if (t.is_nvlink()) {
        route = {directed(a, boost::edge(a, b, graph_->g).first)};
      } else {
        if (!reached[b]) {
          throw std::logic_error("topology: no PCIe path between GPUs");
        }
        std::vector<int> back;
        for (std::size_t v = b; v != a;) {
          const Edge e = pred[v];
          const std::size_t from = boost::source(e, graph_->g) == v ? boost::target(e, graph_->g)
                                                                    : boost::source(e, graph_->g);
          back.push_back(directed(from, e));
          v = from;
        }
        route.assign(back.rbegin(), back.rend());
      }
    }
  }
  pair_bandwidth_.assign(g * g, kInf);
  for (std::size_t i = 0; i < g * g; ++i) {
    for (int l : routes_[i]) {
      pair_bandwidth_[i] =
          std::min(pair_bandwidth_[i], edge_bandwidth_[static_cast<std::size_t>(l / 2)]);
    }
  }
}

LinkCell Topology::cell(int a, int b) const {
  check_gpu(a, gpu_count_);
  check_gpu(b, gpu_count_);
  return matrix_.cells[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
}

LinkType Topology::link(int a, int b) const {
  return cell(a, b).kind;
}

std::vector<int> Topology::route(int a, int b) const {
  check_gpu(a, gpu_count_);
  check_gpu(b, gpu_count_);
  return routes_[static_cast<std::size_t>(a * gpu_count_ + b)];
}

double Topology::directed_link_bandwidth(int l) const {
  if (l < 0 || l >= directed_link_count()) {
    throw std::out_of_range("topology: no directed link " + std::to_string(l));
  }
  return edge_bandwidth_[static_cast<std::size_t>(l / 2)];
}

std::string Topology::directed_link_name(int l) const {
  (void)directed_link_bandwidth(l);
  const auto [lo, hi] = edge_ends_[static_cast<std::size_t>(l / 2)];
  const auto from = static_cast<std::size_t>(l % 2 == 0 ? lo : hi);
  const auto to = static_cast<std::size_t>(l % 2 == 0 ? hi : lo);
  return graph_->g[from].name + "->" + graph_->g[to].name;
}

double Topology::bandwidth(int a, int b) const {
  check_gpu(a, gpu_count_);
  check_gpu(b, gpu_count_);
  return pair_bandwidth_[static_cast<std::size_t>(a * gpu_count_ + b)];
}

std::vector<int> Topology::ring_links(std::span<const int> order) const {
  std::vector<int> links;
  if (order.size() < 2) {
    return links;
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& r = route(order[i], order[(i + 1) % order.size()]);
    links.insert(links.end(), r.begin(), r.end());
  }
  return links;
}

double Topology::evaluate_ring(std::span<const int> order, std::vector<int>& usage) const {
  // Every hop sends at the same rate; a directed link crossed by c hops gives each cap / c.
  const std::size_t k = order.size();
  const auto g = static_cast<std::size_t>(gpu_count_);
  for (std::size_t i = 0; i < k; ++i) {
    for (int l : routes_[static_cast<std::size_t>(order[i]) * g +
                         static_cast<std::size_t>(order[(i + 1) % k])]) {
      ++usage[static_cast<std::size_t>(l)];
    }
  }
  double bw = kInf;
  for (std::size_t i = 0; i < k; ++i) {
    for (int l : routes_[static_cast<std::size_t>(order[i]) * g +
                         static_cast<std::size_t>(order[(i + 1) % k])]) {
      auto& c = usage[static_cast<std::size_t>(l)];
      if (c > 0) {
        bw = std::min(bw, edge_bandwidth_[static_cast<std::size_t>(l / 2)] / c);
        c = 0;
      }
    }
  }
  return bw;
}

std::pair<double, std::vector<int>> Topology::search_ring(const std::vector<int>& sorted,
                                                          double floor) const {
  // Depth-first over ring orders with the lowest GPU first, next GPUs tried in increasing order,
  // so complete orders come in lexicographic order and the first best one is kept. A branch is
  // cut when its pairwise-bandwidth bound cannot beat the best so far (sharing a link only
  // lowers a ring below its slowest pair, so the bound is safe).
  std::vector<int> usage(static_cast<std::size_t>(directed_link_count()), 0);
  const std::size_t k = sorted.size();
  if (k < 3) {
    const double bw = k < 2 ? kInf : evaluate_ring(sorted, usage);
    return {bw > floor ? bw : floor, bw > floor ? sorted : std::vector<int>{}};
  }
  const auto g = static_cast<std::size_t>(gpu_count_);
  auto pair_bw = [&](int a, int b) {
    return pair_bandwidth_[static_cast<std::size_t>(a) * g + static_cast<std::size_t>(b)];
  };
  double best_bw = floor;
  std::vector<int> best;
  std::vector<int> order{sorted.front()};
  std::vector<bool> used(k, false);
  used[0] = true;
  std::function<void(double)> extend = [&](double bound) {
    if (order.size() == k) {
      bound = std::min(bound, pair_bw(order.back(), order.front()));
      if (bound > best_bw) {
        const double bw = evaluate_ring(order, usage);
        if (bw > best_bw) {
          best_bw = bw;
          best = order;
        }
      }
      return;
    }
    for (std::size_t i = 1; i < k; ++i) {
      if (used[i]) {
        continue;
      }
      const double b = std::min(bound, pair_bw(order.back(), sorted[i]));
      if (b <= best_bw) {
        continue;
      }
      used[i] = true;
      order.push_back(sorted[i]);
      extend(b);
      order.pop_back();
      used[i] = false;
    }
  };
  extend(kInf);
  return {best_bw, best};
}

std::vector<int> Topology::best_ring(std::span<const int> gpus) const {
  std::vector<int> order = sorted_set(gpus, gpu_count_);
  if (order.size() < 3) {
    return order;
  }
  if (order.size() <= 9) {
    return search_ring(order, -1.0).second;
  }
  // Greedy beyond 9 GPUs: from the lowest GPU, always go to the remaining GPU with the highest
  // pairwise bandwidth (lowest index among equals).
  std::vector<int> ring{order.front()};
  std::vector<int> rest(order.begin() + 1, order.end());
  while (!rest.empty()) {
    auto best = rest.begin();
    for (auto it = rest.begin(); it != rest.end(); ++it) {
      if (bandwidth(ring.back(), *it) > bandwidth(ring.back(), *best)) {
        best = it;
      }
    }
    ring.push_back(*best);
    rest.erase(best);
  }
  return ring;
}

double Topology::ring_bandwidth(std::span<const int> gpus) const {
  const std::vector<int> order = sorted_set(gpus, gpu_count_);
  if (order.size() < 2) {
    return kInf;
  }
  if (order.size() <= 9) {
    return search_ring(order, -1.0).first;
  }
  std::vector<int> usage(static_cast<std::size_t>(directed_link_count()), 0);
  return evaluate_ring(best_ring(order), usage);
}

bool Topology::fully_nvlink_connected(std::span<const int> gpus) const {
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    for (std::size_t j = i + 1; j < gpus.size(); ++j) {
      if (!cell(gpus[i], gpus[j]).is_nvlink()) {
        return false;
      }
    }
  }
  return true;
}

std::vector<std::vector<int>> Topology::nvlink_groups() const {
  using Edge = TopologyGraph::edge_descriptor;
  auto nvlink_only = [this](const Edge& e) { return graph_->g[e].kind == EdgeKind::kNVLink; };
  boost::filtered_graph<TopologyGraph, std::function<bool(const Edge&)>> nvl(graph_->g,
                                                                             nvlink_only);
  std::vector<int> component(boost::num_vertices(graph_->g));
  boost::connected_components(nvl, component.data());
  std::map<int, std::vector<int>> groups;
  for (int gpu = 0; gpu < gpu_count_; ++gpu) {
    groups[component[static_cast<std::size_t>(gpu)]].push_back(gpu);
  }
  std::vector<std::vector<int>> out;
  for (auto& [id, members] : groups) {
    if (members.size() >= 2) {
      out.push_back(std::move(members));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::vector<int>> Topology::best_free_set(int k,
                                                        const std::vector<bool>& free) const {
  if (free.size() != static_cast<std::size_t>(gpu_count_)) {
    throw std::invalid_argument("topology: free mask has " + std::to_string(free.size()) +
                                " entries for " + std::to_string(gpu_count_) + " GPUs");
  }
  if (k < 0) {
    throw std::invalid_argument("topology: negative GPU count");
  }
  std::vector<int> candidates;
  for (int g = 0; g < gpu_count_; ++g) {
    if (free[static_cast<std::size_t>(g)]) {
      candidates.push_back(g);
    }
  }
  const int m = static_cast<int>(candidates.size());
  if (m < k) {
    return std::nullopt;
  }
  if (k <= 1) {
    return k == 0 ? std::vector<int>{} : std::vector<int>{candidates.front()};
  }
  if (binomial(m, k) * factorial(k - 1) <= kExhaustiveLimit) {
    // Combinations in lexicographic order; the first strictly better one wins.
    std::vector<int> pick(static_cast<std::size_t>(k));
    std::iota(pick.begin(), pick.end(), 0);
    std::vector<int> best;
    double best_bw = -1.0;
    std::vector<int> set(static_cast<std::size_t>(k));
    while (true) {
      for (int i = 0; i < k; ++i) {
        set[static_cast<std::size_t>(i)] =
            candidates[static_cast<std::size_t>(pick[static_cast<std::size_t>(i)])];
      }
      // Only a ring strictly faster than the best set so far matters (ties keep the earlier set).
      const double bw = k <= 9 ? search_ring(set, best_bw).first : ring_bandwidth(set);
      if (bw > best_bw) {
        best_bw = bw;
        best = set;
      }
      int i = k - 1;
      while (i >= 0 && pick[static_cast<std::size_t>(i)] == m - k + i) {
        --i;
      }
      if (i < 0) {
        break;
      }
      ++pick[static_cast<std::size_t>(i)];
      for (int j = i + 1; j < k; ++j) {
        pick[static_cast<std::size_t>(j)] = pick[static_cast<std::size_t>(j - 1)] + 1;
      }
    }
    return best;
  }
  // Greedy for large nodes: grow from each free GPU, adding the GPU that keeps the ring fastest.
  std::vector<int> best;
  double best_bw = -1.0;
  for (int start : candidates) {
    std::vector<int> set{start};
    while (static_cast<int>(set.size()) < k) {
      int pick = -1;
      double pick_bw = -1.0;
      for (int c : candidates) {
        if (std::find(set.begin(), set.end(), c) != set.end()) {
          continue;
        }
        set.push_back(c);
        const double bw = ring_bandwidth(set);
        set.pop_back();
        if (bw > pick_bw) {
          pick_bw = bw;
          pick = c;
        }
      }
      set.push_back(pick);
    }
    std::sort(set.begin(), set.end());
    const double bw = ring_bandwidth(set);
    if (bw > best_bw || (bw == best_bw && set < best)) {
      best_bw = bw;
      best = set;
    }
  }
  return best;
}

int Topology::numa_node(int gpu) const {
  check_gpu(gpu, gpu_count_);
  return numa_[static_cast<std::size_t>(gpu)];
}

const std::string& Topology::cpu_affinity(int gpu) const {
  check_gpu(gpu, gpu_count_);
  return matrix_.cpu_affinity[static_cast<std::size_t>(gpu)];
}

std::string Topology::to_nvidia_smi() const {
  std::string out;
  for (int j = 0; j < gpu_count_; ++j) {
    out += "\t" + matrix_.devices[static_cast<std::size_t>(j)];
  }
  out += "\n";
  for (int i = 0; i < gpu_count_; ++i) {
    out += matrix_.devices[static_cast<std::size_t>(i)];
    for (int j = 0; j < gpu_count_; ++j) {
      out += "\t";
      out += i == j ? " X " : to_string(cell(i, j), matrix_.soc_spelling);
    }
    out += "\n";
  }
  return out;
}

}  // namespace tidesim
