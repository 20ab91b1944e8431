// libpq, PostgreSQL's C client library, as Debian's libpq-dev installs it.
#include <libpq-fe.h>

// PG_DIAG_SQLSTATE is a character-literal macro, which Swift does not import.
static inline const char *remvvm_pq_sqlstate(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_SQLSTATE);
}

// PG_DIAG_MESSAGE_DETAIL, likewise: the fence check lists every session another node took over there.
static inline const char *remvvm_pq_detail(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_MESSAGE_DETAIL);
}
