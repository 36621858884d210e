// Fuzz harness: a file of Volcano HyperNode objects (sim/admission/volcano_hypernode.hpp), read
// and built into a tree over four fixed nodes, on which one gang of each mode is allocated.
#include "tests/fuzz/harness.hpp"
#include "tidesim/sim/admission/volcano_allocate.hpp"
#include "tidesim/sim/admission/volcano_hypernode.hpp"

namespace tidesim::fuzz {

int volcano_hypernodes(const std::uint8_t* data, std::size_t size) {
  return expect_input_error_only([&] {
    const std::string path = write_input("hypernodes.yaml", data, size).string();
    const std::vector<volcano::HyperNodeSpec> specs = volcano::read_hypernode_file(path);
    std::vector<NodeSpec> nodes;
    for (const char* n : {"n1", "n2", "n3", "n4"}) {
      NodeSpec s;
      s.name = n;
      s.labels = {{"rack", n[1] < '3' ? "a" : "b"}};
      nodes.push_back(s);
    }
    const volcano::HyperNodeTree tree(specs, nodes);
    const volcano::Allocator a(
        tree, {{}, {}, {}, {}},
        std::vector<volcano::Amounts>(4, {{"nvidia.com/gpu", 8}, {"pods", 110}}),
        std::vector<volcano::Amounts>(4), volcano::PluginArgs{});
    for (const bool hard : {true, false}) {
      volcano::JobRequest job;
      job.tasks.assign(3, volcano::Task{{{"nvidia.com/gpu", 8}, {"pods", 1}}, {}, -1});
      job.min_available = 3;
      volcano::NetworkTopology t;
      t.hard = hard;
      job.topology = t;
      (void)a.allocate(job);
    }
  });
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::volcano_hypernodes(data, size);
}
#endif
