#include "race_checker.h"

#include <algorithm>

namespace tilec::exec::emulator {

void RaceChecker::begin_block(uint32_t bytes) {
  if (cells_.size() < bytes) cells_.resize(bytes);
  ++epoch_;  // nothing of the previous block is in this epoch
  // Sites are per block: the table stays as small as one block's access sites.
  sites_.clear();
  site_indices_.clear();
}

uint32_t RaceChecker::site_index(const AccessSite& site) {
  uint64_t key = site.pc ? uint64_t(reinterpret_cast<uintptr_t>(site.pc))
                         : (uint64_t(uint32_t(site.line)) | (uint64_t(1) << 63));
  auto [it, added] = site_indices_.emplace(key, uint32_t(sites_.size()));
  if (added) sites_.push_back(site);
  return it->second;
}

std::optional<Race> RaceChecker::access(uint32_t offset, uint32_t bytes, bool is_write,
                                        uint32_t thread, const AccessSite& site) {
  uint32_t end = std::min<uint32_t>(offset + bytes, uint32_t(cells_.size()));
  std::optional<uint32_t> index;
  for (uint32_t at = offset; at < end; ++at) {
    Cell& c = cells_[at];
    bool written = c.write_epoch == epoch_;
    if (written && c.writer != thread) {
      return Race{at, true, is_write, c.writer, sites_[c.write_site], thread, site};
    }
    if (is_write && c.read_epoch == epoch_) {
      if (c.reader != thread)
        return Race{at, false, true, c.reader, sites_[c.read_site], thread, site};
      if (c.read_many && c.other_reader != thread)
        return Race{at, false, true, c.other_reader, sites_[c.other_read_site], thread, site};
    }
    if (!index) index = site_index(site);
    if (is_write) {
      c.write_epoch = epoch_;
      c.writer = thread;
      c.write_site = *index;
    } else if (c.read_epoch != epoch_) {
      c.read_epoch = epoch_;
      c.reader = thread;
      c.read_site = *index;
      c.read_many = false;
    } else if (c.reader != thread && !c.read_many) {
      c.read_many = true;
      c.other_reader = thread;
      c.other_read_site = *index;
    }
  }
  return std::nullopt;
}

}  // namespace tilec::exec::emulator
