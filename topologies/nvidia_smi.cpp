#include "tidesim/topologies/nvidia_smi.hpp"

#include <charconv>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_set>
#include <vector>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/input/text_file.hpp"

namespace tidesim {

namespace {

struct Token {
  std::string text;
  int column = 0;  // 1-based character column
};

std::vector<Token> tokenize(std::string_view line) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
      ++i;
    }
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') {
      ++i;
    }
    if (i > start) {
      out.push_back(Token{std::string(line.substr(start, i - start)), static_cast<int>(start) + 1});
    }
  }
  return out;
}

// "GPU" followed by one or more digits. Hand-written: std::regex recurses once per character and
// overflows the stack on a long token.
bool is_gpu_label(std::string_view s) {
  if (s.size() < 4 || s.substr(0, 3) != "GPU") {
    return false;
  }
  for (const char c : s.substr(3)) {
    if (c < '0' || c > '9') {
      return false;
    }
  }
  return true;
}

enum class Extra { kCpuAffinity, kNumaAffinity, kGpuNumaId };

}  // namespace

TopologyMatrix parse_nvidia_smi_matrix(std::string_view text, const std::string& file) {
  std::vector<std::string> lines;
  {
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) {
        end = text.size();
      }
      std::string line(text.substr(start, end - start));
      if (!line.empty() && line.back() == '\r') {
        line.pop_back();
      }
      lines.push_back(std::move(line));
      start = end + 1;
    }
  }
  auto error = [&](int line, int column, const std::string& field, const std::string& message) {
    return InputError(SourceLocation{file, line, column}, field, message);
  };

  // The header: the first line whose first word is GPU<n> and whose second word is not X.
  std::size_t header = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto tokens = tokenize(lines[i]);
    if (!tokens.empty() && is_gpu_label(tokens[0].text) &&
        (tokens.size() == 1 || tokens[1].text != "X")) {
      header = i;
      break;
    }
  }
  if (header == lines.size()) {
    throw error(1, 0, "header",
                "no `nvidia-smi topo -m` matrix found (expected a header line starting with GPU0)");
  }
  const int header_line = static_cast<int>(header) + 1;
  TopologyMatrix m;
  std::vector<Extra> extras;
  {
    const auto tokens = tokenize(lines[header]);
    if (tokens.size() > kMaxTopologyDevices + 7) {  // + the 7 words of the affinity headers
      throw error(header_line, tokens[kMaxTopologyDevices + 7].column, "header",
                  "too many columns (" + std::to_string(tokens.size()) +
                      "); a matrix has at most " + std::to_string(kMaxTopologyDevices) +
                      " devices");
    }
    std::unordered_set<std::string> seen;
    for (std::size_t t = 0; t < tokens.size(); ++t) {
      const std::string& w = tokens[t].text;
      auto next_is = [&](std::size_t k, const char* s) {
        return t + k < tokens.size() && tokens[t + k].text == s;
      };
      if (w == "CPU" && next_is(1, "Affinity")) {
        extras.push_back(Extra::kCpuAffinity);
        ++t;
      } else if (w == "NUMA" && next_is(1, "Affinity")) {
        extras.push_back(Extra::kNumaAffinity);
        ++t;
      } else if (w == "GPU" && next_is(1, "NUMA") && next_is(2, "ID")) {
        extras.push_back(Extra::kGpuNumaId);
        t += 2;
      } else if (!extras.empty()) {
        throw error(header_line, tokens[t].column, w,
                    "unexpected column '" + w + "' after the affinity columns");
      } else {
        if (!seen.insert(w).second) {
          throw error(header_line, tokens[t].column, w, "device column '" + w + "' repeated");
        }
        m.devices.push_back(w);
      }
    }
  }
  // GPUs first, named GPU0, GPU1, ... in order.
  {
    std::size_t gpus = 0;
    while (gpus < m.devices.size() && m.devices[gpus] == "GPU" + std::to_string(gpus)) {
      ++gpus;
    }
    for (std::size_t i = gpus; i < m.devices.size(); ++i) {
      if (m.devices[i].rfind("GPU", 0) == 0) {
        throw error(header_line, 0, m.devices[i],
                    "GPU columns must come first, in order GPU0, GPU1, ...; found '" +
                        m.devices[i] + "' at position " + std::to_string(i));
      }
    }
  }
  const std::size_t n = m.devices.size();
  if (n > kMaxTopologyDevices) {
    throw error(header_line, 0, "header",
                std::to_string(n) + " device columns; a matrix has at most " +
                    std::to_string(kMaxTopologyDevices) + " devices");
  }
  // Rows are allocated as they are read, so a wide header with no rows costs nothing.
  m.cells.reserve(n);
  m.cpu_affinity.assign(n, "");
  m.numa_affinity.assign(n, -1);
  std::vector<int> row_line(n, 0);
  std::size_t rows = 0;
  int last_line = header_line;
  for (std::size_t i = header + 1; i < lines.size(); ++i) {
    const int line_no = static_cast<int>(i) + 1;
    const auto tokens = tokenize(lines[i]);
    if (tokens.empty() || tokens[0].text.rfind("Legend", 0) == 0) {
      break;  // end of the table; legends follow
    }
    last_line = line_no;
    if (rows == n) {
      throw error(line_no, tokens[0].column, tokens[0].text,
                  "more rows than the " + std::to_string(n) + " columns of the header");
    }
    const std::string& device = m.devices[rows];
    if (tokens[0].text != device) {
      throw error(line_no, tokens[0].column, tokens[0].text,
                  "expected the row of '" + device + "', got '" + tokens[0].text + "'");
    }
    if (tokens.size() < n + 1) {
      throw error(
          line_no, 0, device,
          "row has " + std::to_string(tokens.size() - 1) + " cells, expected " + std::to_string(n));
    }
    if (tokens.size() > n + 1 + extras.size()) {
      throw error(line_no, tokens[n + 1 + extras.size()].column, device,
                  "row has " + std::to_string(tokens.size() - 1) + " cells, the header has " +
                      std::to_string(n + extras.size()) + " columns");
    }
    std::vector<LinkCell>& row = m.cells.emplace_back(n);
    for (std::size_t j = 0; j < n; ++j) {
      const Token& cell = tokens[j + 1];
      const auto type = parse_link_cell(cell.text, &m.soc_spelling);
      if (!type) {
        throw error(line_no, cell.column, device + "/" + m.devices[j],
                    "unknown connection '" + cell.text +
                        "' (expected X, NV#, PIX, PXB, PHB, NODE, SYS or SOC)");
      }
      if ((j == rows) != (type->kind == LinkType::kSelf)) {
        throw error(line_no, cell.column, device + "/" + m.devices[j],
                    j == rows ? "the diagonal must be X" : "X off the diagonal");
      }
      if (type->is_nvlink() && (!is_gpu_label(device) || !is_gpu_label(m.devices[j]))) {
        throw error(line_no, cell.column, device + "/" + m.devices[j],
                    "NVLink is only modelled between GPUs");
      }
      row[j] = *type;
    }
    for (std::size_t e = 0; e + n + 1 < tokens.size(); ++e) {
      const Token& cell = tokens[n + 1 + e];
      if (extras[e] == Extra::kCpuAffinity) {
        m.cpu_affinity[rows] = cell.text == "N/A" ? "" : cell.text;
      } else if (extras[e] == Extra::kNumaAffinity) {
        if (cell.text != "N/A") {
          int numa = -1;
          const auto [end, ec] =
              std::from_chars(cell.text.data(), cell.text.data() + cell.text.size(), numa);
          if (ec != std::errc{} || end != cell.text.data() + cell.text.size() || numa < 0) {
            throw error(line_no, cell.column, device + "/NUMA Affinity",
                        "expected a NUMA node number or N/A, got '" + cell.text + "'");
          }
          m.numa_affinity[rows] = numa;
        }
      }
    }
    row_line[rows] = line_no;
    ++rows;
  }
  if (rows < n) {
    throw error(last_line, 0, m.devices[rows],
                "matrix ends after " + std::to_string(rows) + " rows; the header has " +
                    std::to_string(n) + " columns (missing the row of '" + m.devices[rows] + "')");
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (!(m.cells[i][j] == m.cells[j][i])) {
        throw error(row_line[i], 0, m.devices[i] + "/" + m.devices[j],
                    "asymmetric matrix: " + m.devices[i] + "->" + m.devices[j] + " is " +
                        to_string(m.cells[i][j]) + " but " + m.devices[j] + "->" + m.devices[i] +
                        " (line " + std::to_string(row_line[j]) + ") is " +
                        to_string(m.cells[j][i]));
      }
    }
  }
  if (n == 0 || !is_gpu_label(m.devices[0])) {
    throw error(header_line, 0, "header", "no GPU columns");
  }
  return m;
}

Topology parse_nvidia_smi(std::string_view text, const std::string& file,
                          const TopologyParams& params) {
  return Topology(parse_nvidia_smi_matrix(text, file), params);
}

Topology load_nvidia_smi_file(const std::string& path, const TopologyParams& params) {
  return parse_nvidia_smi(read_text_file(path, "topology file"), path, params);
}

}  // namespace tidesim
