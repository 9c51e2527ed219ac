#include "deltaguard/log/checkpoint.h"

namespace deltaguard {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// JSON checkpoints (UUID-named V2) are NDJSON like commits; everything else is Parquet.
Result<CheckpointActions> ReadOneFile(const FileSystem& fs,
                                      const CheckpointReader& reader,
                                      const std::string& path, size_t extra_adds) {
  if (EndsWith(path, ".json")) {
    DELTA_ASSIGN_OR_RETURN(std::string content, fs.ReadFile(path));
    DELTA_ASSIGN_OR_RETURN(std::vector<Action> actions, ParseCommitFile(content, path));
    return SplitCheckpointActions(std::move(actions));
  }
  return reader.ReadCheckpointForReplay(path, extra_adds);
}

}  // namespace

Result<std::string> ResolveSidecarPath(const std::string& log_dir,
                                       const std::string& sidecar_path) {
  return ResolveTablePath(JoinPath(log_dir, kSidecarDirName), sidecar_path);
}

Result<std::vector<CheckpointActions>> ReadCheckpointParts(
    const FileSystem& fs, const CheckpointReader& reader, const std::string& log_dir,
    const CheckpointFiles& checkpoint, std::vector<std::string>* files_read,
    size_t extra_adds) {
  std::vector<CheckpointActions> parts;
  std::vector<std::string> sidecars;
  for (const FileInfo& f : checkpoint.files) {
    DELTA_ASSIGN_OR_RETURN(CheckpointActions actions,
                           ReadOneFile(fs, reader, f.path, extra_adds));
    files_read->push_back(f.path);
    // A checkpoint of any name may be V2 and list sidecars (digest §1.3).
    for (const Action& a : actions.others) {
      if (const auto* s = std::get_if<Sidecar>(&a)) {
        Result<std::string> path = ResolveSidecarPath(log_dir, s->path);
        if (!path) {
          return WithContext(std::move(path).error(),
                             fmt::format("checkpoint file '{}': sidecar action", f.path));
        }
        sidecars.push_back(std::move(path).value());
      }
    }
    parts.push_back(std::move(actions));
  }
  for (const std::string& path : sidecars) {
    Result<CheckpointActions> actions = ReadOneFile(fs, reader, path, extra_adds);
    if (!actions) {
      return WithContext(
          std::move(actions).error(),
          fmt::format("checkpoint version {}: sidecar '{}'", checkpoint.version, path));
    }
    files_read->push_back(path);
    parts.push_back(std::move(actions).value());
  }
  return parts;
}

}  // namespace deltaguard
