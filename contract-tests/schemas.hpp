#pragma once
// The suite's own schema loader (it links no server code): reads schemas/<name>.json at run time,
// inlines every "$ref" (relative file refs and "#/..." pointers), compiles it with valijson and
// answers each violation as a JSON pointer plus the rule it breaks, in words.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace contract {

struct SchemaViolation {
  std::string pointer;  // "/data/domains/0/assignedMailboxesCount", "/" for the document
  std::string rule;     // "must be numeric text (Part 2)", "is required", "must be an integer"
};

// Violations of `doc` against Cfg().schemasDir/<name>.json (name like "responses/domains.list").
// Throws std::runtime_error when the file is missing or does not compile.
std::vector<SchemaViolation> CheckSchema(const std::string& name, const nlohmann::json& doc);

// Whether Cfg().schemasDir has <name>.json.
bool HasSchema(const std::string& name);

// The schema with every $ref inlined (exposed for the suite's own tests).
nlohmann::json ResolvedSchema(const std::string& name);

}  // namespace contract
