// Event queue throughput: schedule + dispatch, with and without cancellations.
#include <benchmark/benchmark.h>

#include "tidesim/sim/engine/random.hpp"
#include "tidesim/sim/engine/simulation.hpp"

namespace tidesim {
namespace {

// Steady state: `pending` events in the queue; each dispatched event schedules one more at a
// random delay (the hold model of event-list benchmarks). The callback captures one pointer, as
// the run driver's callbacks do, so it fits std::function's small buffer (no allocation).
struct Hold {
  Simulation sim{1};
  RandomStream rng{1, "bench"};
  std::int64_t fired = 0;
  void tick() {
    ++fired;
    sim.schedule_in(Duration(1 + static_cast<std::int64_t>(rng.uniform_int(1000))),
                    [this] { tick(); });
  }
};

void BM_HoldModel(benchmark::State& state) {
  const auto pending = static_cast<int>(state.range(0));
  Hold hold;
  for (int i = 0; i < pending; ++i) {
    hold.sim.schedule_in(Duration(hold.rng.uniform_int(1000)), [h = &hold] { h->tick(); });
  }
  constexpr int kBatch = 10000;
  for (auto _ : state) {
    const auto before = hold.fired;
    while (hold.fired - before < kBatch) {
      hold.sim.run(hold.sim.now() + Duration(50));
    }
  }
  state.SetItemsProcessed(hold.fired);
}
BENCHMARK(BM_HoldModel)->Arg(1000)->Arg(100000);

// Schedule N events then dispatch them all; with cancellations, every other event is cancelled.
void BM_ScheduleThenDispatch(benchmark::State& state) {
  const auto n = static_cast<int>(state.range(0));
  const bool cancel = state.range(1) != 0;
  RandomStream rng(2, "bench");
  std::int64_t dispatched = 0;
  for (auto _ : state) {
    Simulation sim(1);
    std::vector<EventId> ids;
    ids.reserve(n);
    for (int i = 0; i < n; ++i) {
      ids.push_back(sim.schedule_in(Duration(rng.uniform_int(1'000'000)), [&] { ++dispatched; }));
    }
    if (cancel) {
      for (int i = 0; i < n; i += 2) {
        sim.cancel(ids[i]);
      }
    }
    sim.run();
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.counters["dispatched"] = static_cast<double>(dispatched);
}
BENCHMARK(BM_ScheduleThenDispatch)->Args({100000, 0})->Args({100000, 1});

}  // namespace
}  // namespace tidesim
