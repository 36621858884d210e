#include "tools/lib/progress.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace tidesim::app {

ProgressReporter::ProgressReporter(std::ostream& out, ProgressOptions options)
    : out_(out), options_(std::move(options)) {
  if (!options_.now) {
    options_.now = [] { return std::chrono::steady_clock::now(); };
  }
  start_ = options_.now();
}

ProgressReporter ProgressReporter::for_stderr() {
  ProgressOptions options;
  options.is_terminal = ::isatty(::fileno(stderr)) == 1;
  return ProgressReporter(std::cerr, std::move(options));
}

void ProgressReporter::update(std::string_view label, std::size_t done, std::size_t total) {
  if (!options_.is_terminal) {
    return;
  }
  const auto now = options_.now();
  if (now - start_ < options_.delay) {
    return;
  }
  if (shown_ && now - last_draw_ < options_.min_interval && done < total) {
    return;
  }
  const double pct = total > 0 ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 0;
  std::string line = fmt::format("{} {:3.0f}% ({}/{})", label, pct, done, total);
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
  if (shown_) {
    out_ << '\r' << std::string(last_width_, ' ') << '\r' << std::flush;
    last_width_ = 0;
  }
}

}  // namespace tidesim::app
