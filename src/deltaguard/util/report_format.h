/// \file deltaguard/util/report_format.h
/// Escaping and small builders shared by every report renderer (drift, contracts,
/// data tests): JSON object members, XML text for JUnit, GitHub workflow command
/// data, Markdown table cells. One implementation, so the formats agree.
#pragma once

#include <string>
#include <string_view>

namespace deltaguard {

/// Append `"key":"value"` to a JSON object being built in `out` (a ',' first unless
/// the object was just opened with '{').
void AppendJsonField(std::string* out, std::string_view key, std::string_view value);
/// The same with `raw` inserted as is (a number, true/false, null, an object).
void AppendJsonRawField(std::string* out, std::string_view key, std::string_view raw);
/// `&`, `<`, `>` and `"` as XML entities.
std::string XmlEscape(std::string_view s);
/// GitHub workflow command data: `%`, CR and LF percent-encoded (a command ends at a
/// line break).
std::string GithubEscape(std::string_view s);
/// A Markdown table cell: `|` escaped, line breaks as spaces.
std::string MarkdownCell(std::string_view s);

}  // namespace deltaguard
