#include "tidesim/sim/api/extended_resources.hpp"

#include <mutex>
#include <stdexcept>
#include <unordered_map>

namespace tidesim {

ExtendedResourceId extended_resource_id(std::string_view name) {
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  static std::mutex mutex;
  static std::unordered_map<std::string, ExtendedResourceId, Hash, std::equal_to<>> ids;
  const std::lock_guard lock(mutex);
  const auto it = ids.find(name);
  if (it != ids.end()) {
    return it->second;
  }
  const auto id = static_cast<ExtendedResourceId>(ids.size());
  ids.emplace(std::string(name), id);
  return id;
}

ExtendedResources::ExtendedResources(std::initializer_list<value_type> items) {
  for (const auto& [name, value] : items) {
    emplace(name, value);
  }
}

std::size_t ExtendedResources::lower_bound(std::string_view name) const {
  std::size_t lo = 0;
  std::size_t hi = items_.size();
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (std::string_view(items_[mid].first) < name) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

ExtendedResources::iterator ExtendedResources::find(std::string_view name) {
  const std::size_t pos = lower_bound(name);
  return pos < items_.size() && items_[pos].first == name ? items_.begin() + pos : items_.end();
}

ExtendedResources::const_iterator ExtendedResources::find(std::string_view name) const {
  const std::size_t pos = lower_bound(name);
  return pos < items_.size() && items_[pos].first == name ? items_.begin() + pos : items_.end();
}

std::int64_t& ExtendedResources::at(std::string_view name) {
  const auto it = find(name);
  if (it == end()) {
    throw std::out_of_range("no extended resource '" + std::string(name) + "'");
  }
  return it->second;
}

std::int64_t ExtendedResources::at(std::string_view name) const {
  const auto it = find(name);
  if (it == end()) {
    throw std::out_of_range("no extended resource '" + std::string(name) + "'");
  }
  return it->second;
}

std::int64_t& ExtendedResources::insert_at(std::size_t pos, std::string_view name,
                                           ExtendedResourceId id) {
  const auto at = static_cast<std::ptrdiff_t>(pos);
  ids_.insert(ids_.begin() + at, id);
  return items_.insert(items_.begin() + at, value_type(std::string(name), 0))->second;
}

std::int64_t& ExtendedResources::operator[](std::string_view name) {
  const std::size_t pos = lower_bound(name);
  if (pos < items_.size() && items_[pos].first == name) {
    return items_[pos].second;
  }
  return insert_at(pos, name, extended_resource_id(name));
}

std::int64_t& ExtendedResources::slot(ExtendedResourceId id, std::string_view name) {
  for (std::size_t i = 0; i < ids_.size(); ++i) {
    if (ids_[i] == id) {
      return items_[i].second;
    }
  }
  return insert_at(lower_bound(name), name, id);
}

std::pair<ExtendedResources::iterator, bool> ExtendedResources::emplace(std::string_view name,
                                                                        std::int64_t value) {
  const std::size_t pos = lower_bound(name);
  if (pos < items_.size() && items_[pos].first == name) {
    return {items_.begin() + static_cast<std::ptrdiff_t>(pos), false};
  }
  insert_at(pos, name, extended_resource_id(name)) = value;
  return {items_.begin() + static_cast<std::ptrdiff_t>(pos), true};
}

std::size_t ExtendedResources::erase(std::string_view name) {
  const std::size_t pos = lower_bound(name);
  if (pos >= items_.size() || items_[pos].first != name) {
    return 0;
  }
  items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(pos));
  ids_.erase(ids_.begin() + static_cast<std::ptrdiff_t>(pos));
  return 1;
}

}  // namespace tidesim
