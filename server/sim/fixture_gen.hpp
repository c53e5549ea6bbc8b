#pragma once
// Synthetic fixtures of any size (`emsim fixtures generate`, the `generate:` key of a fixture), so
// the benchmark (bench/) and anyone testing at scale can start emsim on 1k, 10k or 100k mailboxes
// without python or a checked-in file. The records are a pure function of the options.
//
// Two forms give the same state: a fixture with a `generate:` mapping builds the records in memory
// at load (100k mailboxes in well under a second), and `--expand` writes every record as plain
// fixture YAML to read or edit (~8 MB per 10k mailboxes, which load in ~0.25 s).
#include <cstdint>
#include <ostream>
#include <string>

#include "model/state.hpp"

namespace emsim::sim {

struct GenerateOptions {
  std::int64_t mailboxes = 1000;        // in all, spread evenly over the accounts
  std::int64_t accounts = 1;            // acc_gen_00001.., API keys emsim_gen_00001..
  std::int64_t mailboxesPerDomain = 5;  // the default fixture has ~4.5
  std::int64_t emailsPerMailbox = 1;    // search corpus (Part 4.9)
  std::int64_t placementCredits = 1000000000;  // per account (MONTHLY placement tests)
  model::Cents walletCents = 100000000;        // per account ($1,000,000.00)
};

// The API key of generated account `n` (1-based): GeneratedApiKey(1) == "emsim_gen_00001".
std::string GeneratedApiKey(std::int64_t n);

// Adds the generated accounts (each with a subscription, one default workspace, its domains,
// mailboxes and emails) to `s`. `default_time` is the fixture's clock start. Throws
// std::invalid_argument when a generated id, API key or domain name is already taken.
void GenerateRecords(model::State& s, const GenerateOptions& o, model::Millis default_time);

// A whole fixture file: the `generate:` form, or with `expand` every record spelled out.
void WriteGeneratedFixture(std::ostream& out, const GenerateOptions& o, bool expand);

}  // namespace emsim::sim
