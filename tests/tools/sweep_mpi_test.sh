#!/bin/sh
# `mpirun -n 2 tidesim sweep` gives the same merged result, byte for byte, as one process with one
# thread (docs/sweeps.md). Registered by tests/tools/CMakeLists.txt when MPI is found.
# Usage: sweep_mpi_test.sh MPIEXEC TIDESIM OUT_DIR (from the source tree's root).
set -eu
mpiexec=$1
tidesim=$2
out=$3
rm -rf "$out"
mkdir -p "$out"
# Open MPI refuses to run as root without these (CI containers run as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$tidesim" sweep tests/tools/data/sweep_small.yaml -o "$out/one" --threads 1 >/dev/null
# Under the sanitizer build (tools/test.sh --sanitize), LeakSanitizer reports Open MPI's own
# allocations at exit (strdup in its dlopened components, never freed) and fails the ranks. Leak
# detection is therefore off for the ranks only; the same sweep code runs without MPI, under
# LeakSanitizer, in tools_test's sweep tests and in the line above.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  "$mpiexec" -n 2 --oversubscribe "$tidesim" sweep tests/tools/data/sweep_small.yaml \
  -o "$out/mpi" >"$out/mpi.out" 2>"$out/mpi.err" || { cat "$out/mpi.err"; exit 1; }
cmp "$out/one/result.json" "$out/mpi/result.json"
# Every cell was written (each by the rank of its index modulo 2).
test "$(ls "$out/mpi/cells" | wc -l)" -eq 12
echo "mpirun -n 2: same result.json as one process"
