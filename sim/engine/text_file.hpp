#pragma once
/// Reading a whole input file as text, with the error every reader of user files gives.
#include <string>
#include <string_view>

namespace tidesim {

/// The contents of `path`. Throws InputError "PATH: cannot open WHAT" when it cannot be read.
std::string read_text_file(const std::string& path, std::string_view what = "file");

}  // namespace tidesim
