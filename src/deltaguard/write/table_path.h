/// \file deltaguard/write/table_path.h
/// The normalized table directory of a user-given location, shared by every path that
/// opens a table to write it (table/ re-exports it through table/table.h).
#pragma once

#include <string>

#include "deltaguard/util/result.h"

namespace deltaguard {

/// The absolute, normalized local directory for a user-given table location: relative
/// paths are resolved against the working directory, `file:` URIs are decoded
/// (`file:///a%20b` -> `/a b`), trailing slashes dropped. Other URI schemes are
/// kInvalidArgument.
Result<std::string> NormalizeTablePath(const std::string& path);

}  // namespace deltaguard
