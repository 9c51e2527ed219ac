#include "deltaguard/txn/transaction.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "deltaguard/log/log_path.h"
#include "deltaguard/protocol/protocol.h"
#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/txn/conflict_checker.h"
#include "deltaguard/util/uuid.h"

namespace deltaguard {

// What changes from one commit attempt to the next.
struct Transaction::Attempt {
  int64_t version = 0;  // the version this attempt writes
  int number = 0;       // 1-based
  IsolationLevel isolation = IsolationLevel::kSerializable;
  bool is_blind_append = false;
  // The table's protocol at version - 1; nullopt while the table does not exist.
  std::optional<Protocol> protocol;
  // The timestamp of version - 1 (in-commit timestamp, else file modification time).
  std::optional<int64_t> previous_timestamp;
  bool ict_enabled = false;
  std::string commit_info_json;
};

namespace {

int64_t SystemClockMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void SetConfig(StringMap* config, std::string_view key, std::string value) {
  for (auto& [k, v] : *config) {
    if (EqualsIgnoreCase(k, key)) {
      v = std::move(value);
      return;
    }
  }
  config->emplace_back(std::string(key), std::move(value));
}

}  // namespace

Result<std::unique_ptr<Transaction>> Transaction::Begin(FileSystemRef fs,
                                                        std::string table_root,
                                                        SnapshotRef read_snapshot,
                                                        TransactionOptions options) {
  if (fs == nullptr) {
    return MakeError(ErrorCode::kInvalidArgument, "transaction needs a file system");
  }
  std::string root = NormalizeTableRoot(table_root);
  if (root.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "transaction needs a table root");
  }
  if (options.max_attempts < 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "table '{}': max_attempts must be >= 1, got {}", root,
                     options.max_attempts);
  }
  if (!options.clock_ms) options.clock_ms = SystemClockMs;
  std::unique_ptr<Transaction> txn(new Transaction());
  if (read_snapshot) {
    std::optional<std::string> level =
        read_snapshot->metadata().GetConfig("delta.isolationLevel");
    if (level) {
      Result<IsolationLevel> parsed = ParseIsolationLevel(*level);
      if (!parsed) {
        return WithContext(std::move(parsed).error(), fmt::format("table '{}'", root));
      }
      txn->table_isolation_ = *parsed;
    }
  }
  txn->fs_ = std::move(fs);
  txn->log_dir_ = LogDirOf(root);
  txn->table_root_ = std::move(root);
  txn->snapshot_ = std::move(read_snapshot);
  txn->options_ = std::move(options);
  txn->txn_id_ = GenerateUuidV4();
  return txn;
}

void Transaction::SetMetadata(Metadata m) { staged_.metadata.push_back(std::move(m)); }
void Transaction::SetProtocol(Protocol p) { staged_.protocol.push_back(std::move(p)); }
void Transaction::AddFile(deltaguard::AddFile a) { staged_.adds.push_back(std::move(a)); }
void Transaction::RemoveFile(deltaguard::RemoveFile r) {
  staged_.removes.push_back(std::move(r));
}
void Transaction::SetAppTransaction(std::string app_id, int64_t version) {
  staged_.txns.push_back(SetTransaction{std::move(app_id), version, options_.clock_ms()});
}
void Transaction::AddDomainMetadata(DomainMetadata d) {
  staged_.domains.push_back(std::move(d));
}

void Transaction::ReadWholeTable() { read_.whole_table = true; }
void Transaction::ReadFiles(std::vector<std::string> paths) {
  for (std::string& p : paths) read_.files.insert(std::move(p));
}
void Transaction::ReadPartitions(std::function<bool(const PartitionValues&)> pred) {
  if (pred) read_.partition_predicates.push_back(std::move(pred));
}

std::optional<int64_t> Transaction::AppTransactionVersion(std::string_view app_id) const {
  read_.app_ids.insert(std::string(app_id));
  if (!snapshot_) return std::nullopt;
  auto it = snapshot_->transactions().find(std::string(app_id));
  if (it == snapshot_->transactions().end()) return std::nullopt;
  return it->second.version;
}

Status Transaction::CheckInCommitTimestampSupport() const {
  const Metadata& metadata =
      staged_.metadata.empty() ? snapshot_->metadata() : staged_.metadata.front();
  Result<InCommitTimestampConfig> ict = GetInCommitTimestampConfig(metadata);
  if (!ict)
    return WithContext(std::move(ict).error(), fmt::format("table '{}'", table_root_));
  if (!ict->enabled) return OkStatus();
  const Protocol& protocol =
      staged_.protocol.empty() ? snapshot_->protocol() : staged_.protocol.front();
  if (!IsFeatureSupported(protocol, "inCommitTimestamp")) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "table '{}': {}=true needs the 'inCommitTimestamp' writer feature, "
                     "but the protocol (reader {}, writer {}) does not list it",
                     table_root_, kEnableInCommitTimestampsProperty,
                     protocol.min_reader_version, protocol.min_writer_version);
  }
  return OkStatus();
}

Result<std::string> Transaction::BuildCommitFile(const OperationInfo& op,
                                                 Attempt* attempt) {
  int64_t now = options_.clock_ms();
  const Metadata& metadata =
      staged_.metadata.empty() ? snapshot_->metadata() : staged_.metadata.front();
  DELTA_ASSIGN_OR_RETURN(InCommitTimestampConfig ict,
                         GetInCommitTimestampConfig(metadata));
  attempt->ict_enabled = ict.enabled;
  CommitInfoFields fields;
  fields.timestamp_ms = now;
  if (ict.enabled) {
    // PROTOCOL.md "In-Commit Timestamps": strictly greater than the previous commit's
    // timestamp (its ICT, or its file modification time before enablement).
    int64_t ts = attempt->previous_timestamp
                     ? std::max(now, *attempt->previous_timestamp + 1)
                     : now;
    fields.in_commit_timestamp = ts;
    fields.timestamp_ms = ts;
    bool was_enabled = false;
    if (snapshot_) {
      DELTA_ASSIGN_OR_RETURN(InCommitTimestampConfig before,
                             GetInCommitTimestampConfig(snapshot_->metadata()));
      was_enabled = before.enabled;
    }
    if (snapshot_ && !was_enabled) {
      // Enabled by this commit on an existing table: record where ICT starts. Enabling
      // changes delta.enableInCommitTimestamps, so metaData is staged.
      Metadata& staged = staged_.metadata.front();
      SetConfig(&staged.configuration, kInCommitTimestampEnablementVersionProperty,
                std::to_string(attempt->version));
      SetConfig(&staged.configuration, kInCommitTimestampEnablementTimestampProperty,
                std::to_string(ts));
    }
  }
  if (snapshot_) fields.read_version = snapshot_->version();
  fields.isolation_level = attempt->isolation;
  fields.is_blind_append = attempt->is_blind_append;
  fields.engine_info = options_.engine_info;
  fields.txn_id = txn_id_;
  attempt->commit_info_json = BuildCommitInfoJson(op, fields);

  std::string out;
  auto line = [&out](const Action& a) {
    out += ActionToJson(a);
    out += '\n';
  };
  CommitInfo ci;
  ci.raw_json = attempt->commit_info_json;
  line(ci);
  for (const Protocol& p : staged_.protocol) line(p);
  for (const Metadata& m : staged_.metadata) line(m);
  for (const SetTransaction& t : staged_.txns) line(t);
  for (const DomainMetadata& d : staged_.domains) line(d);
  for (const deltaguard::RemoveFile& r : staged_.removes) line(r);
  for (const deltaguard::AddFile& a : staged_.adds) line(a);
  return out;
}

Result<std::vector<int64_t>> Transaction::RebaseOverWinners(Attempt* attempt) {
  std::vector<int64_t> winners;
  int64_t v = attempt->version;
  for (;; ++v) {
    std::string path = JoinPath(log_dir_, CommitFileName(v));
    Result<std::string> content = fs_->ReadFile(path);
    if (!content) {
      if (content.error().code == ErrorCode::kNotFound && v > attempt->version) break;
      return WithContext(
          std::move(content).error(),
          fmt::format("table '{}': reading concurrent commit {}", table_root_, v));
    }
    DELTA_ASSIGN_OR_RETURN(std::vector<Action> actions, ParseCommitFile(*content, path));
    WinningCommit winner{v, std::move(actions)};
    WinningCommitSummary summary = SummarizeWinningCommit(winner);
    ConflictContext ctx;
    ctx.table_root = table_root_;
    ctx.isolation = attempt->isolation;
    ctx.current_protocol = attempt->protocol ? &*attempt->protocol : nullptr;
    ctx.read_snapshot = snapshot_.get();
    DELTA_RETURN_IF_ERROR(CheckWinningCommit(ctx, staged_, read_, summary));
    if (summary.protocol) attempt->protocol = summary.protocol;
    if (summary.in_commit_timestamp) {
      attempt->previous_timestamp = summary.in_commit_timestamp;
    } else if (attempt->ict_enabled) {
      DELTA_ASSIGN_OR_RETURN(FileInfo info, fs_->Stat(path));
      attempt->previous_timestamp = info.modification_time;
    }
    winners.push_back(v);
  }
  attempt->version = v;
  return winners;
}

Result<CommitResult> Transaction::Commit(const OperationInfo& op) {
  if (committed_) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "table '{}': this transaction was already committed (or its commit "
                     "failed); start a new transaction",
                     table_root_);
  }
  committed_ = true;
  DELTA_RETURN_IF_ERROR(ValidateOperationInfo(op));
  DELTA_RETURN_IF_ERROR(ValidateStagedActions(staged_, snapshot_.get(), table_root_));
  DELTA_RETURN_IF_ERROR(CheckInCommitTimestampSupport());

  Attempt attempt;
  attempt.version = read_version() + 1;
  attempt.isolation = EffectiveIsolationLevel(staged_, table_isolation_);
  attempt.is_blind_append = IsBlindAppend(staged_, read_);
  if (snapshot_) {
    attempt.protocol = snapshot_->protocol();
    attempt.previous_timestamp = snapshot_->timestamp_ms();
  } else {
    DELTA_RETURN_IF_ERROR(fs_->CreateDirs(log_dir_));
  }

  CommitResult result;
  for (attempt.number = 1;; ++attempt.number) {
    DELTA_ASSIGN_OR_RETURN(std::string content, BuildCommitFile(op, &attempt));
    std::string path = JoinPath(log_dir_, CommitFileName(attempt.version));
    Status put = fs_->PutIfAbsent(path, content);
    if (put) {
      result.version = attempt.version;
      result.attempts = attempt.number;
      result.commit_info_json = std::move(attempt.commit_info_json);
      return result;
    }
    if (put.error().code != ErrorCode::kAlreadyExists) {
      return WithContext(
          std::move(put).error(),
          fmt::format("table '{}': writing commit {}", table_root_, attempt.version));
    }
    int64_t lost_version = attempt.version;
    DELTA_ASSIGN_OR_RETURN(std::vector<int64_t> winners, RebaseOverWinners(&attempt));
    result.winning_versions.insert(result.winning_versions.end(), winners.begin(),
                                   winners.end());
    if (attempt.number >= options_.max_attempts) {
      return MakeError(ErrorCode::kCommitConflict,
                       "DELTA_MAX_COMMIT_RETRIES_EXCEEDED: the commit to table '{}' was "
                       "tried {} times without success; the last attempt lost version {} "
                       "to a concurrent commit (newest is {}). Please try the operation "
                       "again.",
                       table_root_, attempt.number, lost_version, attempt.version - 1);
    }
  }
}

}  // namespace deltaguard
