// Input paths and formats (exec/input_source.h): argument expansion through the
// FileSystem seam, format names and resolution by extension.
#include <fnmatch.h>

#include <algorithm>

#include "deltaguard/exec/input_source.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

namespace {

bool IsHiddenName(std::string_view name) {
  return !name.empty() && (name[0] == '.' || name[0] == '_');
}

bool HasGlob(std::string_view s) { return s.find_first_of("*?[") != std::string::npos; }

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The data files under `dir`, recursively (hidden names skipped, directories included),
// appended sorted. A directory without data files is kNotFound.
Status AppendDirectory(const FileSystem& fs, const std::string& dir,
                       std::vector<std::string>* out) {
  std::vector<std::string> files;
  std::vector<std::string> pending{dir};
  while (!pending.empty()) {
    const std::string at = std::move(pending.back());
    pending.pop_back();
    auto listed = fs.List(at);
    auto dirs = listed ? fs.ListDirs(at) : Result<std::vector<FileInfo>>{};
    if (!listed || !dirs) {
      const Error& e = !listed ? listed.error() : dirs.error();
      return MakeError(ErrorCode::kIOError, "cannot list input directory '{}': {}", at,
                       e.message);
    }
    for (const FileInfo& f : *listed) {
      if (!IsHiddenName(BaseName(f.path))) files.push_back(f.path);
    }
    for (const FileInfo& d : *dirs) {
      if (!IsHiddenName(BaseName(d.path))) pending.push_back(d.path);
    }
  }
  if (files.empty()) {
    return MakeError(ErrorCode::kNotFound, "input directory '{}' holds no data files",
                     dir);
  }
  std::sort(files.begin(), files.end());
  out->insert(out->end(), files.begin(), files.end());
  return OkStatus();
}

// A path that is not a directory: a file (true), missing (false), or an error.
Result<bool> IsDirectory(const FileSystem& fs, const std::string& path) {
  auto listed = fs.List(path);
  if (listed) return true;
  if (listed.error().code != ErrorCode::kNotFound) {
    return MakeError(ErrorCode::kIOError, "cannot read input path '{}': {}", path,
                     listed.error().message);
  }
  return false;
}

// The files and directories of `dir` whose names match the pattern `leaf`, expanded.
Status AppendGlob(const FileSystem& fs, const std::string& arg, const std::string& dir,
                  bool bare, const std::string& leaf, std::vector<std::string>* out) {
  auto files = fs.List(dir);
  auto dirs = files ? fs.ListDirs(dir) : Result<std::vector<FileInfo>>{};
  std::vector<std::string> matches;
  // Like a shell, '*' does not match a leading '.' (FNM_PERIOD).
  const auto match = [&](const FileInfo& f) {
    return ::fnmatch(leaf.c_str(), std::string(BaseName(f.path)).c_str(), FNM_PERIOD) ==
           0;
  };
  if (files && dirs) {
    for (const FileInfo& f : *files) {
      if (match(f)) matches.push_back(bare ? std::string(BaseName(f.path)) : f.path);
    }
    for (const FileInfo& d : *dirs) {
      if (match(d)) DELTA_RETURN_IF_ERROR(AppendDirectory(fs, d.path, &matches));
    }
  }
  if (matches.empty()) {
    return MakeError(ErrorCode::kNotFound, "no input file matches '{}'", arg);
  }
  std::sort(matches.begin(), matches.end());
  out->insert(out->end(), matches.begin(), matches.end());
  return OkStatus();
}

}  // namespace

Result<InputFormat> ParseInputFormat(std::string_view name) {
  std::string n = AsciiToLower(name);
  if (n == "auto") return InputFormat::kAuto;
  if (n == "parquet") return InputFormat::kParquet;
  if (n == "csv") return InputFormat::kCsv;
  if (n == "json" || n == "ndjson" || n == "jsonl") return InputFormat::kJson;
  if (n == "arrow" || n == "ipc" || n == "feather") return InputFormat::kArrowIpc;
  return MakeError(
      ErrorCode::kInvalidArgument,
      "unknown input format '{}' (expected parquet, csv, json, ndjson, jsonl, "
      "arrow, ipc or feather)",
      name);
}

Result<InputOptions::InvalidUtf8> ParseInvalidUtf8Policy(std::string_view name) {
  std::string n = AsciiToLower(name);
  if (n == "fail") return InputOptions::InvalidUtf8::kFail;
  if (n == "replace") return InputOptions::InvalidUtf8::kReplace;
  return MakeError(ErrorCode::kInvalidArgument,
                   "invalid UTF-8 policy '{}' (expected fail or replace)",
                   EscapeForMessage(name));
}

std::string_view InputFormatName(InputFormat format) {
  switch (format) {
    case InputFormat::kAuto:
      return "auto";
    case InputFormat::kParquet:
      return "parquet";
    case InputFormat::kCsv:
      return "csv";
    case InputFormat::kJson:
      return "json";
    case InputFormat::kArrowIpc:
      return "arrow";
  }
  return "?";
}

Result<InputFormat> ResolveInputFormat(const std::string& path,
                                       const InputOptions& options) {
  if (options.format != InputFormat::kAuto) return options.format;
  std::string ext = AsciiToLower(PathExtension(path));
  if (ext == ".parquet" || ext == ".pq") return InputFormat::kParquet;
  if (ext == ".csv" || ext == ".tsv") return InputFormat::kCsv;
  if (ext == ".json" || ext == ".ndjson" || ext == ".jsonl") return InputFormat::kJson;
  if (ext == ".arrow" || ext == ".ipc" || ext == ".feather")
    return InputFormat::kArrowIpc;
  return MakeError(ErrorCode::kInvalidArgument,
                   "cannot tell the format of input file '{}' from its extension '{}'; "
                   "name the format (parquet, csv, json, arrow)",
                   path, ext);
}

Result<std::vector<std::string>> ExpandInputPaths(const std::vector<std::string>& args,
                                                  const FileSystemRef& file_system) {
  const FileSystemRef fs = file_system != nullptr ? file_system : MakeLocalFileSystem();
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    const size_t slash = arg.rfind('/');
    const std::string leaf = slash == std::string::npos ? arg : arg.substr(slash + 1);
    if (HasGlob(leaf)) {
      const bool bare = slash == std::string::npos;
      const std::string dir = bare ? "." : slash == 0 ? "/" : arg.substr(0, slash);
      DELTA_RETURN_IF_ERROR(AppendGlob(*fs, arg, dir, bare, leaf, &out));
      continue;
    }
    DELTA_ASSIGN_OR_RETURN(bool is_dir, IsDirectory(*fs, arg));
    if (is_dir) {
      DELTA_RETURN_IF_ERROR(AppendDirectory(*fs, arg, &out));
      continue;
    }
    auto exists = fs->Exists(arg);
    if (!exists || !*exists) {
      return MakeError(ErrorCode::kNotFound, "input file '{}' does not exist", arg);
    }
    out.push_back(arg);
  }
  return out;
}

}  // namespace deltaguard
