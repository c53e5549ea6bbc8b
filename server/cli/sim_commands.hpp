#pragma once
// Thin clients of a running emsim's /_sim control plane for the webhook developer's workflow:
// `emsim clock`, `emsim events`, `emsim deliveries`, `emsim trigger` (README "The webhook developer's workflow").
// Exit codes scripts can rely on: 0 success; 1 the emsim answered an error (4xx/5xx, its message
// on stderr) or the thing asked for does not exist; 2 usage error or the emsim is unreachable.
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace emsim::cli {

// Reads EMSIM_URL, EMSIM_ADMIN_TOKEN (and EMSIM_API_KEY for trigger) through `env` (tests pass their own).
using EnvLookup = std::function<const char*(const char*)>;

int ClockCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const EnvLookup& env);
int EventsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const EnvLookup& env);
// `emsim trigger TYPE [--object ID]`: POST /_sim/trigger; also reads EMSIM_API_KEY.
int TriggerCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const EnvLookup& env);
int DeliveriesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                      const EnvLookup& env);

}  // namespace emsim::cli
