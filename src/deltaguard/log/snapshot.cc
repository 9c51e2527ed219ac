// Snapshot loading: log segment → reverse replay → validated, immutable Snapshot.

#include "deltaguard/log/snapshot.h"

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>

#include "deltaguard/log/checkpoint.h"
#include "deltaguard/log/history.h"
#include "deltaguard/log/log_path.h"
#include "deltaguard/log/log_segment.h"
#include "deltaguard/log/path_check.h"
#include "deltaguard/log/replay.h"
#include "deltaguard/protocol/table_properties.h"
#include "deltaguard/schema/schema_json.h"

namespace deltaguard {

class SnapshotBuilder {
 public:
  SnapshotBuilder(FileSystemRef fs, std::string root, const CheckpointReader& reader,
                  LogPathPolicy policy)
      : fs_(std::move(fs)), root_(std::move(root)), reader_(reader), policy_(policy) {}

  Result<SnapshotRef> Build(std::optional<int64_t> version, bool use_hint);

 private:
  Status FeedCommitsDownTo(int64_t stop_exclusive);
  Error ExplainParseFailure(Error parse_error);
  Result<int64_t> ComputeTimestamp(const Metadata& metadata,
                                   const std::optional<CommitInfo>& commit_info);

  FileSystemRef fs_;
  std::string root_;
  const CheckpointReader& reader_;
  LogPathPolicy policy_;
  LogSegment seg_;
  std::optional<LogReplayer> replayer_;
  size_t next_commit_ = 0;  // seg_.commits[next_commit_ - 1] is the next to feed
  std::vector<int64_t> replayed_versions_;
};

namespace {

// Below this many commits a second thread costs more than it saves.
constexpr size_t kParallelParseThreshold = 64;

// Parse `contents[i]` (named `names[i]`) into `out[i]`, on two threads for long logs.
// Only parsing runs in parallel: FileSystem implementations need not be thread-safe.
void ParseCommits(const std::vector<std::string>& contents,
                  const std::vector<const std::string*>& names,
                  std::vector<std::optional<Result<std::vector<Action>>>>* out) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i;
         (i = next.fetch_add(1, std::memory_order_relaxed)) < contents.size();) {
      (*out)[i].emplace(ParseCommitFile(contents[i], *names[i]));
    }
  };
  std::optional<std::thread> helper;
  if (contents.size() >= kParallelParseThreshold &&
      std::thread::hardware_concurrency() > 1) {
    try {
      helper.emplace(work);
    } catch (const std::system_error&) {
      // No thread available: parse on this one only.
    }
  }
  work();
  if (helper) helper->join();
}

}  // namespace

// Read (newest first), parse, then replay the commits above `stop_exclusive` that have
// not been fed yet.
Status SnapshotBuilder::FeedCommitsDownTo(int64_t stop_exclusive) {
  size_t end = next_commit_;
  size_t begin = end;
  while (begin > 0 && seg_.commits[begin - 1].version > stop_exclusive) --begin;
  size_t n = end - begin;
  if (n == 0) return OkStatus();
  std::vector<std::string> contents;
  std::vector<const std::string*> names;
  contents.reserve(n);
  names.reserve(n);
  std::optional<Error> read_error;  // reported after replaying the newer commits
  for (size_t k = 0; k < n; ++k) {
    const CommitFile& c = seg_.commits[end - 1 - k];
    Result<std::string> content = fs_->ReadFile(c.file.path);
    if (!content) {
      read_error = std::move(content).error();
      break;
    }
    contents.push_back(std::move(content).value());
    names.push_back(&c.file.path);
  }
  std::vector<std::optional<Result<std::vector<Action>>>> parsed(contents.size());
  ParseCommits(contents, names, &parsed);
  contents.clear();
  for (size_t k = 0; k < parsed.size(); ++k) {
    next_commit_ = end - 1 - k;
    const CommitFile& c = seg_.commits[next_commit_];
    Result<std::vector<Action>>& actions = *parsed[k];
    if (!actions) return ExplainParseFailure(std::move(actions).error());
    DELTA_RETURN_IF_ERROR(CheckLoggedPaths(root_, *actions, c.file.path, policy_));
    DELTA_RETURN_IF_ERROR(replayer_->AddCommit(c.version, std::move(actions).value()));
    replayed_versions_.push_back(c.version);
  }
  if (read_error) return std::move(*read_error);
  next_commit_ = begin;
  return OkStatus();
}

// A commit failed to parse. If an older commit's protocol makes the table unreadable,
// that is the real answer (gating comes first); otherwise report the parse error.
Error SnapshotBuilder::ExplainParseFailure(Error parse_error) {
  if (replayer_->has_protocol()) return parse_error;
  for (size_t i = next_commit_; i-- > 0;) {
    Result<std::string> content = fs_->ReadFile(seg_.commits[i].file.path);
    if (!content) break;
    std::string_view text = *content;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t nl = text.find('\n', pos);
      size_t end = nl == std::string_view::npos ? text.size() : nl;
      std::string_view line = text.substr(pos, end - pos);
      pos = end + 1;
      if (line.find("\"protocol\"") == std::string_view::npos) continue;
      Result<std::optional<Action>> a = ParseActionLine(line, seg_.commits[i].file.path);
      if (!a || !*a) continue;
      if (const auto* p = std::get_if<Protocol>(&**a)) {
        Status gate = CheckReadSupported(*p, root_);
        return gate ? parse_error : gate.error();
      }
    }
  }
  return parse_error;
}

Result<int64_t> SnapshotBuilder::ComputeTimestamp(
    const Metadata& metadata, const std::optional<CommitInfo>& commit_info) {
  Result<InCommitTimestampConfig> ict = GetInCommitTimestampConfig(metadata);
  if (!ict) return WithContext(std::move(ict).error(), fmt::format("table '{}'", root_));
  if (!ict->AppliesTo(seg_.version)) return seg_.version_file.modification_time;
  std::optional<int64_t> ts;
  if (commit_info) {
    ts = commit_info->in_commit_timestamp;
  } else {
    // The version is a checkpoint: its commit file still carries the commitInfo
    // (PROTOCOL.md "Metadata Cleanup" keeps it for this reason).
    Result<std::vector<Action>> actions = ReadCommit(*fs_, root_, seg_.version);
    if (!actions) {
      if (actions.error().code != ErrorCode::kNotFound) {
        return tl::unexpected(std::move(actions).error());
      }
      return seg_.version_file.modification_time;
    }
    for (const Action& a : *actions) {
      if (const auto* ci = std::get_if<CommitInfo>(&a)) {
        ts = ci->in_commit_timestamp;
        break;
      }
    }
  }
  if (!ts) {
    return MakeError(ErrorCode::kCorruptLog,
                     "table '{}': in-commit timestamps are enabled since version {} but "
                     "commit {} has no commitInfo.inCommitTimestamp",
                     root_, ict->enablement_version.value_or(0), seg_.version);
  }
  return *ts;
}

Result<SnapshotRef> SnapshotBuilder::Build(std::optional<int64_t> version,
                                           bool use_hint) {
  DELTA_ASSIGN_OR_RETURN(seg_, BuildLogSegment(*fs_, root_, version, use_hint));
  replayer_.emplace(root_, seg_.version);
  next_commit_ = seg_.commits.size();

  LogSegmentInfo info;
  std::optional<Error> checkpoint_error;
  bool loaded = false;
  for (const CheckpointFiles& cp : seg_.checkpoints) {
    DELTA_RETURN_IF_ERROR(FeedCommitsDownTo(cp.version));
    std::vector<std::string> files;
    auto parts = ReadCheckpointParts(*fs_, reader_, seg_.log_dir, cp, &files,
                                     replayer_->num_commit_adds());
    if (!parts) {
      // Try the next (older) checkpoint; commits in between get replayed too.
      if (!checkpoint_error) checkpoint_error = std::move(parts).error();
      continue;
    }
    // parts[i] holds the rows of files[i] (ReadCheckpointParts).
    for (size_t i = 0; i < parts->size(); ++i) {
      DELTA_RETURN_IF_ERROR(CheckLoggedPaths(root_, (*parts)[i], files[i], policy_));
    }
    for (CheckpointActions& part : *parts) {
      DELTA_RETURN_IF_ERROR(replayer_->AddCheckpoint(std::move(part)));
    }
    info.checkpoint_version = cp.version;
    info.checkpoint_files = std::move(files);
    loaded = true;
    break;
  }
  if (!loaded) {
    if (seg_.can_start_from_zero) {
      DELTA_RETURN_IF_ERROR(FeedCommitsDownTo(-1));
    } else if (checkpoint_error && seg_.listed_from_hint) {
      // Older checkpoints were not listed: retry from a full listing.
      SnapshotBuilder full(fs_, root_, reader_, policy_);
      return full.Build(seg_.version, /*use_hint=*/false);
    } else if (checkpoint_error) {
      return WithContext(std::move(*checkpoint_error),
                         fmt::format("table '{}': cannot read the checkpoint for version "
                                     "{} and there is no older checkpoint or complete "
                                     "commit history to fall back to",
                                     root_, seg_.version));
    }
  }
  std::reverse(replayed_versions_.begin(), replayed_versions_.end());
  info.commit_versions = std::move(replayed_versions_);

  ReplayState st = std::move(*replayer_).Finish();
  replayer_.reset();
  if (!st.protocol) {
    return MakeError(ErrorCode::kCorruptLog,
                     "table '{}' version {}: the log has no protocol action", root_,
                     seg_.version);
  }
  if (!st.metadata) {
    return MakeError(ErrorCode::kCorruptLog,
                     "table '{}' version {}: the log has no metaData action", root_,
                     seg_.version);
  }
  DELTA_RETURN_IF_ERROR(CheckReadSupported(*st.protocol, root_));
  std::string context = fmt::format("table '{}' version {}", root_, seg_.version);
  Result<ColumnMappingMode> mode = GetColumnMappingMode(*st.metadata);
  if (!mode) return WithContext(std::move(mode).error(), context);
  if (st.metadata->schema_string.empty()) {
    return MakeError(ErrorCode::kCorruptLog, "{}: metaData has no schemaString", context);
  }
  Result<SchemaRef> schema = ParseSchemaJson(st.metadata->schema_string);
  if (!schema) {
    Error e = std::move(schema).error();
    if (e.code == ErrorCode::kParseError) e.code = ErrorCode::kCorruptLog;
    return WithContext(std::move(e), context + ": invalid schemaString");
  }
  DELTA_ASSIGN_OR_RETURN(int64_t timestamp,
                         ComputeTimestamp(*st.metadata, st.commit_info));

  std::shared_ptr<Snapshot> snap(new Snapshot());
  snap->fs_ = fs_;
  snap->table_root_ = root_;
  snap->log_dir_ = seg_.log_dir;
  snap->version_ = seg_.version;
  snap->timestamp_ms_ = timestamp;
  snap->protocol_ = std::move(*st.protocol);
  snap->metadata_ = std::move(*st.metadata);
  snap->schema_ = std::move(schema).value();
  snap->column_mapping_mode_ = *mode;
  snap->files_ = std::move(st.files);
  snap->tombstones_ = std::move(st.tombstones);
  snap->txns_ = std::move(st.txns);
  snap->domains_ = std::move(st.domains);
  snap->segment_ = std::move(info);
  return SnapshotRef(std::move(snap));
}

CheckpointActions SplitCheckpointActions(std::vector<Action> actions) {
  CheckpointActions out;
  size_t num_adds = 0;
  for (const Action& a : actions) num_adds += std::holds_alternative<AddFile>(a) ? 1 : 0;
  out.adds.reserve(num_adds);
  for (Action& a : actions) {
    if (auto* add = std::get_if<AddFile>(&a)) {
      out.adds.push_back(std::move(*add));
    } else if (auto* rm = std::get_if<RemoveFile>(&a)) {
      out.removes.push_back(std::move(*rm));
    } else {
      out.others.push_back(std::move(a));
    }
  }
  return out;
}

Result<CheckpointActions> CheckpointReader::ReadCheckpointSplit(
    const std::string& path) const {
  DELTA_ASSIGN_OR_RETURN(std::vector<Action> actions, ReadCheckpoint(path));
  return SplitCheckpointActions(std::move(actions));
}

Result<CheckpointActions> CheckpointReader::ReadCheckpointForReplay(
    const std::string& path, size_t /*extra_adds*/) const {
  return ReadCheckpointSplit(path);
}

Result<SnapshotRef> Snapshot::Load(FileSystemRef fs, const std::string& table_root,
                                   const CheckpointReader& checkpoint_reader,
                                   const SnapshotSpec& spec) {
  std::string root = NormalizeTableRoot(table_root);
  if (spec.version && spec.timestamp_ms) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "table '{}': specify a version or a timestamp, not both", root);
  }
  std::optional<int64_t> version = spec.version;
  if (spec.timestamp_ms) {
    DELTA_ASSIGN_OR_RETURN(
        version, VersionAtTimestamp(fs, root, checkpoint_reader, *spec.timestamp_ms));
  }
  SnapshotBuilder builder(std::move(fs), std::move(root), checkpoint_reader, spec.paths);
  return builder.Build(version, /*use_hint=*/true);
}

std::string Snapshot::ResolveDataPath(const std::string& log_path) const {
  return ResolveLogPath(table_root_, log_path);
}

}  // namespace deltaguard
