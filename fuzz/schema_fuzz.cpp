// JSON Schema validation (schema/registry.hpp) of any document against any compiled schema, the
// way the request pipeline and the contract suite call it. Input: the schema's name on the first
// line ("requests/domains.buy"; a name the registry does not have picks one by its bytes), the
// document after it. A document that does not parse is skipped: parsing is the router harness's.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common.hpp"
#include "schema/registry.hpp"

namespace {

struct Schemas {
  std::unique_ptr<emsim::schema::Registry> registry;
  std::vector<std::string> names;
};

Schemas& TheSchemas() {
  static Schemas* s = [] {
    auto* out = new Schemas;
    out->registry = std::make_unique<emsim::schema::Registry>(emsim::fuzz::SourceDir() + "/schemas");
    out->names = out->registry->Names();
    return out;
  }();
  return *s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace emsim;
  Schemas& s = TheSchemas();
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t nl = input.find('\n');
  std::string name = input.substr(0, nl);
  if (!s.registry->Has(name)) {
    std::uint32_t h = 2166136261u;
    for (unsigned char c : name) h = (h ^ c) * 16777619u;
    name = s.names[h % s.names.size()];
  }
  const json doc = json::parse(nl == std::string::npos ? std::string() : input.substr(nl + 1), nullptr, false);
  if (doc.is_discarded()) return 0;
  for (const auto& issue : s.registry->Check(name, doc)) (void)issue.Pointer();
  if (name.rfind("requests/", 0) == 0) {
    // As the router does: the body alone when it can, else the {query, body} document.
    (void)s.registry->CheckBody(name, doc);
    (void)s.registry->CheckRequest(name, json{{"query", json::object()}, {"body", doc}}, false);
    if (doc.is_object()) (void)s.registry->CheckRequest(name, json{{"query", doc}}, false);
  }
  return 0;
}
