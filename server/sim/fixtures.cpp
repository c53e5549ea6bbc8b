#include "sim/fixtures.hpp"

#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "model/json_limits.hpp"
#include "sim/contained_file.hpp"
#include "sim/fixture_gen.hpp"
#include "sim/yaml_doc.hpp"

namespace emsim::sim {

using model::Millis;

const std::map<std::string, std::int64_t>& DefaultTimings() {
  // DESIGN.md gap decision: async delays come from the fixture, with sensible defaults.
  static const std::map<std::string, std::int64_t> kDefaults = {
      {"dmarcSeconds", 30},
      {"forwardingSeconds", 60},
      {"catchAllSeconds", 60},
      {"domainPendingToConnectedSeconds", 300},
      {"domainConnectedToActiveSeconds", 3600},
      {"exportSeconds", 120},
      {"placementTestRunningSeconds", 60},
      {"placementTestCompletedSeconds", 900},
  };
  return kDefaults;
}

namespace {

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void Fail(const yaml::Node& at, const std::string& field, const std::string& what) const {
    std::ostringstream os;
    os << file_;
    if (at.Line() >= 0) os << ":" << at.Line() + 1;
    os << ": " << field << ": " << what;
    throw FixtureError(os.str());
  }

  yaml::Node Need(const yaml::Node& parent, const char* key, const std::string& path) const {
    yaml::Node n = parent[key];
    if (!n.IsDefined() || n.IsNull()) Fail(parent, path + "." + key, "is required");
    return n;
  }

  std::string Str(const yaml::Node& parent, const char* key, const std::string& path) const {
    yaml::Node n = Need(parent, key, path);
    if (!n.IsScalar()) Fail(n, path + "." + key, "must be a string");
    return n.Scalar();
  }
  std::string StrOr(const yaml::Node& parent, const char* key, const std::string& path, std::string def) const {
    yaml::Node n = parent[key];
    if (!n.IsDefined() || n.IsNull()) return def;
    if (!n.IsScalar()) Fail(n, path + "." + key, "must be a string");
    return n.Scalar();
  }
  std::optional<std::string> OptStr(const yaml::Node& parent, const char* key, const std::string& path) const {
    yaml::Node n = parent[key];
    if (!n.IsDefined() || n.IsNull()) return std::nullopt;
    if (!n.IsScalar()) Fail(n, path + "." + key, "must be a string or null");
    return n.Scalar();
  }
  std::int64_t Int(const yaml::Node& parent, const char* key, const std::string& path,
                   std::optional<std::int64_t> def = std::nullopt) const {
    yaml::Node n = parent[key];
    if (!n.IsDefined() || n.IsNull()) {
      if (def) return *def;
      Fail(parent, path + "." + key, "is required");
    }
    auto v = n.AsInt();
    if (!v) Fail(n, path + "." + key, "must be an integer");
    return *v;
  }
  bool Bool(const yaml::Node& parent, const char* key, const std::string& path, bool def) const {
    yaml::Node n = parent[key];
    if (!n.IsDefined() || n.IsNull()) return def;
    auto v = n.AsBool();
    if (!v) Fail(n, path + "." + key, "must be true or false");
    return *v;
  }
  Millis Time(const yaml::Node& parent, const char* key, const std::string& path, std::optional<Millis> def) const {
    yaml::Node n = parent[key];
    if (!n.IsDefined() || n.IsNull()) {
      if (def) return *def;
      Fail(parent, path + "." + key, "is required (ISO 8601 UTC timestamp)");
    }
    auto t = n.IsScalar() ? model::ParseIso(n.Scalar()) : std::nullopt;
    if (!t) Fail(n, path + "." + key, "must be an ISO 8601 UTC timestamp like 2026-01-01T09:00:00.000Z");
    if (*t < model::kMinTimeMs || *t > model::kMaxTimeMs) Fail(n, path + "." + key, "must lie in the years 1970 to 9999");
    return *t;
  }
  // The one duration grammar (model::ParseDuration; a bare number is seconds, as before). The
  // state keeps timings in whole seconds (their names say so), so a fraction of one is refused.
  std::int64_t WholeSeconds(const yaml::Node& n, const std::string& field) const {
    const std::string text = n.IsScalar() ? n.Scalar() : std::string();
    auto ms = n.IsScalar() ? model::ParseDuration(text) : std::nullopt;
    if (!ms) Fail(n, field, model::DurationProblem(text));
    if (*ms % model::kSecond != 0) Fail(n, field, "must be whole seconds, got '" + text + "'");
    return *ms / model::kSecond;
  }
  model::Cents Money(const yaml::Node& parent, const char* key, const std::string& path) const {
    yaml::Node n = Need(parent, key, path);
    auto c = n.IsScalar() ? model::ParseDecimal(n.Scalar()) : std::nullopt;
    if (!c || *c < 0) Fail(n, path + "." + key, "must be a non-negative decimal amount like \"12.99\"");
    return *c;
  }
  std::string OneOf(const yaml::Node& parent, const char* key, const std::string& path,
                    std::initializer_list<const char*> allowed, std::optional<std::string> def = std::nullopt) const {
    std::string v = def ? StrOr(parent, key, path, *def) : Str(parent, key, path);
    for (const char* a : allowed)
      if (v == a) return v;
    std::string list;
    for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    Fail(parent[key].IsDefined() ? parent[key] : parent, path + "." + key, "must be one of " + list);
  }
  std::vector<std::string> StrList(const yaml::Node& parent, const char* key, const std::string& path) const {
    std::vector<std::string> out;
    yaml::Node n = parent[key];
    if (!n.IsDefined() || n.IsNull()) return out;
    if (!n.IsSequence()) Fail(n, path + "." + key, "must be a list of strings");
    for (size_t i = 0; i < n.size(); ++i) {
      if (!n[i].IsScalar()) Fail(n[i], path + "." + key, "must be a list of strings");
      out.push_back(n[i].Scalar());
    }
    return out;
  }
  yaml::Node Seq(const yaml::Node& parent, const char* key, const std::string& path) const {
    yaml::Node n = parent[key];
    if (n.IsDefined() && !n.IsNull() && !n.IsSequence()) Fail(n, path + "." + key, "must be a list");
    return n;
  }
  void OnlyKeys(const yaml::Node& node, const std::string& path, std::initializer_list<const char*> keys) const {
    if (!node.IsMap()) Fail(node, path, "must be a mapping");
    for (size_t i = 0; i < node.size(); ++i) {
      if (!node.Key(i).IsScalar()) Fail(node.Key(i), path, "field names must be text");
      const std::string& k = node.Key(i).Scalar();
      bool known = false;
      for (const char* allowed : keys) known = known || k == allowed;
      if (!known) Fail(node.Key(i), path + "." + k, "unknown field");
    }
  }

 private:
  std::string file_;
};

std::vector<model::Address> Addresses(const Reader& r, const yaml::Node& parent, const char* key,
                                      const std::string& path) {
  std::vector<model::Address> out;
  yaml::Node n = r.Seq(parent, key, path);
  if (!n.IsDefined() || n.IsNull()) return out;
  for (size_t i = 0; i < n.size(); ++i) {
    const std::string p = path + "." + key + "[" + std::to_string(i) + "]";
    if (!n[i].IsMap()) r.Fail(n[i], p, "must be a mapping of name and address");
    out.push_back({r.StrOr(n[i], "name", p, ""), r.Str(n[i], "address", p)});
  }
  return out;
}

void LoadDomain(const Reader& r, model::State& s, const yaml::Node& n, const std::string& p,
                const model::Workspace& w, std::set<std::string>& names) {
  r.OnlyKeys(n, p,
             {"id", "domain", "status", "createdAt", "updatedAt", "forwardTo", "forwardToAddedOnReseller",
              "dmarcEmail", "dmarcEmailAddedToReseller", "forwardingEmail", "forwardingEmailAdded",
              "catchAllEmail", "catchAllEmailAdded", "nameServers", "purchaseType", "serviceProvider",
              "registeredOn", "expireOn", "isWarmedUp", "healthScore", "healthErrorMessage", "healthLabel", "tags",
              "dns", "mailboxes"});
  model::Domain d;
  d.domain = r.Str(n, "domain", p);
  d.id = r.StrOr(n, "id", p, model::StableId("domain:" + d.domain));
  if (s.domains.Contains(d.id)) r.Fail(n["id"], p + ".id", "duplicate id " + d.id);
  if (!names.insert(d.domain).second) r.Fail(n["domain"], p + ".domain", "duplicate domain name " + d.domain);
  d.accountId = w.accountId;
  d.workspaceId = w.id;
  d.status = r.OneOf(n, "status", p, {"ACTIVE", "CONNECTED", "PENDING"});
  d.createdAt = r.Time(n, "createdAt", p, std::nullopt);
  d.updatedAt = r.Time(n, "updatedAt", p, d.createdAt);
  d.forwardTo = r.OptStr(n, "forwardTo", p);
  d.forwardToAddedOnReseller = r.Bool(n, "forwardToAddedOnReseller", p, false);
  d.dmarcEmail = r.OptStr(n, "dmarcEmail", p);
  d.dmarcEmailAddedToReseller = r.Bool(n, "dmarcEmailAddedToReseller", p, false);
  d.forwardingEmail = r.OptStr(n, "forwardingEmail", p);
  d.forwardingEmailAdded = r.Bool(n, "forwardingEmailAdded", p, false);
  d.catchAllEmail = r.OptStr(n, "catchAllEmail", p);
  d.catchAllEmailAdded = r.Bool(n, "catchAllEmailAdded", p, false);
  if (n["nameServers"].IsDefined() && !n["nameServers"].IsNull()) d.nameServers = r.StrList(n, "nameServers", p);
  d.purchaseType = r.StrOr(n, "purchaseType", p, "REGISTERED");
  d.serviceProvider = r.OneOf(n, "serviceProvider", p, {"GOOGLE", "MICROSOFT"}, "GOOGLE");
  d.registeredOn = r.Time(n, "registeredOn", p, d.createdAt);
  d.expireOn = r.Time(n, "expireOn", p, d.registeredOn + 365 * model::kDay);
  d.isWarmedUp = r.Bool(n, "isWarmedUp", p, false);
  d.healthScore = static_cast<int>(r.Int(n, "healthScore", p, 0));
  d.healthErrorMessage = r.OptStr(n, "healthErrorMessage", p);
  d.healthLabel = r.StrOr(n, "healthLabel", p, "Poor");
  d.tags = r.StrList(n, "tags", p);
  if (yaml::Node dns = n["dns"]; dns.IsDefined() && !dns.IsNull()) {
    r.OnlyKeys(dns, p + ".dns", {"spf", "dmarc", "dkim", "mx"});
    d.dns = {r.Bool(dns, "spf", p + ".dns", false), r.Bool(dns, "dmarc", p + ".dns", false),
             r.Bool(dns, "dkim", p + ".dns", false), r.Bool(dns, "mx", p + ".dns", false)};
  }
  const model::Domain& added = s.AddDomain(d);
  yaml::Node mbs = r.Seq(n, "mailboxes", p);
  std::set<std::string> usernames;
  for (size_t i = 0; mbs.IsDefined() && !mbs.IsNull() && i < mbs.size(); ++i) {
    const yaml::Node m = mbs[i];
    const std::string mp = p + ".mailboxes[" + std::to_string(i) + "]";
    r.OnlyKeys(m, mp,
               {"id", "username", "firstName", "lastName", "status", "profilePicture", "assignedOn", "expireOn",
                "createdAt"});
    model::Mailbox mb;
    mb.username = r.Str(m, "username", mp);
    if (!usernames.insert(mb.username).second) r.Fail(m, mp + ".username", "duplicate username " + mb.username);
    mb.id = r.StrOr(m, "id", mp, model::StableId("mailbox:" + added.domain + "/" + mb.username));
    if (s.mailboxes.Contains(mb.id)) r.Fail(m["id"], mp + ".id", "duplicate id " + mb.id);
    mb.accountId = w.accountId;
    mb.workspaceId = w.id;
    mb.domainId = added.id;
    mb.firstName = r.StrOr(m, "firstName", mp, "");
    mb.lastName = r.StrOr(m, "lastName", mp, "");
    mb.status = r.OneOf(m, "status", mp, {"ACTIVE", "IN_PROGRESS", "INACTIVE"}, "ACTIVE");
    mb.profilePicture = r.OptStr(m, "profilePicture", mp);
    mb.createdAt = r.Time(m, "createdAt", mp, added.createdAt);
    mb.assignedOn = r.Time(m, "assignedOn", mp, mb.createdAt);
    mb.expireOn = r.Time(m, "expireOn", mp, added.expireOn);
    s.AddMailbox(std::move(mb));
  }
}

void LoadWorkspace(const Reader& r, model::State& s, const yaml::Node& n, const std::string& p,
                   const model::Account& a, std::set<std::string>& domain_names, Millis default_time) {
  r.OnlyKeys(n, p, {"id", "name", "default", "billingDetails", "domains", "emails", "createdAt"});
  model::Workspace w;
  w.id = r.Str(n, "id", p);
  if (s.workspaces.Contains(w.id)) r.Fail(n["id"], p + ".id", "duplicate id " + w.id);
  w.accountId = a.id;
  w.name = r.Str(n, "name", p);
  w.isDefault = r.Bool(n, "default", p, false);
  w.createdAt = r.Time(n, "createdAt", p, default_time);
  if (yaml::Node b = n["billingDetails"]; b.IsDefined() && !b.IsNull()) {
    const std::string bp = p + ".billingDetails";
    r.OnlyKeys(b, bp,
               {"id", "userId", "workspaceId", "firstName", "lastName", "company", "addressLineOne", "addressLineTwo",
                "addressLineThree", "city", "state", "country", "postalCode", "phoneCc", "phone",
                "languagePreference"});
    model::BillingDetails bd;
    bd.id = r.StrOr(b, "id", bp, model::StableId("billing:" + w.id));
    bd.userId = a.user.id;
    bd.workspaceId = w.id;
    bd.firstName = r.Str(b, "firstName", bp);
    bd.lastName = r.Str(b, "lastName", bp);
    bd.company = r.Str(b, "company", bp);
    bd.addressLineOne = r.Str(b, "addressLineOne", bp);
    bd.addressLineTwo = r.OptStr(b, "addressLineTwo", bp);
    bd.addressLineThree = r.OptStr(b, "addressLineThree", bp);
    bd.city = r.Str(b, "city", bp);
    bd.state = r.Str(b, "state", bp);
    bd.country = r.Str(b, "country", bp);
    bd.postalCode = r.Str(b, "postalCode", bp);
    bd.phoneCc = r.Str(b, "phoneCc", bp);
    bd.phone = r.Str(b, "phone", bp);
    bd.languagePreference = r.StrOr(b, "languagePreference", bp, "en");
    w.billingDetails = bd;
  }
  const model::Workspace& added = s.workspaces.Insert(w);
  yaml::Node domains = r.Seq(n, "domains", p);
  for (size_t i = 0; domains.IsDefined() && !domains.IsNull() && i < domains.size(); ++i)
    LoadDomain(r, s, domains[i], p + ".domains[" + std::to_string(i) + "]", added, domain_names);
  yaml::Node emails = r.Seq(n, "emails", p);
  for (size_t i = 0; emails.IsDefined() && !emails.IsNull() && i < emails.size(); ++i) {
    const yaml::Node e = emails[i];
    const std::string ep = p + ".emails[" + std::to_string(i) + "]";
    r.OnlyKeys(e, ep,
               {"id", "account", "threadId", "messageId", "subject", "snippet", "date", "from", "to", "cc", "size",
                "labels", "folderPath", "isRead", "isStarred", "hasAttachments"});
    model::Email em;
    em.messageId = r.Str(e, "messageId", ep);
    em.id = r.StrOr(e, "id", ep, model::StableId("email:" + em.messageId));
    if (s.emails.Contains(em.id)) r.Fail(e["id"], ep + ".id", "duplicate id " + em.id);
    em.accountId = a.id;
    em.workspaceId = added.id;
    em.account = r.Str(e, "account", ep);
    em.threadId = r.StrOr(e, "threadId", ep, em.id);
    em.subject = r.StrOr(e, "subject", ep, "");
    em.snippet = r.StrOr(e, "snippet", ep, "");
    em.date = r.Time(e, "date", ep, std::nullopt);
    em.from = Addresses(r, e, "from", ep);
    em.to = Addresses(r, e, "to", ep);
    em.cc = r.StrList(e, "cc", ep);
    em.size = r.Int(e, "size", ep, 0);
    em.labels = r.StrList(e, "labels", ep);
    em.folderPath = r.StrOr(e, "folderPath", ep, "INBOX");
    em.isRead = r.Bool(e, "isRead", ep, false);
    em.isStarred = r.Bool(e, "isStarred", ep, false);
    em.hasAttachments = r.Bool(e, "hasAttachments", ep, false);
    s.emails.Insert(std::move(em));
  }
}

void LoadAccount(const Reader& r, model::State& s, const yaml::Node& n, const std::string& p,
                 std::set<std::string>& domain_names, Millis default_time) {
  r.OnlyKeys(n, p, {"id", "apiKey", "user", "walletBalance", "subscriptions", "dnsShield", "workspaces"});
  model::Account a;
  a.id = r.Str(n, "id", p);
  if (s.accounts.Contains(a.id)) r.Fail(n["id"], p + ".id", "duplicate id " + a.id);
  a.apiKey = r.Str(n, "apiKey", p);
  for (const auto& other : s.accounts)
    if (other.apiKey == a.apiKey) r.Fail(n["apiKey"], p + ".apiKey", "duplicate API key");
  yaml::Node u = r.Need(n, "user", p);
  r.OnlyKeys(u, p + ".user", {"id", "email", "firstName", "lastName"});
  a.user = {r.Str(u, "id", p + ".user"), r.Str(u, "email", p + ".user"), r.StrOr(u, "firstName", p + ".user", ""),
            r.StrOr(u, "lastName", p + ".user", "")};
  a.walletCents = n["walletBalance"].IsDefined() ? r.Money(n, "walletBalance", p) : 0;
  const model::Account& added = s.AddAccount(a);

  yaml::Node subs = r.Seq(n, "subscriptions", p);
  for (size_t i = 0; subs.IsDefined() && !subs.IsNull() && i < subs.size(); ++i) {
    const yaml::Node m = subs[i];
    const std::string sp = p + ".subscriptions[" + std::to_string(i) + "]";
    r.OnlyKeys(m, sp,
               {"id", "subscriptionId", "subscriptionStatus", "plan", "planKey", "price", "totalMailboxQuantity",
                "periodStart", "periodEnd", "subscriptionCreationDate", "planUpgradeCancelPossible",
                "paymentFailureMessage", "invoiceDetails", "placementCredits"});
    model::Subscription sub;
    sub.subscriptionId = r.Str(m, "subscriptionId", sp);
    sub.id = r.StrOr(m, "id", sp, model::StableId("subscription:" + sub.subscriptionId));
    if (s.subscriptions.Contains(sub.id)) r.Fail(m, sp + ".id", "duplicate id " + sub.id);
    for (const auto& other : s.subscriptions)
      if (other.subscriptionId == sub.subscriptionId) r.Fail(m, sp + ".subscriptionId", "duplicate subscriptionId");
    sub.accountId = added.id;
    sub.subscriptionStatus = r.OneOf(m, "subscriptionStatus", sp, {"ACTIVE", "CANCELLED"});
    sub.plan = r.Str(m, "plan", sp);
    sub.planKey = r.StrOr(m, "planKey", sp, "");
    sub.price = r.Int(m, "price", sp);
    sub.totalMailboxQuantity = r.Int(m, "totalMailboxQuantity", sp);
    sub.subscriptionCreationDate = r.Time(m, "subscriptionCreationDate", sp, default_time);
    sub.periodStart = r.Time(m, "periodStart", sp, sub.subscriptionCreationDate);
    sub.periodEnd = r.Time(m, "periodEnd", sp, sub.periodStart + 30 * model::kDay);
    sub.planUpgradeCancelPossible = r.Bool(m, "planUpgradeCancelPossible", sp, true);
    sub.paymentFailureMessage = r.OptStr(m, "paymentFailureMessage", sp);
    sub.invoiceDetails = r.StrOr(m, "invoiceDetails", sp, "");
    sub.placementCredits = r.Int(m, "placementCredits", sp, 0);
    s.subscriptions.Insert(std::move(sub));
  }
  yaml::Node shield = r.Seq(n, "dnsShield", p);
  for (size_t i = 0; shield.IsDefined() && !shield.IsNull() && i < shield.size(); ++i) {
    const yaml::Node m = shield[i];
    const std::string sp = p + ".dnsShield[" + std::to_string(i) + "]";
    r.OnlyKeys(m, sp, {"id", "subscriptionId", "planType", "totalSlots", "totalUsedSlots", "status"});
    model::DnsShieldSubscription d;
    d.subscriptionId = r.Str(m, "subscriptionId", sp);
    d.id = r.StrOr(m, "id", sp, model::StableId("dns-shield:" + d.subscriptionId));
    if (s.dnsShield.Contains(d.id)) r.Fail(m, sp + ".id", "duplicate id " + d.id);
    d.accountId = added.id;
    d.planType = r.OneOf(m, "planType", sp, {"STARTER", "GROWTH", "PRO"});
    d.totalSlots = r.Int(m, "totalSlots", sp);
    d.totalUsedSlots = r.Int(m, "totalUsedSlots", sp, 0);
    if (d.totalUsedSlots < 0 || d.totalUsedSlots > d.totalSlots)
      r.Fail(m, sp + ".totalUsedSlots", "must be between 0 and totalSlots");
    d.status = r.OneOf(m, "status", sp, {"ACTIVE", "CANCELLED"}, "ACTIVE");
    s.dnsShield.Insert(std::move(d));
  }
  yaml::Node ws = r.Need(n, "workspaces", p);
  if (!ws.IsSequence() || ws.size() == 0) r.Fail(ws, p + ".workspaces", "must be a non-empty list");
  int defaults = 0;
  for (size_t i = 0; i < ws.size(); ++i) {
    LoadWorkspace(r, s, ws[i], p + ".workspaces[" + std::to_string(i) + "]", added, domain_names, default_time);
    defaults += r.Bool(ws[i], "default", p, false) ? 1 : 0;
  }
  if (defaults > 1) r.Fail(ws, p + ".workspaces", "only one workspace may be the default");
}

yaml::Document Parse(const std::string& text, const std::string& name) {
  try {
    return yaml::Document::Parse(text);
  } catch (const yaml::ParseError& e) {
    throw FixtureError(name + ":" + std::to_string(e.line + 1) + ": " + e.what());
  }
}

}  // namespace

Fixture LoadFixtureText(const std::string& text, const std::string& name, std::uint64_t seed) {
  Reader r(name);
  const yaml::Document doc = Parse(text, name);
  const yaml::Node root = doc.Root();
  if (!root.IsMap()) throw FixtureError(name + ": the fixture must be a YAML mapping");
  r.OnlyKeys(root, "fixture", {"version", "clock", "timings", "catalogue", "plans", "accounts", "generate"});
  Fixture f;
  f.state.ids = model::IdGenerator(seed);
  Millis default_time = 0;
  if (yaml::Node c = root["clock"]; c.IsDefined() && !c.IsNull()) {
    r.OnlyKeys(c, "clock", {"start"});
    f.clockStart = r.Time(c, "start", "clock", std::nullopt);
    default_time = *f.clockStart;
  }
  if (yaml::Node t = root["timings"]; t.IsDefined() && !t.IsNull()) {
    if (!t.IsMap()) r.Fail(t, "timings", "must be a mapping of name: duration");
    for (size_t i = 0; i < t.size(); ++i) {
      if (!t.Key(i).IsScalar()) r.Fail(t.Key(i), "timings", "timing names must be text");
      const std::string key = t.Key(i).Scalar();
      if (!DefaultTimings().count(key)) r.Fail(t.Key(i), "timings." + key, "unknown timing");
      f.state.timings[key] = r.WholeSeconds(t.Value(i), "timings." + key);
    }
  }
  yaml::Node cat = r.Seq(root, "catalogue", "fixture");
  for (size_t i = 0; cat.IsDefined() && !cat.IsNull() && i < cat.size(); ++i) {
    const std::string cp = "catalogue[" + std::to_string(i) + "]";
    r.OnlyKeys(cat[i], cp, {"domainName", "domainPrice", "renewPrice"});
    f.state.catalogue.push_back({r.Str(cat[i], "domainName", cp), r.Money(cat[i], "domainPrice", cp),
                                 r.Money(cat[i], "renewPrice", cp)});
  }
  yaml::Node plans = r.Seq(root, "plans", "fixture");
  for (size_t i = 0; plans.IsDefined() && !plans.IsNull() && i < plans.size(); ++i) {
    const std::string pp = "plans[" + std::to_string(i) + "]";
    r.OnlyKeys(plans[i], pp, {"key", "plan", "price", "totalMailboxQuantity", "placementCredits"});
    f.state.plans.push_back({r.Str(plans[i], "key", pp), r.Str(plans[i], "plan", pp), r.Int(plans[i], "price", pp),
                             r.Int(plans[i], "totalMailboxQuantity", pp), r.Int(plans[i], "placementCredits", pp, 0)});
  }
  yaml::Node gen = root["generate"];
  const bool generated = gen.IsDefined() && !gen.IsNull();
  yaml::Node accounts = generated ? r.Seq(root, "accounts", "fixture") : r.Need(root, "accounts", "fixture");
  if (accounts.IsDefined() && !accounts.IsNull() && !accounts.IsSequence()) r.Fail(accounts, "accounts", "must be a list");
  std::set<std::string> domain_names;
  for (size_t i = 0; accounts.IsDefined() && !accounts.IsNull() && i < accounts.size(); ++i)
    LoadAccount(r, f.state, accounts[i], "accounts[" + std::to_string(i) + "]", domain_names, default_time);
  if (generated) {
    // Synthetic accounts built in memory (sim/fixture_gen.hpp): big fixtures without the YAML
    // parse, which costs ~25 ms per 1k mailboxes spelled out.
    r.OnlyKeys(gen, "generate",
               {"mailboxes", "accounts", "mailboxesPerDomain", "emailsPerMailbox", "placementCredits", "walletBalance"});
    GenerateOptions o;
    o.mailboxes = r.Int(gen, "mailboxes", "generate", o.mailboxes);
    o.accounts = r.Int(gen, "accounts", "generate", o.accounts);
    o.mailboxesPerDomain = r.Int(gen, "mailboxesPerDomain", "generate", o.mailboxesPerDomain);
    o.emailsPerMailbox = r.Int(gen, "emailsPerMailbox", "generate", o.emailsPerMailbox);
    o.placementCredits = r.Int(gen, "placementCredits", "generate", o.placementCredits);
    if (gen["walletBalance"].IsDefined()) o.walletCents = r.Money(gen, "walletBalance", "generate");
    if (o.mailboxes < 0 || o.mailboxes > 10000000) r.Fail(gen["mailboxes"], "generate.mailboxes", "must be 0..10000000");
    if (o.accounts < 1 || o.accounts > 100000) r.Fail(gen["accounts"], "generate.accounts", "must be 1..100000");
    if (o.mailboxesPerDomain < 1) r.Fail(gen["mailboxesPerDomain"], "generate.mailboxesPerDomain", "must be at least 1");
    if (o.emailsPerMailbox < 0 || o.emailsPerMailbox > 100)
      r.Fail(gen["emailsPerMailbox"], "generate.emailsPerMailbox", "must be 0..100");
    if (o.placementCredits < 0) r.Fail(gen["placementCredits"], "generate.placementCredits", "must be >= 0");
    // The file's own records, before generation: with the recipe, all a reset needs.
    auto own = std::make_shared<const model::State>(f.state);
    try {
      GenerateRecords(f.state, o, default_time);
    } catch (const std::exception& e) {
      r.Fail(gen, "generate", e.what());
    }
    f.rebuild = [own, o, default_time] {
      model::State s = *own;
      GenerateRecords(s, o, default_time);
      return s;
    };
  }
  // No RebuildIndexes here: AddAccount/AddDomain/AddMailbox kept the indexes current (100k
  // mailboxes: a rebuild would cost ~25 ms of start-up for nothing).
  return f;
}

Fixture LoadFixtureFile(const std::string& path, std::uint64_t seed) {
  std::string text;
  try {
    text = ReadRegularFile(path, kMaxFixtureBytes);
  } catch (const FileRefError& e) {
    throw FixtureError(std::string(e.what()) + " (a fixture file must be a regular file)");
  }
  return LoadFixtureText(text, path, seed);
}

}  // namespace emsim::sim
