#pragma once
/// Reading a whole input file as text, with the error every reader of user files gives.
#include <cstdint>
#include <string>
#include <string_view>

namespace tidesim {

/// The largest input file read: 1 GiB (the largest shipped trace is a few MB).
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{1} << 30;

/// The contents of `path`, without a leading UTF-8 byte order mark. Throws InputError naming
/// `path` when it is a directory, cannot be opened (with the system's reason: no such file, file
/// name too long, ...) or read, is larger than kMaxInputFileBytes, or is not UTF-8 text (then
/// with the line and column of the first bad byte). `what` names the file in messages.
std::string read_text_file(const std::string& path, std::string_view what = "file");

/// Throws InputError "PATH:LINE:COLUMN: not UTF-8 text (byte 0xNN)..." at the first byte of
/// `text` that does not begin a valid UTF-8 sequence (columns count characters).
void check_utf8(std::string_view text, const std::string& path);

}  // namespace tidesim
