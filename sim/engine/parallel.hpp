#pragma once
// Runs independent, numbered tasks on a few threads: the runs of `tidesim run`, the cells of a
// sweep, the runs of a fill experiment.

#include <cstddef>
#include <functional>

namespace tidesim {

/// Calls `task(k)` once for each k in [0, count), on `threads` threads (the caller's included;
/// at least 1, at most `count`). Tasks are handed out in index order; each writes only its own
/// slot of the caller's output, so results do not depend on the number of threads. The first
/// exception a task throws stops handing out tasks and is rethrown once every thread has finished.
void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t)>& task);

/// The threads a run uses for `requested` (--threads, the Python `threads=`): as many as asked
/// when positive, else one per hardware thread (at least 1).
int thread_count(int requested);

}  // namespace tidesim
