// emsim serving https (--tls-cert/--tls-key, --tls-self-signed): a client that trusts the
// certificate gets the same API; one that does not trust it, or speaks plain HTTP to the TLS
// port, gets nothing and the server goes on serving; bad TLS flags stop the start with a message.
#include <filesystem>
#include <fstream>

#include "tests/support/temp_dir.hpp"
#include "tests/support/test_server.hpp"

namespace emsim::testing {
namespace {

std::unique_ptr<cli::App> StartTls(app::Options o) {
  o.port = 0;
  o.host = "127.0.0.1";
  o.clockMode = runtime::ClockMode::kManual;
  auto app = std::make_unique<cli::App>(o);
  app->Start();
  return app;
}

std::unique_ptr<httplib::SSLClient> TrustingClient(const cli::App& app) {
  auto client = std::make_unique<httplib::SSLClient>("localhost", app.port());
  client->set_ca_cert_path(app.tlsCertificate().c_str());
  client->enable_server_certificate_verification(true);
  client->set_read_timeout(10, 0);
  return client;
}

TEST(TlsServing, SelfSignedCertificateServesTheApiToAClientThatTrustsIt) {
  app::Options o;
  o.tlsSelfSigned = true;
  auto app = StartTls(o);
  ASSERT_FALSE(app->tlsCertificate().empty());
  ASSERT_TRUE(std::filesystem::exists(app->tlsCertificate()));
  EXPECT_EQ(app->baseUrl().rfind("https://", 0), 0u) << app->baseUrl();
  const auto trusting = TrustingClient(*app);
  auto& client = *trusting;
  // Several requests on one kept-alive TLS connection, with a body each way.
  for (int i = 0; i < 3; ++i) {
    auto r = client.Get("/v1/workspace/list", {{"x-auth-service", kAliceKey}});
    ASSERT_TRUE(r) << httplib::to_string(r.error());
    EXPECT_EQ(r->status, 200);
    EXPECT_NE(r->body.find("ws_northwind"), std::string::npos);
  }
  const std::string big(200 * 1024, 'x');  // larger than one TLS record and the input buffer
  auto post = client.Post("/_sim/requests/count", json({{"path", big}}).dump(), "application/json");
  ASSERT_TRUE(post) << httplib::to_string(post.error());
  EXPECT_EQ(post->status, 400);  // the pattern's path is over its length limit: read whole, answered
  // 127.0.0.1 is in the certificate too.
  httplib::SSLClient by_ip("127.0.0.1", app->port());
  by_ip.set_ca_cert_path(app->tlsCertificate().c_str());
  by_ip.enable_server_certificate_verification(true);
  auto health = by_ip.Get("/_sim/health");
  ASSERT_TRUE(health) << httplib::to_string(health.error());
  EXPECT_EQ(health->status, 200);
}

TEST(TlsServing, UntrustingAndPlainClientsGetNothingAndTheServerGoesOn) {
  app::Options o;
  o.tlsSelfSigned = true;
  auto app = StartTls(o);
  httplib::SSLClient untrusting("localhost", app->port());
  untrusting.set_ca_cert_path("/nonexistent-ca.pem");
  untrusting.enable_server_certificate_verification(true);
  untrusting.set_read_timeout(5, 0);
  EXPECT_FALSE(untrusting.Get("/_sim/health"));
  httplib::Client plain("127.0.0.1", app->port());
  plain.set_read_timeout(5, 0);
  auto r = plain.Get("/_sim/health");
  EXPECT_TRUE(!r || r->status != 200);
  const auto trusting = TrustingClient(*app);
  auto& client = *trusting;
  auto after = client.Get("/_sim/health");
  ASSERT_TRUE(after) << httplib::to_string(after.error());
  EXPECT_EQ(after->status, 200);
}

TEST(TlsServing, GivenCertificateAndKeyFilesAreServed) {
  TempDir dir;
  // Made by --tls-self-signed into named files, then served by a second emsim from those files.
  {
    app::Options o;
    o.tlsSelfSigned = true;
    o.tlsCert = dir.path + "/cert.pem";
    o.tlsKey = dir.path + "/key.pem";
    auto maker = StartTls(o);
  }
  ASSERT_TRUE(std::filesystem::exists(dir.path + "/cert.pem"));  // named files are the user's: kept
  EXPECT_EQ(std::filesystem::status(dir.path + "/key.pem").permissions() & std::filesystem::perms::others_read,
            std::filesystem::perms::none);
  app::Options o;
  o.tlsCert = dir.path + "/cert.pem";
  o.tlsKey = dir.path + "/key.pem";
  auto app = StartTls(o);
  const auto trusting = TrustingClient(*app);
  auto& client = *trusting;
  auto r = client.Get("/_sim/health");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
}

std::string StartErrorOf(app::Options o) {
  o.port = 0;
  try {
    cli::App app(o);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(TlsServing, BadTlsFlagsStopTheStartWithAMessage) {
  TempDir dir;
  app::Options only_cert;
  only_cert.tlsCert = dir.path + "/cert.pem";
  EXPECT_NE(StartErrorOf(only_cert).find("--tls-cert and --tls-key go together"), std::string::npos);
  std::ofstream(dir.path + "/junk.pem") << "not a certificate\n";
  app::Options junk;
  junk.tlsCert = dir.path + "/junk.pem";
  junk.tlsKey = dir.path + "/junk.pem";
  EXPECT_NE(StartErrorOf(junk).find("--tls-cert " + dir.path + "/junk.pem"), std::string::npos) << StartErrorOf(junk);
  app::Options missing;
  missing.tlsCert = dir.path + "/none.pem";
  missing.tlsKey = dir.path + "/none-key.pem";
  EXPECT_NE(StartErrorOf(missing).find("--tls-cert"), std::string::npos);
}

}  // namespace
}  // namespace emsim::testing
