#include "tidesim/workloads/python_random.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <sstream>
#include <vector>

namespace tidesim::workloads {
namespace {

constexpr std::size_t kN = 624;

// init_genrand and init_by_array of Matsumoto and Nishimura's mt19937ar.c (2002), which CPython's
// _randommodule.c copies; the state is then handed to std::mt19937, whose textual form is its
// 624 words followed by the position (libstdc++: 624 means "regenerate before the next draw", as
// CPython's mti = N after seeding).
std::array<std::uint32_t, kN> init_by_array(const std::vector<std::uint32_t>& key) {
  std::array<std::uint32_t, kN> mt{};
  mt[0] = 19650218U;
  for (std::size_t i = 1; i < kN; ++i) {
    mt[i] = 1812433253U * (mt[i - 1] ^ (mt[i - 1] >> 30)) + static_cast<std::uint32_t>(i);
  }
  std::size_t i = 1;
  std::size_t j = 0;
  for (std::size_t k = std::max(kN, key.size()); k > 0; --k) {
    mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] +
            static_cast<std::uint32_t>(j);
    ++i;
    ++j;
    if (i >= kN) {
      mt[0] = mt[kN - 1];
      i = 1;
    }
    if (j >= key.size()) {
      j = 0;
    }
  }
  for (std::size_t k = kN - 1; k > 0; --k) {
    mt[i] =
        (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - static_cast<std::uint32_t>(i);
    ++i;
    if (i >= kN) {
      mt[0] = mt[kN - 1];
      i = 1;
    }
  }
  mt[0] = 0x80000000U;
  return mt;
}

}  // namespace

PythonRandom::PythonRandom(std::uint64_t seed) {
  std::vector<std::uint32_t> key;
  for (std::uint64_t n = seed; n != 0; n >>= 32) {
    key.push_back(static_cast<std::uint32_t>(n & 0xffffffffU));
  }
  if (key.empty()) {
    key.push_back(0);
  }
  std::stringstream state;
  for (const std::uint32_t w : init_by_array(key)) {
    state << w << ' ';
  }
  state << kN;
  state >> mt_;
}

double PythonRandom::random() {
  const std::uint32_t a = static_cast<std::uint32_t>(mt_()) >> 5;
  const std::uint32_t b = static_cast<std::uint32_t>(mt_()) >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

double PythonRandom::uniform(double a, double b) {
  return a + (b - a) * random();
}

std::uint32_t PythonRandom::getrandbits(int k) {
  return static_cast<std::uint32_t>(mt_()) >> (32 - k);
}

std::uint32_t PythonRandom::randbelow(std::uint32_t n) {
  const int k = std::bit_width(n);
  std::uint32_t r = getrandbits(k);
  while (r >= n) {
    r = getrandbits(k);
  }
  return r;
}

}  // namespace tidesim::workloads
