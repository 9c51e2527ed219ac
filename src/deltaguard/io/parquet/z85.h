/// \file deltaguard/io/parquet/z85.h
/// Z85 (ZeroMQ RFC 32) encoding, which Delta calls "Base85": inline deletion vectors and
/// the UUIDs of on-disk deletion vectors are stored in the log in this form
/// (PROTOCOL.md "Deletion Vector Descriptor Schema").
#pragma once

#include <string>
#include <string_view>

#include "deltaguard/util/result.h"

namespace deltaguard {

/// Decode Z85 text: every 5 characters give 4 bytes (big-endian base 85).
/// Errors (kCorruptLog): length not a multiple of 5, a character outside the alphabet,
/// or a group whose value exceeds 2^32-1.
Result<std::string> Z85Decode(std::string_view text);

/// Encode bytes as Z85. Input whose length is not a multiple of 4 is padded with zero
/// bytes first, as Delta's Base85Codec does for inline deletion vectors.
std::string Z85Encode(std::string_view bytes);

/// Decode a 20-character Z85 UUID into its canonical 36-character form
/// ("d2c639aa-8816-431a-aaf6-d3fe2512ff61").
Result<std::string> Z85DecodeUuid(std::string_view text);

}  // namespace deltaguard
