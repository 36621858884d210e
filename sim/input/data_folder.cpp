#include "tidesim/sim/input/data_folder.hpp"

#include <cstdlib>
#include <filesystem>

namespace tidesim {

namespace fs = std::filesystem;

std::string data_folder() {
  if (const char* v = std::getenv("TIDESIM_DATA"); v != nullptr && *v != '\0') {
    return fs::path(v).lexically_normal().string();
  }
  return (fs::path(TIDESIM_SOURCE_DIR) / ".." / "shared" / "data").lexically_normal().string();
}

std::string input_path(const std::string& folder, const std::string& path) {
  const std::string_view p(path);
  if (p.starts_with(kDataFolderVariable)) {
    const std::string_view rest = p.substr(kDataFolderVariable.size());
    if (rest.empty()) {
      return data_folder();
    }
    if (rest.front() == '/') {
      return (fs::path(data_folder()) / rest.substr(1)).lexically_normal().string();
    }
  }
  if (fs::path(path).is_absolute() || folder.empty()) {
    return path;
  }
  return (fs::path(folder) / path).lexically_normal().string();
}

}  // namespace tidesim
