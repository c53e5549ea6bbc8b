// CompactString: what a record's id or repeated value reads back is exactly the text it was given,
// in either form, and the pool holds a text for exactly as long as some value does.
#include "core/compact_string.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/json.hpp"

namespace emsim::core {
namespace {

static_assert(sizeof(CompactString) == 16);

std::string Text(const CompactString& s) { return s.str(); }

TEST(CompactString, EveryTextReadsBackAsItWasGivenInEitherForm) {
  const size_t pooled = CompactString::PooledCount();
  const std::vector<std::string> texts = {
      "",
      "56e59f65-537b-414e-985f-c06504bf1dd6",  // canonical, RFC 4122 variant: 16 bytes
      "00000000-0000-4000-8000-000000000000",
      "ffffffff-ffff-ffff-bfff-ffffffffffff",
      "56E59F65-537B-414E-985F-C06504BF1DD6",  // upper case: not canonical, pooled as given
      "56e59f65-537b-414e-c85f-c06504bf1dd6",  // another variant
      "56e59f65-537b-414e-785f-c06504bf1dd6",
      "56e59f65-537b-414e-985f-c06504bf1dd",   // one short
      "56e59f65-537b-414e-985f-c06504bf1dd6 ",  // one long
      "56e59f65+537b-414e-985f-c06504bf1dd6",
      "56e59f65-537b-414e-985f-c06504bf1dg6",
      "acc_alice",
      "partnerships@northwindreach.com",
      std::string("nul\0inside", 10),
      std::string(5000, 'x'),
  };
  for (const auto& t : texts) {
    const CompactString s(t);
    EXPECT_EQ(Text(s), t);
    EXPECT_EQ(s.size(), t.size()) << t;
    EXPECT_EQ(s.empty(), t.empty()) << t;
    CompactString::Buffer buf;
    EXPECT_NE(s.View(buf).data(), nullptr) << "a view handed to memcpy must not be null, even empty";
    EXPECT_TRUE(s == t) << t;
    EXPECT_EQ(s.Hash(), std::hash<std::string_view>{}(t)) << t;
    EXPECT_EQ(json(s), json(t)) << t;
    EXPECT_EQ(json(t).get<CompactString>(), s) << t;
    for (const auto& other : texts) EXPECT_EQ(CompactString(other) == s, other == t) << t << " vs " << other;
    for (const auto& other : texts) EXPECT_EQ(CompactString(other) < s, other < t) << t << " vs " << other;
  }
  EXPECT_EQ(CompactString::PooledCount(), pooled) << "a text outlived every value holding it";
}

TEST(CompactString, RandomUuidsAreHeldInTheirSixteenBytes) {
  std::mt19937_64 rng(7);
  const size_t pooled = CompactString::PooledCount();
  for (int i = 0; i < 2000; ++i) {
    const std::uint64_t hi = rng(), lo = (rng() & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
    const CompactString a = CompactString::FromUuid(hi, lo);
    const std::string text = a.str();
    ASSERT_EQ(text.size(), 36u);
    const CompactString b(text);
    EXPECT_EQ(a, b) << text;
    EXPECT_EQ(CompactString::PooledCount(), pooled) << text << " was pooled, not held in 16 bytes";
  }
}

TEST(CompactString, AUuidIsWrittenAsItsHexDigitsInOrder) {
  EXPECT_EQ(CompactString::FromUuid(0x0123456789abcdefULL, 0x8edcba9876543210ULL).str(),
            "01234567-89ab-cdef-8edc-ba9876543210");
  EXPECT_EQ(CompactString::FromUuid(~0ULL, ~0ULL).str(), "ffffffff-ffff-ffff-bfff-ffffffffffff");  // the variant's bits
}

// Every byte at every place of a canonical UUID: held in 16 bytes exactly when the text is still a
// canonical UUID (lower-case hex digits, dashes where they go, the RFC 4122 variant), and either
// way read back as given.
TEST(CompactString, OnlyCanonicalUuidTextIsHeldAsItsBits) {
  const std::string uuid = "56e59f65-537b-414e-985f-c06504bf1dd6";
  const size_t pooled = CompactString::PooledCount();
  for (size_t at = 0; at < uuid.size(); ++at) {
    for (int byte = 0; byte < 256; ++byte) {
      std::string t = uuid;
      t[at] = static_cast<char>(byte);
      const char c = t[at];
      const bool dash_place = at == 8 || at == 13 || at == 18 || at == 23;
      const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
      bool canonical = dash_place ? c == '-' : hex;
      if (at == 19) canonical = canonical && (c == '8' || c == '9' || c == 'a' || c == 'b');  // the variant's digit
      const CompactString s(t);
      ASSERT_EQ(s.str(), t) << "byte " << byte << " at " << at;
      ASSERT_EQ(CompactString::PooledCount(), pooled + (canonical ? 0 : 1)) << "byte " << byte << " at " << at;
    }
  }
}

TEST(CompactString, APooledTextIsSharedAndFreedWithItsLastHolder) {
  const size_t pooled = CompactString::PooledCount();
  {
    CompactString a("team@northwindreach.com");
    EXPECT_EQ(CompactString::PooledCount(), pooled + 1);
    std::vector<CompactString> copies(1000, a);
    CompactString b(std::string("team@northwindreach.com"));
    EXPECT_EQ(CompactString::PooledCount(), pooled + 1) << "the same text pooled twice";
    EXPECT_EQ(a, b);
    CompactString moved = std::move(b);
    EXPECT_TRUE(b.empty());  // NOLINT: a moved-from value is empty
    a = CompactString("other text");
    EXPECT_EQ(CompactString::PooledCount(), pooled + 2);
    copies.clear();
    EXPECT_EQ(CompactString::PooledCount(), pooled + 2) << "freed while `moved` still holds it";
    moved = a;
    EXPECT_EQ(CompactString::PooledCount(), pooled + 1) << "not freed with its last holder";
    EXPECT_EQ(Text(moved), "other text");
  }
  EXPECT_EQ(CompactString::PooledCount(), pooled);
}

// Values of a few texts made, copied and dropped on several threads at once, each text repeatedly
// reaching its last holder while another thread pools it afresh: every value reads its text, and
// the pool ends as it began (under the sanitizers, a double free or a use after free fails here).
TEST(CompactString, ThreadsPoolingAndDroppingTheSameTextsAgree) {
  const size_t pooled = CompactString::PooledCount();
  const std::vector<std::string> texts = {"ws_northwind", "mbx_nw_01_01", "acc_alice", "MONTHLY"};
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<CompactString> held;
      for (int i = 0; i < 20000; ++i) {
        const std::string& text = texts[rng() % texts.size()];
        switch (rng() % 3) {
          case 0: held.emplace_back(text); break;
          case 1:
            if (!held.empty()) held.push_back(held[rng() % held.size()]);
            break;
          default:
            if (!held.empty()) held.erase(held.begin() + static_cast<std::ptrdiff_t>(rng() % held.size()));
        }
        if (held.size() > 8) held.clear();
        for (const auto& h : held)
          if (std::find(texts.begin(), texts.end(), h.str()) == texts.end()) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(CompactString::PooledCount(), pooled);
}

// A bulk read (a restart) pools each repeated text once: the values it makes are the texts given,
// share the pool's copy with values made outside it, and nothing stays pooled once the scope and
// the values are gone.
TEST(CompactString, ABulkAssignSharesRepeatedTextsAndKeepsNothingAfterIt) {
  const size_t pooled = CompactString::PooledCount();
  {
    const CompactString outside("acc_alice");
    std::vector<CompactString> read;
    {
      CompactString::BulkAssign bulk;
      for (int i = 0; i < 1000; ++i) {
        read.emplace_back("acc_alice");
        read.emplace_back(i % 2 ? "MONTHLY" : "ONE_TIME");
        read.emplace_back("6f1c2a4e-9b7d-4c3e-8a5f-0d2b4e6a8c1f");
      }
      EXPECT_EQ(CompactString::PooledCount(), pooled + 3);  // acc_alice, MONTHLY, ONE_TIME
      CompactString::BulkAssign inner;  // scopes nest
      read.emplace_back("inner text");
    }
    EXPECT_EQ(read[0], outside);
    EXPECT_EQ(read[0].str(), "acc_alice");
    EXPECT_EQ(read[1].str(), "ONE_TIME");
    EXPECT_EQ(read[4].str(), "MONTHLY");
    EXPECT_EQ(read[2].str(), "6f1c2a4e-9b7d-4c3e-8a5f-0d2b4e6a8c1f");
    EXPECT_EQ(read.back().str(), "inner text");
    EXPECT_EQ(CompactString::PooledCount(), pooled + 4);
  }
  EXPECT_EQ(CompactString::PooledCount(), pooled) << "a text outlived every value holding it";
}

// A table's id index hashes a CompactString id from its bits and a looked-up id from its text:
// the two must agree for every form, or a lookup by text misses a record held by value.
TEST(CompactString, TheIdHashOfTheValueIsTheIdHashOfItsText) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 500; ++i) {
    const std::uint64_t hi = rng(), lo = (rng() & ~0xc000000000000000ULL) | 0x8000000000000000ULL;
    const CompactString id = CompactString::FromUuid(hi, lo);
    EXPECT_EQ(id.IdHash(), IdHash(id.str()));
  }
  for (const char* text : {"acc_alice", "", "6F1C2A4E-9B7D-4C3E-8A5F-0D2B4E6A8C1F", "6f1c2a4e-9b7d-4c3e-0a5f-0d2b4e6a8c1f",
                           "evt_6f1c2a4e-9b7d-4c3e-8a5f-0d2b4e6a8c1f"})
    EXPECT_EQ(CompactString(text).IdHash(), IdHash(text)) << text;
  // Distinct UUIDs spread over the low bits the slots use.
  std::set<std::uint64_t> low;
  for (int i = 0; i < 256; ++i) low.insert(CompactString::FromUuid(0, 0x8000000000000000ULL | static_cast<std::uint64_t>(i)).IdHash() & 0xffff);
  EXPECT_GT(low.size(), 250u);
}

TEST(CompactString, ConcatenatesAndConvertsAsAStringWould) {
  const CompactString id("56e59f65-537b-414e-985f-c06504bf1dd6");
  EXPECT_EQ("cart " + id, "cart 56e59f65-537b-414e-985f-c06504bf1dd6");
  EXPECT_EQ(std::string("cart ") + id + "!", "cart 56e59f65-537b-414e-985f-c06504bf1dd6!");
  const std::string as_string = id;
  EXPECT_EQ(as_string, "56e59f65-537b-414e-985f-c06504bf1dd6");
  // A value that is not a string is refused as a std::string member is (state loads quote it).
  auto refusal = [](auto read) -> std::string {
    try {
      read();
    } catch (const json::type_error& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(refusal([] { (void)json(5).get<CompactString>(); }), refusal([] { (void)json(5).get<std::string>(); }));
  EXPECT_NE(refusal([] { (void)json(5).get<CompactString>(); }), "accepted");
}

}  // namespace
}  // namespace emsim::core
