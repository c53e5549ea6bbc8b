#include "cli/state_command.hpp"

#include <httplib.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "core/json_limits.hpp"
#include "fixture/contained_file.hpp"
#include "fixture/yaml_doc.hpp"

namespace emsim::cli {

namespace {

constexpr std::uintmax_t kMaxStateFileBytes = 512u * 1024 * 1024;  // as --max-state-bytes' default

constexpr const char* kStateUsage = R"(Usage:
  emsim state dump --url URL [--out FILE]   GET URL/_sim/state?secrets=true, as JSON, to stdout or FILE
  emsim state load --url URL FILE           PUT FILE (JSON or YAML) to URL/_sim/state
  --admin-token TOKEN (or EMSIM_ADMIN_TOKEN) is sent as 'Authorization: Bearer TOKEN'.
A dump boots an emsim too: emsim serve --state FILE.
)";

std::string Flag(const std::vector<std::string>& args, size_t& i) {
  if (i + 1 >= args.size()) throw std::runtime_error(args[i] + " needs a value");
  return args[++i];
}

}  // namespace

namespace {

std::string ReadStateText(const std::string& path, std::uintmax_t max_bytes) {
  try {
    return fixture::ReadRegularFile(path, max_bytes);
  } catch (const std::exception& e) {
    throw std::runtime_error("--state " + path + ": " + e.what());
  }
}

bool IsJsonText(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] == '{';
}

json ParseYamlState(const std::string& path, const std::string& text) {
  try {
    const auto doc = fixture::yaml::Document::Parse(text);
    // The limits of a state document sent as JSON (PUT /_sim/state, the branch above).
    return fixture::yaml::ToJson(doc.Root(), {model::kStateJsonLimits.maxDepth, model::kStateJsonLimits.maxValues});
  } catch (const fixture::yaml::ParseError& e) {
    throw std::runtime_error("--state " + path + ":" + std::to_string(e.line + 1) + ": " + e.what());
  } catch (const std::exception& e) {
    throw std::runtime_error("--state " + path + ": " + e.what());
  }
}

}  // namespace

json ReadStateFile(const std::string& path) {
  const std::string text = ReadStateText(path, kMaxStateFileBytes);
  if (IsJsonText(text)) {
    auto doc = model::ParseJsonLimited(text, model::kStateJsonLimits, "state");
    if (!doc) throw std::runtime_error("--state " + path + ": " + doc.error().errors.front().msg);
    return std::move(*doc);
  }
  return ParseYamlState(path, text);
}

model::LoadedStateText LoadStateFile(const std::string& path, std::uintmax_t max_bytes) {
  const std::string text = ReadStateText(path, max_bytes);
  if (IsJsonText(text)) {
    try {
      return model::LoadStateText(text);
    } catch (const std::exception& e) {
      throw std::runtime_error("--state " + path + ": " + e.what());
    }
  }
  json doc = ParseYamlState(path, text);
  try {
    model::State s = model::LoadState(doc);
    return {std::move(s), std::move(doc)};
  } catch (const std::exception& e) {
    throw std::runtime_error("--state " + path + ": " + e.what());
  }
}

int StateCommand(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || (args[0] != "dump" && args[0] != "load")) {
    (args.empty() || args[0].rfind("-", 0) != 0 ? std::cerr : std::cout) << kStateUsage;
    return args.empty() || (args[0] != "--help" && args[0] != "-h") ? 2 : 0;
  }
  std::string url, out, file, token;
  if (const char* t = std::getenv("EMSIM_ADMIN_TOKEN")) token = t;
  try {
    for (size_t i = 1; i < args.size(); ++i) {
      if (args[i] == "--url") url = Flag(args, i);
      else if (args[i] == "--out") out = Flag(args, i);
      else if (args[i] == "--admin-token") token = Flag(args, i);
      else if (args[i].rfind("--", 0) != 0 && file.empty()) file = args[i];
      else throw std::runtime_error("unknown argument '" + args[i] + "'");
    }
    if (url.empty()) throw std::runtime_error("--url is required (e.g. http://127.0.0.1:8080)");
    if (args[0] == "load" && file.empty()) throw std::runtime_error("load needs the FILE to load");
    httplib::Client client(url);
    client.set_read_timeout(600, 0);
    httplib::Headers headers;
    if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
    httplib::Result res = args[0] == "dump"
                              ? client.Get("/_sim/state?secrets=true", headers)
                              : client.Put("/_sim/state", headers, ReadStateFile(file).dump(), "application/json");
    if (!res) throw std::runtime_error(url + ": " + httplib::to_string(res.error()));
    if (res->status != 200) throw std::runtime_error(url + " answered " + std::to_string(res->status) + ": " + res->body);
    if (args[0] == "load") return 0;
    if (out.empty()) {
      std::cout << res->body << "\n";
      return std::cout ? 0 : 1;
    }
    std::ofstream f(out, std::ios::binary);
    f << res->body << "\n";
    if (!f) throw std::runtime_error(out + ": cannot write");
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "emsim state " << args[0] << ": " << e.what() << "\n";
    return 2;
  }
}

}  // namespace emsim::cli
