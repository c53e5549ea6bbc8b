#pragma once
// GET /_sim/ui: the dashboard, a page of plain HTML, CSS and JavaScript (server/api/control/ui/,
// embedded in the binary: ui_files.hpp). The files hold no data: the page's script reads the
// same /_sim JSON routes as any client, sending the admin token the user typed when emsim has
// one. So the files are served without the token, like a sink's receiving address (app/router).
#include "app/types.hpp"

namespace emsim::api {

app::Reply SimUiPage(app::Ctx& ctx);  // GET /_sim/ui         index.html
app::Reply SimUiFile(app::Ctx& ctx);  // GET /_sim/ui/:file   app.js, style.css, ...

}  // namespace emsim::api
