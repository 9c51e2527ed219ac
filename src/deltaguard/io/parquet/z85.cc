#include "deltaguard/io/parquet/z85.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>

namespace deltaguard {
namespace {

constexpr std::string_view kAlphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/"
    "*?&<>()[]{}@%$#";
static_assert(kAlphabet.size() == 85);

// Reverse lookup: character -> digit, or -1.
constexpr std::array<int8_t, 256> MakeDecodeTable() {
  std::array<int8_t, 256> table{};
  for (auto& v : table) v = -1;
  for (size_t i = 0; i < kAlphabet.size(); ++i) {
    table[static_cast<uint8_t>(kAlphabet[i])] = static_cast<int8_t>(i);
  }
  return table;
}
constexpr std::array<int8_t, 256> kDecodeTable = MakeDecodeTable();

}  // namespace

Result<std::string> Z85Decode(std::string_view text) {
  if (text.size() % 5 != 0) {
    return MakeError(ErrorCode::kCorruptLog,
                     "invalid Z85 text '{}': length {} is not a multiple of 5", text,
                     text.size());
  }
  std::string out;
  out.reserve(text.size() / 5 * 4);
  for (size_t pos = 0; pos < text.size(); pos += 5) {
    uint64_t value = 0;
    for (size_t i = 0; i < 5; ++i) {
      int8_t digit = kDecodeTable[static_cast<uint8_t>(text[pos + i])];
      if (digit < 0) {
        return MakeError(ErrorCode::kCorruptLog,
                         "invalid Z85 text '{}': bad character '{}' at position {}", text,
                         text[pos + i], pos + i);
      }
      value = value * 85 + static_cast<uint64_t>(digit);
    }
    // A group above 2^32 - 1 keeps its low 32 bits, as Delta's reference decoder
    // (Base85Codec, which stores `(int) sum`) does: Delta writers emit such groups in
    // the padding of unaligned inline deletion vectors, and readers drop the padding.
    value &= 0xFFFFFFFFull;
    out.push_back(static_cast<char>((value >> 24) & 0xFF));
    out.push_back(static_cast<char>((value >> 16) & 0xFF));
    out.push_back(static_cast<char>((value >> 8) & 0xFF));
    out.push_back(static_cast<char>(value & 0xFF));
  }
  return out;
}

std::string Z85Encode(std::string_view bytes) {
  std::string padded(bytes);
  padded.resize((bytes.size() + 3) / 4 * 4, '\0');
  std::string out;
  out.reserve(padded.size() / 4 * 5);
  for (size_t pos = 0; pos < padded.size(); pos += 4) {
    uint32_t value = 0;
    for (size_t i = 0; i < 4; ++i) {
      value = (value << 8) | static_cast<uint8_t>(padded[pos + i]);
    }
    char group[5];
    for (int i = 4; i >= 0; --i) {
      group[i] = kAlphabet[value % 85];
      value /= 85;
    }
    out.append(group, 5);
  }
  return out;
}

Result<std::string> Z85DecodeUuid(std::string_view text) {
  if (text.size() != 20) {
    return MakeError(
        ErrorCode::kCorruptLog,
        "invalid deletion vector UUID '{}': expected 20 Z85 characters, got {}", text,
        text.size());
  }
  DELTA_ASSIGN_OR_RETURN(std::string bytes, Z85Decode(text));
  std::string hex;
  hex.reserve(36);
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) hex.push_back('-');
    hex += fmt::format("{:02x}", static_cast<uint8_t>(bytes[i]));
  }
  return hex;
}

}  // namespace deltaguard
