#include "tests/fuzz/harness.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace tidesim::fuzz {
namespace {

// The private folder: made with mkdtemp, removed by the destructor at normal exit (a crash leaves
// it behind, with the input that crashed, in the temp directory).
class InputFolder {
 public:
  InputFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tidesim-fuzz-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("fuzz harness: cannot create a folder from " + pattern);
    }
    path_ = pattern;
  }
  ~InputFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  InputFolder(const InputFolder&) = delete;
  InputFolder& operator=(const InputFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace

std::filesystem::path write_input(std::string_view name, const std::uint8_t* data,
                                  std::size_t size) {
  static const InputFolder folder;
  const std::filesystem::path path = folder.path() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    throw std::runtime_error("fuzz harness: cannot write " + path.string());
  }
  return path;
}

}  // namespace tidesim::fuzz
