// The progress reporter prints only on a terminal and only after a second.
#include <gtest/gtest.h>

#include <sstream>

#include "tools/lib/progress.hpp"

namespace tidesim::app {
namespace {

using namespace std::chrono_literals;

struct FakeClock {
  std::chrono::steady_clock::time_point now{};
};

ProgressOptions options_for(FakeClock& clock, bool terminal) {
  ProgressOptions o;
  o.is_terminal = terminal;
  o.now = [&clock] { return clock.now; };
  return o;
}

TEST(Progress, SilentWhenNotATerminal) {
  FakeClock clock;
  std::ostringstream out;
  ProgressReporter p(out, options_for(clock, false));
  clock.now += 5s;
  p.update("run", 1, 2);
  p.finish();
  EXPECT_EQ(out.str(), "");
  EXPECT_FALSE(p.shown());
}

TEST(Progress, SilentDuringTheFirstSecond) {
  FakeClock clock;
  std::ostringstream out;
  ProgressReporter p(out, options_for(clock, true));
  clock.now += 900ms;
  p.update("run", 1, 2);
  EXPECT_EQ(out.str(), "");
  clock.now += 200ms;  // 1.1 s
  p.update("run", 1, 2);
  EXPECT_EQ(out.str(), "\rrun  50% (1/2)");
  // Throttled: a redraw within 100 ms is skipped, the final one is not.
  clock.now += 10ms;
  p.update("run", 1, 2);
  EXPECT_EQ(out.str(), "\rrun  50% (1/2)");
  p.update("run", 2, 2);
  EXPECT_NE(out.str().find("100% (2/2)"), std::string::npos);
  p.finish();
  EXPECT_EQ(out.str().back(), '\r');
}

}  // namespace
}  // namespace tidesim::app
