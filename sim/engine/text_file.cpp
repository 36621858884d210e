#include "sim/engine/text_file.hpp"

#include <fstream>
#include <sstream>

#include "sim/engine/error.hpp"

namespace tidesim {

std::string read_text_file(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(SourceLocation{path, 0, 0}, "", "cannot open " + std::string(what));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace tidesim
