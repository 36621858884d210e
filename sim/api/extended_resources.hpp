#pragma once
/// The extended resources of a request or capacity (Resources::extended): a small map from a
/// resource name to an amount, iterated in name order like the std::map it replaces, but flat and
/// with each name interned to a small integer id (extended_resource_id) when it is inserted. Hot
/// loops (NodeResourcesFit's filter and scoring, over every node of every cycle) look an amount up
/// by id (amount(ExtendedResourceId)): a scan of a few integers instead of a search comparing
/// strings. Lookups by name (find, at, count, operator[]) behave as std::map's.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tidesim {

/// A resource name's id: the same for equal names within the process, assigned in order of
/// first use (its value means nothing else and never reaches an output).
using ExtendedResourceId = std::uint32_t;

/// The id of `name`; thread-safe.
ExtendedResourceId extended_resource_id(std::string_view name);

class ExtendedResources {
 public:
  using value_type = std::pair<std::string, std::int64_t>;
  using iterator = std::vector<value_type>::iterator;
  using const_iterator = std::vector<value_type>::const_iterator;

  ExtendedResources() = default;
  ExtendedResources(std::initializer_list<value_type> items);

  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  bool empty() const { return items_.empty(); }
  std::size_t size() const { return items_.size(); }
  void clear() {
    items_.clear();
    ids_.clear();
  }

  iterator find(std::string_view name);
  const_iterator find(std::string_view name) const;
  std::size_t count(std::string_view name) const { return find(name) == end() ? 0 : 1; }
  /// The amount of `name`; throws std::out_of_range when absent (as std::map::at).
  std::int64_t& at(std::string_view name);
  std::int64_t at(std::string_view name) const;
  /// The amount of `name`, inserted as 0 when absent.
  std::int64_t& operator[](std::string_view name);
  /// Inserts (name, value) unless `name` is there; as std::map::emplace.
  std::pair<iterator, bool> emplace(std::string_view name, std::int64_t value);
  /// Removes `name`; returns how many entries went (0 or 1).
  std::size_t erase(std::string_view name);

  /// The amount of the resource with id `id`, 0 when absent: the hot path's lookup.
  std::int64_t amount(ExtendedResourceId id) const {
    for (std::size_t i = 0; i < ids_.size(); ++i) {
      if (ids_[i] == id) {
        return items_[i].second;
      }
    }
    return 0;
  }
  /// The id of the entry at `it` (an iterator of this object).
  ExtendedResourceId id_at(const_iterator it) const {
    return ids_[static_cast<std::size_t>(it - items_.begin())];
  }
  /// The amount with id `id`, inserted as 0 under `name` (whose id it is) when absent.
  std::int64_t& slot(ExtendedResourceId id, std::string_view name);

  friend bool operator==(const ExtendedResources& a, const ExtendedResources& b) {
    return a.items_ == b.items_;
  }

 private:
  /// Where `name` is or would go in name order.
  std::size_t lower_bound(std::string_view name) const;
  std::int64_t& insert_at(std::size_t pos, std::string_view name, ExtendedResourceId id);

  /// Entries in name order (std::string's operator<, as std::map<std::string, ...> orders).
  std::vector<value_type> items_;
  /// extended_resource_id of each entry's name (same index).
  std::vector<ExtendedResourceId> ids_;
};

}  // namespace tidesim
