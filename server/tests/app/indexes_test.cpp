// The State's derived indexes (lists answer from indexes, not scans) and the fixture
// generator behind the benchmark. Model tests, no sockets, except the journal test at the end.
#include <ctime>
#include <random>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "cli/app.hpp"
#include "model/domains.hpp"
#include "model/mailboxes.hpp"
#include "model/search.hpp"
#include "core/text.hpp"
#include "runtime/store.hpp"
#include "model/webhooks.hpp"
#include "model/workspaces.hpp"
#include "fixture/fixture_gen.hpp"
#include "fixture/fixtures.hpp"
#include "runtime/journal.hpp"
#include "runtime/search_warmer.hpp"
#include "tests/support/test_server.hpp"

namespace emsim {
namespace {

model::State Generated(const fixture::GenerateOptions& o) {
  std::ostringstream text;
  fixture::WriteGeneratedFixture(text, o, false);
  return fixture::LoadFixtureText(text.str(), "generated.yaml", 1).state;
}

model::Mailbox NewMailbox(const model::State& s, const std::string& id, const std::string& domain_id,
                          const std::string& status) {
  const model::Domain* d = s.domains.Find(domain_id);
  model::Mailbox m;
  m.id = id;
  m.accountId = d->accountId;
  m.workspaceId = d->workspaceId;
  m.domainId = d->id;
  m.username = id;
  m.status = *core::ParseEnum<model::MailboxStatus>(status);
  return m;
}

TEST(StateIndexes, DefaultFixtureLoadsConsistent) {
  model::State s = testing::DefaultFixtureState();
  EXPECT_EQ(model::IndexProblems(s), "");
  EXPECT_EQ(s.domainsByWorkspace.at("ws_northwind").size(), 14u);
  EXPECT_EQ(s.mailboxesByWorkspace.at("ws_northwind").size(), 76u);
}

TEST(StateIndexes, StayConsistentThroughTheMutators) {
  model::State s = testing::DefaultFixtureState();
  const std::string ws = "ws_labs";
  const auto before = s.mailboxesByWorkspace[ws].size();
  const auto active_before = s.activeMailboxesByWorkspace[ws];
  const std::string domain_id = s.domainsByWorkspace[ws].front();

  model::Domain d = *s.domains.Find(domain_id);
  d.id = "dom_new";
  d.domain = "brand-new-domain.com";
  s.AddDomain(d);
  s.AddMailbox(NewMailbox(s, "mbx_new_active", "dom_new", "ACTIVE"));
  model::Mailbox& inactive = s.AddMailbox(NewMailbox(s, "mbx_new_inactive", domain_id, "INACTIVE"));
  EXPECT_EQ(model::IndexProblems(s), "");
  EXPECT_EQ(s.mailboxesByWorkspace[ws].size(), before + 2);
  EXPECT_EQ(s.mailboxesByWorkspace[ws].back(), "mbx_new_inactive");  // creation order
  EXPECT_EQ(s.domainsByWorkspace[ws].back(), "dom_new");
  EXPECT_EQ(s.activeMailboxesByWorkspace[ws], active_before + 1);

  s.SetMailboxStatus(inactive, model::MailboxStatus::kActive);
  EXPECT_EQ(s.activeMailboxesByWorkspace[ws], active_before + 2);
  s.SetMailboxStatus(*s.mailboxes.Edit("mbx_new_active"), model::MailboxStatus::kInProgress);
  s.SetMailboxStatus(*s.mailboxes.Edit("mbx_new_active"), model::MailboxStatus::kInProgress);  // no change, no drift
  EXPECT_EQ(s.activeMailboxesByWorkspace[ws], active_before + 1);
  EXPECT_EQ(model::IndexProblems(s), "");

  model::Account a = *s.accounts.Find("acc_bob");
  a.id = "acc_new";
  a.apiKey = "emsim_test_new";
  s.AddAccount(a);
  EXPECT_EQ(s.accountByApiKey.at("emsim_test_new"), "acc_new");
  EXPECT_EQ(model::IndexProblems(s), "");
}

TEST(StateIndexes, ProblemsAreReportedWhenAChangeBypassesTheMutators) {
  model::State s = testing::DefaultFixtureState();
  s.mailboxes.Edit(s.mailboxesByWorkspace["ws_lumen"].front())->status = model::MailboxStatus::kInactive;  // not SetMailboxStatus
  EXPECT_NE(model::IndexProblems(s).find("activeMailboxesByWorkspace"), std::string::npos);
  s.RebuildIndexes();
  EXPECT_EQ(model::IndexProblems(s), "");
  s.mailboxes.Insert(NewMailbox(s, "mbx_sneaky", s.domainsByWorkspace["ws_lumen"].front(), "ACTIVE"));
  EXPECT_NE(model::IndexProblems(s).find("mailboxesByWorkspace"), std::string::npos);
}

TEST(StateIndexes, RebuiltByStateLoadAndCarriedByStoreResetAndLoad) {
  model::State s = testing::DefaultFixtureState();
  s.AddMailbox(NewMailbox(s, "mbx_extra", s.domainsByWorkspace["ws_lumen"].front(), "ACTIVE"));
  model::State loaded = model::LoadState(model::DumpState(s));
  EXPECT_EQ(model::IndexProblems(loaded), "");
  EXPECT_EQ(loaded.mailboxesByWorkspace, s.mailboxesByWorkspace);
  EXPECT_EQ(loaded.domainsByWorkspace, s.domainsByWorkspace);
  EXPECT_EQ(loaded.activeMailboxesByWorkspace["ws_lumen"], s.activeMailboxesByWorkspace["ws_lumen"]);

  runtime::Store store(testing::DefaultFixtureState());
  const auto base = store.Read([](const model::State& st) { return st.mailboxesByWorkspace.at("ws_lumen").size(); });
  store.Write([&](model::State& st) { st.AddMailbox(NewMailbox(st, "mbx_w", st.domainsByWorkspace["ws_lumen"].front(), "ACTIVE")); });
  EXPECT_EQ(store.Read([](const model::State& st) { return st.mailboxesByWorkspace.at("ws_lumen").size(); }), base + 1);
  store.Reset();
  EXPECT_EQ(store.Read([](const model::State& st) { return st.mailboxesByWorkspace.at("ws_lumen").size(); }), base);
  EXPECT_EQ(store.Read([](const model::State& st) { return model::IndexProblems(st); }), "");
  store.Load(model::DumpState(s));
  EXPECT_EQ(store.Read([](const model::State& st) { return model::IndexProblems(st); }), "");
  EXPECT_EQ(store.Read([](const model::State& st) { return st.mailboxesByWorkspace.at("ws_lumen").back(); }), "mbx_extra");
}

TEST(StateIndexes, WebhookEndpointsByPathFollowCreateUrlChangeAndLoad) {
  model::State s = testing::DefaultFixtureState();
  const model::Caller alice{"acc_alice", "ws_northwind"};
  auto url = [](const std::string& sink) { return "http://127.0.0.1:9/_sim/sinks/" + sink + "/receive"; };
  auto create = [&](const std::string& u) {  // answers the new id
    auto e = model::CreateEndpoint(s, alice, {u, {"domain.updated"}}, false, 0);
    EXPECT_TRUE(e.ok());
    return e.ok() ? (*e)->id : std::string();
  };
  const std::string id1 = create(url("snk_a")), id2 = create(url("snk_b") + "?x=1"),
                    id3 = create("http://localhost:8/_sim/sinks/snk_a/receive");
  EXPECT_EQ(s.webhookEndpointsByPath.at("/_sim/sinks/snk_a/receive"), (std::vector<std::string>{id1, id3}));
  EXPECT_EQ(s.webhookEndpointsByPath.at("/_sim/sinks/snk_b/receive"), (std::vector<std::string>{id2}));
  EXPECT_EQ(model::IndexProblems(s), "");

  // A PATCHed url moves the endpoint; the lists stay in creation order.
  model::EndpointPatch patch;
  patch.url = url("snk_b");
  ASSERT_TRUE(model::UpdateEndpoint(s, alice, id1, patch, false, 0).ok());
  EXPECT_EQ(s.webhookEndpointsByPath.at("/_sim/sinks/snk_a/receive"), (std::vector<std::string>{id3}));
  EXPECT_EQ(s.webhookEndpointsByPath.at("/_sim/sinks/snk_b/receive"), (std::vector<std::string>{id1, id2}));
  EXPECT_EQ(model::IndexProblems(s), "");

  model::State loaded = model::LoadState(model::DumpState(s));
  EXPECT_EQ(loaded.webhookEndpointsByPath, s.webhookEndpointsByPath);

  s.webhookEndpoints.Edit(id3)->url = url("snk_c");  // not SetWebhookEndpointUrl
  EXPECT_NE(model::IndexProblems(s).find("webhookEndpointsByPath"), std::string::npos);
}

// The indexed lists answer exactly what a scan of the whole state answers.
TEST(StateIndexes, ListsMatchAFullScan) {
  fixture::GenerateOptions o;
  o.mailboxes = 137;
  o.accounts = 2;
  o.mailboxesPerDomain = 3;
  model::State s = Generated(o);
  model::Caller caller{"acc_gen_00001", "ws_gen_00001"};
  std::vector<std::string> all_mailboxes, all_domains;
  std::int64_t active = 0;
  for (const auto& m : s.mailboxes)
    if (m.workspaceId == caller.workspaceId) {
      all_mailboxes.push_back(m.id);
      active += m.status == model::MailboxStatus::kActive;
    }
  for (const auto& d : s.domains)
    if (d.workspaceId == caller.workspaceId) all_domains.push_back(d.id);
  ASSERT_EQ(all_mailboxes.size(), 69u);

  std::vector<std::string> paged;
  for (std::int64_t page = 1; page <= 5; ++page) {
    auto view = model::ListMailboxes(s, caller, "", page);
    EXPECT_EQ(view.page.totalSearchedCount, 69);
    EXPECT_EQ(view.totalAssignedMailboxes, 69);
    EXPECT_EQ(view.totalActiveMailboxes, active);
    EXPECT_EQ(view.availableMailboxes, 150 - 69);
    for (const auto& g : view.domains)
      for (const auto* m : g.mailboxes) paged.push_back(m->id);
  }
  EXPECT_EQ(paged, all_mailboxes);

  auto filtered = model::ListMailboxes(s, caller, "GEN-0000002.example", 1);  // the address, any case
  ASSERT_EQ(filtered.page.totalSearchedCount, 3);
  EXPECT_EQ(filtered.domains.size(), 1u);
  EXPECT_EQ(filtered.domains[0].domain->domain, "gen-0000002.example.com");
  auto by_name = model::ListMailboxes(s, caller, "ava berg", 1);  // first and last name
  ASSERT_EQ(by_name.page.totalSearchedCount, 1);
  EXPECT_EQ(by_name.domains[0].mailboxes[0]->id, "mbx_gen_0000020");

  std::vector<std::string> domain_pages;
  for (std::int64_t page = 1; page <= 3; ++page)
    for (const auto* d : model::ListDomains(s, caller, "", page).domains) domain_pages.push_back(d->id);
  EXPECT_EQ(domain_pages, all_domains);
  EXPECT_EQ(model::ListDomains(s, caller, "0000007", 1).page.totalSearchedCount, 1);
  EXPECT_EQ(model::ListDomains(s, {"acc_gen_00001", "ws_nowhere"}, "", 1).page.totalSearchedCount, 0);

  auto ws = model::ListWorkspaces(s, caller);
  ASSERT_EQ(ws.size(), 1u);
  EXPECT_EQ(ws[0].domainCount, static_cast<std::int64_t>(all_domains.size()));
  EXPECT_EQ(ws[0].mailboxCount, 69);
}

// The `contains` filter answers from the trigram index (model/text_search.hpp) what a scan of
// every mailbox of the workspace answers, in the same order, for needles of every length and case,
// through mailboxes added, renamed and given new names after the workspace was first searched.
TEST(StateIndexes, TheContainsSearchAnswersAsAScanThroughAddsAndRenames) {
  fixture::GenerateOptions o;
  o.mailboxes = 400;
  o.accounts = 2;
  o.mailboxesPerDomain = 7;
  model::State s = Generated(o);
  const model::Caller caller{"acc_gen_00001", "ws_gen_00001"};
  auto scan = [&](const std::string& needle) {
    std::vector<std::string> ids;
    const std::string lower = model::ToLower(needle);
    std::string address, name;
    const model::Domain* domain = nullptr;
    for (const auto& m : s.mailboxes) {
      if (m.workspaceId != caller.workspaceId) continue;
      model::MailboxSearchTexts(s, m, address, name, domain);
      if (model::ContainsFolded(address, lower) || model::ContainsFolded(name, lower)) ids.push_back(m.id);
    }
    return ids;
  };
  auto listed = [&](const std::string& needle) {
    std::vector<std::string> ids;
    for (std::int64_t page = 1;; ++page) {
      auto view = model::ListMailboxes(s, caller, needle, page);
      for (const auto& group : view.domains)
        for (const auto* m : group.mailboxes) ids.push_back(m->id);
      if (view.page.nextPage == 0) break;
    }
    return ids;
  };
  std::mt19937 rng(7);
  auto check_needles = [&](const char* when) {
    // Pieces of real addresses and names, any case; and ones no mailbox has.
    std::vector<std::string> needles = {"", "a", "zz", "@", "qqq", "gen-00000", "EXAMPLE.COM", "0000001@", "@gen-0000003",
                                        " ", "x y", "m\xC3\xA9"};
    std::string address, name;
    for (int i = 0; i < 60; ++i) {
      const auto& m = s.mailboxes.rows()[rng() % s.mailboxes.size()];
      const model::Domain* domain = nullptr;
      model::MailboxSearchTexts(s, m, address, name, domain);
      const std::string& text = i % 2 ? address : name;
      const size_t from = rng() % text.size(), len = 1 + rng() % 9;
      std::string piece = text.substr(from, len);
      if (i % 3 == 0) piece = model::ToUpper(piece);
      needles.push_back(piece);
    }
    for (const auto& needle : needles) EXPECT_EQ(listed(needle), scan(needle)) << when << ": '" << needle << "'";
    EXPECT_EQ(model::IndexProblems(s), "") << when;
  };
  check_needles("first searches");
  EXPECT_EQ(s.mailboxSearch.Workspaces(), 1u);

  // Added after the first searches: the next search takes them in.
  const model::Domain& d = s.domains.rows()[0];
  ASSERT_EQ(d.workspaceId, caller.workspaceId);
  for (int i = 0; i < 5; ++i) {
    model::Mailbox m = NewMailbox(s, "mbx_added_" + std::to_string(i), d.id, "ACTIVE");
    m.firstName = "Zoë";
    m.lastName = "Quartermain" + std::to_string(i);
    s.AddMailbox(std::move(m));
  }
  EXPECT_EQ(listed("quartermain").size(), 5u);
  check_needles("after adds");

  // Renamed and given new names: the workspace's entry is rebuilt.
  std::vector<model::MailboxUpdate> updates;
  for (int i = 0; i < 3; ++i)
    updates.push_back({s.mailboxes.rows()[static_cast<size_t>(i)].id, "Renamed", "Person" + std::to_string(i),
                       "renamed.user" + std::to_string(i), std::nullopt, false});
  ASSERT_TRUE(model::UpdateMailboxes(s, caller, updates, 0).ok());
  EXPECT_EQ(listed("renamed.user").size(), 3u);
  EXPECT_EQ(listed("renamed person1").size(), 1u);
  check_needles("after renames");
}

// The domain list's `contains` (Part 4.1) answered from the workspace's trigram index gives what a
// scan of every domain gives, page by page, through domains added and removed after the first
// searches (a removal moves the positions after it: the entry must be forgotten).
TEST(StateIndexes, TheDomainContainsSearchAnswersAsAScanThroughAddsAndRemovals) {
  fixture::GenerateOptions o;
  o.mailboxes = 300;
  o.accounts = 2;
  o.mailboxesPerDomain = 1;  // a domain per mailbox: 150 in each workspace
  model::State s = Generated(o);
  const model::Caller caller{"acc_gen_00001", "ws_gen_00001"};
  auto scan = [&](const std::string& needle) {
    std::vector<std::string> ids;
    const std::string lower = model::ToLower(needle);
    for (const auto& d : s.domains)
      if (d.workspaceId == caller.workspaceId && model::ContainsFolded(d.domain, lower)) ids.push_back(d.id);
    return ids;
  };
  auto listed = [&](const std::string& needle) {
    std::vector<std::string> ids;
    for (std::int64_t page = 1;; ++page) {
      auto view = model::ListDomains(s, caller, needle, page);
      for (const auto* d : view.domains) ids.push_back(d->id);
      if (view.page.nextPage == 0) break;
    }
    return ids;
  };
  std::mt19937 rng(11);
  auto check_needles = [&](const char* when) {
    std::vector<std::string> needles = {"", "e", "ex", "example.com", "EXAMPLE", "gen-00000", "0000012", "qqq",
                                        "added-", "zz-added-3.test"};
    for (int i = 0; i < 40; ++i) {
      const auto& d = s.domains.rows()[rng() % s.domains.size()];
      const size_t from = rng() % d.domain.size(), len = 1 + rng() % 10;
      std::string piece = d.domain.substr(from, len);
      if (i % 3 == 0) piece = model::ToUpper(piece);
      needles.push_back(piece);
    }
    for (const auto& needle : needles) EXPECT_EQ(listed(needle), scan(needle)) << when << ": '" << needle << "'";
    EXPECT_EQ(model::IndexProblems(s), "") << when;
  };
  check_needles("first searches");
  EXPECT_EQ(s.domainSearch.Workspaces(), 1u);

  const model::Domain& first = s.domains.rows()[0];
  ASSERT_EQ(first.workspaceId, caller.workspaceId);
  for (int i = 0; i < 6; ++i) {
    model::Domain d = first;
    d.id = "dom_added_" + std::to_string(i);
    d.domain = "zz-added-" + std::to_string(i) + ".test";
    s.AddDomain(std::move(d));
  }
  EXPECT_EQ(listed("zz-ADDED").size(), 6u);
  check_needles("after adds");

  s.RemoveDomain("dom_added_1");  // holds no mailbox
  EXPECT_EQ(listed("zz-added-").size(), 5u);
  EXPECT_EQ(listed("zz-added-5.test"), std::vector<std::string>{"dom_added_5"});
  check_needles("after a removal");
}

// A workspace's index brought up to date in steps (what a read route does before a first search,
// app::Ctx::ReadInSteps) is the index one build makes: each step takes at most its share, answers
// what is left, and the searches after it answer as those of a world whose first search built
// the index at once. A needle the index does not serve builds nothing.
TEST(StateIndexes, AnIndexBuiltInStepsIsTheIndexOneBuildMakes) {
  fixture::GenerateOptions o;
  o.mailboxes = 300;
  o.accounts = 2;
  o.mailboxesPerDomain = 3;
  o.emailsPerMailbox = 2;
  model::State s = Generated(o);
  const model::Caller caller{"acc_gen_00001", "ws_gen_00001"};
  auto steps_of = [&](auto step) {
    std::vector<size_t> left;
    for (size_t l = step(); ; l = step()) {
      left.push_back(l);
      if (l == 0 || left.size() > 100) break;
    }
    return left;
  };
  auto countdown = [](size_t total, size_t step) {
    std::vector<size_t> left;
    for (size_t done = step; ; done += step) {
      left.push_back(done >= total ? 0 : total - done);
      if (done >= total) break;
    }
    return left;
  };
  const size_t mailboxes = s.mailboxesByWorkspace.at("ws_gen_00001").size();
  const size_t domains = s.domainsByWorkspace.at("ws_gen_00001").size();
  ASSERT_EQ(mailboxes, 150u);

  // Too short for the index: nothing built, nothing left.
  EXPECT_EQ(model::CatchUpMailboxSearch(s, caller, "ge", 16), 0u);
  model::EmailQuery short_q;
  short_q.q = "ab cd";
  EXPECT_EQ(model::CatchUpEmailSearch(s, caller, short_q, 16), 0u);
  EXPECT_EQ(s.mailboxSearch.Workspaces() + s.emailSearch.Workspaces(), 0u);

  EXPECT_EQ(steps_of([&] { return model::CatchUpMailboxSearch(s, caller, "gen-00000", 64); }), countdown(mailboxes, 64));
  EXPECT_EQ(steps_of([&] { return model::CatchUpDomainSearch(s, caller, "gen", 16); }), countdown(domains, 16));
  // The email search's positions are in the email order (every email of the world, read, sorted
  // in one step, placed), so that is built first, then the workspace's index: the count goes down
  // at every step.
  model::EmailQuery q;
  q.q = "hello contact4";  // the longest term is what the index is asked for
  const size_t emails = 2 * mailboxes, all_emails = s.emails.size();
  ASSERT_EQ(all_emails, 2 * emails);
  const std::vector<size_t> left = steps_of([&] { return model::CatchUpEmailSearch(s, caller, q, 100); });
  ASSERT_FALSE(left.empty());
  EXPECT_EQ(left.back(), 0u);
  for (size_t i = 1; i < left.size(); ++i) EXPECT_LT(left[i], left[i - 1]) << "step " << i;
  const size_t order_steps = all_emails / 100 + 1 + all_emails / 100;  // read, sort, place
  EXPECT_LE(left.size(), order_steps + emails / 100);
  EXPECT_GE(left.size(), order_steps - 1 + emails / 100 - 1);
  EXPECT_EQ(model::IndexProblems(s), "");

  // The searches after the steps answer as a state that never took a step (its first search
  // builds the index at once).
  model::State fresh = Generated(o);
  for (const std::string needle : {"gen-00000", "0000012", "EXAMPLE.COM", "zz9"}) {
    auto a = model::ListMailboxes(s, caller, needle, 1), b = model::ListMailboxes(fresh, caller, needle, 1);
    EXPECT_EQ(a.page.totalSearchedCount, b.page.totalSearchedCount) << needle;
    EXPECT_EQ(a.domains.size(), b.domains.size()) << needle;
    auto c = model::ListDomains(s, caller, needle, 1), d = model::ListDomains(fresh, caller, needle, 1);
    EXPECT_EQ(c.page.totalSearchedCount, d.page.totalSearchedCount) << needle;
  }
  auto mine = model::SearchEmails(s, caller, q), theirs = model::SearchEmails(fresh, caller, q);
  ASSERT_TRUE(mine.ok() && theirs.ok());
  EXPECT_EQ(mine->page.totalSearchedCount, theirs->page.totalSearchedCount);
  EXPECT_EQ(mine->emails.size(), theirs->emails.size());
  EXPECT_EQ(model::IndexProblems(s), "");
  // Up to date: a step has nothing to do.
  EXPECT_EQ(model::CatchUpMailboxSearch(s, caller, "gen-00000", 64), 0u);

  // A build of the email order forgotten half way (what adds or removes emails does) starts over.
  s.ForgetEmailOrder();
  EXPECT_GT(s.emailOrder.CatchUp(s, 700), 0u);  // every email read, the sort and some placed
  s.ForgetEmailOrder();
  EXPECT_GT(s.emailOrder.CatchUp(s, 50), all_emails);  // reading again
  while (s.emailOrder.CatchUp(s, 50) > 0) {
  }
  EXPECT_EQ(model::IndexProblems(s), "");
  auto again = model::SearchEmails(s, caller, q);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->page.totalSearchedCount, theirs->page.totalSearchedCount);
}

// Three workspaces of 100 mailboxes, 34 domains and 200 emails each: with 100 records of a kind
// as the threshold, the mailbox and email indexes of every workspace are built ahead, in steps,
// and the domains' (34) are left to their first search.
fixture::GenerateOptions ThreeWorkspaces() {
  fixture::GenerateOptions o;
  o.mailboxes = 300;
  o.accounts = 3;
  o.mailboxesPerDomain = 3;
  o.emailsPerMailbox = 2;
  return o;
}

TEST(StateIndexes, WarmingBuildsTheBigWorkspacesIndexesAsTheirFirstSearchWould) {
  model::State s = Generated(ThreeWorkspaces());
  const model::Caller caller{"acc_gen_00002", "ws_gen_00002"};
  ASSERT_EQ(s.mailboxesByWorkspace.at("ws_gen_00002").size(), 100u);
  ASSERT_EQ(s.domainsByWorkspace.at("ws_gen_00002").size(), 34u);

  // Above every workspace's size: nothing is built, not even the email order.
  EXPECT_EQ(model::WarmSearchIndexes(s, 10000, 64), 0u);
  EXPECT_EQ(s.mailboxSearch.Workspaces() + s.domainSearch.Workspaces() + s.emailSearch.Workspaces(), 0u);
  EXPECT_GT(s.emailOrder.CatchUp(s, 0), 0u);

  // In steps of 64, each leaving less than the one before, until nothing is left.
  std::vector<size_t> left;
  for (size_t l = model::WarmSearchIndexes(s, 100, 64);; l = model::WarmSearchIndexes(s, 100, 64)) {
    left.push_back(l);
    if (l == 0 || left.size() > 200) break;
  }
  ASSERT_EQ(left.back(), 0u);
  for (size_t i = 1; i < left.size(); ++i) EXPECT_LT(left[i], left[i - 1]) << "step " << i;
  // 300 mailboxes, then the email order (600 emails read, one sort, 600 placed), then 600 emails
  // indexed: ~2,100 steps' worth in steps of 64, none much larger (a step ends an index and goes
  // on to the next with what is left of its budget).
  EXPECT_GE(left.size(), 2100u / 64);
  EXPECT_LE(left.size(), 2100u / 64 + 4);
  EXPECT_EQ(s.mailboxSearch.Workspaces(), 3u);
  EXPECT_EQ(s.emailSearch.Workspaces(), 3u);
  EXPECT_EQ(s.domainSearch.Workspaces(), 0u);
  EXPECT_EQ(model::IndexProblems(s), "");

  // A search finds its index up to date; the domains' first search still builds theirs.
  EXPECT_EQ(model::CatchUpMailboxSearch(s, caller, "gen-00000", 1), 0u);
  model::EmailQuery q;
  q.q = "note contact2";  // every snippet has "note"; ws_gen_00002 holds contact200-399
  EXPECT_EQ(model::CatchUpEmailSearch(s, caller, q, 1), 0u);
  EXPECT_EQ(model::CatchUpDomainSearch(s, caller, "gen", 1), 33u);

  // And answers as a world whose searches built their own indexes.
  const model::State fresh = Generated(ThreeWorkspaces());
  for (const std::string needle : {"gen-00000", "0000012", "EXAMPLE.COM", "zz9"}) {
    auto a = model::ListMailboxes(s, caller, needle, 1), b = model::ListMailboxes(fresh, caller, needle, 1);
    EXPECT_EQ(a.page.totalSearchedCount, b.page.totalSearchedCount) << needle;
    EXPECT_EQ(a.domains.size(), b.domains.size()) << needle;
  }
  auto mine = model::SearchEmails(s, caller, q), theirs = model::SearchEmails(fresh, caller, q);
  ASSERT_TRUE(mine.ok() && theirs.ok());
  EXPECT_GT(theirs->page.totalSearchedCount, 0);
  EXPECT_EQ(mine->page.totalSearchedCount, theirs->page.totalSearchedCount);
  ASSERT_EQ(mine->emails.size(), theirs->emails.size());
  for (size_t i = 0; i < mine->emails.size(); ++i) EXPECT_EQ(mine->emails[i]->id, theirs->emails[i]->id);
  EXPECT_EQ(model::WarmSearchIndexes(s, 100, 64), 0u);  // up to date: nothing to do
}

// The warmer builds them on a thread of its own when kicked (emsim's start), and again for every
// world that replaces the one it built them for (reset, state load): those start with no index.
TEST(SearchWarmer, BuildsAtTheKickAndAgainForEveryWorldThatReplacesIt) {
  auto indexed = [](const runtime::Store& store) {
    return store.Read([](const model::State& s) {
      return std::to_string(s.mailboxSearch.Workspaces()) + " " + std::to_string(s.domainSearch.Workspaces()) + " " +
             std::to_string(s.emailSearch.Workspaces());
    });
  };
  runtime::Store store(Generated(ThreeWorkspaces()));
  runtime::SearchWarmer warmer(store, 100);
  store.SetReplacedObserver([&] { warmer.Kick(); });
  EXPECT_TRUE(warmer.status().ready);
  EXPECT_EQ(indexed(store), "0 0 0");  // nothing before the kick

  warmer.Kick();
  warmer.AwaitReady();
  EXPECT_TRUE(warmer.status().ready);
  EXPECT_EQ(warmer.status().left, 0u);
  EXPECT_EQ(indexed(store), "3 0 3");
  EXPECT_EQ(store.Read([](const model::State& s) { return model::IndexProblems(s); }), "");

  store.Reset();  // the world the store began with, as a copy: no index of its own
  warmer.AwaitReady();
  EXPECT_EQ(indexed(store), "3 0 3");

  fixture::GenerateOptions bigger = ThreeWorkspaces();
  bigger.mailboxesPerDomain = 2;  // 50 domains a workspace: below 100 still
  bigger.emailsPerMailbox = 0;
  store.Load(Generated(bigger));
  warmer.AwaitReady();
  EXPECT_EQ(indexed(store), "3 0 0");
  EXPECT_EQ(store.Read([](const model::State& s) { return model::IndexProblems(s); }), "");

  // Off: a kick builds nothing and nothing waits.
  runtime::Store other(Generated(ThreeWorkspaces()));
  runtime::SearchWarmer off(other, 0);
  off.Kick();
  off.AwaitReady();
  EXPECT_TRUE(off.status().ready);
  EXPECT_EQ(indexed(other), "0 0 0");
}

TEST(FixtureGenerate, TheGenerateMappingAndTheExpandedYamlGiveTheSameState) {
  fixture::GenerateOptions o;
  o.mailboxes = 23;
  o.accounts = 3;
  o.mailboxesPerDomain = 4;
  o.emailsPerMailbox = 2;
  std::ostringstream compact, expanded;
  fixture::WriteGeneratedFixture(compact, o, false);
  fixture::WriteGeneratedFixture(expanded, o, true);
  EXPECT_NE(compact.str().find("generate:"), std::string::npos);
  EXPECT_EQ(expanded.str().find("generate:"), std::string::npos);
  const model::State a = fixture::LoadFixtureText(compact.str(), "compact.yaml", 1).state;
  const model::State b = fixture::LoadFixtureText(expanded.str(), "expanded.yaml", 1).state;
  EXPECT_EQ(model::DumpState(a), model::DumpState(b));
  EXPECT_EQ(a.accounts.size(), 3u);
  EXPECT_EQ(a.mailboxes.size(), 23u);
  EXPECT_EQ(a.emails.size(), 46u);
  EXPECT_EQ(a.domains.size(), 2u + 2u + 2u);  // 8, 8, 7 mailboxes at 4 a domain
  EXPECT_EQ(a.accountByApiKey.at(fixture::GeneratedApiKey(3)), "acc_gen_00003");
  EXPECT_EQ(model::IndexProblems(a), "");
}

TEST(FixtureGenerate, BadOptionsAndCollisionsAreFixtureErrors) {
  const std::string head = "version: 1\nclock: { start: \"2026-01-01T09:00:00.000Z\" }\n";
  try {
    fixture::LoadFixtureText(head + "generate: { mailboxes: -5 }\n", "bad.yaml", 1);
    FAIL() << "accepted a negative mailbox count";
  } catch (const fixture::FixtureError& e) {
    EXPECT_NE(std::string(e.what()).find("generate.mailboxes"), std::string::npos) << e.what();
  }
  try {
    fixture::LoadFixtureText(head + "generate: { mailboxes: 1, colour: blue }\n", "bad.yaml", 1);
    FAIL() << "accepted an unknown key";
  } catch (const fixture::FixtureError& e) {
    EXPECT_NE(std::string(e.what()).find("generate.colour"), std::string::npos) << e.what();
  }
  // An account of the file with a generated account's API key.
  std::ostringstream text;
  text << head << "accounts:\n  - id: acc_x\n    apiKey: emsim_gen_00001\n    user: { id: u, email: e }\n"
       << "    workspaces: [{ id: ws_x, name: X, default: true }]\ngenerate: { mailboxes: 1 }\n";
  EXPECT_THROW(fixture::LoadFixtureText(text.str(), "clash.yaml", 1), fixture::FixtureError);
  // The ids a generation hands out, taken by the file: refused whether the records are made at the
  // load or only when asked (a restart from a data dir), with the same message.
  for (const std::string taken : {"id: acc_gen_00001", "id: acc_x\n    workspaces: [{ id: ws_gen_00001, name: X, default: true }]"}) {
    std::ostringstream clash;
    clash << head << "accounts:\n  - " << taken << "\n    apiKey: k\n    user: { id: u, email: e }\n"
          << (taken.find("ws_gen") == std::string::npos ? "    workspaces: [{ id: ws_x, name: X, default: true }]\n" : "")
          << "generate: { mailboxes: 1 }\n";
    std::string now, asked;
    try {
      fixture::LoadFixtureText(clash.str(), "clash.yaml", 1);
    } catch (const fixture::FixtureError& e) {
      now = e.what();
    }
    try {
      fixture::LoadFixtureText(clash.str(), "clash.yaml", 1, fixture::Generated::kWhenAsked);
    } catch (const fixture::FixtureError& e) {
      asked = e.what();
    }
    EXPECT_NE(now.find("is taken"), std::string::npos) << taken << ": " << now;
    EXPECT_EQ(asked, now) << taken;
  }
  // Deferred, the file's own records only, until Expand makes the same world.
  fixture::GenerateOptions o;
  o.mailboxes = 7;
  std::ostringstream gen;
  fixture::WriteGeneratedFixture(gen, o, false);
  fixture::Fixture later = fixture::LoadFixtureText(gen.str(), "gen.yaml", 1, fixture::Generated::kWhenAsked);
  EXPECT_TRUE(later.deferred);
  EXPECT_EQ(later.state.mailboxes.size(), 0u);
  later.Expand();
  EXPECT_EQ(model::DumpState(later.state), model::DumpState(fixture::LoadFixtureText(gen.str(), "gen.yaml", 1).state));
}

TEST(FormatIso, DigitsByHandMatchTheSpecForm) {
  EXPECT_EQ(model::FormatIso(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(model::FormatIso(1767258000123), "2026-01-01T09:00:00.123Z");
  EXPECT_EQ(model::FormatIso(951782399999), "2000-02-28T23:59:59.999Z");
  EXPECT_EQ(*model::ParseIso(model::FormatIso(1709164800000)), 1709164800000);  // 2024-02-29 round-trips
}

// FormatIsoTo keeps the text of recent dates in a small per-thread cache. Whatever the
// order of the calls (days that share a cache slot, alternating; negative times; years past
// 9999, which the fast path does not write), the text is gmtime's.
TEST(FormatIso, TheDateCacheNeverChangesTheText) {
  auto reference = [](model::Millis t) {
    const model::Millis ms = ((t % 1000) + 1000) % 1000;
    const std::time_t secs = static_cast<std::time_t>((t - ms) / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
    return std::string(buf);
  };
  const model::Millis day = 86'400'000;
  std::vector<model::Millis> times;
  for (model::Millis base : {model::Millis{1767258000123}, model::Millis{0}, model::Millis{-1}, -day * 400 - 5,
                             model::Millis{253402300799999}, model::Millis{253402300800000}}) {
    for (int i = 0; i < 64; ++i) {
      times.push_back(base + (i % 2 ? 16 : 0) * day + i * 3'600'007);  // days 16 apart share a slot
      times.push_back(base + i * day * 16 + i);
    }
  }
  for (model::Millis t : times) ASSERT_EQ(model::FormatIso(t), reference(t)) << t;
  for (auto it = times.rbegin(); it != times.rend(); ++it) ASSERT_EQ(model::FormatIso(*it), reference(*it)) << *it;
}

// The journal records the same fields it always did, though it now builds them when listed.
TEST(Journal, ListsEveryFieldOfARequest) {
  testing::TestServer server;
  auto bad = server.Get("/v1/domain/list?page=abc");
  ASSERT_EQ(bad.status, 400);
  server.Post("/v1/billing-details/add-or-update", {{"workspaceId", "ws_northwind"}, {"password", "hunter2"}});
  auto list = server.Get("/_sim/requests", "");
  ASSERT_EQ(list.status, 200);
  const json& entries = list.body["requests"];
  ASSERT_EQ(entries.size(), 2u) << list.raw;
  const json& first = entries[0];
  EXPECT_EQ(first["id"], bad.Header("x-request-id"));
  EXPECT_EQ(first["time"], "2026-01-01T09:00:00.000Z");
  EXPECT_EQ(first["method"], "GET");
  EXPECT_EQ(first["path"], "/v1/domain/list");
  EXPECT_EQ(first["query"], json({{"page", "abc"}}));
  EXPECT_EQ(first["operationId"], "domains.list");
  EXPECT_EQ(first["status"], 400);
  EXPECT_TRUE(first["validationErrors"].is_array());
  EXPECT_EQ(first["response"]["status"], 400);
  EXPECT_FALSE(first.contains("body"));
  const json& second = entries[1];
  EXPECT_EQ(second["body"]["password"], "[redacted]");
  EXPECT_EQ(second["body"]["workspaceId"], "ws_northwind");
  auto filtered = server.Get("/_sim/requests?method=GET", "");
  EXPECT_EQ(filtered.body["requests"].size(), 1u);
  EXPECT_EQ(server.Get("/_sim/requests?limit=1", "").body["requests"][0]["method"], "POST");
}


runtime::JournalEntry Entry(const std::string& id) {
  runtime::JournalEntry e;
  e.id = id;
  e.method = "GET";
  e.path = "/t";
  e.status = 200;
  return e;
}

// The journal is striped (one lock per stripe). Whatever the stripes, it keeps exactly
// the newest `capacity` entries, oldest first, in the order they were added, also when the
// capacity is not a multiple of the stripe count and the rings have wrapped.
TEST(Journal, KeepsTheNewestEntriesInOrderAcrossStripes) {
  for (size_t capacity : {1u, 5u, 300u, 1000u}) {
    runtime::Journal journal(capacity);
    const size_t added = capacity * 3 + 7;
    for (size_t i = 0; i < added; ++i) journal.Add(Entry("r" + std::to_string(i)));
    EXPECT_EQ(journal.size(), capacity);
    const json listed = journal.List({}, 0);
    ASSERT_EQ(listed.size(), capacity);
    for (size_t i = 0; i < capacity; ++i) {
      ASSERT_EQ(listed[i]["id"], "r" + std::to_string(added - capacity + i)) << "capacity " << capacity;
    }
    EXPECT_EQ(journal.List({}, 2).back()["id"], "r" + std::to_string(added - 1));
    journal.Clear();
    EXPECT_EQ(journal.size(), 0u);
    journal.Add(Entry("after"));
    ASSERT_EQ(journal.List({}, 0).size(), 1u);
  }
}

// A durable answer goes out once its change is on disk; its entry is pending until then: not
// listed, not counted, then listed in its place among the others, as sent or as replaced.
TEST(Journal, APendingEntryIsListedOnlyOnceItsAnswerIsOut) {
  runtime::Journal journal(300);
  journal.Add(Entry("before"));
  runtime::JournalEntry waiting = Entry("waiting");
  waiting.pending = true;
  const std::uint64_t waiting_ticket = journal.Add(std::move(waiting));
  runtime::JournalEntry refused = Entry("refused");
  refused.pending = true;
  const std::uint64_t refused_ticket = journal.Add(std::move(refused));
  journal.Add(Entry("after"));
  auto ids = [&] {
    std::vector<std::string> out;
    for (const auto& e : journal.List({}, 0)) out.push_back(e["id"]);
    return out;
  };
  EXPECT_EQ(ids(), (std::vector<std::string>{"before", "after"}));
  runtime::RequestPattern get;
  get.method = "GET";
  EXPECT_EQ(journal.Count(get)["count"], 2);
  journal.Settle(waiting_ticket);
  EXPECT_EQ(ids(), (std::vector<std::string>{"before", "waiting", "after"}));
  EXPECT_TRUE(journal.Replace(refused_ticket, 500, R"({"status":500,"message":"not written"})"));
  EXPECT_EQ(ids(), (std::vector<std::string>{"before", "waiting", "refused", "after"}));
  const json listed = journal.List({}, 0);
  EXPECT_EQ(listed[1]["status"], 200);
  EXPECT_EQ(listed[2]["status"], 500);
  EXPECT_EQ(listed[2]["response"]["message"], "not written");
  EXPECT_EQ(journal.Count(get)["count"], 4);
  // An entry the ring has dropped since: nothing to settle or replace.
  for (int i = 0; i < 1000; ++i) journal.Add(Entry("later"));  // every stripe wraps
  journal.Settle(waiting_ticket);
  EXPECT_FALSE(journal.Replace(refused_ticket, 500, "{}"));
  EXPECT_EQ(journal.List({}, 0).size(), 300u);
}

// Requests journaled from many threads at once: none is lost while the journal has room, and
// each thread's entries are listed in the order that thread added them.
TEST(Journal, ConcurrentAddsLoseNothing) {
  constexpr int kThreads = 8, kEach = 500;
  runtime::Journal journal(kThreads * kEach);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&journal, t] {
      for (int i = 0; i < kEach; ++i) journal.Add(Entry(std::to_string(t) + ":" + std::to_string(i)));
    });
  }
  for (auto& th : threads) th.join();
  const json listed = journal.List({}, 0);
  ASSERT_EQ(listed.size(), static_cast<size_t>(kThreads * kEach));
  std::vector<int> next(kThreads, 0);
  for (const auto& e : listed) {
    const std::string id = e["id"];
    const int t = std::stoi(id.substr(0, id.find(':'))), i = std::stoi(id.substr(id.find(':') + 1));
    ASSERT_EQ(i, next[t]) << "thread " << t << " out of order";
    ++next[t];
  }
}

}  // namespace
}  // namespace emsim
