#include "tidesim/sim/input/sha256.hpp"

#include <openssl/evp.h>

#include <stdexcept>

#include <fmt/core.h>

namespace tidesim {

std::string sha256_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 failed (OpenSSL)");
  }
  std::string out = "sha256:";
  for (unsigned int i = 0; i < size; ++i) {
    out += fmt::format("{:02x}", digest[i]);
  }
  return out;
}

}  // namespace tidesim
