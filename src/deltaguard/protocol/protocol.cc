#include "deltaguard/protocol/protocol.h"

#include "deltaguard/protocol/metadata.h"
#include "deltaguard/protocol/table_feature.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {

bool ListContains(const std::optional<std::vector<std::string>>& list,
                  std::string_view name) {
  if (!list) return false;
  for (const std::string& f : *list) {
    if (EqualsIgnoreCase(f, name)) return true;
  }
  return false;
}

// Implied by legacy versions: only while the explicit lists are not in use.
bool ImpliedByLegacyVersions(const Protocol& p, const FeatureInfo& f) {
  bool writer_legacy = p.min_writer_version < kTableFeaturesWriterVersion;
  bool reader_legacy = p.min_reader_version < kTableFeaturesReaderVersion;
  if (f.kind == FeatureKind::kWriterOnly) {
    return writer_legacy && f.legacy_writer_version != 0 &&
           p.min_writer_version >= f.legacy_writer_version;
  }
  // Reader+writer: the legacy reader version suffices for reading (reader 2 + writer 7
  // is the legal "legacy columnMapping" combination), the writer version for writing.
  if (f.legacy_reader_version == 0) return false;
  if (reader_legacy && p.min_reader_version >= f.legacy_reader_version) return true;
  return writer_legacy && p.min_writer_version >= f.legacy_writer_version &&
         p.min_reader_version >= f.legacy_reader_version;
}

}  // namespace

Status CheckReadSupported(const Protocol& protocol, std::string_view table_root) {
  int32_t rv = protocol.min_reader_version;
  if (rv < 1) {
    return MakeError(ErrorCode::kCorruptLog,
                     "table '{}': protocol has invalid minReaderVersion {}", table_root,
                     rv);
  }
  if (rv > kMaxSupportedReaderVersion) {
    return MakeError(ErrorCode::kUnsupportedFeature,
                     "table '{}' requires reader version {} which deltaguard does not "
                     "support (supported: 1 to {})",
                     table_root, rv, kMaxSupportedReaderVersion);
  }
  if (protocol.min_writer_version < 1) {
    return MakeError(ErrorCode::kCorruptLog,
                     "table '{}': protocol has invalid minWriterVersion {}", table_root,
                     protocol.min_writer_version);
  }
  if (rv < kTableFeaturesReaderVersion) return OkStatus();
  if (!protocol.reader_features) {
    return MakeError(ErrorCode::kCorruptLog,
                     "table '{}': protocol has minReaderVersion 3 but no readerFeatures",
                     table_root);
  }
  for (const std::string& name : *protocol.reader_features) {
    const FeatureInfo* info = FindTableFeature(name);
    if (info == nullptr || !info->read_supported) {
      return MakeError(
          ErrorCode::kUnsupportedFeature,
          "table '{}' requires reader feature '{}' which deltaguard does not "
          "support",
          table_root, name);
    }
  }
  return OkStatus();
}

bool IsFeatureSupported(const Protocol& protocol, std::string_view feature) {
  if (ListContains(protocol.reader_features, feature) ||
      ListContains(protocol.writer_features, feature)) {
    return true;
  }
  const FeatureInfo* info = FindTableFeature(feature);
  return info != nullptr && ImpliedByLegacyVersions(protocol, *info);
}

std::vector<std::string> EffectiveFeatures(const Protocol& protocol) {
  std::vector<std::string> out;
  for (const FeatureInfo& f : kTableFeatures) {
    if (IsFeatureSupported(protocol, f.name)) out.emplace_back(f.name);
  }
  auto add_unknown = [&](const std::optional<std::vector<std::string>>& list) {
    if (!list) return;
    for (const std::string& name : *list) {
      if (FindTableFeature(name) != nullptr) continue;
      bool seen = false;
      for (const std::string& o : out) seen = seen || EqualsIgnoreCase(o, name);
      if (!seen) out.push_back(name);
    }
  };
  add_unknown(protocol.reader_features);
  add_unknown(protocol.writer_features);
  return out;
}

}  // namespace deltaguard
