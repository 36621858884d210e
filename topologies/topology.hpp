#pragma once
/// A node's GPU interconnect: a graph of GPUs, NICs, PCIe switches, host bridges, CPU sockets
/// and NVSwitches (a Boost.Graph inside topology.cpp; no Boost type in this header), built from an
/// `nvidia-smi topo -m` matrix (parsed or a preset), with the queries policies and the job model
/// use. Bandwidths are bytes/s in one direction. Formulas and sources: docs/model-hardware.md.
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/topologies/link_type.hpp"

namespace tidesim {

/// Per-link bandwidths used to build a graph (bytes/s, one direction). Defaults: CALIBRATION.md
/// figures for a PCIe Gen4 host with NVLink2-4 links; the SMP and NIC figures are assumptions.
struct TopologyParams {
  /// Catalogue name of the GPUs ("" when unknown). Informational; set the figures below with
  /// params_for_gpu() to derive them from the catalogue.
  std::string gpu_model;
  /// One NVLink link, one direction (CALIBRATION.md: 50 GB/s bidirectional for NVLink2-4).
  double nvlink_link_bandwidth = 25e9;
  /// One PCIe x16 link, one direction, effective (CALIBRATION.md: measured Gen4 25 GB/s).
  double pcie_bandwidth = 25e9;
  /// The inter-socket SMP link (QPI/UPI) for GPU traffic, one direction. Assumption: 10 GB/s
  /// (not in CALIBRATION.md); it makes a SYS hop the slowest part of a path, as on real hosts.
  double smp_bandwidth = 10e9;
  /// Use an NVSwitch vertex for NVLink: nullopt infers it (every GPU pair is NV# and some GPU's
  /// NVLink count over all peers exceeds 18, the most links any GPU has: CALIBRATION.md).
  std::optional<bool> nvswitch;
};

/// Params with the NVLink and PCIe figures of a catalogue GPU model (InputError if unknown).
TopologyParams params_for_gpu(std::string_view gpu_model);

/// The matrix as `nvidia-smi topo -m` prints it: devices in column order (GPUs are named GPU<i>
/// and come first in index order; other devices are NICs), cells[i][j], and per-device affinity.
struct TopologyMatrix {
  std::vector<std::string> devices;
  std::vector<std::vector<LinkCell>> cells;
  /// "CPU Affinity" per device ("" when absent).
  std::vector<std::string> cpu_affinity;
  /// "NUMA Affinity" per device (-1 when absent or N/A).
  std::vector<int> numa_affinity;
  /// The input spelled SYS as SOC (old drivers); to_nvidia_smi() keeps the spelling.
  bool soc_spelling = false;
};

/// A node's interconnect. Immutable after construction; cheap queries.
class Topology {
 public:
  /// An empty topology (no devices), to be assigned a real one.
  Topology();
  /// Builds the graph from a validated matrix (square, symmetric, X on the diagonal; the parser
  /// guarantees it, this constructor throws std::invalid_argument otherwise).
  Topology(TopologyMatrix matrix, TopologyParams params);

  /// Number of GPUs.
  int gpu_count() const { return gpu_count_; }
  /// Number of NICs (matrix devices that are not GPUs).
  int nic_count() const { return static_cast<int>(matrix_.devices.size()) - gpu_count_; }
  /// The connection type between GPUs a and b as nvidia-smi names it (kSelf when a == b).
  LinkType link(int a, int b) const;
  /// The full matrix cell between GPUs a and b: the type and, for NV#, the bonded link count.
  LinkCell cell(int a, int b) const;
  /// Bandwidth from GPU a to GPU b, bytes/s one direction, over the best path: NVLink (direct or
  /// through the NVSwitch) when the pair has it, else the PCIe/SMP path; the path's slowest
  /// link. +infinity when a == b.
  double bandwidth(int a, int b) const;
  /// Bus bandwidth of the best ring over `gpus` (bytes/s): each GPU sends to the next around the
  /// ring at once, a directed link crossed by c hops gives each cap/c, and the ring runs at the
  /// minimum. The best order is exact up to 9 GPUs (branch and bound over orders, cut by the
  /// slowest pair so far), greedy beyond. NCCL: all-reduce time = S / B x 2(n-1)/n.
  /// +infinity for fewer than 2 GPUs (no traffic). std::invalid_argument on a repeated GPU.
  double ring_bandwidth(std::span<const int> gpus) const;
  /// The order achieving ring_bandwidth() (first in lexicographic order among equals).
  std::vector<int> best_ring(std::span<const int> gpus) const;
  /// True when every pair of `gpus` is NVLink-connected (directly or by NVSwitch); true for
  /// fewer than two GPUs.
  bool fully_nvlink_connected(std::span<const int> gpus) const;
  /// Connected components of the NVLink graph with at least two GPUs, each sorted, ordered by
  /// their lowest GPU.
  std::vector<std::vector<int>> nvlink_groups() const;
  /// The k free GPUs with the best ring_bandwidth(); ties go to the lexicographically lowest
  /// index set. Exhaustive when C(n,k) x ring orders stays small (8-GPU nodes), greedy beyond.
  /// nullopt when fewer than k GPUs are free; an empty set for k == 0. `free` has gpu_count()
  /// entries (std::invalid_argument otherwise).
  std::optional<std::vector<int>> best_free_set(int k, const std::vector<bool>& free) const;
  /// The GPU's NUMA node: the "NUMA Affinity" column when given, else the inferred socket.
  int numa_node(int gpu) const;
  /// The GPU's "CPU Affinity" ("" when absent).
  const std::string& cpu_affinity(int gpu) const;
  /// The GPU block of the matrix in `nvidia-smi topo -m` form: a header line of tab-separated
  /// GPU names (starting with a tab), then one line per GPU, cells separated by tabs, self as
  /// " X ", lines ending in '\n'.
  std::string to_nvidia_smi() const;

  /// The directed links (2 per graph edge) a transfer from GPU a to GPU b crosses.
  std::vector<int> route(int a, int b) const;
  /// The directed links a ring in this order crosses, with repeats (one route per hop).
  std::vector<int> ring_links(std::span<const int> order) const;
  /// Number of directed links (2 x edges).
  int directed_link_count() const { return 2 * static_cast<int>(edge_ends_.size()); }
  /// Bandwidth of a directed link, bytes/s.
  double directed_link_bandwidth(int link) const;
  /// "GPU0->NVSwitch", "CPU0->CPU1".
  std::string directed_link_name(int link) const;

  /// The matrix it was built from.
  const TopologyMatrix& matrix() const { return matrix_; }
  /// The parameters it was built with.
  const TopologyParams& params() const { return params_; }
  /// True when NVLink goes through an NVSwitch vertex.
  bool has_nvswitch() const { return nvswitch_; }
  /// Number of CPU sockets (inferred).
  int socket_count() const { return socket_count_; }

 private:
  void build_nvlink();
  void build_pcie();
  void build_routes();
  double evaluate_ring(std::span<const int> order, std::vector<int>& usage) const;
  std::pair<double, std::vector<int>> search_ring(const std::vector<int>& sorted,
                                                  double floor) const;

  TopologyMatrix matrix_;
  TopologyParams params_;
  // The graph (topology.cpp), built by the constructor and never changed after: copies share it.
  struct Graph;
  std::shared_ptr<Graph> graph_;
  int gpu_count_ = 0;
  int socket_count_ = 0;
  bool nvswitch_ = false;
  std::vector<int> numa_;                       // per GPU
  std::vector<std::pair<int, int>> edge_ends_;  // per edge id: (lower vertex, higher vertex)
  std::vector<double> edge_bandwidth_;          // per edge id
  std::vector<std::vector<int>> routes_;        // [a * n + b]
  std::vector<double> pair_bandwidth_;          // [a * n + b], slowest link of the route
};

}  // namespace tidesim
