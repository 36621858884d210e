#include "tidesim/tools/lib/progress.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

namespace tidesim::app {
namespace {

// "3.2 d", "5.0 h", "12 min", "40 s": simulated time in the largest unit that keeps it >= 1.
std::string simulated_text(double s) {
  if (s >= 86400.0) {
    return fmt::format("{:.1f} d", s / 86400.0);
  }
  if (s >= 3600.0) {
    return fmt::format("{:.1f} h", s / 3600.0);
  }
  if (s >= 60.0) {
    return fmt::format("{:.0f} min", s / 60.0);
  }
  return fmt::format("{:.0f} s", s);
}

// "950", "12.3k", "1.25M", "2.00G".
std::string rate_text(double r) {
  if (r >= 1e9) {
    return fmt::format("{:.2f}G", r / 1e9);
  }
  if (r >= 1e6) {
    return fmt::format("{:.2f}M", r / 1e6);
  }
  if (r >= 1e3) {
    return fmt::format("{:.1f}k", r / 1e3);
  }
  return fmt::format("{:.0f}", r);
}

}  // namespace

std::string format_eta(double seconds) {
  const auto s = static_cast<std::int64_t>(std::llround(std::max(0.0, seconds)));
  if (s < 60) {
    return fmt::format("{}s", s);
  }
  if (s < 3600) {
    return fmt::format("{}m{:02}s", s / 60, s % 60);
  }
  if (s < 86400) {
    return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
  }
  return fmt::format("{}d{:02}h", s / 86400, (s % 86400) / 3600);
}

std::string format_progress(std::string_view label, const ProgressSnapshot& s, double elapsed_s) {
  const double f = std::clamp(s.fraction, 0.0, 1.0);
  std::string line = fmt::format("{} {}/{} {:3.0f}%", label, s.done, s.total, 100.0 * f);
  if (s.simulated_s) {
    line += "  simulated " + simulated_text(*s.simulated_s);
  }
  if (s.events > 0 && elapsed_s > 0) {
    line += "  " + rate_text(static_cast<double>(s.events) / elapsed_s) + " events/s";
  }
  if (s.done >= s.total) {
    return line;
  }
  line += "  ETA ";
  line += f > 0 && elapsed_s > 0 ? format_eta(elapsed_s * (1.0 - f) / f) : std::string("?");
  return line;
}

ProgressReporter::ProgressReporter(std::ostream& out, ProgressOptions options)
    : out_(out), options_(std::move(options)) {
  if (!options_.now) {
    options_.now = [] { return std::chrono::steady_clock::now(); };
  }
  start_ = options_.now();
}

ProgressReporter ProgressReporter::for_stderr(ProgressMode mode) {
  ProgressOptions options;
  options.mode = mode;
  options.is_terminal = ::isatty(::fileno(stderr)) == 1;
  return ProgressReporter(std::cerr, std::move(options));
}

bool ProgressReporter::enabled() const {
  return options_.mode == ProgressMode::kAlways ||
         (options_.mode == ProgressMode::kAuto && options_.is_terminal);
}

void ProgressReporter::update(std::string_view label, std::size_t done, std::size_t total) {
  ProgressSnapshot s;
  s.done = done;
  s.total = total;
  s.fraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0.0;
  update(label, s);
}

void ProgressReporter::update(std::string_view label, const ProgressSnapshot& snapshot) {
  if (!enabled()) {
    return;
  }
  last_label_ = label;
  last_ = snapshot;
  const auto now = options_.now();
  if (now - start_ < options_.delay) {
    return;
  }
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (!options_.is_terminal) {  // the log form: whole lines, slowly
    if (shown_ && now - last_draw_ < options_.log_interval) {
      return;
    }
    out_ << format_progress(label, snapshot, elapsed) << '\n' << std::flush;
    last_draw_ = now;
    shown_ = true;
    return;
  }
  if (shown_ && now - last_draw_ < options_.min_interval && snapshot.done < snapshot.total) {
    return;
  }
  std::string line = format_progress(label, snapshot, elapsed);
  const std::size_t width = line.size();
  if (width < last_width_) {
    line += std::string(last_width_ - width, ' ');
  }
  out_ << '\r' << line << std::flush;
  last_width_ = width;
  last_draw_ = now;
  shown_ = true;
}

void ProgressReporter::finish() {
  if (!enabled()) {
    return;
  }
  if (options_.is_terminal) {
    if (shown_) {
      out_ << '\r' << std::string(last_width_, ' ') << '\r' << std::flush;
      last_width_ = 0;
    }
    return;
  }
  if (last_) {  // the log form ends with the final state, however short the work was
    const double elapsed = std::chrono::duration<double>(options_.now() - start_).count();
    out_ << format_progress(last_label_, *last_, elapsed)
         << fmt::format("  done in {:.1f} s", elapsed) << '\n'
         << std::flush;
    shown_ = true;
    last_.reset();
  }
}

ProgressTicker::ProgressTicker(ProgressReporter& reporter, std::string label,
                               std::function<ProgressSnapshot()> snapshot,
                               std::chrono::milliseconds period)
    : reporter_(reporter), label_(std::move(label)), snapshot_(std::move(snapshot)) {
  if (!reporter_.enabled()) {
    return;
  }
  thread_ = std::thread([this, period] {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, period, [this] { return stopping_; })) {
      reporter_.update(label_, snapshot_());
    }
  });
}

ProgressTicker::~ProgressTicker() {
  stop();
}

void ProgressTicker::stop() {
  if (stopped_) {
    return;
  }
  stopped_ = true;
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) {
    thread_.join();
  }
  if (reporter_.enabled()) {
    reporter_.update(label_, snapshot_());
    reporter_.finish();
  }
}

void RunMeter::reached(std::int64_t us) {
  std::int64_t seen = simulated_us.load(std::memory_order_relaxed);
  while (us > seen && !simulated_us.compare_exchange_weak(seen, us, std::memory_order_relaxed)) {
  }
}

ProgressSnapshot RunMeter::snapshot(std::size_t total) const {
  ProgressSnapshot s;
  s.done = done.load(std::memory_order_relaxed);
  s.total = total;
  const double whole = 1e6 * static_cast<double>(total);
  s.fraction = total > 0
                   ? static_cast<double>(partial_millionths.load(std::memory_order_relaxed)) / whole
                   : 0.0;
  const std::int64_t us = simulated_us.load(std::memory_order_relaxed);
  if (us > 0) {
    s.simulated_s = static_cast<double>(us) / 1e6;
  }
  s.events = events.load(std::memory_order_relaxed);
  return s;
}

RunProbe::RunProbe(RunMeter& meter, std::size_t jobs, double horizon_s)
    : meter_(meter), jobs_(jobs), horizon_s_(horizon_s) {}

void RunProbe::attach(RunSignals& signals) {
  signals.job.connect([this](const JobEvent& e) {
    if (e.kind == JobEventKind::kSucceeded || e.kind == JobEventKind::kFailed) {
      ++ended_;
    }
    advance(e.at);
  });
  signals.sample.connect([this](const ClusterSample& s) { advance(s.at); });
}

void RunProbe::advance(TimePoint at) {
  const std::int64_t us = at.time_since_epoch().count();
  meter_.reached(us);
  double share = jobs_ > 0 ? static_cast<double>(ended_) / static_cast<double>(jobs_) : 0.0;
  if (horizon_s_ > 0) {
    share = std::max(share, static_cast<double>(us) / 1e6 / horizon_s_);
  }
  const auto millionths = static_cast<std::uint64_t>(std::min(1.0, share) * 1e6);
  if (millionths > published_) {
    meter_.partial_millionths.fetch_add(millionths - published_, std::memory_order_relaxed);
    published_ = millionths;
  }
}

void RunProbe::finish() {
  meter_.partial_millionths.fetch_add(1000000 - published_, std::memory_order_relaxed);
  published_ = 1000000;
  meter_.done.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace tidesim::app
