// The benchmark's measuring hands (bench/run.sh drives it; wrk does the load). C++ so the
// benchmark needs nothing beyond what emsim itself needs (no python, no jq).
//
//   emsim-bench startup [--runs N] -- CMD ARGS...   start CMD --port P; time to the first 200 from
//                                                   /_sim/health; CPU time and VmRSS at that moment
//   emsim-bench latency --port P --path PATH [--key K] [--n N]
//                                                   sequential GETs on one keep-alive connection
//   emsim-bench probe --port P --method M --path PATH [--key K] [--body JSON]
//                                                   one request: prints the status; exit 3 when the
//                                                   route does not exist (404 "Route not found"/405)
//   emsim-bench first-id --port P --path PATH --key K --pointer /data/...
//                                                   prints one string of a JSON answer
//   emsim-bench fetch --port P --path PATH [--key K] --out FILE
//                                                   writes the body of a 200 answer to FILE
//   emsim-bench webhooks --port P --endpoints N [--advance 2d] [--clients 4] [--pid SERVER_PID]
//                                                   N failing sinks + endpoints (generated accounts
//                                                   1..N), one event each, set up by C parallel
//                                                   keep-alive clients; times the clock advance
//                                                   (and the server's CPU time in it, with --pid)
// Every result is one line of key=value pairs on stdout.
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

[[noreturn]] void Die(const std::string& msg) {
  std::cerr << "emsim-bench: " << msg << "\n";
  std::exit(2);
}

struct Args {
  std::map<std::string, std::string> flags;
  std::vector<std::string> rest;  // after "--"
  std::string Get(const std::string& k, const std::string& def = "") const {
    auto it = flags.find(k);
    return it == flags.end() ? def : it->second;
  }
  std::string Need(const std::string& k) const {
    auto it = flags.find(k);
    if (it == flags.end()) Die("missing " + k);
    return it->second;
  }
};

Args Parse(int argc, char** argv, int from) {
  Args a;
  for (int i = from; i < argc; ++i) {
    std::string s = argv[i];
    if (s == "--") {
      for (int j = i + 1; j < argc; ++j) a.rest.push_back(argv[j]);
      break;
    }
    if (s.rfind("--", 0) != 0 || i + 1 >= argc) Die("bad argument " + s);
    a.flags[s] = argv[++i];
  }
  return a;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t idx = static_cast<size_t>(p / 100.0 * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(idx, v.size() - 1)];
}

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) Die("cannot find a free port");
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

// CPU time of the process so far (all threads, including ones that have ended, such as the
// fixture loader), in ms: utime + stime of /proc/PID/stat, in clock ticks (usually 10 ms).
double CpuMs(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream fields(text.substr(close + 2));
  std::string f;
  double utime = 0, stime = 0;
  for (int i = 3; fields >> f; ++i) {  // field 3 is the state; utime is 14, stime 15
    if (i == 14) utime = std::stod(f);
    if (i == 15) {
      stime = std::stod(f);
      break;
    }
  }
  return (utime + stime) * 1000.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
}

long RssKb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

httplib::Headers KeyHeader(const std::string& key) {
  httplib::Headers h;
  if (!key.empty()) h.emplace("x-auth-service", key);
  return h;
}

// ---- startup ---------------------------------------------------------------------------------
int Startup(const Args& a) {
  if (a.rest.empty()) Die("startup needs -- CMD ARGS...");
  const int runs = std::stoi(a.Get("--runs", "3"));
  std::vector<double> wall, cpu;
  long rss = 0;
  for (int r = 0; r < runs; ++r) {
    const int port = FreePort();
    std::vector<std::string> cmd = a.rest;
    cmd.push_back("--port");
    cmd.push_back(std::to_string(port));
    std::vector<char*> argv;
    for (auto& s : cmd) argv.push_back(s.data());
    argv.push_back(nullptr);
    const auto t0 = Clock::now();
    pid_t pid = fork();
    if (pid == 0) {
      int devnull = open("/dev/null", O_WRONLY);
      dup2(devnull, 1);
      execv(argv[0], argv.data());
      _exit(127);
    }
    httplib::Client cli("127.0.0.1", port);
    cli.set_connection_timeout(0, 200000);
    bool ok = false;
    while (!ok) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) Die("the server exited before answering (exit " + std::to_string(WEXITSTATUS(status)) + ")");
      if (auto res = cli.Get("/_sim/health"); res && res->status == 200) {
        ok = true;
        break;
      }
      if (Clock::now() - t0 > std::chrono::seconds(120)) {
        kill(pid, SIGKILL);
        Die("no 200 from /_sim/health within 120 s");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    cpu.push_back(CpuMs(pid));
    rss = RssKb(pid);
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
  }
  std::printf("startup_ms=%.1f cpu_ms=%.1f rss_kb=%ld runs=%d\n", Percentile(wall, 50), Percentile(cpu, 50), rss, runs);
  return 0;
}

// ---- latency ---------------------------------------------------------------------------------
int Latency(const Args& a) {
  const int port = std::stoi(a.Need("--port"));
  const std::string path = a.Need("--path"), key = a.Get("--key");
  const int n = std::stoi(a.Get("--n", "1000"));
  httplib::Client cli("127.0.0.1", port);
  cli.set_keep_alive(true);
  const auto headers = KeyHeader(key);
  std::vector<double> us;
  int errors = 0;
  for (int i = 0; i < n + n / 10; ++i) {  // the first 10% warm up and are not counted
    const auto t0 = Clock::now();
    auto res = cli.Get(path, headers);
    const double took = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    if (!res || res->status != 200) ++errors;
    if (i >= n / 10) us.push_back(took);
  }
  std::printf("p50_us=%.0f p99_us=%.0f n=%d errors=%d\n", Percentile(us, 50), Percentile(us, 99), n, errors);
  return 0;
}

// ---- probe -------------------------------------------------------------------------------------
bool RouteMissing(const httplib::Result& res) {
  if (!res) return false;
  if (res->status == 405) return true;
  return res->status == 404 && res->body.find("Route not found") != std::string::npos;
}

httplib::Result Send(httplib::Client& cli, const std::string& method, const std::string& path, const std::string& key,
                     const std::string& body) {
  const auto headers = KeyHeader(key);
  if (method == "GET") return cli.Get(path, headers);
  if (method == "PATCH") return cli.Patch(path, headers, body, "application/json");
  if (method == "PUT") return cli.Put(path, headers, body, "application/json");
  return cli.Post(path, headers, body, "application/json");
}

int Probe(const Args& a) {
  httplib::Client cli("127.0.0.1", std::stoi(a.Need("--port")));
  auto res = Send(cli, a.Get("--method", "GET"), a.Need("--path"), a.Get("--key"), a.Get("--body"));
  if (!res) Die("no answer from the server");
  std::printf("status=%d\n", res->status);
  if (RouteMissing(res)) return 3;
  return 0;
}

// ---- first-id ---------------------------------------------------------------------------------
int FirstId(const Args& a) {
  httplib::Client cli("127.0.0.1", std::stoi(a.Need("--port")));
  auto res = cli.Get(a.Need("--path"), KeyHeader(a.Get("--key")));
  if (!res || res->status != 200) Die("GET " + a.Need("--path") + " failed");
  try {
    std::cout << json::parse(res->body).at(json::json_pointer(a.Need("--pointer"))).get<std::string>() << "\n";
  } catch (const std::exception& e) {
    Die(std::string("no string at ") + a.Need("--pointer") + ": " + e.what());
  }
  return 0;
}

// ---- fetch -------------------------------------------------------------------------------------
int Fetch(const Args& a) {
  httplib::Client cli("127.0.0.1", std::stoi(a.Need("--port")));
  auto res = cli.Get(a.Need("--path"), KeyHeader(a.Get("--key")));
  if (!res || res->status != 200) Die("GET " + a.Need("--path") + " failed");
  std::ofstream out(a.Need("--out"), std::ios::binary);
  out << res->body;
  return out ? 0 : 1;
}

// ---- webhooks --------------------------------------------------------------------------------
std::string Pad(const char* prefix, long n, int width) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%0*ld", prefix, width, n);
  return buf;
}

// `data.x` or `x` of an answer: emsim's public API wraps records in {status, message, data}.
json Field(const json& body, const char* key) {
  if (body.contains(key)) return body[key];
  if (body.contains("data") && body["data"].is_object() && body["data"].contains(key)) return body["data"][key];
  return nullptr;
}

// One account's setup: a failing sink, an endpoint on it, one event. Empty when all went well;
// "SKIPPED..." when a route is missing; otherwise what failed.
std::string SetupAccount(httplib::Client& cli, long i) {
  const std::string key = Pad("emsim_gen_", i, 5);
  // A sink that always fails: every delivery goes through all 8 attempts (Part 6).
  auto sink = Send(cli, "POST", "/_sim/sinks", "", json{{"status", 500}}.dump());
  if (RouteMissing(sink)) return "SKIPPED: endpoint not available (404) POST /_sim/sinks";
  if (!sink || sink->status / 100 != 2) return "POST /_sim/sinks: " + (sink ? sink->body : std::string("no answer"));
  const json url = Field(json::parse(sink->body, nullptr, false), "url");
  if (!url.is_string()) return "POST /_sim/sinks answered no url: " + sink->body;
  auto ep = Send(cli, "POST", "/v2/webhooks/endpoints", key,
                 json{{"url", url}, {"enabled_events", {"domain.updated"}}}.dump());
  if (RouteMissing(ep)) return "SKIPPED: endpoint not available (404) POST /v2/webhooks/endpoints";
  if (!ep || ep->status / 100 != 2) return "POST /v2/webhooks/endpoints: " + (ep ? ep->body : std::string("no answer"));
  // Generated account i owns domain dom_gen_<i> when the fixture has one mailbox per account.
  auto ev = Send(cli, "POST", "/_sim/events", "",
                 json{{"type", "domain.updated"}, {"apiKey", key}, {"objectId", Pad("dom_gen_", i, 7)}}.dump());
  if (RouteMissing(ev)) return "SKIPPED: endpoint not available (404) POST /_sim/events";
  if (!ev || ev->status / 100 != 2) return "POST /_sim/events: " + (ev ? ev->body : std::string("no answer"));
  return "";
}

int Webhooks(const Args& a) {
  const int port = std::stoi(a.Need("--port"));
  const long n = std::stol(a.Get("--endpoints", "1000"));
  const std::string advance = a.Get("--advance", "2d");
  const long clients = std::max(1L, std::stol(a.Get("--clients", "4")));
  auto client = [port] {
    auto cli = std::make_unique<httplib::Client>("127.0.0.1", port);
    cli->set_keep_alive(true);
    // httplib writes a POST's headers and body separately; with Nagle on, the body waits for the
    // server's delayed ACK (~40 ms) on a keep-alive connection: 3,000 setup requests took minutes.
    cli->set_tcp_nodelay(true);
    cli->set_read_timeout(600, 0);
    return cli;
  };
  const auto t0 = Clock::now();
  // The setup goes through emsim's real API (the same handlers a test suite calls), from a few
  // keep-alive clients at once; account i is set up whole by one client, so its event finds its
  // endpoint.
  std::atomic<long> next{1};
  std::mutex failed_mu;
  std::string failed;
  std::vector<std::thread> workers;
  for (long c = 0; c < std::min(clients, n); ++c) {
    workers.emplace_back([&] {
      auto cli = client();
      for (long i; (i = next.fetch_add(1)) <= n;) {
        std::string why = SetupAccount(*cli, i);
        if (why.empty()) continue;
        std::lock_guard lock(failed_mu);
        if (failed.empty()) failed = std::move(why);
        next = n + 1;  // the others stop too
      }
    });
  }
  for (auto& t : workers) t.join();
  if (failed.rfind("SKIPPED", 0) == 0) {
    std::printf("%s\n", failed.c_str());
    return 3;
  }
  if (!failed.empty()) Die(failed);
  auto cli_ptr = client();
  httplib::Client& cli = *cli_ptr;
  const double setup_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  // With --pid (the server's), the CPU time the server spent in the advance: on a shared machine
  // wall time moves with the load, CPU time much less (bench/README.md).
  const pid_t server = static_cast<pid_t>(std::stol(a.Get("--pid", "0")));
  const double cpu0 = server ? CpuMs(server) : 0;
  const auto t1 = Clock::now();
  auto adv = Send(cli, "POST", "/_sim/clock/advance", "", json{{"duration", advance}}.dump());
  const double advance_ms = std::chrono::duration<double, std::milli>(Clock::now() - t1).count();
  const double advance_cpu_ms = server ? CpuMs(server) - cpu0 : -1;
  if (!adv || adv->status != 200) Die("POST /_sim/clock/advance: " + (adv ? adv->body : std::string("no answer")));
  // Attempts made (succeeded or failed) are counted apart from the dropped and the still scheduled
  // ones, so "attempts" is exactly the number of POSTs the advance sent.
  long attempts = -1, dropped = -1, scheduled = -1;
  if (auto d = cli.Get("/_sim/deliveries"); d && d->status == 200) {
    const json body = json::parse(d->body, nullptr, false);
    const json list = body.is_array() ? body : Field(body, "deliveries");
    if (list.is_array()) {
      attempts = dropped = scheduled = 0;
      for (const auto& x : list) {
        const std::string st = x.value("status", "");
        if (st == "dropped") ++dropped;
        else if (st == "scheduled") ++scheduled;
        else ++attempts;
      }
    }
  }
  std::printf("endpoints=%ld setup_ms=%.0f advance_ms=%.0f advance_cpu_ms=%.0f attempts=%ld dropped=%ld scheduled=%ld "
              "jobs_run=%s\n",
              n, setup_ms, advance_ms, advance_cpu_ms, attempts, dropped, scheduled,
              json::parse(adv->body).value("jobsRun", json(-1)).dump().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  if (argc < 2) Die("usage: emsim-bench startup|latency|probe|first-id|webhooks ... (see bench/README.md)");
  const std::string cmd = argv[1];
  const Args a = Parse(argc, argv, 2);
  if (cmd == "startup") return Startup(a);
  if (cmd == "latency") return Latency(a);
  if (cmd == "probe") return Probe(a);
  if (cmd == "first-id") return FirstId(a);
  if (cmd == "fetch") return Fetch(a);
  if (cmd == "webhooks") return Webhooks(a);
  Die("unknown command " + cmd);
}
