// Lines of a source file (ingest/lines.h).

#include "deltaguard/ingest/lines.h"

#include <fmt/format.h>

#include <algorithm>

#include "deltaguard/ingest/csv_fields.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {
namespace {
constexpr int64_t kBlockBytes = 4 << 20;
}  // namespace

Result<bool> LineSource::Next(std::string* line) {
  line->clear();
  while (true) {
    const size_t nl = block_.find('\n', pos_);
    if (nl != std::string::npos) {
      line->append(block_, pos_, nl - pos_);
      pos_ = nl + 1;
      break;
    }
    line->append(block_, pos_, std::string::npos);
    pos_ = block_.size();
    if (static_cast<int64_t>(line->size()) > kMaxRecordBytes) {
      return MakeError(ErrorCode::kInvalidArgument, "{}: line {} is longer than {} MiB",
                       file_.path, number_ + 1, kMaxRecordBytes >> 20);
    }
    if (offset_ >= file_.size) {
      if (line->empty() && done_) return false;
      done_ = true;
      if (line->empty()) return false;
      break;
    }
    const int64_t n = std::min(kBlockBytes, file_.size - offset_);
    auto read = fs_->ReadRange(file_.path, offset_, n);
    if (!read) return WithContext(read.error(), fmt::format("reading {}", file_.path));
    block_ = std::move(*read);
    offset_ += n;
    pos_ = 0;
  }
  if (!line->empty() && line->back() == '\r') line->pop_back();
  // Text is decoded as Spark decodes it: an ill-formed UTF-8 sequence becomes U+FFFD,
  // so every value and column name is valid UTF-8 (Delta strings must be).
  if (!IsValidUtf8(*line)) *line = ReplaceInvalidUtf8(*line);
  ++number_;
  return true;
}

Status JoinCsvLines(LineSource* lines, char delimiter, char quote, char escape,
                    bool multi_line, std::string* record) {
  std::string line;
  while (multi_line && CsvQuoteOpen(*record, delimiter, quote, escape)) {
    DELTA_ASSIGN_OR_RETURN(bool more, lines->Next(&line));
    if (!more) break;
    *record += "\n" + line;
  }
  return OkStatus();
}

}  // namespace deltaguard
