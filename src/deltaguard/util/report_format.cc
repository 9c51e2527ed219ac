#include "deltaguard/util/report_format.h"

#include "deltaguard/util/string_util.h"

namespace deltaguard {

void AppendJsonField(std::string* out, std::string_view key, std::string_view value) {
  if (out->back() != '{') *out += ',';
  AppendJsonString(out, key);
  *out += ':';
  AppendJsonString(out, value);
}

void AppendJsonRawField(std::string* out, std::string_view key, std::string_view raw) {
  if (out->back() != '{') *out += ',';
  AppendJsonString(out, key);
  *out += ':';
  *out += raw;
}

std::string XmlEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string GithubEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '%') {
      out += "%25";
    } else if (c == '\n') {
      out += "%0A";
    } else if (c == '\r') {
      out += "%0D";
    } else {
      out += c;
    }
  }
  return out;
}

std::string MarkdownCell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

}  // namespace deltaguard
