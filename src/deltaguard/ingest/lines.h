/// \file deltaguard/ingest/lines.h
/// The lines of a source file, read block by block through the FileSystem (a line
/// longer than kMaxRecordBytes is an error naming it, so memory stays bounded), with
/// ill-formed UTF-8 replaced by U+FFFD as Spark's text decoding does.
#pragma once

#include <cstdint>
#include <string>

#include "deltaguard/ingest/reader.h"
#include "deltaguard/io/fs/file_system.h"
#include "deltaguard/util/result.h"

namespace deltaguard {

class LineSource;

/// CSV with multiLine: `record` holds a record's first line; while a quoted field is
/// still open at its end, the next lines are joined to it (with '\n').
Status JoinCsvLines(LineSource* lines, char delimiter, char quote, char escape,
                    bool multi_line, std::string* record);

inline constexpr int64_t kMaxRecordBytes = int64_t{256} << 20;

class LineSource {
 public:
  LineSource(const FileSystem* fs, const IngestFile& file) : fs_(fs), file_(file) {}

  /// The next line without its terminator (\n or \r\n); false at the end.
  Result<bool> Next(std::string* line);
  /// 1-based number of the line Next returned last.
  int64_t line_number() const { return number_; }

 private:
  const FileSystem* fs_;
  const IngestFile& file_;
  std::string block_;
  size_t pos_ = 0;
  int64_t offset_ = 0;
  int64_t number_ = 0;
  bool done_ = false;
};

}  // namespace deltaguard
