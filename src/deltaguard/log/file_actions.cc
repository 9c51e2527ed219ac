// Helpers on file actions: the deletion vector's replay key and numRecords from stats.

#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <cstring>

#include "deltaguard/log/actions.h"

namespace deltaguard {
namespace {

// SAX handler that stops at the top-level "numRecords" member of a stats object.
struct NumRecordsHandler
    : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, NumRecordsHandler> {
  int depth = 0;
  bool at_key = false;
  bool found = false;
  std::optional<int64_t> value;

  bool Default() {
    if (at_key) {  // numRecords with a non-integer value: give up
      found = true;
      return false;
    }
    return true;
  }
  bool Int(int i) { return Number(i); }
  bool Uint(unsigned u) { return Number(u); }
  bool Int64(int64_t i) { return Number(i); }
  bool Uint64(uint64_t u) {
    if (u > static_cast<uint64_t>(INT64_MAX)) return Default();
    return Number(static_cast<int64_t>(u));
  }
  bool Number(int64_t v) {
    if (!at_key) return true;
    value = v;
    found = true;
    return false;  // stop parsing
  }
  bool Key(const char* s, rapidjson::SizeType len, bool) {
    at_key = depth == 1 && len == 10 && std::memcmp(s, "numRecords", 10) == 0;
    return true;
  }
  bool StartObject() {
    if (at_key) return Default();
    ++depth;
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    --depth;
    return true;
  }
  bool StartArray() {
    if (at_key) return Default();
    ++depth;
    return true;
  }
  bool EndArray(rapidjson::SizeType) {
    --depth;
    return true;
  }
};

}  // namespace

std::string DeletionVectorDescriptor::UniqueId() const {
  std::string id;
  id.reserve(1 + path_or_inline_dv.size() + (offset ? 12 : 0));
  id.push_back(storage_type);
  id.append(path_or_inline_dv);
  if (offset) {
    id.push_back('@');
    id.append(std::to_string(*offset));
  }
  return id;
}

std::optional<int64_t> AddFile::NumRecords() const {
  if (!stats || stats->empty()) return std::nullopt;
  NumRecordsHandler handler;
  rapidjson::Reader reader;
  rapidjson::MemoryStream ms(stats->data(), stats->size());
  reader.Parse(ms, handler);
  return handler.value;
}

}  // namespace deltaguard
