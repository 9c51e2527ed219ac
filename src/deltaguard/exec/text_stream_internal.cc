#include "deltaguard/exec/text_stream_internal.h"

#include <arrow/buffer.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "deltaguard/arrow/status.h"
#include "deltaguard/exec/csv_scan_internal.h"
#include "deltaguard/exec/json_line_check_internal.h"
#include "deltaguard/exec/utf8_check_internal.h"
#include "deltaguard/util/string_util.h"

namespace deltaguard {

namespace {

using internal::ToArrowStatus;

// How many bytes at the end of `s` are an incomplete (so far well-formed) UTF-8
// character that the next bytes may complete.
size_t IncompleteTail(std::string_view s) {
  for (size_t k = 1; k <= std::min<size_t>(3, s.size()); ++k) {
    const auto c = static_cast<unsigned char>(s[s.size() - k]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    const size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (need <= k) return 0;  // complete (or ASCII)
    return Utf8InvalidSequenceLength(s, s.size() - k) == k ? k : 0;
  }
  return 0;
}

class CheckedTextStream final : public arrow::io::InputStream {
 public:
  CheckedTextStream(std::shared_ptr<arrow::io::InputStream> inner,
                    TextStreamChecks checks)
      : inner_(std::move(inner)), checks_(std::move(checks)) {
    if (checks_.csv) csv_.emplace(checks_.csv_delimiter, checks_.csv_multi_line);
  }

  arrow::Status Close() override { return inner_->Close(); }
  bool closed() const override { return inner_->closed(); }
  arrow::Result<int64_t> Tell() const override { return position_; }

  arrow::Result<int64_t> Read(int64_t nbytes, void* out) override {
    ARROW_ASSIGN_OR_RAISE(auto buffer, Read(nbytes));
    if (buffer->size() > 0) std::memcpy(out, buffer->data(), buffer->size());
    return buffer->size();
  }

  // Arrow's readers take each Read as a block and cannot parse a record that straddles
  // more than two of them, so a Read returns `nbytes` unless the input ends: checked
  // bytes left from the last chunk are joined with the next one.
  arrow::Result<std::shared_ptr<arrow::Buffer>> Read(int64_t nbytes) override {
    while (pending_size() - pending_offset_ < nbytes && !done_) {
      const int64_t left = pending_size() - pending_offset_;
      std::shared_ptr<arrow::Buffer> keep =
          left > 0 ? arrow::SliceBuffer(pending_, pending_offset_, left) : nullptr;
      ARROW_RETURN_NOT_OK(Refill(std::max<int64_t>(nbytes - left, 1)));
      if (keep != nullptr) {
        std::string joined = keep->ToString() + pending_->ToString();
        pending_ = arrow::Buffer::FromString(std::move(joined));
      }
    }
    const int64_t n = std::min(nbytes, pending_size() - pending_offset_);
    if (n <= 0) return std::make_shared<arrow::Buffer>(nullptr, 0);
    auto out = arrow::SliceBuffer(pending_, pending_offset_, n);
    pending_offset_ += n;
    position_ += n;
    return out;
  }

 private:
  int64_t pending_size() const { return pending_ == nullptr ? 0 : pending_->size(); }

  arrow::Status Fail(int64_t line, int64_t column, const std::string& problem,
                     ErrorCode code = ErrorCode::kInvalidArgument) {
    std::string where = column > 0 ? fmt::format(", line {}, column {}", line, column)
                        : line > 0 ? fmt::format(", line {}", line)
                                   : "";
    return ToArrowStatus(
        Error{code, fmt::format("input file '{}'{}: {}", EscapeForMessage(checks_.path),
                                where, problem)});
  }

  // Read the next chunk of `inner_`, check it, and make it `pending_`.
  arrow::Status Refill(int64_t nbytes) {
    // With the carried bytes, the chunk is at most `nbytes` (before any replacement).
    const int64_t want =
        std::max<int64_t>(nbytes - static_cast<int64_t>(carry_.size()), 1);
    ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> chunk, inner_->Read(want));
    const bool at_end = chunk->size() == 0;
    std::shared_ptr<arrow::Buffer> data = chunk;
    if (!carry_.empty()) {  // the start of a character from the previous chunk
      std::string joined = carry_ + std::string(chunk->ToString());
      carry_.clear();
      data = arrow::Buffer::FromString(std::move(joined));
    }
    std::string_view text(reinterpret_cast<const char*>(data->data()),
                          static_cast<size_t>(data->size()));
    if (!at_end) {
      const size_t tail = IncompleteTail(text);
      carry_.assign(text.substr(text.size() - tail));
      text = text.substr(0, text.size() - tail);
    }
    std::optional<std::string> fixed;
    if (size_t bad = FindInvalidUtf8(text); bad != std::string_view::npos) {
      if (!checks_.replace_invalid_utf8) return InvalidUtf8(text, bad);
      fixed = ReplaceInvalidUtf8(text);
      text = *fixed;
    }
    const int64_t first_line = line_;
    ARROW_RETURN_NOT_OK(CheckLines(text));
    if (checks_.json_lines) ARROW_RETURN_NOT_OK(CheckJsonLines(text, first_line, at_end));
    if (csv_) {
      if (auto problem = csv_->Scan(text)) return Fail(0, 0, *problem);
      if (at_end) {
        if (auto problem = csv_->Finish()) return Fail(0, 0, *problem);
      }
    }
    if (fixed) {
      pending_ = arrow::Buffer::FromString(std::move(*fixed));
    } else {
      pending_ = arrow::SliceBuffer(data, 0, static_cast<int64_t>(text.size()));
    }
    pending_offset_ = 0;
    done_ = at_end;
    return arrow::Status::OK();
  }

  arrow::Status InvalidUtf8(std::string_view text, size_t bad) {
    const std::string_view before = text.substr(0, bad);
    const int64_t line = line_ + std::count(before.begin(), before.end(), '\n');
    const size_t nl = before.rfind('\n');
    const int64_t column = nl == std::string_view::npos
                               ? line_bytes_ + static_cast<int64_t>(bad) + 1
                               : static_cast<int64_t>(bad - nl);
    const size_t len = std::max<size_t>(Utf8InvalidSequenceLength(text, bad), 1);
    return Fail(line, column,
                fmt::format("the bytes {} are not valid UTF-8; the file must be UTF-8 "
                            "(convert it, e.g. with iconv), or write with "
                            "`--invalid-utf8 replace` to store U+FFFD instead",
                            EscapeForMessage(text.substr(bad, len))));
  }

  // Advance the line count over `text`; refuse a line longer than max_line_bytes.
  arrow::Status CheckLines(std::string_view text) {
    if (checks_.max_line_bytes <= 0) {
      line_ += std::count(text.begin(), text.end(), '\n');
      const size_t nl = text.rfind('\n');
      line_bytes_ = nl == std::string_view::npos
                        ? line_bytes_ + static_cast<int64_t>(text.size())
                        : static_cast<int64_t>(text.size() - nl - 1);
      return arrow::Status::OK();
    }
    size_t start = 0;
    while (true) {
      // find, not memchr: an empty chunk may have no data pointer at all.
      const size_t found = text.find('\n', start);
      const bool hit = found != std::string_view::npos;
      const size_t end = hit ? found : text.size();
      line_bytes_ += static_cast<int64_t>(end - start);
      if (line_bytes_ > checks_.max_line_bytes) {
        return Fail(line_, 0,
                    fmt::format("the line is longer than the reader's block of {} bytes, "
                                "so it cannot be read as one value; raise {}",
                                checks_.max_line_bytes, checks_.max_line_hint));
      }
      if (!hit) return arrow::Status::OK();
      ++line_;
      line_bytes_ = 0;
      start = end + 1;
    }
  }

  // Check each line of `text` that ends in it (the first belongs to `line`); a line
  // still open at the end of the chunk is kept in `json_partial_` until it ends. Its
  // length is bounded by max_line_bytes, which CheckLines has already enforced.
  arrow::Status CheckJsonLines(std::string_view text, int64_t line, bool at_end) {
    size_t start = 0;
    while (start <= text.size()) {
      const size_t end = text.find('\n', start);
      if (end == std::string_view::npos) {
        json_partial_.append(text.substr(start));
        if (!at_end) return arrow::Status::OK();
        return CheckJsonLine(json_partial_, line);
      }
      std::string_view one = text.substr(start, end - start);
      if (!json_partial_.empty()) {
        json_partial_.append(one);
        ARROW_RETURN_NOT_OK(CheckJsonLine(json_partial_, line));
        json_partial_.clear();
      } else {
        ARROW_RETURN_NOT_OK(CheckJsonLine(one, line));
      }
      ++line;
      start = end + 1;
    }
    return arrow::Status::OK();
  }

  arrow::Status CheckJsonLine(std::string_view one, int64_t line) {
    auto problem = internal::CheckJsonLine(one);
    if (!problem) return arrow::Status::OK();
    return Fail(line, problem->column, problem->message, problem->code);
  }

  std::shared_ptr<arrow::io::InputStream> inner_;
  TextStreamChecks checks_;
  std::optional<CsvQuoteScanner> csv_;
  std::shared_ptr<arrow::Buffer> pending_;  // checked bytes not yet returned
  int64_t pending_offset_ = 0;
  int64_t position_ = 0;
  std::string carry_;         // an incomplete character at the end of the last chunk
  std::string json_partial_;  // the start of an NDJSON line that the next chunk ends
  int64_t line_ = 1;          // the line (1-based) the next byte belongs to
  int64_t line_bytes_ = 0;    // bytes of that line already seen
  bool done_ = false;
};

}  // namespace

std::shared_ptr<arrow::io::InputStream> MakeCheckedTextStream(
    std::shared_ptr<arrow::io::InputStream> inner, TextStreamChecks checks) {
  return std::make_shared<CheckedTextStream>(std::move(inner), std::move(checks));
}

}  // namespace deltaguard
