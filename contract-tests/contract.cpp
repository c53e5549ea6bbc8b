#include "contract.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <ctime>
#include <iostream>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <stdexcept>

#include "schema/answer_check.hpp"

namespace contract {

// ---- the operations of Part 4 ------------------------------------------------------------------

namespace {

struct Contract {
  std::unique_ptr<emsim::schema::Registry> schemas;
  std::vector<Operation> operations;  // the public ones
};
Contract g_contract;  // filled by LoadContract before any test runs, read-only after

std::mutex g_checked_mu;
std::set<std::string> g_checked;  // operations whose successful answer ExpectOk checked

}  // namespace

void LoadContract(const std::string& dir) {
  auto schemas = std::make_unique<emsim::schema::Registry>(dir);
  if (schemas->Operations().All().empty())
    throw std::runtime_error(dir + " has no catalogue of operations (operations.json)");
  g_contract.operations.clear();
  for (const auto& op : schemas->Operations().All())
    if (op.Public()) g_contract.operations.push_back(op);
  g_contract.schemas = std::move(schemas);
}

const emsim::schema::Registry& Schemas() { return *g_contract.schemas; }

const std::vector<Operation>& Operations() { return g_contract.operations; }

const Operation& Op(const std::string& id) {
  for (const auto& op : Operations())
    if (op.id == id) return op;
  static const Operation kUnknown = [] {
    Operation op;
    op.id = "unknown";
    op.method = "GET";
    op.path = "/";
    return op;
  }();
  ADD_FAILURE() << "the catalogue has no public operation " << id;
  return kUnknown;
}

std::string EffectBlocked(const Operation& op) {
  if (Cfg().isEmsim || op.effect == Effect::kRead) return "";
  if (op.effect == Effect::kSpends && !Cfg().allowSpending)
    return op.id + " costs money on a real deployment: pass --allow-spending (or EMSIM_ALLOW_SPENDING=1) to run it";
  if (op.effect == Effect::kMutates && !Cfg().allowMutations)
    return op.id + " changes data on a real deployment: pass --allow-mutations (or EMSIM_ALLOW_MUTATIONS=1) to run it";
  return "";
}

Reply Invoke(const Operation& op, const Args& args) {
  Call c;
  c.method = op.method;
  c.path = op.path;
  if (auto p = c.path.find(":id"); p != std::string::npos) c.path.replace(p, 3, args.pathId);
  c.query = args.query;
  c.body = args.body;
  if (!c.body && op.method != "GET") c.body = json::object();
  c.apiKey = args.apiKey;
  c.workspaceKey = args.workspaceKey;
  c.extra = args.extra;
  return Send(c, op.id);
}

// ---- checks ---------------------------------------------------------------------------------------

void Violation(const std::string& op, const std::string& where, const std::string& rule) {
  ADD_FAILURE() << op << ": " << where << " " << rule;
}

namespace {
std::atomic<int> g_notes{0};
}  // namespace

void Note(const std::string& op, const std::string& where, const std::string& rule) {
  ++g_notes;
  std::cout << "NOTE: " << op << ": " << where << " " << rule
            << " (the spec leaves this open; --strict makes it a failure)" << std::endl;
  testing::Test::RecordProperty("note", op + ": " + where + " " + rule);
}

int NoteCount() { return g_notes.load(); }

namespace {

const std::regex kIsoMillis(R"(^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{3}Z$)");
const std::regex kUuid4("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");

// Part 2 fields whose type is "timestamp", and those that are "numeric text".
const std::set<std::string> kTimestampFields = {"createdAt",   "updatedAt", "assignedOn",   "expireOn",
                                                "periodStart", "periodEnd", "registeredOn", "subscriptionCreationDate"};
const std::set<std::string> kNumericTextFields = {"domainCount", "mailboxCount", "assignedMailboxesCount"};

bool IsJsonContentType(std::string ct) {
  ct = ct.substr(0, ct.find(';'));
  std::transform(ct.begin(), ct.end(), ct.begin(), [](unsigned char c) { return std::tolower(c); });
  while (!ct.empty() && ct.back() == ' ') ct.pop_back();
  return ct == "application/json" || (ct.size() > 5 && ct.compare(ct.size() - 5, 5, "+json") == 0);
}

}  // namespace

void ReportSchema(const std::string& op, const std::string& schema, const json& body) {
  if (!Schemas().Has(schema)) {
    ADD_FAILURE() << op << ": cannot check against " << schema << ": " << Cfg().schemasDir << " has no " << schema << ".json";
    return;
  }
  // The whole document: body_alone is the server's shortcut for request documents only.
  for (const auto& issue : Schemas().Check(schema, body, /*body_alone=*/false)) {
    if (issue.open && !Cfg().strict) Note(op, issue.Pointer(), issue.message);
    else Violation(op, issue.Pointer(), issue.message);
  }
}

const std::set<std::string>& CheckedOperations() { return g_checked; }

bool IsIsoMillisUtc(const std::string& s) {
  std::smatch m;
  if (!std::regex_match(s, m, kIsoMillis)) return false;
  const int year = std::stoi(m[1]), month = std::stoi(m[2]), day = std::stoi(m[3]);
  const int hour = std::stoi(m[4]), minute = std::stoi(m[5]), second = std::stoi(m[6]);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false;
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return day <= kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

bool IsNumericText(const std::string& s) {
  if (s.empty() || s.size() > 18) return false;  // fits a 64-bit integer
  if (s.size() > 1 && s[0] == '0') return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

bool IsUuidV4(const std::string& s) { return std::regex_match(s, kUuid4); }

void CheckValues(const std::string& op, const json& body, const std::string& base) {
  if (body.is_array()) {
    for (size_t i = 0; i < body.size(); ++i) CheckValues(op, body[i], base + "/" + std::to_string(i));
    return;
  }
  if (!body.is_object()) return;
  for (const auto& [k, v] : body.items()) {
    const std::string where = base + "/" + k;
    if (v.is_string() && kTimestampFields.count(k) && !IsIsoMillisUtc(v.get<std::string>()))
      Violation(op, where, "must be an ISO 8601 UTC timestamp with milliseconds, like 2026-01-01T09:00:00.000Z (spec conventions); got \"" + v.get<std::string>() + "\"");
    if (v.is_string() && kNumericTextFields.count(k) && !IsNumericText(v.get<std::string>()))
      Violation(op, where, "must be numeric text (Part 2): a whole number written as a string; got \"" + v.get<std::string>() + "\"");
    CheckValues(op, v, where);
  }
}

bool ExpectOk(const Reply& r, int status) {
  const std::string& op = r.op;
  if (r.status == 0) {
    ADD_FAILURE() << op << ": no answer: " << r.Brief();
    return false;
  }
  if (r.status != status) {
    Violation(op, "HTTP status", "must be " + std::to_string(status) + ", got " + std::to_string(r.status) + " (" + r.Brief() + ")");
    return false;
  }
  if (!IsJsonContentType(r.Header("Content-Type")))
    Violation(op, "Content-Type", "must be application/json (spec conventions), got '" + r.Header("Content-Type") + "'");
  if (!r.isJson) {
    Violation(op, "body", "must be JSON (spec conventions): " + r.Brief());
    return false;
  }
  const Operation& o = Op(op);
  // Part 4 intro: status mirrors the HTTP status; the endpoints that state another body have none.
  // The rule is the schema layer's, so the shadow proxy (`emsim proxy`) judges a real deployment
  // by the same one.
  for (const auto& f : emsim::schema::EnvelopeProblems(o, status, r.body))
    Violation(op, f.field, f.message + (f.real.empty() || f.real == "absent" ? "" : ", got " + f.real));
  if (o.response.empty()) ADD_FAILURE() << op << ": the catalogue names no response schema";
  else ReportSchema(op, o.response, r.body);
  CheckValues(op, r.body);
  {
    std::lock_guard lock(g_checked_mu);
    g_checked.insert(o.id);
  }
  return true;
}

void ExpectError(const Reply& r, int status, const std::string& param) {
  const std::string& op = r.op;
  if (r.status == 0) {
    ADD_FAILURE() << op << ": no answer: " << r.Brief();
    return;
  }
  if (r.status != status) {
    Violation(op, "HTTP status", "must be " + std::to_string(status) + ", got " + std::to_string(r.status) + " (" + r.Brief() + ")");
    return;
  }
  const bool specified = status == 400 || status == 401 || status == 500;
  if (!specified && !Cfg().isEmsim) return;  // Part 7 shows no body for it
  if (!r.isJson) {
    Violation(op, "body", "must be JSON in Part 7's error shape: " + r.Brief());
    return;
  }
  if (r.body.is_object() && r.body.contains("status") && r.body["status"] != status)
    Violation(op, "/status", "must mirror the HTTP status " + std::to_string(status) + " (Part 7), got " + r.body["status"].dump());
  if (status == 400) {
    ReportSchema(op, "resources/error_validation", r.body);
    if (!param.empty()) {
      bool named = false;
      if (r.body.contains("errors") && r.body["errors"].is_array())
        for (const auto& e : r.body["errors"]) named = named || (e.is_object() && e.value("param", "") == param);
      if (!named) Violation(op, "/errors", "must hold an entry with param \"" + param + "\" (Part 7): " + r.Brief());
    }
  } else {
    ReportSchema(op, "resources/error_with_id", r.body);  // errorId: UUID v4
  }
}

void CheckRequiredFields(const std::string& op, const json& valid_body, const std::vector<std::string>& fields,
                         const std::vector<std::pair<std::string, json>>& bad_values) {
  for (const auto& f : fields) {
    Args a;
    a.body = valid_body;
    a.body->erase(f);
    ExpectError(Invoke(op, a), 400, f);
  }
  for (const auto& [f, v] : bad_values) {
    Args a;
    a.body = valid_body;
    (*a.body)[f] = v;
    ExpectError(Invoke(op, a), 400, f);
  }
}

// ---- paging ---------------------------------------------------------------------------------------

void CheckPaging(const PagingSpec& spec) {
  const std::string& op = spec.op;
  auto count = [&](const json& data) {
    return spec.countRecords ? spec.countRecords(data) : data.value(spec.itemsField, json::array()).size();
  };
  auto fetch = [&](long page) {
    Args a;
    a.query = spec.query;
    a.query["page"] = std::to_string(page);
    return Invoke(op, a);
  };
  Reply first = fetch(1);
  if (!ExpectOk(first)) return;
  const json& d = first.body["data"];
  if (!d.is_object() || !d["totalPages"].is_number_integer() || !d["totalSearchedCount"].is_number_integer()) return;
  const long total_pages = d["totalPages"];
  const long total = d["totalSearchedCount"];
  const std::string where = " (" + first.Brief() + ")";
  if (total == 0) {
    if (count(d) != 0) Violation(op, "/data/" + spec.itemsField, "must be empty when totalSearchedCount is 0" + where);
    if (total_pages > 1) Violation(op, "/data/totalPages", "must be 0 or 1 when totalSearchedCount is 0" + where);
    return;
  }
  if (total_pages < 1) {
    Violation(op, "/data/totalPages", "must be at least 1 when totalSearchedCount is " + std::to_string(total) + where);
    return;
  }
  size_t records = 0;
  size_t page_size = 0;
  std::set<std::string> ids;
  const long last = std::min<long>(total_pages, static_cast<long>(spec.maxPages));
  for (long p = 1; p <= last; ++p) {
    Reply r = p == 1 ? first : fetch(p);
    if (p > 1 && !ExpectOk(r)) return;
    const json& data = r.body["data"];
    const std::string at = " (page " + std::to_string(p) + ": " + r.Brief() + ")";
    if (data.value("currentPage", -1L) != p)
      Violation(op, "/data/currentPage", "must echo the page asked for, " + std::to_string(p) + at);
    if (data.value("totalPages", -1L) != total_pages)
      Violation(op, "/data/totalPages", "must be the same on every page (" + std::to_string(total_pages) + " on page 1)" + at);
    if (data.value("totalSearchedCount", -1L) != total)
      Violation(op, "/data/totalSearchedCount", "must be the same on every page (" + std::to_string(total) + " on page 1)" + at);
    const size_t n = count(data);
    if (n == 0) Violation(op, "/data/" + spec.itemsField, "must not be empty on page " + std::to_string(p) + " of " + std::to_string(total_pages) + at);
    if (p < total_pages) {
      if (data.value("nextPage", -1L) != p + 1)
        Violation(op, "/data/nextPage", "must be " + std::to_string(p + 1) + " on page " + std::to_string(p) + " of " + std::to_string(total_pages) + at);
      if (p == 1) page_size = n;
      else if (n != page_size)
        Violation(op, "/data/" + spec.itemsField, "must hold as many records as page 1 (" + std::to_string(page_size) + ") on every page but the last" + at);
    } else {
      const long next = data.value("nextPage", -1L);
      if (next > p && next <= total_pages)
        Violation(op, "/data/nextPage", "must not point to another page on the last page" + at);
      if (page_size && n > page_size)
        Violation(op, "/data/" + spec.itemsField, "must hold at most as many records as page 1 on the last page" + at);
    }
    records += n;
    if (spec.recordIds)
      for (const auto& id : spec.recordIds(data))
        if (!ids.insert(id).second) Violation(op, "/data/" + spec.itemsField, "must not repeat record " + id + " across pages" + at);
  }
  if (last == total_pages && spec.countsRecords && static_cast<long>(records) != total)
    Violation(op, "/data/totalSearchedCount", "must equal the records over all " + std::to_string(total_pages) + " pages (" +
                                                  std::to_string(records) + "), got " + std::to_string(total));
}

}  // namespace contract
