// The progress line: silent off a terminal unless asked, silent during the first second, its
// format (done/total, share, simulated time, events/s, ETA), and the log form of --progress.
#include <gtest/gtest.h>

#include <sstream>

#include "tidesim/tools/lib/progress.hpp"

namespace tidesim::app {
namespace {

using namespace std::chrono_literals;

struct FakeClock {
  std::chrono::steady_clock::time_point now{};
};

ProgressOptions options_for(FakeClock& clock, bool terminal,
                            ProgressMode mode = ProgressMode::kAuto) {
  ProgressOptions o;
  o.mode = mode;
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
  EXPECT_FALSE(p.enabled());
}

TEST(Progress, QuietIsSilentEvenOnATerminal) {
  FakeClock clock;
  std::ostringstream out;
  ProgressReporter p(out, options_for(clock, true, ProgressMode::kNever));
  clock.now += 5s;
  p.update("run", 1, 2);
  p.finish();
  EXPECT_EQ(out.str(), "");
}

TEST(Progress, SilentDuringTheFirstSecond) {
  FakeClock clock;
  std::ostringstream out;
  ProgressReporter p(out, options_for(clock, true));
  clock.now += 900ms;
  p.update("run", 1, 2);
  EXPECT_EQ(out.str(), "");
  clock.now += 200ms;  // 1.1 s: half done, so as long again to go
  p.update("run", 1, 2);
  EXPECT_EQ(out.str(), "\rrun 1/2  50%  ETA 1s");
  // Throttled: a redraw within 100 ms is skipped, the final one is not.
  clock.now += 10ms;
  p.update("run", 1, 2);
  EXPECT_EQ(out.str(), "\rrun 1/2  50%  ETA 1s");
  p.update("run", 2, 2);
  // The shorter final line is padded over the longer one it replaces.
  EXPECT_EQ(out.str(), "\rrun 1/2  50%  ETA 1s\rrun 2/2 100%" + std::string(8, ' '));
  p.finish();  // clears the line
  EXPECT_EQ(out.str().substr(out.str().size() - 14), "\r" + std::string(12, ' ') + "\r");
}

TEST(Progress, Format) {
  ProgressSnapshot s;
  s.done = 2;
  s.total = 6;
  s.fraction = 0.4;
  s.simulated_s = 3.2 * 86400;
  s.events = 25'000'000;
  // 20 s for 40%: 30 s to go; 25e6 events in 20 s.
  EXPECT_EQ(format_progress("runs", s, 20.0),
            "runs 2/6  40%  simulated 3.2 d  1.25M events/s  ETA 30s");
  s.simulated_s = 5400;
  s.events = 0;  // no meter: no rate
  EXPECT_EQ(format_progress("cells", s, 100.0), "cells 2/6  40%  simulated 1.5 h  ETA 2m30s");
  s.fraction = 0;
  s.simulated_s.reset();
  EXPECT_EQ(format_progress("cells", s, 100.0), "cells 2/6   0%  ETA ?");
  s.done = 6;
  s.fraction = 1;
  EXPECT_EQ(format_progress("cells", s, 100.0), "cells 6/6 100%");
  EXPECT_EQ(format_eta(59.4), "59s");
  EXPECT_EQ(format_eta(3599), "59m59s");
  EXPECT_EQ(format_eta(7380), "2h03m");
  EXPECT_EQ(format_eta(2 * 86400 + 3600), "2d01h");
}

TEST(Progress, AskedForOffATerminalWritesWholeLinesAndTheLast) {
  FakeClock clock;
  std::ostringstream out;
  ProgressReporter p(out, options_for(clock, false, ProgressMode::kAlways));
  EXPECT_TRUE(p.enabled());
  clock.now += 2s;
  p.update("runs", 1, 4);  // 2 s for 25%: 6 s to go
  clock.now += 5s;
  p.update("runs", 2, 4);  // within the 10 s log interval: kept for the final line
  clock.now += 1s;
  p.finish();
  EXPECT_EQ(out.str(), "runs 1/4  25%  ETA 6s\nruns 2/4  50%  ETA 8s  done in 8.0 s\n");
}

TEST(Progress, RunMeterAddsUpRuns) {
  RunMeter meter;
  RunSignals signals;
  RunProbe probe(meter, 4, 1000.0);  // 4 jobs, a 1000 s horizon
  probe.attach(signals);
  JobEvent e;
  e.kind = JobEventKind::kSucceeded;
  e.at = TimePoint(std::chrono::seconds(100));
  signals.job.emit(e);  // 1 of 4 jobs ended: 25% (more than 100 s of 1000)
  ProgressSnapshot s = meter.snapshot(2);
  EXPECT_DOUBLE_EQ(s.fraction, 0.25 / 2);
  EXPECT_DOUBLE_EQ(*s.simulated_s, 100.0);
  ClusterSample sample;
  sample.at = TimePoint(std::chrono::seconds(500));
  signals.sample.emit(sample);  // 500 of 1000 s: 50%
  s = meter.snapshot(2);
  EXPECT_DOUBLE_EQ(s.fraction, 0.5 / 2);
  EXPECT_EQ(s.done, 0u);
  probe.finish();
  s = meter.snapshot(2);
  EXPECT_DOUBLE_EQ(s.fraction, 0.5);
  EXPECT_EQ(s.done, 1u);
}

}  // namespace
}  // namespace tidesim::app
