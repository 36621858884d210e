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

// Characters of `text`: every byte but UTF-8 continuation bytes (columns count characters).
int characters(std::string_view text) {
  int n = 0;
  for (const char c : text) {
    n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  }
  return n;
}

// The words of `line` (separated by spaces and tabs), each with the column it begins at.
std::vector<Token> tokenize(std::string_view line) {
  std::vector<Token> out;
  std::size_t i = 0;
  int column = 1;  // of line[i]
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
      ++i;
      ++column;
    }
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') {
      ++i;
    }
    if (i > start) {
      const std::string_view word = line.substr(start, i - start);
      out.push_back(Token{std::string(word), column});
      column += characters(word);
    }
  }
  return out;
}

// The column just past `token`: where a word after it would begin.
int column_after(const Token& token) {
  return token.column + characters(token.text);
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

// The lines of `text`, without their line breaks (\n or \r\n).
std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
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
  return lines;
}

// Reads one `nvidia-smi topo -m` matrix: the header's columns, then one row per device, then the
// checks on the whole. Every error names the file, line and column.
class MatrixReader {
 public:
  MatrixReader(std::string_view text, const std::string& file)
      : lines_(split_lines(text)), file_(file) {}

  TopologyMatrix read() {
    find_header();
    read_header();
    check_gpus_first();
    const std::size_t n = m_.devices.size();
    if (n > kMaxTopologyDevices) {
      throw error(header_line_, device_column_[kMaxTopologyDevices], "header",
                  std::to_string(n) + " device columns; a matrix has at most " +
                      std::to_string(kMaxTopologyDevices) + " devices");
    }
    read_rows();
    check_symmetric();
    if (n == 0 || !is_gpu_label(m_.devices[0])) {
      throw error(header_line_, n == 0 ? 1 : device_column_[0], "header", "no GPU columns");
    }
    return std::move(m_);
  }

 private:
  InputError error(int line, int column, const std::string& field,
                   const std::string& message) const {
    return InputError(SourceLocation{file_, line, column}, field, message);
  }

  // The header: the first line whose first word is GPU<n> and whose second word is not X.
  void find_header() {
    header_ = lines_.size();
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      const auto tokens = tokenize(lines_[i]);
      if (!tokens.empty() && is_gpu_label(tokens[0].text) &&
          (tokens.size() == 1 || tokens[1].text != "X")) {
        header_ = i;
        break;
      }
    }
    if (header_ == lines_.size()) {
      throw error(
          1, 1, "header",
          "no `nvidia-smi topo -m` matrix found (expected a header line starting with GPU0)");
    }
    header_line_ = static_cast<int>(header_) + 1;
  }

  // The device columns, then the affinity columns (extras_).
  void read_header() {
    const auto tokens = tokenize(lines_[header_]);
    if (tokens.size() > kMaxTopologyDevices + 7) {  // + the 7 words of the affinity headers
      throw error(header_line_, tokens[kMaxTopologyDevices + 7].column, "header",
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
        extras_.push_back(Extra::kCpuAffinity);
        ++t;
      } else if (w == "NUMA" && next_is(1, "Affinity")) {
        extras_.push_back(Extra::kNumaAffinity);
        ++t;
      } else if (w == "GPU" && next_is(1, "NUMA") && next_is(2, "ID")) {
        extras_.push_back(Extra::kGpuNumaId);
        t += 2;
      } else if (!extras_.empty()) {
        throw error(header_line_, tokens[t].column, w,
                    "unexpected column '" + w + "' after the affinity columns");
      } else {
        if (!seen.insert(w).second) {
          throw error(header_line_, tokens[t].column, w, "device column '" + w + "' repeated");
        }
        m_.devices.push_back(w);
        device_column_.push_back(tokens[t].column);
      }
    }
  }

  // GPUs first, named GPU0, GPU1, ... in order.
  void check_gpus_first() const {
    std::size_t gpus = 0;
    while (gpus < m_.devices.size() && m_.devices[gpus] == "GPU" + std::to_string(gpus)) {
      ++gpus;
    }
    for (std::size_t i = gpus; i < m_.devices.size(); ++i) {
      if (m_.devices[i].rfind("GPU", 0) == 0) {
        throw error(header_line_, device_column_[i], m_.devices[i],
                    "GPU columns must come first, in order GPU0, GPU1, ...; found '" +
                        m_.devices[i] + "' at position " + std::to_string(i));
      }
    }
  }

  // One row per device, up to an empty line or the legend.
  void read_rows() {
    const std::size_t n = m_.devices.size();
    // Rows are allocated as they are read, so a wide header with no rows costs nothing.
    m_.cells.reserve(n);
    m_.cpu_affinity.assign(n, "");
    m_.numa_affinity.assign(n, -1);
    row_line_.assign(n, 0);
    cell_column_.reserve(n);
    std::size_t rows = 0;
    // Where the table ends: the start of the line that ends it, else just past the last line.
    int end_line = header_line_;
    int end_column = characters(lines_[header_]) + 1;
    for (std::size_t i = header_ + 1; i < lines_.size(); ++i) {
      const int line_no = static_cast<int>(i) + 1;
      const auto tokens = tokenize(lines_[i]);
      if (tokens.empty() || tokens[0].text.rfind("Legend", 0) == 0) {
        end_line = line_no;
        end_column = 1;
        break;  // end of the table; legends follow
      }
      end_line = line_no;
      end_column = characters(lines_[i]) + 1;
      if (rows == n) {
        throw error(line_no, tokens[0].column, tokens[0].text,
                    "more rows than the " + std::to_string(n) + " columns of the header");
      }
      read_row(rows, line_no, tokens);
      row_line_[rows] = line_no;
      ++rows;
    }
    if (rows < n) {
      throw error(end_line, end_column, m_.devices[rows],
                  "matrix ends after " + std::to_string(rows) + " rows; the header has " +
                      std::to_string(n) + " columns (missing the row of '" + m_.devices[rows] +
                      "')");
    }
  }

  // The row of device `r`: its label, its link cells, then its affinity cells.
  void read_row(std::size_t r, int line_no, const std::vector<Token>& tokens) {
    const std::size_t n = m_.devices.size();
    const std::string& device = m_.devices[r];
    if (tokens[0].text != device) {
      throw error(line_no, tokens[0].column, tokens[0].text,
                  "expected the row of '" + device + "', got '" + tokens[0].text + "'");
    }
    if (tokens.size() < n + 1) {
      throw error(
          line_no, column_after(tokens.back()), device,
          "row has " + std::to_string(tokens.size() - 1) + " cells, expected " + std::to_string(n));
    }
    if (tokens.size() > n + 1 + extras_.size()) {
      throw error(line_no, tokens[n + 1 + extras_.size()].column, device,
                  "row has " + std::to_string(tokens.size() - 1) + " cells, the header has " +
                      std::to_string(n + extras_.size()) + " columns");
    }
    std::vector<LinkCell>& row = m_.cells.emplace_back(n);
    std::vector<int>& columns = cell_column_.emplace_back(n);
    for (std::size_t j = 0; j < n; ++j) {
      row[j] = link_cell(r, j, line_no, tokens[j + 1]);
      columns[j] = tokens[j + 1].column;
    }
    for (std::size_t e = 0; e + n + 1 < tokens.size(); ++e) {
      read_extra(r, extras_[e], line_no, tokens[n + 1 + e]);
    }
  }

  // The cell of row `r`, column `j`: a known link type, X exactly on the diagonal, NVLink only
  // between GPUs.
  LinkCell link_cell(std::size_t r, std::size_t j, int line_no, const Token& cell) {
    const std::string& device = m_.devices[r];
    const auto type = parse_link_cell(cell.text, &m_.soc_spelling);
    if (!type) {
      throw error(line_no, cell.column, device + "/" + m_.devices[j],
                  "unknown connection '" + cell.text +
                      "' (expected X, NV#, PIX, PXB, PHB, NODE, SYS or SOC)");
    }
    if ((j == r) != (type->kind == LinkType::kSelf)) {
      throw error(line_no, cell.column, device + "/" + m_.devices[j],
                  j == r ? "the diagonal must be X" : "X off the diagonal");
    }
    if (type->is_nvlink() && (!is_gpu_label(device) || !is_gpu_label(m_.devices[j]))) {
      throw error(line_no, cell.column, device + "/" + m_.devices[j],
                  "NVLink is only modelled between GPUs");
    }
    return *type;
  }

  // An affinity cell of row `r` (GPU NUMA ID is read past and not kept).
  void read_extra(std::size_t r, Extra extra, int line_no, const Token& cell) {
    if (extra == Extra::kCpuAffinity) {
      m_.cpu_affinity[r] = cell.text == "N/A" ? "" : cell.text;
    } else if (extra == Extra::kNumaAffinity && cell.text != "N/A") {
      int numa = -1;
      const auto [end, ec] =
          std::from_chars(cell.text.data(), cell.text.data() + cell.text.size(), numa);
      if (ec != std::errc{} || end != cell.text.data() + cell.text.size() || numa < 0) {
        throw error(line_no, cell.column, m_.devices[r] + "/NUMA Affinity",
                    "expected a NUMA node number or N/A, got '" + cell.text + "'");
      }
      m_.numa_affinity[r] = numa;
    }
  }

  void check_symmetric() const {
    const std::size_t n = m_.devices.size();
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (!(m_.cells[i][j] == m_.cells[j][i])) {
          throw error(row_line_[i], cell_column_[i][j], m_.devices[i] + "/" + m_.devices[j],
                      "asymmetric matrix: " + m_.devices[i] + "->" + m_.devices[j] + " is " +
                          to_string(m_.cells[i][j]) + " but " + m_.devices[j] + "->" +
                          m_.devices[i] + " (line " + std::to_string(row_line_[j]) + ") is " +
                          to_string(m_.cells[j][i]));
        }
      }
    }
  }

  std::vector<std::string> lines_;
  const std::string& file_;
  std::size_t header_ = 0;
  int header_line_ = 0;
  TopologyMatrix m_;
  std::vector<Extra> extras_;
  std::vector<int> row_line_;                  // per device row, its line number
  std::vector<int> device_column_;             // per device, its header word's column
  std::vector<std::vector<int>> cell_column_;  // per device row, per device, its cell's column
};

}  // namespace

TopologyMatrix parse_nvidia_smi_matrix(std::string_view text, const std::string& file) {
  return MatrixReader(text, file).read();
}

Topology parse_nvidia_smi(std::string_view text, const std::string& file,
                          const TopologyParams& params) {
  return Topology(parse_nvidia_smi_matrix(text, file), params);
}

Topology load_nvidia_smi_file(const std::string& path, const TopologyParams& params) {
  return parse_nvidia_smi(read_text_file(path, "topology file"), path, params);
}

}  // namespace tidesim
