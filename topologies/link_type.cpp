#include "tidesim/topologies/link_type.hpp"

#include <charconv>

namespace tidesim {

std::string to_string(LinkCell cell, bool soc) {
  switch (cell.kind) {
    case LinkType::kSelf:
      return "X";
    case LinkType::kNVLink:
      return "NV" + std::to_string(cell.nvlinks);
    case LinkType::kPix:
      return "PIX";
    case LinkType::kPxb:
      return "PXB";
    case LinkType::kPhb:
      return "PHB";
    case LinkType::kNode:
      return "NODE";
    case LinkType::kSys:
      return soc ? "SOC" : "SYS";
  }
  return "?";
}

std::optional<LinkCell> parse_link_cell(std::string_view cell, bool* was_soc) {
  if (cell == "X") {
    return LinkCell{LinkType::kSelf, 0};
  }
  if (cell == "PIX") {
    return LinkCell{LinkType::kPix, 0};
  }
  if (cell == "PXB") {
    return LinkCell{LinkType::kPxb, 0};
  }
  if (cell == "PHB") {
    return LinkCell{LinkType::kPhb, 0};
  }
  if (cell == "NODE") {
    return LinkCell{LinkType::kNode, 0};
  }
  if (cell == "SYS" || cell == "SOC") {
    if (was_soc != nullptr && cell == "SOC") {
      *was_soc = true;
    }
    return LinkCell{LinkType::kSys, 0};
  }
  if (cell.size() > 2 && cell.substr(0, 2) == "NV") {
    int links = 0;
    const auto digits = cell.substr(2);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), links);
    if (ec == std::errc{} && end == digits.data() + digits.size() && links >= 1 && links <= 64) {
      return LinkCell{LinkType::kNVLink, links};
    }
  }
  return std::nullopt;
}

int pcie_rank(LinkType kind) {
  switch (kind) {
    case LinkType::kPix:
      return 1;
    case LinkType::kPxb:
      return 2;
    case LinkType::kPhb:
      return 3;
    case LinkType::kNode:
      return 4;
    case LinkType::kSys:
      return 5;
    case LinkType::kSelf:
    case LinkType::kNVLink:
      return 0;
  }
  return 0;
}

}  // namespace tidesim
