// Part 4.4 domains beyond the list: availability, purchase (no envelope), DNS check, and the
// asynchronous DMARC / forwarding / catch-all settings.
#include "live.hpp"

namespace contract {
namespace {

// A name nobody is likely to own, different on every run (reruns against one emsim included).
std::string FreshName(const std::string& suffix = ".com") { return "contractsuite" + Nonce() + suffix; }

// An available name from domains.available (the asked one, or a suggestion), or "".
std::string AvailableName() {
  Args a;
  a.body = json{{"domainName", FreshName()}};
  Reply r = Invoke("domains.available", a);
  if (!ExpectOk(r)) return "";
  for (const auto& d : r.body["data"].value("availableDomains", json::array())) return d.value("domainName", "");
  return "";
}

bool IsDecimalText(const std::string& s) {
  size_t dot = s.find('.');
  if (s.empty() || dot == 0 || dot == s.size() - 1) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (i != dot && !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

json FindDomain(const std::string& name) {
  for (const auto& d : AllDomains())
    if (d.value("domain", "") == name) return d;
  return nullptr;
}

// ---- domains.available -----------------------------------------------------------------------

TEST(DomainsAvailable, ConformsWithDecimalTextPrices) {
  Args a;
  a.body = json{{"domainName", FreshName()}};
  Reply r = Invoke("domains.available", a);
  if (!ExpectOk(r)) return;
  const json& list = r.body["data"]["availableDomains"];
  for (size_t i = 0; i < list.size(); ++i)
    for (const char* f : {"domainPrice", "renewPrice"}) {
      // Part 2: decimal text.
      const std::string v = list[i].value(f, "");
      if (list[i].contains(f) && list[i][f].is_string() && !IsDecimalText(v))
        Violation("domains.available", "/data/availableDomains/" + std::to_string(i) + "/" + f, "must be decimal text (Part 2), got \"" + v + "\"");
    }
}

TEST(DomainsAvailable, DomainNameIsRequiredAndAString) {
  CheckRequiredFields("domains.available", {{"domainName", FreshName()}}, {"domainName"}, {{"domainName", 42}});
}

TEST(DomainsAvailable, ListsOnlyAvailableNamesAndYearsScaleThePrice) {
  REQUIRE_EMSIM_GAP("availableDomains lists AVAILABLE names only; prices are per year times years");
  const std::string name = FreshName();
  Args one, two;
  one.body = json{{"domainName", name}};
  two.body = json{{"domainName", name}, {"years", 2}};
  Reply a = Invoke("domains.available", one), b = Invoke("domains.available", two);
  if (!ExpectOk(a) || !ExpectOk(b)) return;
  const json& la = a.body["data"]["availableDomains"];
  const json& lb = b.body["data"]["availableDomains"];
  for (size_t i = 0; i < la.size(); ++i)
    if (la[i].value("status", "") != "AVAILABLE")
      Violation("domains.available", "/data/availableDomains/" + std::to_string(i) + "/status", "must be AVAILABLE");
  if (la.empty() || lb.empty() || la[0].value("domainName", "") != name) {
    Violation("domains.available", "/data/availableDomains/0/domainName", "must be the name asked for (" + name + ") when it is free");
    return;
  }
  const double p1 = std::stod(la[0].value("domainPrice", "0")), p2 = std::stod(lb[0].value("domainPrice", "0"));
  if (std::abs(p2 - 2 * p1) > 0.005)
    Violation("domains.available", "/data/availableDomains/0/domainPrice", "must double for years 2 (" + la[0].value("domainPrice", "") + " for 1 year), got " + lb[0].value("domainPrice", ""));
}

// ---- domains.buy (no envelope) ---------------------------------------------------------------

TEST(DomainsBuy, PaymentLinkAnswerHasNoEnvelope) {
  REQUIRE_EFFECT("domains.buy");
  const std::string name = AvailableName();
  ASSERT_NE(name, "") << "domains.available offered no name to buy";
  Args a;
  a.body = json{{"domainName", name}, {"useWallet", false}};
  Reply r = Invoke("domains.buy", a);
  if (!ExpectOk(r)) return;
  // Part 4.4: {message, paymentLink} (no status or data); paymentLink is a URL.
  if (r.body.contains("data")) Violation("domains.buy", "/data", "must be absent: Part 4.4 answers {message, paymentLink}");
  const std::string link = r.body.value("paymentLink", "");
  if (link.rfind("https://", 0) != 0 && link.rfind("http://", 0) != 0)
    Violation("domains.buy", "/paymentLink", "must be a URL (Part 4.4), got \"" + link + "\"");
}

TEST(DomainsBuy, DomainNameIsRequired) {
  REQUIRE_EFFECT("domains.buy");
  CheckRequiredFields("domains.buy", {{"domainName", FreshName()}, {"useWallet", false}}, {"domainName"},
                      {{"useWallet", "yes"}, {"domainName", json::array()}});
}

TEST(DomainsBuy, RequiresTheApiKey) {
  REQUIRE_EMSIM_GAP("buy-domain requires x-auth-service like every other operation (Part 5 leaves it open)");
  Args a;
  a.apiKey = "";
  a.body = json{{"domainName", FreshName()}, {"useWallet", true}};
  ExpectError(Invoke("domains.buy", a), 401);
}

TEST(DomainsBuy, WalletPurchaseAddsAPendingDomainThatConnects) {
  REQUIRE_EMSIM("the domain lifecycle is moved by /_sim/clock/advance");
  const std::string name = AvailableName();
  ASSERT_NE(name, "");
  Args a;
  a.body = json{{"domainName", name}, {"useWallet", true}};
  if (!ExpectOk(Invoke("domains.buy", a))) return;
  json d = FindDomain(name);
  if (!d.is_object()) {
    Violation("domains.list", "/data/domains", "must list " + name + " after a wallet purchase");
    return;
  }
  if (d.value("status", "") != "PENDING") Violation("domains.list", "/data/domains/?/status", "must be PENDING right after purchase, got " + d.value("status", ""));
  AdvanceClock("10m");
  d = FindDomain(name);
  if (d.value("status", "") != "CONNECTED")
    Violation("domains.list", "/data/domains/?/status", "must be CONNECTED 10 minutes after purchase (emsim timings), got " + d.value("status", ""));
  // The new record keeps every Part 2 rule too (ExpectOk ran on each page).
}

// ---- domains.dns_check -------------------------------------------------------------------------

TEST(DomainsDnsCheck, OneResultPerDomainAsked) {
  const json all = AllDomains(1);
  if (all.empty()) GTEST_SKIP() << "domains.dns_check: the account has no domain to check";
  json ids = json::array();
  std::map<std::string, std::string> names;
  for (size_t i = 0; i < all.size() && i < 3; ++i) {
    ids.push_back(all[i]["id"]);
    names[all[i].value("id", "")] = all[i].value("domain", "");
  }
  Args a;
  a.body = json{{"domainIds", ids}};
  Reply r = Invoke("domains.dns_check", a);
  if (!ExpectOk(r)) return;
  const json& results = r.body["data"];
  if (results.size() != ids.size())
    Violation("domains.dns_check", "/data", "must hold one result per domain asked (" + std::to_string(ids.size()) + "), got " + std::to_string(results.size()));
  for (size_t i = 0; i < results.size(); ++i) {
    const std::string id = results[i].value("id", "");
    if (!names.count(id)) Violation("domains.dns_check", "/data/" + std::to_string(i) + "/id", "must be one of the ids asked, got " + id);
    else if (results[i].value("domain", "") != names[id])
      Violation("domains.dns_check", "/data/" + std::to_string(i) + "/domain", "must be the name of domain " + id + " (" + names[id] + ")");
  }
}

TEST(DomainsDnsCheck, DomainIdsAreRequired) {
  CheckRequiredFields("domains.dns_check", {{"domainIds", json::array({"x"})}}, {"domainIds"}, {{"domainIds", "not-an-array"}});
}

TEST(DomainsDnsCheck, UnknownDomainIdIs404) {
  REQUIRE_EMSIM_GAP("an id that is not a domain of the workspace answers 404");
  Args a;
  a.body = json{{"domainIds", json::array({"contract-suite-no-such-domain"})}};
  ExpectError(Invoke("domains.dns_check", a), 404);
}

// ---- add-dmarc, enable-email-forwarding, enable-catch-all-email -------------------------------

struct Setting {
  const char* op;
  const char* field;  // the Part 2 list-record field it sets
  const char* flag;   // and its "added" flag
};
const Setting kSettings[] = {
    {"domains.add_dmarc", "dmarcEmail", "dmarcEmailAddedToReseller"},
    {"domains.enable_forwarding", "forwardingEmail", "forwardingEmailAdded"},
    {"domains.enable_catch_all", "catchAllEmail", "catchAllEmailAdded"},
};

TEST(DomainSettings, AcceptedAtOnceWithNullData) {
  REQUIRE_EFFECT("domains.add_dmarc");  // all three change data alike
  const json all = AllDomains(1);
  if (all.empty()) GTEST_SKIP() << "the account has no domain";
  int ran = 0;
  for (const auto& s : kSettings) {
    // A real deployment only gets a domain's current value again (its mail flow stays as it
    // was); a setting no domain has yet is left alone there.
    const json* target = nullptr;
    for (const auto& d : all)
      if (Cfg().isEmsim || d.value(s.field, json()).is_string()) { target = &d; break; }
    if (!target) continue;
    ++ran;
    const std::string email = (*target)[s.field].is_string() ? (*target)[s.field].get<std::string>()
                                                             : std::string("contract@") + target->value("domain", "example.com");
    Args a;
    a.body = json{{"domainIds", json::array({(*target)["id"]})}, {"email", email}};
    Reply r = Invoke(s.op, a);
    if (ExpectOk(r) && !r.body["data"].is_null()) Violation(s.op, "/data", "must be null (Part 4.4: applied asynchronously)");
  }
  if (ran == 0) GTEST_SKIP() << "no domain on the first page has a DMARC, forwarding or catch-all address to apply again";
}

TEST(DomainSettings, AppliedLaterAndVisibleInTheList) {
  REQUIRE_EMSIM("the settings are applied by /_sim/clock/advance");
  const json all = AllDomains(1);
  ASSERT_FALSE(all.empty());
  const json& d = all[all.size() - 1];
  const std::string id = d.value("id", ""), name = d.value("domain", ""), nonce = Nonce();
  for (const auto& s : kSettings) {
    Args a;
    a.body = json{{"domainIds", json::array({id})}, {"email", std::string("contract-") + s.field + nonce + "@" + name}};
    ExpectOk(Invoke(s.op, a));
  }
  AdvanceClock("5m");
  const json after = FindDomain(name);
  ASSERT_TRUE(after.is_object());
  for (const auto& s : kSettings) {
    const std::string expected = std::string("contract-") + s.field + nonce + "@" + name;
    if (after.value(s.field, json()) != expected)
      Violation(s.op, std::string("domains.list ") + s.field, "must be " + expected + " once applied, got " + after.value(s.field, json()).dump());
    if (after.value(s.flag, false) != true) Violation(s.op, std::string("domains.list ") + s.flag, "must be true once applied");
  }
  Args check;
  check.body = json{{"domainIds", json::array({id})}};
  Reply r = Invoke("domains.dns_check", check);
  if (ExpectOk(r) && !r.body["data"].empty() && r.body["data"][0].value("dmarcRecords", false) != true)
    Violation("domains.dns_check", "/data/0/dmarcRecords", "must be true once add-dmarc applied");
}

TEST(DomainSettings, EmailAndDomainIdsAreRequired) {
  REQUIRE_EFFECT("domains.add_dmarc");  // a service that wrongly accepted one would change data
  const json all = AllDomains(1);
  if (all.empty()) GTEST_SKIP() << "the account has no domain";
  for (const auto& s : kSettings) {
    CheckRequiredFields(s.op, {{"domainIds", json::array({all[0]["id"]})}, {"email", "contract@example.com"}},
                        {"email", "domainIds"}, {{"email", 7}, {"domainIds", "x"}});
  }
}

}  // namespace
}  // namespace contract
