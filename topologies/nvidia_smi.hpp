#pragma once
/// Reading `nvidia-smi topo -m` output. Accepted shapes (CALIBRATION.md, "nvidia-smi topo -m"):
/// columns separated by tabs or runs of spaces; padded cells (" X "); SYS or old drivers' SOC
/// (with or without NODE); NIC rows and columns (mlx5_0, NIC0); trailing "CPU Affinity",
/// "NUMA Affinity" and "GPU NUMA ID" columns, whose headers contain spaces, and whose cells may
/// be empty (NIC rows) or N/A; any text above the table (an echoed command, a shell prompt);
/// "Legend:" and "NIC Legend:" blocks (anything after the first blank line) below it; CRLF line
/// ends. A missing, unknown or asymmetric cell is an InputError naming the file, line and pair.
#include <cstddef>
#include <string>
#include <string_view>

#include "tidesim/topologies/topology.hpp"

namespace tidesim {

/// The most devices (GPU and NIC columns) a matrix may have: real `nvidia-smi topo -m` output has
/// 1-16 GPUs and a few NICs; a wider header is refused before any row is read.
inline constexpr std::size_t kMaxTopologyDevices = 256;

/// Parses the matrix. `file` names the input in errors. Throws InputError.
TopologyMatrix parse_nvidia_smi_matrix(std::string_view text, const std::string& file);

/// Parses the matrix and builds its Topology with `params`. Throws InputError.
Topology parse_nvidia_smi(std::string_view text, const std::string& file,
                          const TopologyParams& params = {});

/// Reads and parses a file. Throws InputError (also when the file cannot be read).
Topology load_nvidia_smi_file(const std::string& path, const TopologyParams& params = {});

}  // namespace tidesim
