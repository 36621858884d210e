// Storage await: T = T_service / (1 - u), capped (CALIBRATION.md "Storage"); values by hand.
#include "tidesim/topologies/storage.hpp"

#include <gtest/gtest.h>

#include <string>

#include "tidesim/sim/engine/fluid.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim {
namespace {

TEST(Storage, AwaitFollowsMm1) {
  const StorageDevice nvme = default_nvme();
  EXPECT_DOUBLE_EQ(nvme.bandwidth, 7e9);
  EXPECT_DOUBLE_EQ(storage_await_ms(nvme, 0.0), 0.15);      // 150 us
  EXPECT_DOUBLE_EQ(storage_await_ms(nvme, 0.5), 0.3);       // 0.15 / 0.5
  EXPECT_NEAR(storage_await_ms(nvme, 0.9), 1.5, 1e-12);     // 0.15 / 0.1
  EXPECT_DOUBLE_EQ(storage_await_ms(nvme, 1.0), 500.0);     // cap
  EXPECT_DOUBLE_EQ(storage_await_ms(nvme, 0.9999), 500.0);  // 1500 ms, capped
  EXPECT_DOUBLE_EQ(storage_await_ms(nvme, 0.9999, 100.0), 100.0);
  EXPECT_DOUBLE_EQ(storage_await_ms(nvme, -0.2), 0.15);  // clamped to 0
  EXPECT_THROW(storage_await_ms(nvme, 0.5, 0.0), std::invalid_argument);
}

TEST(Storage, SharedNfsUtilisationFromFluidFlows) {
  // An NFS server of 1 GB/s, 5 ms service time; three loaders capped at 200 MB/s each:
  // u = 0.6, await = 5 / 0.4 = 12.5 ms. A fourth, unbounded loader saturates it: the cap.
  StorageDevice nfs{
      .name = "nfs", .bandwidth = 1e9, .service_time = Duration{5000}, .shared = true};
  FluidSolver solver;
  const ResourceId r = solver.add_resource(nfs.bandwidth);
  for (int i = 0; i < 3; ++i) {
    solver.add_flow({r}, 200e6);
  }
  solver.update();
  EXPECT_NEAR(solver.utilisation(r), 0.6, 1e-12);
  EXPECT_NEAR(storage_await_ms(nfs, solver.utilisation(r)), 12.5, 1e-9);
  solver.add_flow({r});
  solver.update();
  EXPECT_DOUBLE_EQ(storage_await_ms(nfs, solver.utilisation(r)), kDefaultAwaitCapMs);
}

TEST(Storage, ParsesYaml) {
  const auto node =
      load_yaml_string("name: nfs\nbandwidth: 2GB/s\nservice_time: 2ms\nscope: shared\n", "s.yaml");
  const StorageDevice d = parse_storage_device(node, "s.yaml", "storage[0]");
  EXPECT_EQ(d.name, "nfs");
  EXPECT_DOUBLE_EQ(d.bandwidth, 2e9);
  EXPECT_EQ(d.service_time, Duration{2000});
  EXPECT_TRUE(d.shared);
}

TEST(Storage, BadYamlNamesTheField) {
  auto expect_error = [](const std::string& text, const std::string& field) {
    try {
      parse_storage_device(load_yaml_string(text, "s.yaml"), "s.yaml", "storage[0]");
      FAIL() << "expected InputError for " << text;
    } catch (const InputError& e) {
      EXPECT_NE(e.field().find(field), std::string::npos) << e.what();
      EXPECT_EQ(e.where().file, "s.yaml");
      EXPECT_GE(e.where().line, 1) << e.what();
    }
  };
  expect_error("name: nvme\nservice_time: 1ms\n", "bandwidth");
  expect_error("name: nvme\nbandwidth: fast\nservice_time: 1ms\n", "bandwidth");
  expect_error("name: nvme\nbandwidth: 1GB/s\nservice_time: 0s\n", "service_time");
  expect_error("name: nvme\nbandwidth: 1GB/s\nservice_time: 1ms\nscope: cluster\n", "scope");
  expect_error("name: nvme\nbandwidth: 1GB/s\nservice_time: 1ms\niops: 5\n", "iops");
}

}  // namespace
}  // namespace tidesim
