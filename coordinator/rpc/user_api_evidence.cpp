// The UserService's calls on the evidence of faulty games: queries, on the reader, for any
// valid token like the run they belong to (GetRun, ExportGames).
#include "coordinator/rpc/convert_evidence.h"
#include "coordinator/rpc/user_api.h"

namespace sparring::coordinator {

void UserApi::list_faults(const Credential& credential, const v1::ListFaultsRequest& request,
                          v1::ListFaultsResponse* response, Done done) {
    query(
        credential,
        [run_id = request.run_id(), max = request.max_games(), response](Storage& storage) {
            return faults_to_proto(storage, run_id, max, response);
        },
        std::move(done));
}

void UserApi::get_fault(const Credential& credential, const v1::GetFaultRequest& request,
                        v1::FaultyGame* response, Done done) {
    query(
        credential,
        [run_id = request.run_id(), game = request.game(), response](Storage& storage) {
            return fault_to_proto(storage, run_id, game, response);
        },
        std::move(done));
}

}  // namespace sparring::coordinator
