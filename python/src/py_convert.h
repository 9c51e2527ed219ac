/// \file python/src/py_convert.h
/// Small conversions every binding file uses.
#pragma once

#include <map>
#include <string>

#include "deltaguard/write/write_types.h"

namespace deltaguard::python {

/// SessionSettings from a `conf={...}` dict of Spark setting names (SET's keys); an
/// unknown key raises InvalidInputError, as `--conf` does in the CLI.
SessionSettings SettingsFromConf(const std::map<std::string, std::string>& conf);

}  // namespace deltaguard::python
