#include "model/state_secrets.hpp"

#include <array>
#include <string_view>
#include <utility>
#include <vector>

namespace emsim::model {

namespace {

// (table, field) of every secret DumpState writes. A table that gains a secret adds it here.
constexpr std::array<std::pair<const char*, const char*>, 4> kSecretFields = {{
    {"accounts", "apiKey"},
    {"webhookEndpoints", "secret"},
    {"thirdPartyAccounts", "passwordFingerprint"},
    {"faults", "apiKey"},
}};

bool IsSecretField(std::string_view key) {
  for (const auto& [table, field] : kSecretFields)
    if (key == field) return true;
  return false;
}

}  // namespace

size_t MaskSecretValues(json& value) {
  size_t masked = 0;
  std::vector<json*> todo{&value};
  while (!todo.empty()) {
    json* v = todo.back();
    todo.pop_back();
    if (v->is_object()) {
      for (auto& [key, item] : v->items()) {
        if (IsSecretField(key) && item.is_string() && !item.get_ref<const std::string&>().empty()) {
          item = kMaskedSecret;
          ++masked;
        } else if (item.is_structured()) {
          todo.push_back(&item);
        }
      }
    } else if (v->is_array()) {
      for (auto& item : *v)
        if (item.is_structured()) todo.push_back(&item);
    }
  }
  return masked;
}

size_t MaskSecrets(json& dump) {
  size_t masked = 0;
  if (!dump.is_object()) return masked;
  for (const auto& [table, field] : kSecretFields) {
    auto rows = dump.find(table);
    if (rows == dump.end() || !rows->is_array()) continue;
    for (auto& row : *rows) {
      if (!row.is_object()) continue;
      auto value = row.find(field);
      if (value == row.end() || !value->is_string() || value->get_ref<const std::string&>().empty()) continue;
      *value = kMaskedSecret;
      ++masked;
    }
  }
  return masked;
}

std::optional<std::string> FindMaskedSecret(const json& dump) {
  if (!dump.is_object()) return std::nullopt;
  for (const auto& [table, field] : kSecretFields) {
    auto rows = dump.find(table);
    if (rows == dump.end() || !rows->is_array()) continue;
    for (size_t i = 0; i < rows->size(); ++i) {
      const json& row = (*rows)[i];
      if (!row.is_object()) continue;
      auto value = row.find(field);
      if (value != row.end() && value->is_string() && value->get_ref<const std::string&>() == kMaskedSecret)
        return std::string(table) + "[" + std::to_string(i) + "]." + field;
    }
  }
  return std::nullopt;
}

}  // namespace emsim::model
