#pragma once
// The /_sim/ui dashboard's files (server/api/control/ui/), embedded in the binary at build time
// (scripts/embed-files.cmake writes the table): the dashboard works offline and with no files
// beside the binary.
#include <span>
#include <string_view>

namespace emsim::api {

struct EmbeddedFile {
  std::string_view name;   // "index.html", "app.js"
  std::string_view bytes;
};

std::span<const EmbeddedFile> UiFiles();

}  // namespace emsim::api
