#include "tidesim/topologies/storage.hpp"

#include <algorithm>
#include <stdexcept>

#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim {

StorageDevice default_nvme(std::string name) {
  return StorageDevice{
      .name = std::move(name), .bandwidth = 7e9, .service_time = Duration{150}, .shared = false};
}

double storage_await_ms(const StorageDevice& device, double utilisation, double cap_ms) {
  if (!(cap_ms > 0.0)) {
    throw std::invalid_argument("storage_await_ms: cap must be > 0");
  }
  const double u = std::clamp(utilisation, 0.0, 1.0);
  if (u >= 1.0) {
    return cap_ms;
  }
  const double service_ms = to_seconds(device.service_time) * 1e3;
  return std::min(cap_ms, service_ms / (1.0 - u));
}

StorageDevice parse_storage_device(const ConfigNode& node, const std::string& file,
                                   const std::string& path) {
  Fields f(node, file, path);
  StorageDevice d;
  d.name = f.string("name");
  if (d.name.empty()) {
    throw f.error(f.get("name"), "name", "must not be empty");
  }
  d.bandwidth = f.bandwidth("bandwidth", std::nullopt);
  if (!(d.bandwidth > 0.0)) {
    throw f.error(f.get("bandwidth"), "bandwidth", "must be > 0");
  }
  d.service_time = f.duration("service_time", std::nullopt);
  if (d.service_time <= Duration::zero()) {
    throw f.error(f.get("service_time"), "service_time", "must be > 0");
  }
  d.shared = f.choice("scope", std::string("node"), {"node", "shared"}) == "shared";
  f.finish();
  return d;
}

}  // namespace tidesim
