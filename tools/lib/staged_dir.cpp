#include "tidesim/tools/lib/staged_dir.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace tidesim::app {

namespace fs = std::filesystem;

StagedDir::StagedDir(std::string dir) : dir_(std::move(dir)) {
  staging_ =
      (fs::path(dir_) / (".staging-" + std::to_string(static_cast<long>(::getpid())))).string();
  std::error_code ec;
  fs::create_directories(staging_, ec);
  if (ec) {
    throw std::runtime_error("cannot create the output folder " + dir_ + ": " + ec.message());
  }
}

StagedDir::~StagedDir() {
  std::error_code ec;
  fs::remove_all(staging_, ec);  // empty after a commit; a failed run's files otherwise
}

std::string StagedDir::path(const std::string& name) {
  if (std::find(names_.begin(), names_.end(), name) == names_.end()) {
    names_.push_back(name);
  }
  return (fs::path(staging_) / name).string();
}

void StagedDir::write(const std::string& name, const std::function<void(std::ostream&)>& fill) {
  std::ofstream out(path(name));
  if (!out) {
    throw std::runtime_error("cannot write " + (fs::path(dir_) / name).string());
  }
  fill(out);
  out.close();
  if (!out) {
    throw std::runtime_error("failed writing " + (fs::path(dir_) / name).string());
  }
}

void StagedDir::drop(const std::string& name) {
  dropped_.push_back(name);
}

void StagedDir::commit() {
  for (const auto& name : names_) {
    std::error_code ec;
    const fs::path target = fs::path(dir_) / name;
    if (fs::is_directory(target, ec)) {
      throw std::runtime_error("cannot replace " + target.string() +
                               ": it is a folder; nothing was written");
    }
  }
  for (const auto& name : names_) {
    std::error_code ec;
    fs::rename(fs::path(staging_) / name, fs::path(dir_) / name, ec);
    if (ec) {
      throw std::runtime_error("cannot move " + name + " into " + dir_ + ": " + ec.message());
    }
  }
  for (const auto& name : dropped_) {
    std::error_code ec;
    if (const fs::path target = fs::path(dir_) / name; fs::is_regular_file(target, ec)) {
      fs::remove(target, ec);
      if (ec) {
        throw std::runtime_error("cannot remove " + target.string() + ": " + ec.message());
      }
    }
  }
  committed_ = true;
}

}  // namespace tidesim::app
