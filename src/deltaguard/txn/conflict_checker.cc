#include "deltaguard/txn/conflict_checker.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <set>
#include <string>

#include "deltaguard/protocol/protocol.h"
#include "deltaguard/util/json_bounded.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

namespace {

// Features whose concurrent enablement does not fail other transactions (Spark's
// failConcurrentTransactionsAtUpgrade == false; digest §1.6 step 1).
constexpr std::string_view kUpgradeSafeFeatures[] = {
    "appendOnly",           "changeDataFeed",    "columnMapping",       "timestampNtz",
    "deletionVectors",      "rowTracking",       "domainMetadata",      "icebergCompatV1",
    "icebergCompatV2",      "icebergCompatV3",   "v2Checkpoint",        "typeWidening",
    "typeWidening-preview", "inCommitTimestamp", "vacuumProtocolCheck",
};

bool IsUpgradeSafe(std::string_view feature) {
  for (std::string_view f : kUpgradeSafeFeatures) {
    if (EqualsIgnoreCase(f, feature)) return true;
  }
  return false;
}

bool ContainsIgnoreCase(const std::vector<std::string>& names, std::string_view name) {
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string& n) { return EqualsIgnoreCase(n, name); });
}

constexpr std::string_view kRetry = "Please try the operation again.";

Error Conflict(std::string message) {
  return Error{ErrorCode::kCommitConflict, std::move(message)};
}

Status CheckProtocol(const ConflictContext& ctx, const StagedActions& staged,
                     const WinningCommitSummary& w) {
  if (ctx.current_protocol == nullptr) {
    return Conflict(fmt::format(
        "DELTA_PROTOCOL_CHANGED: table '{}' already exists: it was created by a "
        "concurrent commit at version {} while this transaction was creating it. This "
        "happens when multiple writers write to an empty directory; create the table "
        "ahead of time to avoid it.",
        ctx.table_root, w.version));
  }
  if (!w.protocol) return OkStatus();
  if (!staged.protocol.empty()) {
    return Conflict(fmt::format(
        "DELTA_PROTOCOL_CHANGED: the protocol version of table '{}' was changed by a "
        "concurrent update at version {} while this transaction also changes it. {}",
        ctx.table_root, w.version, kRetry));
  }
  std::vector<std::string> before = EffectiveFeatures(*ctx.current_protocol);
  std::vector<std::string> after = EffectiveFeatures(*w.protocol);
  for (const std::string& f : before) {
    if (!ContainsIgnoreCase(after, f)) {
      return Conflict(
          fmt::format("DELTA_PROTOCOL_CHANGED: the protocol of table '{}' was changed by "
                      "a concurrent "
                      "update at version {}: table feature '{}' was removed. {}",
                      ctx.table_root, w.version, f, kRetry));
    }
  }
  for (const std::string& f : after) {
    if (!ContainsIgnoreCase(before, f) && !IsUpgradeSafe(f)) {
      return Conflict(
          fmt::format("DELTA_PROTOCOL_CHANGED: the protocol of table '{}' was changed by "
                      "a concurrent "
                      "update at version {}: table feature '{}' was added. {}",
                      ctx.table_root, w.version, f, kRetry));
    }
  }
  Status readable = CheckReadSupported(*w.protocol, ctx.table_root);
  if (!readable) {
    return WithContext(
        readable.error(),
        fmt::format("concurrent commit {} upgraded the protocol", w.version));
  }
  return OkStatus();
}

Status CheckMetadata(const ConflictContext& ctx, const WinningCommitSummary& w) {
  if (!w.metadata) return OkStatus();
  return Conflict(fmt::format(
      "DELTA_METADATA_CHANGED: the metadata of table '{}' was changed by a concurrent "
      "update at version {} (schema, partitioning or table properties). {}",
      ctx.table_root, w.version, kRetry));
}

Status CheckDomains(const ConflictContext& ctx, const StagedActions& staged,
                    const WinningCommitSummary& w) {
  for (const DomainMetadata* d : w.domains) {
    for (const DomainMetadata& mine : staged.domains) {
      if (mine.domain == d->domain) {
        return Conflict(fmt::format(
            "DELTA_CONCURRENT_TRANSACTION: metadata domain '{}' of table '{}' was "
            "changed "
            "by a concurrent update at version {} while this transaction also changes "
            "it. {}",
            d->domain, ctx.table_root, w.version, kRetry));
      }
    }
  }
  return OkStatus();
}

Status CheckAppTransactions(const ConflictContext& ctx, const StagedActions& staged,
                            const ReadScope& read, const WinningCommitSummary& w) {
  for (const SetTransaction* t : w.txns) {
    bool depends = read.app_ids.count(t->app_id) > 0;
    for (const SetTransaction& mine : staged.txns) {
      if (mine.app_id == t->app_id && t->version >= mine.version) depends = true;
    }
    if (depends) {
      return Conflict(fmt::format(
          "DELTA_CONCURRENT_TRANSACTION: application '{}' recorded its transaction "
          "version {} in table '{}' in a concurrent update at version {}; this "
          "transaction depends on that application's state. {}",
          t->app_id, t->version, ctx.table_root, w.version, kRetry));
    }
  }
  return OkStatus();
}

Status CheckRowTracking(const ConflictContext& ctx, const StagedActions& staged,
                        const WinningCommitSummary& w) {
  for (const AddFile& a : staged.adds) {
    if (a.base_row_id || a.default_row_commit_version) {
      return Conflict(fmt::format(
          "DELTA_CONCURRENT_TRANSACTION: file '{}' carries row tracking ids that "
          "deltaguard cannot reassign over a concurrent update at version {} of table "
          "'{}'. {}",
          a.path, w.version, ctx.table_root, kRetry));
    }
  }
  return OkStatus();
}

Status CheckConcurrentAppends(const ConflictContext& ctx, const StagedActions& staged,
                              const ReadScope& read, const WinningCommitSummary& w) {
  if (ctx.isolation == IsolationLevel::kSnapshotIsolation) return OkStatus();
  if (ctx.isolation == IsolationLevel::kWriteSerializable && w.is_blind_append &&
      staged.metadata.empty()) {
    return OkStatus();
  }
  for (const AddFile* a : w.adds) {
    if (!a->data_change || !read.CoversPartition(a->partition_values)) continue;
    std::string where = a->partition_values.empty() || read.whole_table
                            ? std::string("the root of the table")
                            : "partition " + FormatPartitionValues(a->partition_values);
    return Conflict(fmt::format(
        "DELTA_CONCURRENT_APPEND: files were added to {} of table '{}' by a concurrent "
        "update at version {} (for example '{}'). {}",
        where, ctx.table_root, w.version, a->path, kRetry));
  }
  return OkStatus();
}

// Partition values of a removed file: its own, else those of the live file in the read
// snapshot; nullopt when unknown.
std::optional<PartitionValues> RemovedPartition(const ConflictContext& ctx,
                                                const RemoveFile& r) {
  if (r.partition_values) return r.partition_values;
  if (ctx.read_snapshot == nullptr) return std::nullopt;
  const auto& files = ctx.read_snapshot->files();
  auto it =
      std::lower_bound(files.begin(), files.end(), r.path,
                       [](const AddFile& f, const std::string& p) { return f.path < p; });
  if (it != files.end() && it->path == r.path) return it->partition_values;
  return std::nullopt;
}

Status CheckConcurrentDeletes(const ConflictContext& ctx, const StagedActions& staged,
                              const ReadScope& read, const WinningCommitSummary& w) {
  for (const RemoveFile* r : w.removes) {
    bool overlaps = read.whole_table || read.files.count(r->path) > 0;
    if (!overlaps && !read.partition_predicates.empty()) {
      std::optional<PartitionValues> pv = RemovedPartition(ctx, *r);
      // Unknown partition: assume it was read rather than risk a lost update.
      overlaps = !pv || read.CoversPartition(*pv);
    }
    if (overlaps) {
      return Conflict(fmt::format(
          "DELTA_CONCURRENT_DELETE_READ: this transaction read file '{}' of table '{}', "
          "which a concurrent update at version {} deleted. {}",
          r->path, ctx.table_root, w.version, kRetry));
    }
  }
  for (const RemoveFile* r : w.removes) {
    for (const RemoveFile& mine : staged.removes) {
      if (mine.path == r->path) {
        return Conflict(fmt::format(
            "DELTA_CONCURRENT_DELETE_DELETE: this transaction deletes file '{}' of table "
            "'{}', which a concurrent update at version {} already deleted. {}",
            r->path, ctx.table_root, w.version, kRetry));
      }
    }
  }
  return OkStatus();
}

bool ReadIsBlindAppend(const CommitInfo& ci) {
  rapidjson::Document doc;
  if (ParseBoundedJson(ci.raw_json, &doc) != JsonParseOutcome::kOk || !doc.IsObject()) {
    return false;
  }
  auto it = doc.FindMember("isBlindAppend");
  return it != doc.MemberEnd() && it->value.IsBool() && it->value.GetBool();
}

}  // namespace

std::string FormatPartitionValues(const PartitionValues& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += values[i].first + "=" + values[i].second.value_or("null");
  }
  return out + "]";
}

WinningCommitSummary SummarizeWinningCommit(const WinningCommit& winner) {
  WinningCommitSummary s;
  s.version = winner.version;
  for (const Action& a : winner.actions) {
    if (const auto* add = std::get_if<AddFile>(&a)) {
      s.adds.push_back(add);
    } else if (const auto* rm = std::get_if<RemoveFile>(&a)) {
      s.removes.push_back(rm);
    } else if (const auto* m = std::get_if<Metadata>(&a)) {
      s.metadata = *m;
    } else if (const auto* p = std::get_if<Protocol>(&a)) {
      s.protocol = *p;
    } else if (const auto* t = std::get_if<SetTransaction>(&a)) {
      s.txns.push_back(t);
    } else if (const auto* d = std::get_if<DomainMetadata>(&a)) {
      s.domains.push_back(d);
    } else if (const auto* ci = std::get_if<CommitInfo>(&a)) {
      s.in_commit_timestamp = ci->in_commit_timestamp;
      s.is_blind_append = ReadIsBlindAppend(*ci);
    }
  }
  return s;
}

Status CheckWinningCommit(const ConflictContext& ctx, const StagedActions& staged,
                          const ReadScope& read, const WinningCommitSummary& winner) {
  DELTA_RETURN_IF_ERROR(CheckProtocol(ctx, staged, winner));
  DELTA_RETURN_IF_ERROR(CheckMetadata(ctx, winner));
  DELTA_RETURN_IF_ERROR(CheckDomains(ctx, staged, winner));
  DELTA_RETURN_IF_ERROR(CheckAppTransactions(ctx, staged, read, winner));
  DELTA_RETURN_IF_ERROR(CheckRowTracking(ctx, staged, winner));
  DELTA_RETURN_IF_ERROR(CheckConcurrentAppends(ctx, staged, read, winner));
  DELTA_RETURN_IF_ERROR(CheckConcurrentDeletes(ctx, staged, read, winner));
  return OkStatus();
}

}  // namespace deltaguard
