#pragma once
/// A folder of output files written all or nothing (docs/outputs.md, "Writing"): the files go to a
/// hidden staging folder inside it (DIR/.staging-PID) and are moved into DIR (one rename each)
/// only once every one is written. A failure, a timeout or a killed process before the commit
/// leaves DIR's earlier files as they were.
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace tidesim::app {

class StagedDir {
 public:
  /// Creates DIR (and its staging folder) when missing. Throws std::runtime_error when it cannot.
  explicit StagedDir(std::string dir);
  /// Removes the staging folder and what it holds unless committed.
  ~StagedDir();
  StagedDir(const StagedDir&) = delete;
  StagedDir& operator=(const StagedDir&) = delete;

  /// Where to write the file `name` now (in the staging folder); it is moved at the commit.
  std::string path(const std::string& name);
  /// Writes the file `name` in the staging folder with `fill`. Throws when it cannot be opened or
  /// written (a full disk).
  void write(const std::string& name, const std::function<void(std::ostream&)>& fill);
  /// At the commit, removes the file DIR/name that an earlier write left, if any: a file this
  /// write leaves out, which would otherwise pass for one of its own.
  void drop(const std::string& name);
  /// Moves every file into DIR, replacing files of the same name. First checks that each can be
  /// replaced (a folder of that name cannot): then nothing is moved and it throws.
  void commit();

 private:
  std::string dir_;
  std::string staging_;
  std::vector<std::string> names_;
  std::vector<std::string> dropped_;
  bool committed_ = false;
};

}  // namespace tidesim::app
