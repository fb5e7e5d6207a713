#pragma once

namespace pfmab {

// `git describe --always --dirty` of the source tree at build time
// ("...-dirty" when it had uncommitted changes), for provenance.
const char* git_commit();

}  // namespace pfmab
