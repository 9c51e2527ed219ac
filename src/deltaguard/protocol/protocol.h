/// \file deltaguard/protocol/protocol.h
/// The `protocol` action (PROTOCOL.md "Protocol Evolution") as a plain value, reader
/// gating, and feature queries that account for legacy versions (digest §4.0).
///
/// Defined here rather than in log/actions.h so that gating lives below the log layer;
/// log/actions.h re-exports it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deltaguard/util/result.h"

namespace deltaguard {

struct Protocol {
  int32_t min_reader_version = 1;
  int32_t min_writer_version = 2;
  std::optional<std::vector<std::string>> reader_features;
  std::optional<std::vector<std::string>> writer_features;
};

/// Reader gating (digest §1.5 step 5, §6.8): fail unless this build can read a table with
/// `protocol`. Checks, in order:
///  - minReaderVersion in 1..3, else kUnsupportedFeature naming the version (> 3) or
///    kCorruptLog (< 1);
///  - reader version 3 carries a readerFeatures list, else kCorruptLog;
///  - every reader feature (case-insensitive) is known and readable, else
///    kUnsupportedFeature "table '<root>' requires reader feature 'x' which deltaguard
///    does not support".
/// Writer features, known or not, never fail reading.
Status CheckReadSupported(const Protocol& protocol, std::string_view table_root);

/// True when the table's protocol includes `feature` (case-insensitive): listed in
/// readerFeatures/writerFeatures, or implied by legacy versions (reader 2 ⇒
/// columnMapping; writer 2 ⇒ appendOnly, invariants; 3 ⇒ checkConstraints; 4 ⇒
/// changeDataFeed, generatedColumns; 5 ⇒ columnMapping; 6 ⇒ identityColumns). Legacy
/// versions imply nothing once the explicit lists are in use (writer 7 / reader 3).
/// "Supported" is not "active": see the feature's table property.
bool IsFeatureSupported(const Protocol& protocol, std::string_view feature);

/// The table's effective features (for `describe`): legacy-implied features plus both
/// explicit lists, deduplicated case-insensitively; known features first in their
/// canonical spelling and table order, then unknown names as written.
std::vector<std::string> EffectiveFeatures(const Protocol& protocol);

}  // namespace deltaguard
