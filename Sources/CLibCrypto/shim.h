// OpenSSL's libcrypto, as Debian's libssl-dev installs it: SHA-256 and a constant-time comparison.
#include <openssl/crypto.h>
#include <openssl/sha.h>
