// What runtime::Store resets to (start-up memory): a copy of the loaded fixtures, or, for a
// fixture with a `generate:` mapping, the same state rebuilt from the file's own records and the
// recipe. Either way a reset must give back exactly the loaded state, indexes included.
#include <sstream>

#include <gtest/gtest.h>

#include "cli/app.hpp"
#include "runtime/store.hpp"
#include "model/tenants.hpp"
#include "fixture/fixture_gen.hpp"
#include "fixture/fixtures.hpp"

namespace emsim {
namespace {

// Records of its own (one account, a domain with two mailboxes, an email) plus 57 generated
// mailboxes over two accounts with two emails each.
const char* kMixedFixture = R"(version: 1
clock: { start: "2026-01-01T09:00:00.000Z" }
timings: { dmarcSeconds: 5 }
plans:
  - { key: "enterprise_monthly", plan: ENTERPRISE, price: 199, totalMailboxQuantity: 150, placementCredits: 100 }
accounts:
  - id: acc_own
    apiKey: emsim_test_own_1234
    user: { id: usr_own, email: own@example.com }
    walletBalance: "12.50"
    workspaces:
      - id: ws_own
        name: Own
        default: true
        domains:
          - id: dom_own
            domain: own-domain.com
            status: ACTIVE
            createdAt: "2025-12-01T00:00:00.000Z"
            mailboxes:
              - { id: mbx_own_1, username: jane }
              - { id: mbx_gen_custom, username: joe, status: INACTIVE }
        emails:
          - { id: eml_own_1, account: jane@own-domain.com, messageId: "<1@own>", date: "2025-12-02T00:00:00.000Z" }
generate:
  mailboxes: 57
  accounts: 2
  mailboxesPerDomain: 4
  emailsPerMailbox: 2
)";

std::string Problems(const runtime::Store& store) {
  return store.Read([](const model::State& s) { return model::IndexProblems(s); });
}

// Changes of every kind a test run makes: records added and removed, statuses, money, ids, jobs,
// events.
void ChangeEverything(runtime::Store& store) {
  store.Write([](model::State& s) {
    model::Mailbox m;
    m.id = "mbx_added";
    m.accountId = "acc_gen_00001";
    m.workspaceId = "ws_gen_00001";
    m.domainId = "dom_gen_0000001";
    m.username = "added";
    s.AddMailbox(m);
    s.SetMailboxStatus(*s.mailboxes.Edit("mbx_gen_0000003"), model::MailboxStatus::kInactive);
    s.accounts.Edit("acc_gen_00002")->walletCents -= 100;
    s.emails.Erase("eml_gen_0000004");
    s.ids.Uuid4();
    s.Schedule(123, "x.kind", {{"a", 1}});
    s.Emit("domain.updated", "acc_own", {{"k", "v"}}, 1000);
  });
}

TEST(StoreBaseline, AGeneratedFixtureIsRebuiltNotCopiedAndRebuildsExactly) {
  fixture::Fixture f = fixture::LoadFixtureText(kMixedFixture, "mixed.yaml", 7);
  ASSERT_TRUE(f.rebuild);
  EXPECT_EQ(f.state.mailboxes.size(), 2u + 57u);
  EXPECT_EQ(f.state.emails.size(), 1u + 114u);
  EXPECT_EQ(model::IndexProblems(f.state), "");  // the loader keeps the indexes current
  const model::State again = f.rebuild();
  EXPECT_EQ(model::DumpState(again), model::DumpState(f.state));
  EXPECT_EQ(model::IndexProblems(again), "");
  EXPECT_EQ(again.mailboxesByWorkspace, f.state.mailboxesByWorkspace);
  EXPECT_EQ(again.mailboxesByDomain, f.state.mailboxesByDomain);
  EXPECT_EQ(again.domainsByWorkspace, f.state.domainsByWorkspace);
  EXPECT_EQ(again.activeMailboxesByWorkspace, f.state.activeMailboxesByWorkspace);
  EXPECT_EQ(again.accountByApiKey, f.state.accountByApiKey);

  // A fixture without `generate:` is kept as a copy.
  EXPECT_FALSE(fixture::LoadFixtureFile(cli::DefaultFixturePath(), 1).rebuild);
}

TEST(StoreBaseline, ResetAfterChangesRestoresTheGeneratedStateExactly) {
  fixture::Fixture f = fixture::LoadFixtureText(kMixedFixture, "mixed.yaml", 7);
  const json loaded = model::DumpState(f.state);
  runtime::Store store(std::move(f.state), std::move(f.rebuild));
  EXPECT_EQ(store.Dump(), loaded);

  ChangeEverything(store);
  const json changed = store.Dump();
  ASSERT_NE(changed, loaded);
  EXPECT_EQ(Problems(store), "");
  const auto generation = store.generation();
  store.Reset();
  EXPECT_EQ(store.generation(), generation + 1);
  EXPECT_EQ(store.Dump(), loaded);
  EXPECT_EQ(Problems(store), "");
  EXPECT_EQ(store.Read([](const model::State& s) { return s.activeMailboxesByWorkspace.at("ws_gen_00001"); }),
            store.Read([](const model::State& s) {
              std::int64_t n = 0;
              for (const auto& m : s.mailboxes) n += m.workspaceId == "ws_gen_00001" && m.status == model::MailboxStatus::kActive;
              return n;
            }));

  // Dump/load round-trips, and a reset after a load still goes back to the fixtures.
  store.Load(changed);
  EXPECT_EQ(store.Dump(), changed);
  EXPECT_EQ(Problems(store), "");
  store.Reset();
  EXPECT_EQ(store.Dump(), loaded);
  store.Reset();
  EXPECT_EQ(store.Dump(), loaded);
}

// A big state (here 21k records) replaced by a reset or a load is freed on a background thread:
// the next reset, a load and the store's end all wait for it, and nothing is lost.
TEST(StoreBaseline, BigStatesAreFreedInTheBackgroundAndResetsStayExact) {
  fixture::GenerateOptions o;
  o.mailboxes = 9500;  // with its emails and domains: over the 20000 records freed in the background
  o.accounts = 2;
  std::ostringstream text;
  fixture::WriteGeneratedFixture(text, o, false);
  fixture::Fixture f = fixture::LoadFixtureText(text.str(), "big.yaml", 1);
  const json loaded = model::DumpState(f.state);
  {
    runtime::Store store(std::move(f.state), std::move(f.rebuild));
    ChangeEverything(store);
    const json changed = store.Dump();
    store.Reset();  // the changed state goes to the background
    store.Reset();  // waits for it, then hands over the first rebuild
    EXPECT_EQ(store.Dump(), loaded);
    store.Load(changed);
    EXPECT_EQ(store.Dump(), changed);
    EXPECT_EQ(Problems(store), "");
    store.Reset();
    EXPECT_EQ(store.Dump(), loaded);
  }  // ends while a state may still be being freed
}

TEST(StoreBaseline, ResetOfACopiedFixtureRestoresItExactly) {
  fixture::Fixture f = fixture::LoadFixtureFile(cli::DefaultFixturePath(), 1);
  const json loaded = model::DumpState(f.state);
  runtime::Store store(std::move(f.state));
  store.Write([](model::State& s) {
    s.accounts.Edit("acc_alice")->walletCents = 1;
    s.SetMailboxStatus(s.mailboxes.EditAll().front(), model::MailboxStatus::kInactive);
    s.ids.Uuid4();
    s.Emit("domain.updated", "acc_alice", {{"k", "v"}}, 1000);
  });
  ASSERT_NE(store.Dump(), loaded);
  store.Reset();
  EXPECT_EQ(store.Dump(), loaded);
  EXPECT_EQ(Problems(store), "");
}

// POST /_sim/tenants clones from the fixtures: a generated account is a template too, cloned from
// the rebuilt fixture state, not from the current one.
TEST(StoreBaseline, TenantsCloneFromTheRebuiltGeneratedFixture) {
  fixture::Fixture f = fixture::LoadFixtureText(kMixedFixture, "mixed.yaml", 7);
  runtime::Store store(std::move(f.state), std::move(f.rebuild));
  ChangeEverything(store);  // adds a mailbox to acc_gen_00001: not part of the fixture
  auto info = store.WriteWithBaseline([](model::State& s, const model::State& fixture) {
    return model::CreateTenant(s, fixture, "acc_gen_00001", 5000);
  });
  ASSERT_TRUE(info);
  store.Read([&](const model::State& s) {
    std::int64_t mailboxes = 0;
    for (const auto& m : s.mailboxes) mailboxes += m.accountId == info->accountId;
    EXPECT_EQ(mailboxes, 29);  // 57 over two accounts: 29 and 28
    EXPECT_EQ(model::IndexProblems(s), "");
    return 0;
  });
}

TEST(StoreBaseline, GeneratedIdsTakenByTheFileAreFixtureErrors) {
  const std::string head = "version: 1\nclock: { start: \"2026-01-01T09:00:00.000Z\" }\naccounts:\n"
                           "  - id: acc_x\n    apiKey: k_x\n    user: { id: u, email: e }\n"
                           "    workspaces:\n      - id: ws_x\n        name: X\n        domains:\n"
                           "          - { id: dom_x, domain: x.com, status: ACTIVE, createdAt: \"2025-01-01T00:00:00.000Z\",\n"
                           "              mailboxes: [{ id: ";
  const auto load = [&](const std::string& mailbox_id, int generated) {
    return fixture::LoadFixtureText(head + mailbox_id + ", username: a }] }\ngenerate: { mailboxes: " +
                                    std::to_string(generated) + " }\n",
                                "clash.yaml", 1);
  };
  try {
    load("mbx_gen_0000005", 5);
    FAIL() << "accepted a mailbox id the generator hands out";
  } catch (const fixture::FixtureError& e) {
    EXPECT_NE(std::string(e.what()).find("mailbox id mbx_gen_0000005 is taken"), std::string::npos) << e.what();
  }
  // Ids of the same shape that the generator does not reach are the file's to use.
  EXPECT_EQ(load("mbx_gen_0000006", 5).state.mailboxes.size(), 6u);
  EXPECT_EQ(load("mbx_gen_00000001", 5).state.mailboxes.size(), 6u);
  EXPECT_EQ(load("mbx_gen_", 5).state.mailboxes.size(), 6u);
}

}  // namespace
}  // namespace emsim
