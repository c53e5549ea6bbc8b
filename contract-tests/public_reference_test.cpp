// Operations the spec names without a path (Part 4.11), shaped after the real service's public
// reference (README, "Operations from the public reference"): the same checks run against emsim
// and a real deployment; writes and spending only where allowed (REQUIRE_EFFECT).
#include <set>

#include "live.hpp"

namespace contract {
namespace {

json RefWalletBalance() {
  Reply r = Invoke("wallet.balance");
  return ExpectOk(r) ? r.body : json();
}

TEST(UsersDetails, ConformsAndNamesTheAccountsUser) {
  Reply r = Invoke("users.details");
  if (!ExpectOk(r)) return;
  if (r.body["data"].value("email", "").find('@') == std::string::npos)
    Violation("users.details", "/data/email", "must be the user's email address");
}

TEST(WalletBalance, ConformsAndIsWholeDollars) {
  const json b = RefWalletBalance();
  if (b.is_object() && b.value("walletBalance", -1) < 0) Violation("wallet.balance", "/walletBalance", "must not be negative");
}

TEST(WalletAddBalance, OpensAPaymentLinkAndCreditsNothingUntilPaid) {
  REQUIRE_EFFECT("wallet.add_balance");
  const json before = RefWalletBalance();
  Args a;
  a.body = json{{"amount", 5}};
  Reply r = Invoke("wallet.add_balance", a);
  if (!ExpectOk(r)) return;
  const json after = RefWalletBalance();
  if (before.is_object() && after.is_object() && after["walletBalance"] != before["walletBalance"])
    Violation("wallet.add_balance", "/walletBalance", "must not change before the payment link is paid");
  if (!Cfg().isEmsim) return;
  // emsim: paying the link (POST <paymentLink>/complete) credits the wallet.
  const std::string link = r.body.value("paymentLink", "");
  const size_t at = link.find("/_sim/checkout/");
  ASSERT_NE(at, std::string::npos) << link;
  const long dollars = WalletDollars();
  Reply paid = Sim("POST", link.substr(at) + "/complete", json::object());
  EXPECT_EQ(paid.status, 200) << paid.raw;
  EXPECT_EQ(WalletDollars(), dollars + 5);
}

TEST(WalletAddBalance, RefusesAnAmountThatIsNotANumber) {
  Args a;
  a.body = json{{"amount", "five"}};
  ExpectError(Invoke("wallet.add_balance", a), 400, Cfg().isEmsim ? "amount" : "");
}

TEST(WalletAutoRecharge, StoresItsSettingsVisibleInTheBalance) {
  REQUIRE_EFFECT("wallet.auto_recharge");
  Args a;
  a.body = json{{"enable", false}, {"threshold", 20}, {"minimumRechargeAmount", 50}};
  if (!ExpectOk(Invoke("wallet.auto_recharge", a))) return;
  const json b = RefWalletBalance();
  if (b.is_object() && b.value("autoRechargeEnabled", true))
    Violation("wallet.balance", "/autoRechargeEnabled", "must be false after disabling auto recharge");
}

TEST(WorkspacesCreate, CreatesAndRenamesAWorkspaceVisibleInTheList) {
  REQUIRE_EFFECT("workspaces.create");
  const std::string name = "contract " + Nonce();
  Args a;
  a.body = json{{"name", name}};
  Reply made = Invoke("workspaces.create", a);
  if (!ExpectOk(made)) return;
  std::string id;
  for (const auto& w : Workspaces())
    if (w.value("name", "") == name) id = w.value("id", "");
  if (id.empty()) {
    Violation("workspaces.list", "/data", "must list the workspace just created (" + name + ")");
    return;
  }
  REQUIRE_EFFECT("workspaces.update");
  Args u;
  u.body = json{{"id", id}, {"name", name + " renamed"}};
  if (!ExpectOk(Invoke("workspaces.update", u))) return;
  bool seen = false;
  for (const auto& w : Workspaces()) seen = seen || (w.value("id", "") == id && w.value("name", "") == name + " renamed");
  if (!seen) Violation("workspaces.list", "/data", "must show the new name of " + id);
  // The same name again is refused.
  Args again;
  again.body = json{{"name", name + " renamed"}};
  ExpectError(Invoke("workspaces.create", again), 400, Cfg().isEmsim ? "name" : "");
}

TEST(MailboxesAssign, CreatesAMailboxOnAnActiveDomain) {
  REQUIRE_EFFECT("mailboxes.assign");
  // On emsim, an account of its own: other tests cancel the suite account's subscription, and
  // with it the free mailbox slots an assignment needs.
  Args as;
  if (Cfg().isEmsim) {
    Reply tenant = Sim("POST", "/_sim/tenants", json::object());
    ASSERT_TRUE(tenant.isJson && tenant.body.value("apiKey", "") != "") << tenant.raw;
    as.apiKey = tenant.body["apiKey"].get<std::string>();
  }
  Reply domains = Invoke("domains.list", as);
  if (!ExpectOk(domains)) return;
  json d;
  for (const auto& x : domains.body["data"].value("domains", json::array()))
    if (!d.is_object() && x.value("status", "") == "ACTIVE") d = x;
  if (!d.is_object()) GTEST_SKIP() << "the account has no ACTIVE domain on the first page";
  const std::string username = "c" + Nonce();
  Args a = as;
  a.body = json{{d.value("id", ""), {{{"firstName", "Contract"}, {"lastName", "Suite"}, {"mailboxUsername", username},
                                      {"domainName", d.value("domain", "")}}}}};
  if (!ExpectOk(Invoke("mailboxes.assign", a))) return;
  if (!Cfg().isEmsim) return;
  Args q = as;
  q.query["contains"] = username;
  Reply list = Invoke("mailboxes.list", q);
  if (ExpectOk(list) && list.body["data"].value("totalSearchedCount", 0) != 1)
    Violation("mailboxes.list", "/data/totalSearchedCount", "must find the mailbox just assigned (" + username + ")");
}

TEST(MailboxesUpdate, KeepsAMailboxAsItIsWhenSentItsOwnValues) {
  REQUIRE_EFFECT("mailboxes.update");
  const auto m = AnyMailbox();
  if (!m) GTEST_SKIP() << "the account has no mailbox";
  Args a;
  a.body = json{{"mailboxData", {{{"mailboxId", m->value("id", "")}, {"firstName", m->value("firstName", "")},
                                  {"lastName", m->value("lastName", "")}, {"username", m->value("username", "")}}}}};
  ExpectOk(Invoke("mailboxes.update", a));
}

TEST(MailboxesUpdate, RefusesAnUnknownMailbox) {
  Args a;
  a.body = json{{"mailboxData", {{{"mailboxId", "mbx_contract_" + Nonce()}, {"firstName", "A"}, {"lastName", "B"}, {"username", "ab"}}}}};
  Reply r = Invoke("mailboxes.update", a);
  if (r.status != 404 && r.status != 400) Violation("mailboxes.update", "status", "an unknown mailbox must be refused (got " + std::to_string(r.status) + ")");
}

TEST(MailboxesScheduledRemoval, CancellingARemovalThatWasNotScheduledIsHarmless) {
  REQUIRE_EFFECT("mailboxes.scheduled_removal");
  const auto m = AnyMailbox();
  if (!m) GTEST_SKIP() << "the account has no mailbox";
  Args a;
  a.body = json{{"mailboxIds", {m->value("id", "")}}, {"remove", false}};
  ExpectOk(Invoke("mailboxes.scheduled_removal", a));
}

TEST(DomainsRemoveUnused, RemovesADomainWithoutMailboxes) {
  REQUIRE_EMSIM("finds a domain without mailboxes in /_sim/state");
  REQUIRE_EFFECT("domains.remove_unused");
  const json workspaces = Workspaces();
  ASSERT_FALSE(workspaces.empty());
  const std::string ws = Cfg().workspaceKey.empty() ? workspaces[0].value("id", "") : Cfg().workspaceKey;
  const json state = SimState();
  std::set<std::string> used;
  for (const auto& m : state.value("mailboxes", json::array())) used.insert(m.value("domainId", ""));
  std::string unused;
  for (const auto& d : state.value("domains", json::array()))
    if (d.value("workspaceId", "") == ws && !used.count(d.value("id", ""))) unused = d.value("id", "");
  if (unused.empty()) GTEST_SKIP() << "no domain without mailboxes in " << ws;
  Args a;
  a.body = json{{"ids", {unused}}};
  if (!ExpectOk(Invoke("domains.remove_unused", a))) return;
  for (const auto& d : AllDomains())
    if (d.value("id", "") == unused) Violation("domains.list", "/data", "must not list removed domain " + unused);
}

}  // namespace
}  // namespace contract
