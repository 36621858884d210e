#pragma once
/// MPI for `tidesim sweep` (docs/sweeps.md): when tidesim is built with Open MPI and started by
/// mpirun with several ranks, each rank runs the cells of its shard (rank/size) and rank 0 merges
/// once all have finished. Without MPI at build time, or outside mpirun, a session is inactive
/// and the sweep runs as one process.
#include <cstddef>

#include "tidesim/tools/lib/sweep.hpp"

namespace tidesim::cli {

class MpiSession {
 public:
  /// Initialises MPI when this process was started by an MPI launcher (and tidesim has MPI).
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  /// True when running as one of several MPI ranks.
  bool active() const { return size_ > 1; }
  bool root() const { return rank_ == 0; }
  /// This rank's cells: index rank modulo size.
  app::Shard shard() const { return {rank_, size_}; }
  /// Waits for every rank; returns true when every rank passed `ok`.
  bool all_ok(bool ok) const;

 private:
  std::size_t rank_ = 0;
  std::size_t size_ = 1;
  bool initialised_ = false;
};

}  // namespace tidesim::cli
