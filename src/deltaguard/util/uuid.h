/// \file deltaguard/util/uuid.h
/// Random (version 4, RFC 4122) UUIDs: table ids, commit txnIds, data-file and
/// checkpoint names.
#pragma once

#include <string>

namespace deltaguard {

/// "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx", lower-case hex; thread-safe.
std::string GenerateUuidV4();

}  // namespace deltaguard
