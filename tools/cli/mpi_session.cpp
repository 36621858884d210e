#include "tidesim/tools/cli/mpi_session.hpp"

#include <cstdlib>

#ifdef TIDESIM_WITH_MPI
#include <mpi.h>
#endif

namespace tidesim::cli {
namespace {

// Whether an MPI launcher started this process (Open MPI, or a PMI/PMIx launcher such as srun).
bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"}) {
    if (std::getenv(v) != nullptr) {
      return true;
    }
  }
  return false;
}

}  // namespace

MpiSession::MpiSession() {
#ifdef TIDESIM_WITH_MPI
  if (!launched_by_mpi()) {
    return;
  }
  MPI_Init(nullptr, nullptr);
  initialised_ = true;
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  rank_ = static_cast<std::size_t>(rank);
  size_ = static_cast<std::size_t>(size);
#else
  (void)launched_by_mpi;
#endif
}

MpiSession::~MpiSession() {
#ifdef TIDESIM_WITH_MPI
  if (initialised_) {
    MPI_Finalize();
  }
#endif
}

bool MpiSession::all_ok(bool ok) const {
#ifdef TIDESIM_WITH_MPI
  if (initialised_) {
    int mine = ok ? 1 : 0;
    int all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all == 1;
  }
#endif
  return ok;
}

}  // namespace tidesim::cli
