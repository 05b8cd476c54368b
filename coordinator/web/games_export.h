// GET /api/v1/games.pgn.gz: the games of a selection across runs as one gzip stream of PGN,
// sent with chunked transfer a chunk at a time (rpc/game_export.h), behind the same token as
// the REST API's other reads.
#pragma once

#include "coordinator/http/http_server.h"
#include "coordinator/rpc/user_api.h"

namespace sparring::coordinator::web {

// Serves the route. Parameters (each may repeat, or list values with commas; they combine with
// AND): run=ID, version=NAME, tc=TEXT, kind=NAME, result=win|draw|loss|1-0|1/2-1/2|0-1,
// since=TIME, until=TIME (UTC: YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS]; a date alone as until takes
// its whole day). A bad or unknown parameter is a 400 before any game is read.
void serve_games_export(UserApi& api, const Credential& credential, const HttpRequest& request,
                        HttpResponse& response);

}  // namespace sparring::coordinator::web
