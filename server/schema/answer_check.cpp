#include "schema/answer_check.hpp"

#include "core/text.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <utility>

namespace emsim::schema {

namespace {

// The registry's wording for a value outside a schema's enum (registry.cpp, Describe).
bool IsEnumIssue(const Issue& issue) {
  return issue.message.rfind("must be one of ", 0) == 0 || issue.message == "is not an allowed value";
}

// Where an issue is, with array indices as "*" so that one field of every item groups together.
std::string GroupedPointer(const Issue& issue, const json& body) {
  std::string out;
  const json* node = &body;
  for (const auto& seg : issue.path) {
    if (node && node->is_array()) {
      out += "/*";
      const size_t k = std::strtoul(seg.c_str(), nullptr, 10);
      node = k < node->size() ? &(*node)[k] : nullptr;
    } else {
      out += "/" + model::JsonPointerSegment(seg);
      node = node && node->is_object() && node->contains(seg) ? &(*node)[seg] : nullptr;
    }
  }
  return out.empty() ? "/" : out;
}

// The value at an issue's path, shortened for a report ("absent" when there is none).
std::string ValueAt(const Issue& issue, const json& body) {
  const json* node = &body;
  for (const auto& seg : issue.path) {
    if (node->is_array()) {
      const size_t k = std::strtoul(seg.c_str(), nullptr, 10);
      if (k >= node->size()) return "absent";
      node = &(*node)[k];
    } else if (node->is_object() && node->contains(seg)) {
      node = &(*node)[seg];
    } else {
      return "absent";
    }
  }
  std::string text = node->dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 120) text = text.substr(0, 117) + "...";
  return text;
}

}  // namespace

std::string JsonTypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::string: return "string";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "integer";
    case json::value_t::number_float: return "number";
    case json::value_t::boolean: return "boolean";
    case json::value_t::object: return "object";
    case json::value_t::array: return "array";
    case json::value_t::null: return "null";
    default: return "other";
  }
}

std::vector<AnswerFinding> EnvelopeProblems(const Operation& op, int http_status, const json& body) {
  std::vector<AnswerFinding> out;
  const bool error = http_status >= 400;
  if (!body.is_object()) {
    out.push_back({kRuleEnvelope, "/", std::string(error ? "an error answer must be a JSON object (Part 7)" : "the answer must be a JSON object (Part 4)"),
                   JsonTypeName(body), ""});
    return out;
  }
  const auto status = body.find("status");
  // Part 7 error shapes and the {status, message, data} envelope both mirror the HTTP status.
  if (error || op.envelope == Envelope::kStatusMessageData) {
    if (status != body.end() && *status != http_status)
      out.push_back({kRuleEnvelope, "/status", "must mirror the HTTP status " + std::to_string(http_status) +
                                                    (error ? " (Part 7)" : " (Part 4 envelope)"),
                     status->dump(), ""});
    if (error && status == body.end())
      out.push_back({kRuleEnvelope, "/status", "is required in an error answer (Part 7)", "absent", ""});
    if (!error && status == body.end())
      out.push_back({kRuleEnvelope, "/status", "is required: " + op.part + " answers {status, message, data}", "absent", ""});
  } else if (status != body.end()) {
    out.push_back({kRuleEnvelope, "/status",
                   std::string("must be absent: ") + op.part + " answers " +
                       (op.envelope == Envelope::kMessageData ? "{message, data} with no status" : "its own body with no envelope"),
                   status->dump(), ""});
  }
  return out;
}

std::vector<AnswerFinding> CheckAnswer(const Registry& schemas, const Operation& op, int http_status, const json& body,
                                       bool body_is_json) {
  if (!body_is_json) return {{kRuleEnvelope, "body", "must be JSON (spec conventions)", "not JSON", ""}};
  std::vector<AnswerFinding> out = EnvelopeProblems(op, http_status, body);
  std::string schema;
  if (http_status >= 200 && http_status < 300) schema = op.response;
  else if (http_status == 400) schema = "resources/error_validation";
  else if (http_status == 401 || http_status == 500) schema = "resources/error_with_id";
  if (schema.empty() || !schemas.Has(schema)) return out;
  for (const auto& issue : schemas.Check(schema, body, /*body_alone=*/false)) {
    AnswerFinding f;
    f.rule = IsEnumIssue(issue) ? kRuleEnumValue : kRuleResponseSchema;
    f.field = GroupedPointer(issue, body);
    f.message = issue.message + " (" + schema + (issue.open ? "; the spec leaves this open" : "") + ")";
    f.real = ValueAt(issue, body);
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<AnswerFinding> CompareShapes(const json& real, const json& shadow) {
  std::vector<AnswerFinding> out;
  std::set<std::pair<std::string, std::string>> seen;  // (rule, field): one finding each
  auto add = [&](const char* rule, const std::string& field, std::string message, std::string r, std::string s) {
    if (seen.emplace(rule, field).second) out.push_back({rule, field, std::move(message), std::move(r), std::move(s)});
  };
  struct Pair {
    const json* real;
    const json* shadow;
    std::string field;
    size_t depth;
  };
  constexpr size_t kMaxDepth = 64;
  std::vector<Pair> todo{{&real, &shadow, "", 0}};
  while (!todo.empty()) {
    Pair p = std::move(todo.back());
    todo.pop_back();
    const json& r = *p.real;
    const json& s = *p.shadow;
    const std::string where = p.field.empty() ? "/" : p.field;
    if (r.is_null() || s.is_null()) continue;  // a value, not a type ("string or null")
    const std::string rt = JsonTypeName(r), st = JsonTypeName(s);
    if (rt != st) {
      add(kRuleFieldType, where, "the real answer has " + rt + ", emsim's " + st, rt, st);
      continue;
    }
    if (p.depth >= kMaxDepth) continue;
    if (r.is_object()) {
      for (const auto& [k, v] : r.items()) {
        const std::string field = p.field + "/" + model::JsonPointerSegment(k);
        const auto it = s.find(k);
        if (it == s.end()) add(kRuleFieldPresence, field, "in the real answer, not in emsim's", JsonTypeName(v), "absent");
        else todo.push_back({&v, &*it, field, p.depth + 1});
      }
      for (const auto& [k, v] : s.items())
        if (!r.contains(k))
          add(kRuleFieldPresence, p.field + "/" + model::JsonPointerSegment(k), "in emsim's answer, not in the real one", "absent",
              JsonTypeName(v));
    } else if (r.is_array() && !r.empty() && !s.empty()) {
      // Items of two worlds' lists are records of the same kind, not the same records.
      for (size_t i = 0; i < r.size(); ++i)
        todo.push_back({&r[i], &s[std::min(i, s.size() - 1)], p.field + "/*", p.depth + 1});
    }
  }
  return out;
}

}  // namespace emsim::schema
