#include "py_convert.h"

#include "py_common.h"

namespace deltaguard::python {

SessionSettings SettingsFromConf(const std::map<std::string, std::string>& conf) {
  SessionSettings settings;
  settings.engine_info = "deltaguard-python/0.1.0";
  for (const auto& [key, value] : conf) Check(settings.Set(key, value));
  return settings;
}

}  // namespace deltaguard::python
