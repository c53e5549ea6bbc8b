// Part 4.2-4.4 reads on live data: shapes (schemas + envelope), and the Part 2 invariants the
// data must keep (numeric text, timestamps, paging counters against the pages).
#include <algorithm>
#include <cctype>

#include "live.hpp"

namespace contract {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::vector<std::string> DomainIds(const json& data) {
  std::vector<std::string> ids;
  for (const auto& d : data.value("domains", json::array())) ids.push_back(d.value("id", ""));
  return ids;
}

size_t MailboxCount(const json& data) {
  size_t n = 0;
  for (const auto& g : data.value("domains", json::array())) n += g.value("mailboxes", json::array()).size();
  return n;
}

std::vector<std::string> MailboxIds(const json& data) {
  std::vector<std::string> ids;
  for (const auto& g : data.value("domains", json::array()))
    for (const auto& m : g.value("mailboxes", json::array())) ids.push_back(m.value("id", ""));
  return ids;
}

// ---- workspaces.list (Part 4.2) ----------------------------------------------------------------

TEST(WorkspacesList, ConformsToItsSchema) {
  Reply r = Invoke("workspaces.list");
  if (!ExpectOk(r)) return;
  if (r.body["data"].is_array() && r.body["data"].empty())
    Violation("workspaces.list", "/data", "must list at least one workspace: every account has one");
}

TEST(WorkspacesList, IdsAreUniqueAndCountsParse) {
  std::set<std::string> ids;
  for (const auto& w : Workspaces()) {
    const std::string id = w.value("id", "");
    if (!ids.insert(id).second) Violation("workspaces.list", "/data", "must not list workspace " + id + " twice");
    // Part 2: domainCount and mailboxCount are numeric text (CheckValues in ExpectOk covers the
    // form; here they must also be sane counts).
    for (const char* f : {"domainCount", "mailboxCount"})
      if (w.contains(f) && w[f].is_string() && IsNumericText(w[f]) && std::stoll(w[f].get<std::string>()) < 0)
        Violation("workspaces.list", std::string("/data/") + f, "must not be negative");
  }
}

// ---- domains.list (Part 4.4) -------------------------------------------------------------------

TEST(DomainsList, ConformsToItsSchema) { ExpectOk(Invoke("domains.list")); }

TEST(DomainsList, PagingCountersAgreeWithThePages) {
  PagingSpec spec;
  spec.op = "domains.list";
  spec.itemsField = "domains";
  spec.recordIds = DomainIds;
  CheckPaging(spec);
}

TEST(DomainsList, ContainsReturnsOnlyMatchingNames) {
  // Part 4.4: `contains` returns domains whose name contains the text.
  const json all = AllDomains();
  if (all.empty()) GTEST_SKIP() << "domains.list: the account has no domain to search for";
  const std::string name = all[0].value("domain", "");
  const std::string needle = name.substr(0, std::min<size_t>(name.size(), 4));
  Args a;
  a.query["contains"] = needle;
  Reply r = Invoke("domains.list", a);
  if (!ExpectOk(r)) return;
  bool found = false;
  const json& list = r.body["data"]["domains"];
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string d = list[i].value("domain", "");
    found = found || d == name;
    if (Lower(d).find(Lower(needle)) == std::string::npos)
      Violation("domains.list", "/data/domains/" + std::to_string(i) + "/domain",
                "must contain \"" + needle + "\" (query contains, Part 4.4), got \"" + d + "\"");
  }
  if (!found && r.body["data"].value("totalPages", 1L) <= 1)
    Violation("domains.list", "/data/domains", "must include " + name + " for contains=" + needle + " (Part 4.4)");
  PagingSpec spec;
  spec.op = "domains.list";
  spec.itemsField = "domains";
  spec.query = a.query;
  spec.recordIds = DomainIds;
  CheckPaging(spec);
}

TEST(DomainsList, ContainsWithNoMatchIsAnEmptyList) {
  Args a;
  a.query["contains"] = "zz-contract-suite-no-such-domain-zz";
  Reply r = Invoke("domains.list", a);
  if (!ExpectOk(r)) return;
  if (r.body["data"].value("totalSearchedCount", -1L) != 0)
    Violation("domains.list", "/data/totalSearchedCount", "must be 0 when nothing matches, got " + r.body["data"]["totalSearchedCount"].dump());
  if (!r.body["data"]["domains"].empty()) Violation("domains.list", "/data/domains", "must be empty when nothing matches");
}

TEST(DomainsList, AssignedMailboxesCountMatchesTheMailboxList) {
  REQUIRE_EMSIM_GAP("assignedMailboxesCount counts the domain's mailboxes as mailboxes.list shows them");
  std::map<std::string, size_t> mailboxes;
  for (long page = 1;; ++page) {
    Args a;
    a.query["page"] = std::to_string(page);
    Reply r = Invoke("mailboxes.list", a);
    if (!ExpectOk(r)) return;
    for (const auto& g : r.body["data"]["domains"]) mailboxes[g.value("id", "")] += g.value("mailboxes", json::array()).size();
    if (page >= r.body["data"].value("totalPages", 1L) || page > 50) break;
  }
  const json all = AllDomains();
  for (size_t i = 0; i < all.size(); ++i) {
    const std::string count = all[i].value("assignedMailboxesCount", "");
    const std::string expected = std::to_string(mailboxes[all[i].value("id", "")]);
    if (count != expected)
      Violation("domains.list", "/data/domains/" + std::to_string(i) + "/assignedMailboxesCount",
                "must equal the domain's mailboxes in mailboxes.list (" + expected + "), got \"" + count + "\"");
  }
}

TEST(DomainsList, PageThatIsNotANumberIs400) {
  REQUIRE_EMSIM_GAP("a page that is not a positive whole number answers 400 naming page");
  Args a;
  a.query["page"] = "first";
  ExpectError(Invoke("domains.list", a), 400, "page");
}

// ---- mailboxes.list (Part 4.3) ---------------------------------------------------------------

TEST(MailboxesList, ConformsToItsSchema) { ExpectOk(Invoke("mailboxes.list")); }

TEST(MailboxesList, MailboxesSitUnderTheirDomain) {
  // Part 4.3: mailboxes grouped by domain; a Mailbox carries domain and domainId.
  Reply r = Invoke("mailboxes.list");
  if (!ExpectOk(r)) return;
  const json& groups = r.body["data"]["domains"];
  for (size_t g = 0; g < groups.size(); ++g) {
    const json& mailboxes = groups[g].value("mailboxes", json::array());
    for (size_t m = 0; m < mailboxes.size(); ++m) {
      const std::string where = "/data/domains/" + std::to_string(g) + "/mailboxes/" + std::to_string(m);
      if (mailboxes[m].value("domainId", "") != groups[g].value("id", ""))
        Violation("mailboxes.list", where + "/domainId", "must be the id of the domain it is grouped under (" + groups[g].value("id", "") + ")");
      if (mailboxes[m].value("domain", "") != groups[g].value("domain", ""))
        Violation("mailboxes.list", where + "/domain", "must be the name of the domain it is grouped under (" + groups[g].value("domain", "") + ")");
    }
  }
}

TEST(MailboxesList, PagingCountersAgreeWithThePages) {
  PagingSpec spec;
  spec.op = "mailboxes.list";
  spec.itemsField = "domains";
  spec.countRecords = MailboxCount;
  spec.recordIds = MailboxIds;
  // What totalSearchedCount counts (mailboxes or domains) is not shown; emsim counts mailboxes.
  spec.countsRecords = Cfg().isEmsim;
  CheckPaging(spec);
}

TEST(MailboxesList, CountersAddUp) {
  REQUIRE_EMSIM_GAP("availableMailboxes = purchasedMailboxes - the account's mailboxes, and the workspace counters");
  Reply r = Invoke("mailboxes.list");
  if (!ExpectOk(r)) return;
  const json& d = r.body["data"];
  const long active = d.value("totalActiveMailboxes", -1L), assigned = d.value("totalAssignedMailboxes", -1L);
  if (active > assigned)
    Violation("mailboxes.list", "/data/totalActiveMailboxes", "must not exceed totalAssignedMailboxes (" + std::to_string(assigned) + ")");
  if (assigned != d.value("totalSearchedCount", -2L))
    Violation("mailboxes.list", "/data/totalAssignedMailboxes", "must equal totalSearchedCount without filters (" + d["totalSearchedCount"].dump() + ")");
}

// ---- mailboxes.details (Part 4.3) --------------------------------------------------------------

TEST(MailboxesDetails, ConformsAndMatchesTheListRecord) {
  const auto mailbox = AnyMailbox();
  if (!mailbox) GTEST_SKIP() << "mailboxes.details: the account has no mailbox to fetch";
  Args a;
  a.query["id"] = mailbox->value("id", "");
  Reply r = Invoke("mailboxes.details", a);
  if (!ExpectOk(r)) return;
  const json& got = r.body["data"]["mailbox"];
  for (const char* f : {"id", "username", "domain", "domainId", "status", "createdAt"})
    if (got.value(f, json()) != mailbox->value(f, json()))
      Violation("mailboxes.details", std::string("/data/mailbox/") + f,
                "must equal the same mailbox's " + std::string(f) + " in mailboxes.list (" + mailbox->value(f, json()).dump() + "), got " + got.value(f, json()).dump());
}

TEST(MailboxesDetails, MissingIdIs400) {
  // Part 4.3: the query names the mailbox by `id`; Part 7: a missing field is a 400 naming it.
  ExpectError(Invoke("mailboxes.details"), 400, "id");
}

TEST(MailboxesDetails, UnknownIdIs404) {
  REQUIRE_EMSIM_GAP("an unknown mailbox id answers 404 in the 401 shape");
  Args a;
  a.query["id"] = "contract-suite-no-such-mailbox";
  ExpectError(Invoke("mailboxes.details", a), 404);
}

}  // namespace
}  // namespace contract
